/**
 * An in-process cluster for tests and examples: one name server and N brokers on 127.0.0.1 port 0, each broker with
 * a temp store of small files, all removed on stop(). Also a DLedger group (`dledger`), master/slave groups
 * (`slaves`), and a controller-mode broker set (`controller`: a controller, alone or in the name server, and
 * `replicas` brokers with enableControllerMode and allAckInSyncStateSet, the master elected by the controller).
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
import { ControllerManager } from './controller/controller-manager';
import type { ControllerConfig } from './controller/controller-config';
import { ClusterStartTimeoutError, ConfigError } from './errors';
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
   * Controller mode (RIP-44): one controller (a single DLedger node; or the name server's, with `controllerInNamesrv`)
   * and one broker set, broker-a, of `replicas` brokers with enableControllerMode and allAckInSyncStateSet (a SEND_OK
   * means every replica of the SyncStateSet has the message). `brokers` holds the replicas; the controller picks the
   * master (`Cluster.master()`). startCluster resolves once the master is registered with the name server as broker
   * id 0 and every replica is in its SyncStateSet. Timings are short (`CONTROLLER_MODE_TEST_TIMINGS`: heartbeats
   * every 300 ms, replica info every 500 ms), so a failover takes well under a second; brokerConfig and
   * controllerConfig override them. Refused together with `dledger` or `slaves`.
   * @default false
   */
  controller?: boolean;
  /**
   * Brokers of the controller-mode set.
   * @default 2
   */
  replicas?: number;
  /**
   * Run the controller inside the name server (Java's enableControllerInNamesrv) rather than as a ControllerManager of
   * its own.
   * @default false
   */
  controllerInNamesrv?: boolean;
  /**
   * Controller mode: how many controllers form the group (one DLedger group of `controllers` nodes, each its own
   * ControllerManager; the brokers' controllerAddr lists them all). 3 survives the loss of one controller, as a Java
   * controller group does. Not with controllerInNamesrv.
   * @default 1
   */
  controllers?: number;
  /** Controller keys over the short timings (e.g. enableElectUncleanMaster). */
  controllerConfig?: Partial<ControllerConfig>;
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
  /** The (first) controller of a controller-mode cluster (the name server's with controllerInNamesrv), else null. */
  controller: ControllerManager | null;
  /** Every controller of the group (`controllers` of them; empty without controller mode). */
  controllers: ControllerManager[];
  /** The brokers' controllerAddr: every controller's address, `;`-separated; else ''. */
  controllerAddr: string;
  /** The controller of the group that leads now, if any. */
  controllerLeader(): ControllerManager | null;
  /** Stops controller `i` of the group (the others elect a new leader when it led). */
  stopController(i: number): Promise<void>;
  /** Starts controller `i` again on its port and store after stopController. */
  startController(i: number): Promise<ControllerManager>;
  /** Controller mode: the running replica that is master now (SYNC_MASTER at run time), else null. */
  master(): BrokerController | null;
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

/**
 * The short timings of startCluster's controller mode (and `rocketmq-ts start --controller --fast`): broker to
 * controller, broker to broker (HA) and the controller's own DLedger node. Java's defaults are 1-5 s each.
 */
export const CONTROLLER_MODE_TEST_TIMINGS = Object.freeze({
  brokerConfig: Object.freeze({
    syncBrokerMetadataPeriod: 500, checkSyncStateSetPeriod: 500, syncControllerMetadataPeriod: 1000,
    controllerHeartBeatTimeoutMills: 4000, brokerHeartbeatInterval: 300,
  }) satisfies Partial<BrokerConfig>,
  storeConfig: Object.freeze({ haSendHeartbeatInterval: 1000, haMaxTimeSlaveNotCatchup: 6000 }) satisfies Partial<MessageStoreConfig>,
  controllerConfig: Object.freeze({
    controllerDLegerHeartBeatTimeIntervalMs: 200, controllerDLegerMinVoteIntervalMs: 20, controllerDLegerMaxVoteIntervalMs: 60,
    scanNotActiveBrokerInterval: 500, scanInactiveMasterInterval: 500,
  }) satisfies Partial<ControllerConfig>,
  replicasManager: Object.freeze({ retryIntervalMillis: 500, initialDelayMillis: 300 }),
});

