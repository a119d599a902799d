/**
 * An in-process cluster for tests and examples: one name server and N brokers on 127.0.0.1 port 0, each broker with
 * a temp store of small files, all removed on stop().
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NamesrvController } from './namesrv/namesrv-controller';
import { BrokerController } from './broker/broker-controller';
import type { BrokerConfig } from './broker/broker-config';
import type { MessageStoreConfig } from './store/message-store-config';
import type { Logger } from './logger';
import type { DLedgerConfig } from './dledger';
import net from 'node:net';

export interface StartClusterOptions {
  /**
   * Number of brokers, named broker-a, broker-b, ... in cluster DefaultCluster.
   * @default 1
   */
  brokers?: number;
  /**
   * broker.conf keys for every broker (enablePropertyFilter, autoCreateTopicEnable, ...).
   * @default {}
   */
  brokerConfig?: Partial<BrokerConfig>;
  /**
   * Store keys for every broker, over TEST_STORE_CONFIG (16 MiB commit-log files, so tests create and roll them quickly).
   * @default TEST_STORE_CONFIG
   */
  storeConfig?: Partial<MessageStoreConfig>;
  /**
   * Slaves per broker group (brokerId 1, 2, ..., same brokerName, role SLAVE).
   * @default 0
   */
  slaves?: number;
  /**
   * Role of the masters (or storeConfig.brokerRole).
   * @default ASYNC_MASTER
   */
  brokerRole?: 'ASYNC_MASTER' | 'SYNC_MASTER';
  /**
   * Options passed to every broker's controller (e.g. the slave's metadata-copy schedule).
   * @default {}
   */
  replication?: { slaveSyncInitialDelayMillis?: number; slaveSyncIntervalMillis?: number };
  /**
   * DLedger mode: one broker group (broker-a) of this many peers (n0, n1, ...) whose commit log is a Raft log
   * (enableDLegerCommitLog); `brokers` holds the peers, the elected leader serves as master. 0 = off.
   * @default 0
   */
  dledger?: number;
  /** DLedger timings for the peers (e.g. short heartbeats in failover tests). */
  dledgerConfig?: Partial<DLedgerConfig>;
  /**
   * Serve the RocketMQ 5.x gRPC protocol from each master too (grpcServerPort 0: a free port; broker.grpcEndpoint.port).
   * @default false
   */
  grpc?: boolean;
  /**
   * A pino logger for the servers.
   * @default the package's root logger
   */
  logger?: Logger;
}

export interface Cluster {
  namesrvAddr: string;
  namesrv: NamesrvController;
  brokers: BrokerController[];
  /** Slave `j` of broker group `i` is `slaves[i * slavesPerBroker + j]`. */
  slaves: BrokerController[];
  /** Restarts broker `i` on the same port and store (offsets and messages survive). */
  restartBroker(i: number): Promise<BrokerController>;
  /** Stops master `i` (its slaves keep serving reads). */
  stopBroker(i: number): Promise<void>;
  /** Starts master `i` again on its port and store after stopBroker. */
  startBroker(i: number): Promise<BrokerController>;
  /** Restarts slave `k` (index into `slaves`) on the same port and store. */
  restartSlave(k: number): Promise<BrokerController>;
  stop(): Promise<void>;
}

/** Small files so tests create and roll them quickly. */
export const TEST_STORE_CONFIG: Readonly<Partial<MessageStoreConfig>> = Object.freeze({
  mappedFileSizeCommitLog: 16 * 1024 * 1024,
  mappedFileSizeConsumeQueue: 6000 * 20,
  maxHashSlotNum: 10000,
  maxIndexNum: 40000,
  writeSegmentSize: 1024 * 1024,
});

