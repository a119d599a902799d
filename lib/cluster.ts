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
   * A pino logger for the servers.
   * @default the package's root logger
   */
  logger?: Logger;
}

export interface Cluster {
  namesrvAddr: string;
  namesrv: NamesrvController;
  brokers: BrokerController[];
  /** Restarts broker `i` on the same port and store (offsets and messages survive). */
  restartBroker(i: number): Promise<BrokerController>;
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
  const configs: { brokerConfig: Partial<BrokerConfig>; storeConfig: Partial<MessageStoreConfig> }[] = [];
  const brokers: BrokerController[] = [];
  const make = (i: number, port: number) => new BrokerController({
    brokerConfig: configs[i].brokerConfig,
    messageStoreConfig: configs[i].storeConfig,
    remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: port },
    logger: options.logger,
  });
  try {
    for (let i = 0; i < (options.brokers ?? 1); i++) {
      const storePathRootDir = path.join(root, `broker-${i}`);
      configs.push({
        brokerConfig: {
          brokerName: `broker-${String.fromCharCode(97 + i)}`,
          brokerClusterName: 'DefaultCluster',
          brokerIP1: '127.0.0.1',
          namesrvAddr,
          listenPort: 0,
          ...options.brokerConfig,
          storePathRootDir,
        },
        storeConfig: { ...TEST_STORE_CONFIG, ...options.storeConfig, storePathRootDir },
      });
      const b = make(i, 0);
      brokers.push(b);
      await b.start();
    }
  } catch (err) {
    for (const b of brokers) await b.shutdown().catch(() => undefined);
    await namesrv.shutdown();
    await fs.rm(root, { recursive: true, force: true });
    throw err;
  }
  let stopped: Promise<void> | null = null;
  return {
    namesrvAddr,
    namesrv,
    brokers,
    async restartBroker(i: number): Promise<BrokerController> {
      const old = brokers[i];
      const port = old.listenPort;
      await old.shutdown();
      const b = make(i, port);
      brokers[i] = b;
      await b.start();
      return b;
    },
    stop(): Promise<void> {
      if (!stopped) {
        stopped = (async () => {
          for (const b of brokers) await b.shutdown();
          await namesrv.shutdown();
          await fs.rm(root, { recursive: true, force: true });
        })();
      }
      return stopped;
    },
  };
}
