/**
 * The controller's configuration: Java 5.3.3's ControllerConfig keys and defaults, read from the same
 * `controller.conf` properties file Java's ControllerStartup reads (`-c`), or from the name server's file when
 * `enableControllerInNamesrv=true`.
 *
 * The controller answers on its own DLedger peer port (the `controllerDLegerSelfId` entry of
 * `controllerDLegerPeers`), as Java's does: brokers' `controllerAddr` points there. Java's JRaft controller
 * (`controllerType=jRaft`) is not provided: only `DLedger`.
 *
 * Ours beyond Java: the DLedger timings (`controllerDLegerHeartBeatTimeIntervalMs`, ...) so tests and small
 * deployments can elect a controller leader faster; they default to DLedger's own defaults.
 *
 * @see org.apache.rocketmq.common.ControllerConfig
 */
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors';
import { parsePeers } from '../dledger/dledger-config';
import { applyProperties, readPropertiesFile } from '../util/properties-file';

export const DLEDGER_CONTROLLER = 'DLedger';
export const JRAFT_CONTROLLER = 'jRaft';

export interface ControllerConfig {
  /** Java's rocketmqHome (ROCKETMQ_HOME). @default env ROCKETMQ_HOME, else "" */
  rocketmqHome: string;
  /** Where UPDATE_CONTROLLER_CONFIG persists the configuration. @default ~/controller/controller.properties */
  configStorePath: string;
  /** `DLedger` (the only one here) or `jRaft` (refused). */
  controllerType: string;
  /** How often the heartbeat manager looks for brokers whose heartbeat expired (ms). @default 5000 */
  scanNotActiveBrokerInterval: number;
  /** Java's request thread pool size (no effect here: one event loop). */
  controllerThreadPoolNums: number;
  /** Java's request queue capacity: requests waiting in the event scheduler beyond it are refused. @default 50000 */
  controllerRequestThreadPoolQueueCapacity: number;
  /** DLedger group of the controllers. */
  controllerDLegerGroup: string;
  /** `n0-127.0.0.1:9878;n1-127.0.0.1:9868;...`: every controller's DLedger address (also its request port). */
  controllerDLegerPeers: string;
  /** This controller's id in controllerDLegerPeers. */
  controllerDLegerSelfId: string;
  /** DLedger data file size. @default 1 GiB */
  mappedFileSize: number;
  /** DLedger store folder ('' = Java's `~/DLedgerController`). @default "" */
  controllerStorePath: string;
  /** Tries of an election the controller triggers (master gone). @default 3 */
  electMasterMaxRetryCount: number;
  /** Whether a replica outside the SyncStateSet may become master (may lose messages). @default false */
  enableElectUncleanMaster: boolean;
  /** Commit an empty entry before answering reads (Java isProcessReadEvent; its key is processReadEvent). @default false */
  processReadEvent: boolean;
  /** Send NOTIFY_BROKER_ROLE_CHANGED to the alive replicas after an election. @default true */
  notifyBrokerRoleChanged: boolean;
  /** How often the leader looks for broker sets whose master is no longer alive (ms). @default 5000 */
  scanInactiveMasterInterval: number;
  /** Keys UPDATE_CONTROLLER_CONFIG refuses, `;`-separated. */
  configBlackList: string;
  // ---- ours: DLedger timings of the controller group (DLedger's defaults)
  /** Leader heartbeat to the other controllers (ms). @default 2000 */
  controllerDLegerHeartBeatTimeIntervalMs: number;
  /** Heartbeats a follower may miss before it runs for leader. @default 3 */
  controllerDLegerMaxHeartBeatLeak: number;
  /** Candidate's random pause before a vote, lower bound (ms). @default 300 */
  controllerDLegerMinVoteIntervalMs: number;
  /** Candidate's random pause before a vote, upper bound (ms). @default 1000 */
  controllerDLegerMaxVoteIntervalMs: number;
  /** Address the controller's port binds. @default 0.0.0.0 */
  controllerBindAddress: string;
}