export async function startCluster(options: StartClusterOptions = {}): Promise<Cluster> {
  const replicas = options.controller ? options.replicas ?? 2 : 0;
  if (options.controller && (options.dledger || options.slaves)) throw new ConfigError('startCluster: controller mode cannot be combined with dledger or slaves');
  if (options.controller && (!Number.isInteger(replicas) || replicas < 1)) throw new ConfigError(`startCluster: replicas must be at least 1, got ${options.replicas}`);
  const controllerCount = options.controller ? options.controllers ?? 1 : 0;
  if (options.controller && (!Number.isInteger(controllerCount) || controllerCount < 1)) throw new ConfigError(`startCluster: controllers must be at least 1, got ${options.controllers}`);
  if (controllerCount > 1 && options.controllerInNamesrv) throw new ConfigError('startCluster: controllers > 1 cannot be combined with controllerInNamesrv');
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'rocketmq-ts-cluster-'));
  const controllerPorts: number[] = [];
  for (let i = 0; i < controllerCount; i++) controllerPorts.push(await freePort());
  const controllerConfig = (i: number): Partial<ControllerConfig> => ({
    ...CONTROLLER_MODE_TEST_TIMINGS.controllerConfig,
    controllerDLegerGroup: 'DefaultControllerGroup', controllerDLegerPeers: controllerPorts.map((p, k) => `n${k}-127.0.0.1:${p}`).join(';'),
    controllerDLegerSelfId: `n${i}`,
    controllerStorePath: path.join(root, `controller${i || ''}`), configStorePath: path.join(root, `controller${i || ''}`, 'controller.properties'),
    mappedFileSize: 4 * 1024 * 1024, controllerBindAddress: '127.0.0.1',
    ...options.controllerConfig,
  });
  const inNamesrv = Boolean(options.controller && options.controllerInNamesrv);
  const namesrv = new NamesrvController(
    {
      listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(root, 'namesrv', 'kvConfig.json'), configStorePath: path.join(root, 'namesrv', 'namesrv.properties'),
      ...(inNamesrv ? { enableControllerInNamesrv: true } : {}),
    },
    { logger: options.logger, ...(inNamesrv ? { controllerConfig: controllerConfig(0) } : {}) },
  );
  try {
    await namesrv.start();
  } catch (err) {
    await fs.rm(root, { recursive: true, force: true });
    throw err;
  }
  const namesrvAddr = namesrv.address;
  const controllers: ControllerManager[] = namesrv.controllerManager ? [namesrv.controllerManager] : [];
  const ownControllers = () => controllers.filter((c) => c !== namesrv.controllerManager);
  if (options.controller && controllers.length === 0) {
    for (let i = 0; i < controllerCount; i++) controllers.push(new ControllerManager(controllerConfig(i), { logger: options.logger }));
    try {
      await Promise.all(controllers.map((c) => c.start()));
    } catch (err) {
      for (const c of controllers) await c.shutdown();
      await namesrv.shutdown();
      await fs.rm(root, { recursive: true, force: true });
      throw err;
    }
  }
  const controller: ControllerManager | null = controllers[0] ?? null;
  const controllerAddr = controllers.map((c) => c.address).join(';');
  const controllerLeader = () => controllers.find((c) => c.isRunning && c.isLeaderState) ?? null;
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
    ...(options.controller ? { replicasManager: CONTROLLER_MODE_TEST_TIMINGS.replicasManager } : {}),
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
    if (controller) {
      // The controllers' DLedger group elects a leader within a few vote intervals; brokers that come before are retried.
      await until(() => controllerLeader() !== null, 30_000, 'a controller to lead');
      for (let i = 0; i < replicas; i++) {
        const storePathRootDir = path.join(root, `broker-a-r${i}`);
        configs.push({
          brokerConfig: {
            brokerName: 'broker-a', brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', brokerIP2: '127.0.0.1', namesrvAddr, listenPort: 0,
            enableControllerMode: true, controllerAddr,
            ...CONTROLLER_MODE_TEST_TIMINGS.brokerConfig,
            ...(options.grpc ? { grpcServerPort: 0 } : {}),
            ...options.brokerConfig, storePathRootDir,
          },
          storeConfig: { ...TEST_STORE_CONFIG, ...CONTROLLER_MODE_TEST_TIMINGS.storeConfig, allAckInSyncStateSet: true, ...options.storeConfig, storePathRootDir },
        });
        const b = makeFrom(configs[i], 0);
        brokers.push(b);
        // One after the other: the first to ask for an election is the first master.
        await b.start();
      }
      await until(() => {
        const m = masterOf(brokers);
        return m !== null && m.replicasManager!.syncStateSet.syncStateSet.length === replicas
          && namesrv.routeInfoManager.brokerAddrTable.get('broker-a')?.brokerAddrs.get(0) === m.brokerAddr;
      }, 60_000, `a master of broker-a registered with the name server and ${replicas} replicas in its SyncStateSet`);
    }
    for (let i = 0; i < (peersCount > 0 || options.controller ? 0 : options.brokers ?? 1); i++) {
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
    for (const c of ownControllers()) await c.shutdown();
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
    get controller(): ControllerManager | null {
      return controllers[0] ?? null;
    },
    controllers,
    controllerAddr,
    controllerLeader,
    async stopController(i: number): Promise<void> {
      if (controllers[i] === namesrv.controllerManager) throw new ConfigError('stopController: the controller runs in the name server');
      await controllers[i].shutdown();
    },
    async startController(i: number): Promise<ControllerManager> {
      if (controllers[i] === namesrv.controllerManager) throw new ConfigError('startController: the controller runs in the name server');
      // Its port is in every peer list and every broker's controllerAddr: the same one again, on the same store.
      const c = new ControllerManager(controllerConfig(i), { logger: options.logger });
      controllers[i] = c;
      await c.start();
      return c;
    },
    master: () => masterOf(brokers),
    slaves,
    async stopBroker(i: number): Promise<void> {
      ports.set(i, brokers[i].listenPort);
      haPorts.set(i, brokers[i].replicasManager?.haListenPort ?? (brokers[i].dledgerCommitLog ? 0 : brokers[i].replication.haListenPort));
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
          for (const c of ownControllers()) await c.shutdown();
          await namesrv.shutdown();
          await fs.rm(root, { recursive: true, force: true });
        })();
      }
      return stopped;
    },
  };
}

