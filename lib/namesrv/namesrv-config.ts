/**
 * The name server's configuration: Java's NamesrvConfig plus the server part of NettyServerConfig, with
 * Java's option names and defaults (`listenPort` 9876 as NamesrvStartup sets it).
 *
 * Paths follow Java: `rocketmqHome` from the `rocketmq.home.dir` system property's environment twin
 * `ROCKETMQ_HOME`; `kvConfigPath` = `${user.home}/namesrv/kvConfig.json`; `configStorePath` =
 * `${user.home}/namesrv/namesrv.properties` (where UPDATE_NAMESRV_CONFIG persists the configuration).
 *
 * @see org.apache.rocketmq.common.namesrv.NamesrvConfig
 * @see org.apache.rocketmq.remoting.netty.NettyServerConfig
 */
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors';
import { applyProperties, readPropertiesFile } from '../util/properties-file';

export interface NamesrvConfig {
  /**
   * Java's rocketmqHome (ROCKETMQ_HOME).
   * @default env ROCKETMQ_HOME, else ""
   */
  rocketmqHome: string;
  /**
   * Where the KV config is persisted.
   * @default ~/namesrv/kvConfig.json
   */
  kvConfigPath: string;
  /**
   * Where UPDATE_NAMESRV_CONFIG persists the configuration.
   * @default ~/namesrv/namesrv.properties
   */
  configStorePath: string;
  /** Java's product environment name. No effect in this name server. */
  productEnvName: string;
  /** Java's cluster-test mode. No effect in this name server. */
  clusterTest: boolean;
  /** Adds the ORDER_TOPIC_CONFIG KV entry of a topic to its route (orderTopicConf). */
  orderMessageEnable: boolean;
  /** How often to look for brokers that stopped registering (Java 4.9.8: every 10 s). */
  scanNotActiveBrokerInterval: number;
  /** A broker silent for this long is removed (Java BROKER_CHANNEL_EXPIRED_TIME, 120 s). */
  brokerChannelExpiredTime: number;
  /** Keys UPDATE_NAMESRV_CONFIG refuses, `;`-separated (5.x; these four are always refused). */
  configBlackList: string;
  /** 5.x: answer GET_ALL_TOPIC_LIST_FROM_NAMESERVER (false: SYSTEM_ERROR "disable"). */
  enableAllTopicList: boolean;
  /** 5.x: answer the unit/system/cluster topic lists (false: SYSTEM_ERROR "disable"). */
  enableTopicList: boolean;
  /**
   * 5.x: also run the controller of controller mode in this process (its keys come from the same file; it answers
   * on its own DLedger port, `controllerDLegerPeers`). The name server's routing does not depend on it.
   */
  enableControllerInNamesrv: boolean;
  /** Ours: a port here serves Prometheus metrics at /metrics (-1: off). */
  metricsPort: number;
  /** Address the metrics endpoint binds ('' = every address), as the broker's metricsPromExporterHost. */
  metricsPromExporterHost: string;
  // ---- server (NettyServerConfig)
  /** Address to bind (5.x bindAddress). */
  bindAddress: string;
  /** Port to listen on. */
  listenPort: number;
  /** Idle channels are closed after this many seconds (their broker is then removed). */
  serverChannelMaxIdleTimeSeconds: number;
}

function defaultRocketmqHome(): string {
  return process.env.ROCKETMQ_HOME ?? '';
}

export const DEFAULT_NAMESRV_CONFIG: Readonly<NamesrvConfig> = Object.freeze({
  rocketmqHome: defaultRocketmqHome(),
  kvConfigPath: path.join(os.homedir(), 'namesrv', 'kvConfig.json'),
  configStorePath: path.join(os.homedir(), 'namesrv', 'namesrv.properties'),
  productEnvName: 'center',
  clusterTest: false,
  orderMessageEnable: false,
  scanNotActiveBrokerInterval: 10_000,
  brokerChannelExpiredTime: 120_000,
  configBlackList: 'configBlackList;configStorePath;kvConfigPath;rocketmqHome',
  enableAllTopicList: true,
  enableControllerInNamesrv: false,
  metricsPort: -1,
  metricsPromExporterHost: '',
  enableTopicList: true,
  bindAddress: '0.0.0.0',
  listenPort: 9876,
  serverChannelMaxIdleTimeSeconds: 120,
});

/** Keys that are refused by UPDATE_NAMESRV_CONFIG whatever configBlackList says (Java initConfigBlackList). */
export const ALWAYS_BLACKLISTED = Object.freeze(['configBlackList', 'configStorePath', 'kvConfigPath', 'rocketmqHome']);

/** Defaults merged with `overrides`, checked. */
export function createNamesrvConfig(overrides: Partial<NamesrvConfig> = {}): NamesrvConfig {
  const config: NamesrvConfig = { ...DEFAULT_NAMESRV_CONFIG, ...stripUndefined(overrides) };
  validateNamesrvConfig(config);
  return config;
}

export function validateNamesrvConfig(c: NamesrvConfig): void {
  if (!Number.isInteger(c.listenPort) || c.listenPort < 0 || c.listenPort > 65535) {
    throw new ConfigError(`listenPort must be a port number, got ${c.listenPort}`);
  }
  if (!(c.scanNotActiveBrokerInterval > 0)) {
    throw new ConfigError(`scanNotActiveBrokerInterval must be positive, got ${c.scanNotActiveBrokerInterval}`);
  }
  if (!(c.brokerChannelExpiredTime > 0)) {
    throw new ConfigError(`brokerChannelExpiredTime must be positive, got ${c.brokerChannelExpiredTime}`);
  }
}

/**
 * Reads a Java namesrv.properties file onto a config (Java's `-c`: MixAll.properties2Object). Returns the
 * keys that matched no option (Java ignores them too).
 */
export async function loadNamesrvProperties(file: string, config: NamesrvConfig): Promise<string[]> {
  const props = await readPropertiesFile(file);
  const unknown = applyProperties(config, props);
  validateNamesrvConfig(config);
  return unknown;
}

/** The configuration as Java's `MixAll.properties2String`: one `key=value` line per option. */
export function namesrvConfigToProperties(c: NamesrvConfig): string {
  return Object.entries(c).map(([k, v]) => `${k}=${String(v)}\n`).join('');
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
