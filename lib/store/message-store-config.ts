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
  /**
   * Store root: commitlog/, consumequeue/, index/, config/, checkpoint, abort.
   * @default ~/store
   */
  storePathRootDir: string;
  /** Defaults to `<storePathRootDir>/commitlog` when empty. */
  storePathCommitLog: string;
  /** Size of one commit-log file; files are named by their start offset. */
  mappedFileSizeCommitLog: number;
  /** Rounded up to a multiple of 20 bytes, as Java does. */
  mappedFileSizeConsumeQueue: number;
  /** ASYNC_FLUSH: how often the commit log is flushed to disk, ms. */
  flushIntervalCommitLog: number;
  /**
   * Java: flush on the interval even when fewer than flushCommitLogLeastPages are dirty. No effect in this broker.
   */
  flushCommitLogTimed: boolean;
  /** How often consume queues and index files are flushed, ms. */
  flushIntervalConsumeQueue: number;
  /** How often the cleanup service looks for expired files, ms. */
  cleanResourceInterval: number;
  /**
   * Java: pause between two commit-log file deletions, ms. No effect in this broker.
   */
  deleteCommitLogFilesInterval: number;
  /**
   * Java: pause between two consume-queue file deletions, ms. No effect in this broker.
   */
  deleteConsumeQueueFilesInterval: number;
  /**
   * Java: how long a file still referenced may live before a forced delete, ms. No effect in this broker.
   */
  destroyMapedFileIntervalForcibly: number;
  /** ms. No effect in this broker. */
  redeleteHangedFileInterval: number;
  /** Hours of the day when expired files are deleted, `;`-separated ("04"). */
  deleteWhen: string;
  /** Disk use (percent) above which files are deleted before their time. */
  diskMaxUsedSpaceRatio: number;
  /** Hours. */
  fileReservedTime: number;
  /** Largest message body the broker accepts, bytes. */
  maxMessageSize: number;
  /** The page cache counts as busy (sends refused SYSTEM_BUSY) while one append holds the commit log this long, ms. */
  osPageCacheBusyTimeOutMills: number;
  /** Verify each record's body CRC while recovering after an unclean stop. */
  checkCRCOnRecover: boolean;
  /** ASYNC_FLUSH: dirty 4 KiB pages needed before a periodic flush. */
  flushCommitLogLeastPages: number;
  /**
   * ASYNC_FLUSH: once this many 4 KiB pages are appended and not yet handed to the OS, the commit log's write starts
   * at once (the appends that follow overlap with it) instead of at the end of the tick. Java: the transient store
   * pool's commit threshold.
   */
  commitCommitLogLeastPages: number;
  /** No effect in this broker. */
  flushLeastPagesWhenWarmMapedFile: number;
  /** A consume queue is synced by the periodic flush once this many pages of its entries wait (they are written every time). */
  flushConsumeQueueLeastPages: number;
  /** A flush ignores flushCommitLogLeastPages when the last one is older than this, ms. */
  flushCommitLogThoroughInterval: number;
  /** Every consume queue is synced (and the checkpoint's logics time moved) at least this often, ms. */
  flushConsumeQueueThoroughInterval: number;
  /** Most bytes one pull returns when the data is in memory. */
  maxTransferBytesOnMessageInMemory: number;
  /** Most messages one pull returns when the data is in memory. */
  maxTransferCountOnMessageInMemory: number;
  /** Most bytes one pull returns when the data is read from disk. */
  maxTransferBytesOnMessageInDisk: number;
  /** Most messages one pull returns when the data is read from disk. */
  maxTransferCountOnMessageInDisk: number;
  /** Percent of RAM behind the commit-log tail that counts as "in memory". */
  accessMessageInMemoryMaxRatio: number;
  /** Index messages by key and UNIQ_KEY (queryMsgByKey, queryMsgById). */
  messageIndexEnable: boolean;
  /** Hash slots of one index file. */
  maxHashSlotNum: number;
  /** Entries of one index file. */
  maxIndexNum: number;
  /** Most messages one query by key returns. */
  maxMsgsNumBatch: number;
  /** Recover the index from the checkpoint's index time too. */
  messageIndexSafe: boolean;
  /** ASYNC_MASTER, SYNC_MASTER or SLAVE (a SLAVE replicates its master and refuses sends; a SYNC_MASTER answers a send once its slave has it). */
  brokerRole: BrokerRole;
  /**
   * ASYNC_FLUSH: a send is answered once written to the OS; SYNC_FLUSH: once fdatasync returned (group commit).
   */
  flushDiskType: FlushDiskType;
  /** SYNC_FLUSH: a send whose flush takes longer is answered FLUSH_DISK_TIMEOUT, ms. */
  syncFlushTimeout: number;
  /** The delay levels, 1-based (level 3 = 10s). */
  messageDelayLevel: string;
  /**
   * A slave answers a pull at an out-of-range offset with PULL_OFFSET_MOVED and the corrected offset; off, with
   * PULL_RETRY_IMMEDIATELY and the consumer's offset left alone.
   */
  offsetCheckInSlave: boolean;
  /** Delete files before fileReservedTime when the disk is above diskMaxUsedSpaceRatio. */
  cleanFileForciblyEnable: boolean;
  /** HA port of a master; 0 = the broker's listenPort + 1 (Java always derives it so), or any free port when that is 0. */
  haListenPort: number;
  /** Heartbeat / offset report interval of both ends of the HA stream (ms). */
  haSendHeartbeatInterval: number;
  /** DLedger: the commit log is a Raft log replicated among dLegerPeers (lib/dledger, lib/broker/dledger). */
  enableDLegerCommitLog: boolean;
  /** DLedger group name (usually the brokerName). */
  dLegerGroup: string;
  /** `n0-127.0.0.1:40911;n1-127.0.0.1:40912;n2-127.0.0.1:40913` */
  dLegerPeers: string;
  /** This peer's id in dLegerPeers (n0, n1, ...); a follower registers as brokerId = the number + 1. */
  dLegerSelfId: string;
  /** The peer that leadership moves to when it is caught up. */
  preferredLeaderId: string;
  /**
   * DLedger pushes the entries that piled up for a follower in one push (batchEntry); false: one entry a push.
   * Java's default is false; ours true: with one entry a push at most maxInflightPushNum (8) entries are on their way
   * to a follower, and a 3-peer group of ours ran async x256 at 54 % and sync x16 at 88 % of its batched rate
   * (bench/replicated.ts, one run; still 1.7x and 3.2x Java's group).
   */
  enableBatchPush: boolean;
  /** A master drops an HA connection that sent nothing for this long (ms). */
  haHousekeepingInterval: number;
  /** Most commit-log bytes per HA transfer. */
  haTransferBatchSize: number;
  /** SYNC_MASTER: a slave further behind than this (bytes) counts as unavailable. */
  haSlaveFallbehindMax: number;
  /**
   * Controller mode: a send waits for this many replicas, the master included (ignored with allAckInSyncStateSet;
   * 1 answers at once); a wait past syncFlushTimeout answers FLUSH_SLAVE_TIMEOUT.
   */
  inSyncReplicas: number;
  /** Controller mode: a SyncStateSet smaller than this refuses sends (IN_SYNC_REPLICAS_NOT_ENOUGH: SYSTEM_ERROR, "in-sync replicas not enough"). */
  minInSyncReplicas: number;
  /** Controller mode: a send waits for every replica of the SyncStateSet, and dispatch waits for them too (the confirm offset). */
  allAckInSyncStateSet: boolean;
  /**
   * Lower inSyncReplicas to the replicas in sync, down to minInSyncReplicas: Java applies it with
   * enableSlaveActingMaster only, and so not in controller mode (no effect here either).
   */
  enableAutoInSyncReplicas: boolean;
  /** Controller mode: dispatch to the consume queues goes beyond the confirm offset (consumers may read what a failover takes back). */
  readUnCommitted: boolean;
  /** Controller mode: a slave that has not caught up for this long leaves the SyncStateSet, ms. */
  haMaxTimeSlaveNotCatchup: number;
  /** Controller mode: a new replica with no data replicates from the master's last commit-log file only. */
  syncFromLastFile: boolean;
  /** Controller mode: this replica replicates but never joins the SyncStateSet. */
  asyncLearner: boolean;
  /** Controller mode: the epoch file; empty = `<storePathRootDir>/epochFileCheckpoint`. */
  storePathEpochFile: string;
  /** Controller mode: the file holding the id the controller gave; empty = `<storePathRootDir>/brokerIdentity`. */
  storePathBrokerIdentity: string;
  /** A slave's fixed master HA address ("ip:port"); empty = learnt from the name server's REGISTER_BROKER answer. */
  haMasterAddress: string;
  /**
   * Java's switch between its two ways of writing the commit log: false (the default) stores appends into each file's
   * memory map (when the optional `@riaskov/mmap-io` loads; lib/store/mmap.ts), true writes them from in-memory write
   * segments to the file (Java's transient store pool). Mapping needs files of at most 2 GiB - 1 (the binding's
   * limit); larger ones use segments.
   */
  transientStorePoolEnable: boolean;
  /** Size of one in-memory write segment of a file's tail (not in Java; files written through segments). */
  writeSegmentSize: number;
  /** 5.x timer messages (TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS): the timing wheel; false refuses them. */
  timerWheelEnable: boolean;
  /**
   * Width of one slot of the timing wheel, ms (the wheel turns once every 604800 slots). Java's default is 1000 and
   * Java delivers a message at its slot's start (up to a slot early); ours is 100, and ours delivers a message at its
   * own deliver time.
   */
  timerPrecisionMs: number;
  /** The longest delay a timer message may ask for, seconds (3 days). */
  timerMaxDelaySec: number;
  /**
   * Size of one timer log file (`timerlog/`, 52 bytes per timer message); a file is deleted once the commit log no
   * longer holds the records its units name.
   */
  mappedFileSizeTimerLog: number;
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
  osPageCacheBusyTimeOutMills: 1000,
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
  enableDLegerCommitLog: false,
  dLegerGroup: '',
  dLegerPeers: '',
  dLegerSelfId: '',
  preferredLeaderId: '',
  enableBatchPush: true,
  haHousekeepingInterval: 1000 * 20,
  haTransferBatchSize: 1024 * 32,
  haSlaveFallbehindMax: 1024 * 1024 * 256,
  haMasterAddress: '',
  inSyncReplicas: 1,
  minInSyncReplicas: 1,
  allAckInSyncStateSet: false,
  enableAutoInSyncReplicas: false,
  readUnCommitted: false,
  haMaxTimeSlaveNotCatchup: 1000 * 15,
  syncFromLastFile: false,
  asyncLearner: false,
  storePathEpochFile: '',
  storePathBrokerIdentity: '',
  transientStorePoolEnable: false,
  writeSegmentSize: 4 * 1024 * 1024,
  timerWheelEnable: true,
  timerPrecisionMs: 100,
  timerMaxDelaySec: 3600 * 24 * 3,
  mappedFileSizeTimerLog: 100 * 1024 * 1024,
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