/** The running controller-mode broker that holds the master role, if any. */
function masterOf(brokers: readonly BrokerController[]): BrokerController | null {
  return brokers.find((b) => b.isRunning && b.replicasManager?.state === 'RUNNING' && b.replicasManager.isMasterState) ?? null;
}

async function until(check: () => boolean, limitMs: number, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new ClusterStartTimeoutError(what, limitMs);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const handedOutPorts = new Set<number>();

/** Whether freePort() handed out this port before in this process (it may be in use by then, or about to be). */
export function portHandedOut(port: number): boolean {
  return handedOutPorts.has(port);
}

/** Counts a port chosen another way (a neighbour of a freePort() port a process will bind) as handed out. */
export function markPortHandedOut(port: number): void {
  handedOutPorts.add(port);
}

/**
 * A port free on 127.0.0.1 now (DLedger peers must know each other's ports before they start; benches and tests too),
 * never one handed out before in this process: a port picked for a peer that has not bound it yet is free to the
 * kernel, and would otherwise be handed out again, or picked by a check of neighbouring ports, for another process.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.unref();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const { port: p } = srv.address() as net.AddressInfo;
        srv.close(() => resolve(p));
      });
    });
    if (!handedOutPorts.has(port) || attempt >= 100) {
      handedOutPorts.add(port);
      return port;
    }
  }
}