export async function startCluster(options: StartClusterOptions = {}): Promise<Cluster> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'rocketmq-ts-cluster-'));
  const namesrv = new NamesrvController(
    { listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(root, 'namesrv', 'kvConfig.json'), configStorePath: path.join(root, 'namesrv', 'namesrv.properties') },
    { logger: options.logger },
  );
  await namesrv.start();
  const namesrvAddr = namesrv.address;
  type Conf = { brokerConfig: Partial<BrokerConfig>; storeConfig: Partial<MessageStoreConfig> };
  const configs: Conf[] = [];
  const slaveConfigs: Conf[] = [];
  const brokers: BrokerController[] = [];
  const slaves: BrokerController[] = [];
  const perBroker = options.slaves ?? 0;
  const makeFrom = (conf: Conf, port: number) => new BrokerController({
    brokerConfig: conf.brokerConfig,
    messageStoreConfig: conf.storeConfig,
    remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: port },
    logger: options.logger,
    replication: options.replication,
    dledger: options.dledgerConfig,
  });
  const masterRole = options.brokerRole ?? options.storeConfig?.brokerRole ?? 'ASYNC_MASTER';
  const peersCount = options.dledger ?? 0;
  let dLegerPeers = '';
  if (peersCount > 0) {
    const peerPorts: number[] = [];
    for (let i = 0; i < peersCount; i++) peerPorts.push(await freePort());
    dLegerPeers = peerPorts.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
  }
  try {
    for (let i = 0; i < peersCount; i++) {
      const storePathRootDir = path.join(root, `broker-a-n${i}`);
      configs.push({
        brokerConfig: {
          brokerName: 'broker-a', brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr, listenPort: 0,
          ...options.brokerConfig, storePathRootDir,
        },
        storeConfig: {
          ...TEST_STORE_CONFIG, ...options.storeConfig, storePathRootDir,
          enableDLegerCommitLog: true, dLegerGroup: 'broker-a', dLegerPeers, dLegerSelfId: `n${i}`,
        },
      });
      const b = makeFrom(configs[i], 0);
      brokers.push(b);
    }
    await Promise.all(brokers.map((b) => b.start()));
    for (let i = 0; i < (peersCount > 0 ? 0 : options.brokers ?? 1); i++) {
      const storePathRootDir = path.join(root, `broker-${i}`);
      configs.push({
        brokerConfig: {
          brokerName: `broker-${String.fromCharCode(97 + i)}`,
          brokerClusterName: 'DefaultCluster',
          brokerIP1: '127.0.0.1',
          namesrvAddr,
          listenPort: 0,
          ...(options.grpc ? { grpcServerPort: 0 } : {}),
          ...options.brokerConfig,
          storePathRootDir,
        },
        storeConfig: { ...TEST_STORE_CONFIG, ...options.storeConfig, brokerRole: masterRole, storePathRootDir },
      });
      const b = makeFrom(configs[i], configs[i].brokerConfig.listenPort ?? 0);
      brokers.push(b);
      await b.start();
      for (let j = 0; j < perBroker; j++) {
        const slaveRoot = path.join(root, `broker-${i}-s${j + 1}`);
        const conf: Conf = {
          brokerConfig: { ...configs[i].brokerConfig, brokerId: j + 1, storePathRootDir: slaveRoot, grpcServerPort: -1 },
          storeConfig: { ...configs[i].storeConfig, brokerRole: 'SLAVE', storePathRootDir: slaveRoot, storePathCommitLog: '' },
        };
        slaveConfigs.push(conf);
        const s = makeFrom(conf, 0);
        slaves.push(s);
        await s.start();
      }
    }
  } catch (err) {
    for (const b of [...slaves, ...brokers]) await b.shutdown().catch(() => undefined);
    await namesrv.shutdown();
    await fs.rm(root, { recursive: true, force: true });
    throw err;
  }
  let stopped: Promise<void> | null = null;
  /** Stops `list[k]` and starts a new broker on the same port and store in its place. */
  const restart = async (list: BrokerController[], k: number, conf: Conf): Promise<BrokerController> => {
    const port = list[k].listenPort;
    await list[k].shutdown();
    const b = makeFrom(conf, port);
    list[k] = b;
    await b.start();
    return b;
  };
  const ports = new Map<number, number>();
  const haPorts = new Map<number, number>();
  return {
    namesrvAddr,
    namesrv,
    brokers,
    slaves,
    async stopBroker(i: number): Promise<void> {
      ports.set(i, brokers[i].listenPort);
      haPorts.set(i, brokers[i].dledgerCommitLog ? 0 : brokers[i].replication.haListenPort);
      await brokers[i].shutdown();
    },
    async startBroker(i: number): Promise<BrokerController> {
      // The same HA port too, so that its slaves reconnect to the address they know.
      const conf = configs[i];
      const b = makeFrom({ ...conf, storeConfig: { ...conf.storeConfig, haListenPort: haPorts.get(i) ?? 0 } }, ports.get(i) ?? brokers[i].listenPort);
      brokers[i] = b;
      await b.start();
      return b;
    },
    restartSlave: (k: number) => restart(slaves, k, slaveConfigs[k]),
    restartBroker: (i: number) => restart(brokers, i, configs[i]),
    stop(): Promise<void> {
      if (!stopped) {
        stopped = (async () => {
          for (const b of [...slaves, ...brokers]) await b.shutdown();
          await namesrv.shutdown();
          await fs.rm(root, { recursive: true, force: true });
        })();
      }
      return stopped;
    },
  };
}

/** A port free on 127.0.0.1 now (DLedger peers must know each other's ports before they start; benches and tests too). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
