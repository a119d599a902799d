/**
 * Store configuration: Java's option names and defaults.
 *
 * @see org.apache.rocketmq.store.config.MessageStoreConfig
 */
import path from 'node:path';
import os from 'node:os';

export const FlushDiskType = { SYNC_FLUSH: 'SYNC_FLUSH', ASYNC_FLUSH: 'ASYNC_FLUSH' } as const;
export type FlushDiskType = (typeof FlushDiskType)[keyof typeof FlushDiskType];

export const BrokerRole = { ASYNC_MASTER: 'ASYNC_MASTER', SYNC_MASTER: 'SYNC_MASTER', SLAVE: 'SLAVE' } as const;
export type BrokerRole = (typeof BrokerRole)[keyof typeof BrokerRole];

export interface MessageStoreConfig {
  storePathRootDir: string;
  /** Defaults to `<storePathRootDir>/commitlog` when empty. */
  storePathCommitLog: string;
  mappedFileSizeCommitLog: number;
  /** Rounded up to a multiple of 20 bytes, as Java does. */
  mappedFileSizeConsumeQueue: number;
  flushIntervalCommitLog: number;
  flushCommitLogTimed: boolean;
  flushIntervalConsumeQueue: number;
  cleanResourceInterval: number;
  deleteCommitLogFilesInterval: number;
  deleteConsumeQueueFilesInterval: number;
  destroyMapedFileIntervalForcibly: number;
  redeleteHangedFileInterval: number;
  /** Hours of the day when expired files are deleted, `;`-separated ("04"). */
  deleteWhen: string;
  diskMaxUsedSpaceRatio: number;
  /** Hours. */
  fileReservedTime: number;
  maxMessageSize: number;
  checkCRCOnRecover: boolean;
  flushCommitLogLeastPages: number;
  commitCommitLogLeastPages: number;
  flushLeastPagesWhenWarmMapedFile: number;
  flushConsumeQueueLeastPages: number;
  flushCommitLogThoroughInterval: number;
  flushConsumeQueueThoroughInterval: number;
  maxTransferBytesOnMessageInMemory: number;
  maxTransferCountOnMessageInMemory: number;
  maxTransferBytesOnMessageInDisk: number;
  maxTransferCountOnMessageInDisk: number;
  accessMessageInMemoryMaxRatio: number;
  messageIndexEnable: boolean;
  maxHashSlotNum: number;
  maxIndexNum: number;
  maxMsgsNumBatch: number;
  messageIndexSafe: boolean;
  brokerRole: BrokerRole;
  flushDiskType: FlushDiskType;
  syncFlushTimeout: number;
  messageDelayLevel: string;
  offsetCheckInSlave: boolean;
  cleanFileForciblyEnable: boolean;
  /** HA port of a master; 0 = the broker's listenPort + 1 (Java always derives it so), or any free port when that is 0. */
  haListenPort: number;
  /** Heartbeat / offset report interval of both ends of the HA stream (ms). */
  haSendHeartbeatInterval: number;
  /** A master drops an HA connection that sent nothing for this long (ms). */
  haHousekeepingInterval: number;
  /** Most commit-log bytes per HA transfer. */
  haTransferBatchSize: number;
  /** SYNC_MASTER: a slave further behind than this (bytes) counts as unavailable. */
  haSlaveFallbehindMax: number;
  /** A slave's fixed master HA address ("ip:port"); empty = learnt from the name server's REGISTER_BROKER answer. */
  haMasterAddress: string;
  /** Size of one in-memory write segment of a file's tail (not in Java: the store has no mmap). */
  writeSegmentSize: number;
}

export const DEFAULT_MESSAGE_STORE_CONFIG: Readonly<MessageStoreConfig> = Object.freeze({
  storePathRootDir: path.join(os.homedir(), 'store'),
  storePathCommitLog: '',
  mappedFileSizeCommitLog: 1024 * 1024 * 1024,
  mappedFileSizeConsumeQueue: 300000 * 20,
  flushIntervalCommitLog: 500,
  flushCommitLogTimed: false,
  flushIntervalConsumeQueue: 1000,
  cleanResourceInterval: 10000,
  deleteCommitLogFilesInterval: 100,
  deleteConsumeQueueFilesInterval: 100,
  destroyMapedFileIntervalForcibly: 1000 * 120,
  redeleteHangedFileInterval: 1000 * 120,
  deleteWhen: '04',
  diskMaxUsedSpaceRatio: 75,
  fileReservedTime: 72,
  maxMessageSize: 1024 * 1024 * 4,
  checkCRCOnRecover: true,
  flushCommitLogLeastPages: 4,
  commitCommitLogLeastPages: 4,
  flushLeastPagesWhenWarmMapedFile: 1024 / 4 * 16,
  flushConsumeQueueLeastPages: 2,
  flushCommitLogThoroughInterval: 1000 * 10,
  flushConsumeQueueThoroughInterval: 1000 * 60,
  maxTransferBytesOnMessageInMemory: 1024 * 256,
  maxTransferCountOnMessageInMemory: 32,
  maxTransferBytesOnMessageInDisk: 1024 * 64,
  maxTransferCountOnMessageInDisk: 8,
  accessMessageInMemoryMaxRatio: 40,
  messageIndexEnable: true,
  maxHashSlotNum: 5000000,
  maxIndexNum: 5000000 * 4,
  maxMsgsNumBatch: 64,
  messageIndexSafe: false,
  brokerRole: BrokerRole.ASYNC_MASTER,
  flushDiskType: FlushDiskType.ASYNC_FLUSH,
  syncFlushTimeout: 1000 * 5,
  messageDelayLevel: '1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h',
  offsetCheckInSlave: false,
  cleanFileForciblyEnable: true,
  haListenPort: 0,
  haSendHeartbeatInterval: 1000 * 5,
  haHousekeepingInterval: 1000 * 20,
  haTransferBatchSize: 1024 * 32,
  haSlaveFallbehindMax: 1024 * 1024 * 256,
  haMasterAddress: '',
  writeSegmentSize: 4 * 1024 * 1024,
});

/** Merges user options over the defaults once, with Java's derived values. */
export function resolveMessageStoreConfig(config: Partial<MessageStoreConfig>): MessageStoreConfig {
  const c: MessageStoreConfig = { ...DEFAULT_MESSAGE_STORE_CONFIG, ...config };
  if (!c.storePathCommitLog) c.storePathCommitLog = path.join(c.storePathRootDir, 'commitlog');
  c.mappedFileSizeConsumeQueue = Math.ceil(c.mappedFileSizeConsumeQueue / 20) * 20;
  return c;
}

/** Parses `messageDelayLevel` ("1s 5s ... 2h") into level (1-based) -> milliseconds. */
export function parseDelayLevel(levels: string): Map<number, number> {
  const unit: Record<string, number> = { s: 1000, m: 60000, h: 3600000, d: 86400000 };
  const table = new Map<number, number>();
  levels.trim().split(/\s+/).forEach((item, i) => {
    const ch = item.slice(-1);
    const n = Number(item.slice(0, -1));
    if (unit[ch] !== undefined && Number.isFinite(n)) table.set(i + 1, n * unit[ch]);
  });
  return table;
}

export const StorePath = {
  consumeQueue: (root: string) => path.join(root, 'consumequeue'),
  index: (root: string) => path.join(root, 'index'),
  checkpoint: (root: string) => path.join(root, 'checkpoint'),
  abort: (root: string) => path.join(root, 'abort'),
  config: (root: string) => path.join(root, 'config'),
} as const;