export const DEFAULT_CONTROLLER_CONFIG: Readonly<ControllerConfig> = Object.freeze({
  rocketmqHome: process.env.ROCKETMQ_HOME ?? '',
  configStorePath: path.join(os.homedir(), 'controller', 'controller.properties'),
  controllerType: DLEDGER_CONTROLLER,
  scanNotActiveBrokerInterval: 5 * 1000,
  controllerThreadPoolNums: 16,
  controllerRequestThreadPoolQueueCapacity: 50000,
  controllerDLegerGroup: '',
  controllerDLegerPeers: '',
  controllerDLegerSelfId: '',
  mappedFileSize: 1024 * 1024 * 1024,
  controllerStorePath: '',
  electMasterMaxRetryCount: 3,
  enableElectUncleanMaster: false,
  processReadEvent: false,
  notifyBrokerRoleChanged: true,
  scanInactiveMasterInterval: 5 * 1000,
  configBlackList: 'configBlackList;configStorePath',
  controllerDLegerHeartBeatTimeIntervalMs: 2000,
  controllerDLegerMaxHeartBeatLeak: 3,
  controllerDLegerMinVoteIntervalMs: 300,
  controllerDLegerMaxVoteIntervalMs: 1000,
  controllerBindAddress: '0.0.0.0',
});

/** Defaults merged with `overrides`, checked; `controllerStorePath` '' becomes Java's `~/DLedgerController`. */
export function createControllerConfig(overrides: Partial<ControllerConfig> = {}): ControllerConfig {
  const config: ControllerConfig = { ...DEFAULT_CONTROLLER_CONFIG };
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) (config as unknown as Record<string, unknown>)[k] = v;
  validateControllerConfig(config);
  return config;
}

/** Java ControllerConfig.getControllerStorePath: '' means `${user.home}/${controllerType}Controller`. */
export function controllerStorePath(c: ControllerConfig): string {
  return c.controllerStorePath || path.join(os.homedir(), `${c.controllerType}Controller`);
}

/** What ControllerManager.initialize checks, and what this controller cannot do. */
export function validateControllerConfig(c: ControllerConfig): void {
  if (c.controllerType !== DLEDGER_CONTROLLER) {
    throw new ConfigError(`controllerType ${c.controllerType} is not supported here (only ${DLEDGER_CONTROLLER})`);
  }
  if (!c.controllerDLegerPeers) throw new ConfigError('Attribute value controllerDLegerPeers of ControllerConfig is null or empty');
  if (!c.controllerDLegerSelfId) throw new ConfigError('Attribute value controllerDLegerSelfId of ControllerConfig is null or empty');
  const peers = parsePeers(c.controllerDLegerPeers);
  if (!peers.has(c.controllerDLegerSelfId)) {
    throw new ConfigError(`controllerDLegerSelfId ${c.controllerDLegerSelfId} is not in controllerDLegerPeers ${c.controllerDLegerPeers}`);
  }
  for (const k of ['scanNotActiveBrokerInterval', 'scanInactiveMasterInterval', 'electMasterMaxRetryCount'] as const) {
    if (!(c[k] > 0)) throw new ConfigError(`${k} must be positive, got ${c[k]}`);
  }
}

/**
 * Applies a properties map (a controller.conf, or a name server's file) onto a config, as Java's
 * MixAll.properties2Object: keys of other objects are ignored. Returns the keys that matched nothing.
 */
export function applyControllerProperties(config: ControllerConfig, props: Map<string, string> | Record<string, string>): string[] {
  return applyProperties(config, props);
}

/** Reads a Java controller.conf onto a fresh config (not yet validated: -p prints an incomplete one too). */
export async function loadControllerProperties(file: string, base: Partial<ControllerConfig> = {}): Promise<ControllerConfig> {
  const config: ControllerConfig = { ...DEFAULT_CONTROLLER_CONFIG, ...base };
  applyControllerProperties(config, await readPropertiesFile(file));
  return config;
}

/** The configuration as Java's `MixAll.properties2String`: one `key=value` line per option. */
export function controllerConfigToProperties(c: ControllerConfig): string {
  return Object.entries(c).map(([k, v]) => `${k}=${String(v)}\n`).join('');
}
