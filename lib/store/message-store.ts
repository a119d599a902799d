/**
 * The message store facade the broker uses: commit log, consume queues, index, checkpoint, abort file,
 * recovery, flush and cleanup services. No network code.
 *
 * @see org.apache.rocketmq.store.DefaultMessageStore
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { componentLogger } from '../logger';
import { Exclusive } from '../util/exclusive';
import { MessageStoreError } from '../errors';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import { CommitLog, type MessageExtBatch, type MessageExtBrokerInner } from './commit-log';
import { ConsumeQueue, CQ_STORE_UNIT_SIZE } from './consume-queue';
import { IndexService } from './index-service';
import { BrokerRole, FlushDiskType, StorePath, resolveMessageStoreConfig, type MessageStoreConfig } from './message-store-config';
import { StoreCheckpoint } from './store-checkpoint';
import {
  AppendMessageStatus, GetMessageStatus, PutMessageStatus,
  type GetMessageResult, type PutMessageResult, type QueryMessageResult,
} from './store-status';
import { BLANK_MAGIC_CODE, createMessageId, readI64, type DispatchRequest, type HostAddress } from './stored-record';
import { BORN_HOST_POSITION, encodeStoredMessage } from '../../protocol/message/message-decoder';
import { decodeBatchBody } from '../../protocol/message/batch';
import { propertiesToString } from '../../protocol/message/properties';

export type { MessageExtBatch, MessageExtBrokerInner };

/** Filters a pull (Java's MessageFilter). */
export interface MessageFilter {
  isMatchedByConsumeQueue(tagsCode: number | null): boolean;
  isMatchedByCommitLog?(record: Buffer): boolean;
}

export type MessageArrivingListener = (
  topic: string, queueId: number, logicOffset: number, tagsCode: number, storeTimestamp: number, propertiesString?: string,
) => void;

/**
 * What a SYNC_MASTER's puts wait on: the replication service (lib/ha) plugs in here, so the store itself stays
 * free of sockets.
 *
 * @see org.apache.rocketmq.store.ha.HAService#isSlaveOK
 * @see org.apache.rocketmq.store.ha.HAService#putRequest
 */
export interface ReplicaWaiter {
  /** A slave is connected and no more than haSlaveFallbehindMax behind `masterPutWhere`. */
  isSlaveOK(masterPutWhere: number): boolean;
  /** Resolves true once a slave acknowledged `nextOffset`, false after `timeoutMillis`. */
  waitTransfer(nextOffset: number, timeoutMillis: number): Promise<boolean>;
  /**
   * Controller mode: the replicas in sync, the master included (Java's AutoSwitchHAService.inSyncReplicasNums):
   * fewer than minInSyncReplicas refuses a put that waits for the store (IN_SYNC_REPLICAS_NOT_ENOUGH).
   */
  inSyncReplicasNums?(): number;
}

/**
 * DLedger mode (enableDLegerCommitLog): the store hands each encoded record to the replicated log and answers
 * the put with what `dispatchReplicated` returned for it once a quorum holds it (lib/broker/dledger implements it).
 */
export interface LogReplicator {
  replicate(record: Buffer): Promise<PutMessageResult>;
}

/**
 * DLedger mode: the commit log the store reads is the replicated log's data files. Each log entry's body is the
 * stored record, so a record's commit-log offset is its position in those files (entry pos + the entry header),
 * exactly as Java's DLedgerCommitLog; consume queues and the index point there and nothing is written twice.
 * lib/broker/dledger implements it over lib/dledger's file store.
 *
 * @see org.apache.rocketmq.store.dledger.DLedgerCommitLog
 */
export interface ReplicatedLogFiles {
  /** Loads and recovers the log's files; the store's load() calls it before it checks its consume queues against them. */
  load(): Promise<void>;
  /** The start of the first data file (Java: dLedgerFileList.getMinOffset), 0 when there is none. */
  getMinOffset(): number;
  /** The end of the last committed entry (Java: DLedgerCommitLog.getMaxOffset, the committed pos). */
  getMaxOffset(): number;
  /** The end of the last entry written, committed or not (Java: dLedgerFileList.getMaxWrotePosition). */
  getMaxWrotePosition(): number;
  /** The data file size (mappedFileSizeForEntryData). */
  readonly fileSize: number;
  /** `size` bytes at `offset` of the data files, or null when that file is gone. */
  read(offset: number, size: number): Promise<Buffer | null>;
  /**
   * One run of the log's own cleanup of expired data files (DLedger's CleanSpaceService), on the store's
   * cleanResourceInterval before the consume queues and the index are cut at the new getMinOffset. Resolves with how
   * many data files went.
   */
  deleteExpiredFiles?(now: number): Promise<number>;
}

/** What the store's reads need of a commit log: the local CommitLog, or a view over a replicated log's files. */
interface CommitLogReads {
  getMinOffset(): number;
  getMaxOffset(): number;
  rollNextFile(offset: number): number;
  /** `view`: the caller may hold a view of the log's memory rather than a copy (the local commit log's map). */
  getMessage(offset: number, size: number, view?: boolean): Promise<Buffer | null>;
  getMessages(offsets: readonly number[], sizes: readonly number[], view?: boolean): Promise<(Buffer | null)[]>;
  getRecord(offset: number): Promise<Buffer | null>;
}

/** Largest span read at once for records lying close together (as the records of one queue in the log often do). */
const REPLICATED_MAX_RANGE_READ = 4 * 1024 * 1024;

/** CommitLogReads over a replicated log's data files (Java's DLedgerCommitLog.getMessage and rollNextFile). */
class ReplicatedLogReads implements CommitLogReads {
  constructor(private readonly files: ReplicatedLogFiles) {}

  getMinOffset(): number {
    return this.files.getMinOffset();
  }

  getMaxOffset(): number {
    return this.files.getMaxOffset();
  }

  rollNextFile(offset: number): number {
    const size = this.files.fileSize;
    return offset + size - (offset % size);
  }

  async getMessage(offset: number, size: number): Promise<Buffer | null> {
    if (offset < this.files.getMinOffset()) return null;
    return this.files.read(offset, size).catch(() => null);
  }

  /** Records of one file read together when each follows the previous one within `gap` bytes (an entry header). */
  async getMessages(offsets: readonly number[], sizes: readonly number[]): Promise<(Buffer | null)[]> {
    const out: (Buffer | null)[] = new Array<Buffer | null>(offsets.length).fill(null);
    const fileSize = this.files.fileSize;
    let i = 0;
    while (i < offsets.length) {
      const start = offsets[i];
      const fileEnd = start - (start % fileSize) + fileSize;
      let end = start + sizes[i];
      let j = i + 1;
      for (; j < offsets.length; j++) {
        const o = offsets[j];
        const e = o + sizes[j];
        if (o < end || o - end > 4096 || e > fileEnd || e - start > REPLICATED_MAX_RANGE_READ) break;
        end = e;
      }
      const range = await this.getMessage(start, end - start);
      for (let k = i; k < j; k++) out[k] = range ? range.subarray(offsets[k] - start, offsets[k] - start + sizes[k]) : null;
      i = j;
    }
    return out;
  }

  async getRecord(offset: number): Promise<Buffer | null> {
    const head = await this.getMessage(offset, 4);
    if (!head) return null;
    const size = head.readInt32BE(0);
    if (size <= 0 || size > this.files.fileSize) return null;
    return this.getMessage(offset, size);
  }
}

/** True unless the properties say WAIT=false (Java's Message.isWaitStoreMsgOK). */
export function isWaitStoreMsgOK(propertiesString: string | undefined): boolean {
  if (!propertiesString) return true;
  const i = propertiesString.indexOf('WAIT\u0001');
  if (i < 0 || (i > 0 && propertiesString.charCodeAt(i - 1) !== 2)) return true;
  const end = propertiesString.indexOf('\u0002', i);
  return propertiesString.slice(i + 5, end < 0 ? undefined : end).toLowerCase() === 'true';
}

export interface MessageStoreOptions {
  /** The store host written into each record (default 127.0.0.1:10911). */
  storeHost?: HostAddress;
  /** Injectable clock (cleanup tests). */
  now?: () => number;
  logger?: Logger;
  /** Used-space ratio (0..1) of the disk holding `dir`; defaults to fs.statfs. */
  diskUsageRatio?: (dir: string) => Promise<number>;
}

const TOTAL_PHYSICAL_MEMORY_SIZE = os.totalmem();
const DISK_SPACE_WARNING_LEVEL_RATIO = 0.9;
const DISK_SPACE_CLEAN_FORCIBLY_RATIO = 0.85;

async function statfsUsage(dir: string): Promise<number> {
  try {
    const s = await fs.statfs(dir);
    if (s.blocks <= 0) return -1;
    return (s.blocks - s.bfree) / s.blocks;
  } catch {
    return -1;
  }
}

/** Java's StoreUtil / StoreStatsService TPS windows, sampled each second. */
class StoreStats {
  samples: { t: number; puts: number; gets: number; found: number; miss: number }[] = [];
  getMessageTransferedMsgCount = 0;
  getMessageTimesTotalFound = 0;
  getMessageTimesTotalMiss = 0;

  sample(t: number, puts: number): void {
    this.samples.push({ t, puts, gets: this.getMessageTransferedMsgCount, found: this.getMessageTimesTotalFound, miss: this.getMessageTimesTotalMiss });
    if (this.samples.length > 601) this.samples.shift();
  }

  tps(seconds: number, key: 'puts' | 'gets' | 'found' | 'miss'): number {
    const n = this.samples.length;
    if (n < 2) return 0;
    const last = this.samples[n - 1];
    const first = this.samples[Math.max(0, n - 1 - seconds)];
    const dt = (last.t - first.t) / 1000;
    return dt > 0 ? (last[key] - first[key]) / dt : 0;
  }
}


export class DefaultMessageStore {
  readonly config: MessageStoreConfig;
  readonly commitLog: CommitLog;
  readonly indexService: IndexService;
  readonly checkpoint: StoreCheckpoint;
  readonly consumeQueueTable = new Map<string, Map<number, ConsumeQueue>>();
  readonly now: () => number;
  readonly #log: Logger;
  readonly #diskUsage: (dir: string) => Promise<number>;
  #listeners = new Set<MessageArrivingListener>();
  #appendListeners = new Set<() => void>();
  #appendNotifyScheduled = false;
  #replica: ReplicaWaiter | null = null;
  /** DLedger mode: the replicated log whose files hold the records (null otherwise). */
  #replicated: ReplicatedLogFiles | null = null;
  /** Where records are read: the local commit log, or the replicated log's files. */
  #reads: CommitLogReads;
  /** Slave: the commit-log offset up to which records have been dispatched (Java's reputFromOffset). */
  #reputFromOffset = 0;
  #reputRunning: Promise<void> | null = null;
  #reputAgain = false;
  #timers: NodeJS.Timeout[] = [];
  #loaded: Promise<boolean> | null = null;
  #started: Promise<void> | null = null;
  #shutdown: Promise<void> | null = null;
  #running = false;
  #diskFull = false;
  #cleanImmediately = false;
  #lastDispatchedStoreTimestamp = 0;
  #lastThoroughFlush = 0;
  /** When the consume queues were last all synced (0: the first run syncs them all). */
  #lastThoroughCqFlush = 0;
  /** The commit log's periodic flush, the consume queues' flush and the cleanup: one run of each at a time. */
  readonly #flushRun = new Exclusive();
  readonly #cqFlushRun = new Exclusive();
  readonly #cleanRun = new Exclusive();
  #lastPhysicalMinOffset = 0;
  #manualDeleteFileSeveralTimes = 0;
  #stats = new StoreStats();
  /** Consume queues found to have lost entries during load; rebuilt from the commit log by start(). */
  #damagedQueues = new Set<ConsumeQueue>();
  /** While true, consume queues refuse entries beyond their end (see ConsumeQueue.refuseGaps). */
  #refuseGaps = false;
  /** Controller mode: where dispatch stops (Java's CommitLog.getConfirmOffset); null: at the end of the log. */
  #confirmOffsetSource: (() => number) | null = null;
  /**
   * Controller mode: the confirm offset as last set (Java's CommitLog.confirmOffset), kept in the checkpoint's
   * confirmPhyOffset and read back by load(): a restarted replica dispatches no further until its role is known.
   */
  #confirmOffset = -1;
  #reputScheduled = false;
  /** A truncation holds the reput. */
  #reputHeld = false;
  /** Set by load(): whether the previous run shut down cleanly. */
  lastExitOK = true;
  /** Disk used ratio of the commit-log disk at the last cleanup check. */
  commitLogDiskRatio = 0;
  consumeQueueDiskRatio = 0;

  constructor(config: Partial<MessageStoreConfig> = {}, options: MessageStoreOptions = {}) {
    this.config = resolveMessageStoreConfig(config);
    this.now = options.now ?? Date.now;
    this.#log = componentLogger('store', options.logger);
    this.#diskUsage = options.diskUsageRatio ?? statfsUsage;
    this.#storeHost = options.storeHost ?? { host: '127.0.0.1', port: 10911 };
    this.commitLog = new CommitLog(this.config, this.#storeHost, this.now, this.#log);
    this.#reads = this.commitLog;
    this.indexService = new IndexService(StorePath.index(this.config.storePathRootDir), this.config.maxHashSlotNum,
      this.config.maxIndexNum, this.config.maxMsgsNumBatch, this.now, this.#log);
    this.checkpoint = new StoreCheckpoint(StorePath.checkpoint(this.config.storePathRootDir));
  }

  // ---- lifecycle ----

  /** Loads the files and recovers (normally, or from the checkpoint when the abort file is there). Idempotent. */
  load(): Promise<boolean> {
    if (!this.#loaded) this.#loaded = this.#doLoad();
    return this.#loaded;
  }

  async #doLoad(): Promise<boolean> {
    const root = this.config.storePathRootDir;
    await fs.mkdir(root, { recursive: true });
    this.lastExitOK = !(await exists(StorePath.abort(root)));
    await this.checkpoint.load();
    this.#confirmOffset = this.checkpoint.confirmPhyOffset;
    // DLedger: the log's files first (the consume queues are checked against them).
    if (this.#replicated) await this.#replicated.load();
    await this.commitLog.load();
    await this.#loadConsumeQueues();
    await this.indexService.load(this.lastExitOK, this.checkpoint.indexMsgTimestamp);
    await this.#recover(this.lastExitOK);
    this.#log.info({ lastExitOK: this.lastExitOK, maxPhyOffset: this.getMaxPhyOffset(), commitLogWrites: this.commitLog.writeMode },
      'store loaded');
    return true;
  }

  async #loadConsumeQueues(): Promise<void> {
    const dir = StorePath.consumeQueue(this.config.storePathRootDir);
    let topics: string[] = [];
    try {
      topics = await fs.readdir(dir);
    } catch {
      return;
    }
    for (const topic of topics) {
      let ids: string[] = [];
      try {
        ids = await fs.readdir(path.join(dir, topic));
      } catch {
        continue;
      }
      for (const id of ids) {
        if (!/^\d+$/.test(id)) continue;
        const cq = this.#newConsumeQueue(topic, Number(id));
        await cq.load();
      }
    }
  }

  #newConsumeQueue(topic: string, queueId: number): ConsumeQueue {
    let m = this.consumeQueueTable.get(topic);
    if (!m) {
      m = new Map();
      this.consumeQueueTable.set(topic, m);
    }
    let cq = m.get(queueId);
    if (!cq) {
      cq = new ConsumeQueue(topic, queueId, StorePath.consumeQueue(this.config.storePathRootDir),
        this.config.mappedFileSizeConsumeQueue, this.#log);
      cq.refuseGaps = this.#refuseGaps;
      m.set(queueId, cq);
    }
    return cq;
  }

  findConsumeQueue(topic: string, queueId: number): ConsumeQueue | undefined {
    return this.consumeQueueTable.get(topic)?.get(queueId);
  }

  #allConsumeQueues(): ConsumeQueue[] {
    const out: ConsumeQueue[] = [];
    for (const m of this.consumeQueueTable.values()) for (const cq of m.values()) out.push(cq);
    return out;
  }

  #setRefuseGaps(on: boolean): void {
    this.#refuseGaps = on;
    for (const cq of this.#allConsumeQueues()) {
      cq.refuseGaps = on;
      if (on) cq.gapDetected = false;
    }
  }

  /** The consume queues that load() found damaged and start() rebuilds (read-only view, for diagnostics and tests). */
  get damagedConsumeQueues(): ReadonlySet<ConsumeQueue> {
    return this.#damagedQueues;
  }

  async #recover(lastExitOK: boolean): Promise<void> {
    for (const cq of this.#allConsumeQueues()) {
      await cq.recover();
      if (cq.lostEntries) this.#damagedQueues.add(cq);
    }
    if (this.#replicated) {
      await this.#recoverReplicated(this.#replicated);
      return;
    }
    this.#setRefuseGaps(true);
    const files = this.commitLog.mappedFileQueue.files;
    let processOffset = 0;
    if (files.length > 0) {
      let startIdx: number;
      if (lastExitOK) {
        startIdx = Math.max(0, files.length - 3);
      } else {
        const minTs = this.config.messageIndexEnable && this.config.messageIndexSafe
          ? this.checkpoint.getMinTimestampIndex() : this.checkpoint.getMinTimestamp();
        startIdx = 0;
        for (let i = files.length - 1; i >= 0; i--) {
          const ts = await this.commitLog.firstStoreTimestamp(files[i]);
          if (ts !== 0 && ts <= minTs) {
            startIdx = i;
            break;
          }
        }
      }
      const pending: Promise<void>[] = [];
      // Controller mode (Java's recoverAbnormally): only what was confirmed is dispatched; the rest stays in the
      // commit log until the role is known (a slave's handshake may cut it off).
      const bounded = this.#confirmOffsetSource !== null && !this.config.readUnCommitted;
      const confirm = bounded ? this.getConfirmOffset() : -1;
      let lastConfirmValid = files[startIdx].fileFromOffset;
      processOffset = await this.commitLog.scan(files[startIdx].fileFromOffset, this.config.checkCRCOnRecover,
        lastExitOK ? null : (r) => {
          if (bounded) {
            if (r.commitLogOffset + r.msgSize > confirm) return;
            lastConfirmValid = r.commitLogOffset + r.msgSize;
          }
          this.#dispatch(r, pending, false);
        });
      await Promise.all(pending);
      await this.#settleDispatch();
      if (!lastExitOK) this.#log.warn({ processOffset, confirmOffset: confirm, lastConfirmValid: bounded ? lastConfirmValid : undefined }, 'recovered commit log after abnormal exit');
      if (this.#confirmOffsetSource) this.#correctConfirmOffset(lastExitOK ? processOffset : lastConfirmValid);
      if (bounded && !lastExitOK) {
        // The consume queues' write segments lost their unwritten tails with the process, each queue its own: one
        // may end short of the confirm offset while another holds entries beyond it, and a dispatch starting after
        // the furthest would leave the first a hole (Java's queues, written through maps, keep what the process
        // wrote). Every queue is cut at the confirmed end, and what lies beyond is dispatched again once confirmed.
        const cut = Math.max(0, Math.min(lastConfirmValid, this.#confirmOffset));
        for (const cq of this.#allConsumeQueues()) {
          if (cq.maxPhysicOffset > cut) await cq.truncateDirtyLogicFiles(cut);
        }
      }
    }
    for (const cq of this.#allConsumeQueues()) if (cq.gapDetected) this.#damagedQueues.add(cq);
    this.#setRefuseGaps(false);
    await this.commitLog.mappedFileQueue.truncateDirtyFiles(processOffset);
    for (const cq of this.#allConsumeQueues()) {
      if (cq.maxPhysicOffset > processOffset || processOffset === 0) {
        const before = cq.getMaxOffsetInQueue();
        await cq.truncateDirtyLogicFiles(processOffset);
        // After a clean shutdown no entry points beyond the commit log: those were garbage.
        if (lastExitOK && processOffset > 0 && cq.getMaxOffsetInQueue() < before) this.#damagedQueues.add(cq);
      }
    }
    if (this.#damagedQueues.size) {
      this.#log.warn({ queues: [...this.#damagedQueues].map((cq) => `${cq.topic}-${cq.queueId}`) }, 'consume queues lost entries');
    }
    await this.#recoverTopicQueueTable();
  }

  /**
   * Controller mode, after recovery (Java's recoverNormally / recoverAbnormally): the confirm offset read from the
   * checkpoint is moved into the log, not below its first record nor beyond `limit` (the end of the log after a
   * clean exit; after a crash, the end of the last record it covered).
   */
  #correctConfirmOffset(limit: number): void {
    const min = this.commitLog.getMinOffset();
    if (this.#confirmOffset < min) {
      this.#log.error({ confirmOffset: this.#confirmOffset, minPhyOffset: min }, 'confirmOffset is less than minPhyOffset, correct confirmOffset to minPhyOffset');
      this.setConfirmOffset(min);
    } else if (this.#confirmOffset > limit) {
      this.#log.error({ confirmOffset: this.#confirmOffset, limit }, 'confirmOffset is larger than the recovered log, correct confirmOffset to it');
      this.setConfirmOffset(limit);
    }
  }

  /**
   * DLedger: the log recovered its own files (cut at the first entry that fails its checks); entries of the consume
   * queues pointing beyond what it holds go (Java's DLedgerCommitLog.recover). What was committed but not yet
   * dispatched is dispatched when the log applies it (lib/broker/dledger), from the consume queues' end on.
   */
  async #recoverReplicated(files: ReplicatedLogFiles): Promise<void> {
    const maxPhyOffset = files.getMaxWrotePosition();
    for (const cq of this.#allConsumeQueues()) {
      if (cq.maxPhysicOffset > maxPhyOffset) {
        this.#log.warn({ topic: cq.topic, queueId: cq.queueId, maxPhysicOffset: cq.maxPhysicOffset, maxPhyOffset }, 'consume queue beyond the replicated log: truncated');
        await cq.truncateDirtyLogicFiles(maxPhyOffset);
      }
    }
    if (this.#damagedQueues.size) {
      // Rebuilt whole: emptied here, filled again as the log applies its entries from its first one.
      this.#log.warn({ queues: [...this.#damagedQueues].map((cq) => `${cq.topic}-${cq.queueId}`) }, 'consume queues lost entries: rebuilt from the replicated log');
      for (const cq of this.#damagedQueues) {
        await cq.destroy();
        cq.maxPhysicOffset = -1;
      }
    }
    this.#setRefuseGaps(false);
    await this.#recoverTopicQueueTable();
  }

  /**
   * Whether the newest entry of a queue points at its own record (same topic, queueId, queue offset and size).
   * Entries pointing into deleted commit log cannot be checked and count as matching.
   */
  async #lastEntryMatches(cq: ConsumeQueue): Promise<boolean> {
    const max = cq.getMaxOffsetInQueue();
    if (max <= cq.getMinOffsetInQueue()) return true;
    const e = await cq.getEntry(max - 1);
    if (!e || e.size <= 0) return false;
    if (e.offset < this.#reads.getMinOffset()) return true;
    if (e.offset + e.size > this.#reads.getMaxOffset()) return false;
    const rec = await this.#reads.getMessage(e.offset, e.size);
    if (!rec || rec.length < e.size) return false;
    const r = this.commitLog.checkMessageAndReturnSize(rec, 0, false);
    return r.success && r.msgSize === e.size && r.commitLogOffset === e.offset && r.topic === cq.topic &&
      r.queueId === cq.queueId && r.consumeQueueOffset === max - 1;
  }

  /**
   * Rebuilds damaged consume queues from the commit log: re-dispatches, to those queues only, every record from
   * the smallest offset they need (the end of their last valid entry; the commit log's start for a queue with
   * none, or whose last entry does not match its record). Entries a queue already has are skipped (by commit-log
   * offset, then Java's "build consume queue repeatedly" rule on the queue offset), as are index entries below
   * the index's last offset. A queue still missing entries after a pass is rebuilt whole in the next.
   */
  async #rebuildConsumeQueues(damaged: Set<ConsumeQueue>): Promise<void> {
    const minPhy = this.#reads.getMinOffset();
    if (minPhy < 0) return;
    for (let pass = 0; pass < 3 && damaged.size > 0; pass++) {
      let from = Number.MAX_SAFE_INTEGER;
      for (const cq of damaged) {
        await cq.settled();
        if (pass > 0 || cq.maxPhysicOffset < 0 || !(await this.#lastEntryMatches(cq))) {
          // Nothing usable tells where its entries end: rebuild it whole.
          if (cq.mappedFileQueue.files.length > 0) await cq.destroy();
          cq.maxPhysicOffset = -1;
        }
        // Last pass: accept what the commit log holds even if its queue offsets have holes (as Java writes them).
        cq.refuseGaps = pass < 2;
        cq.gapDetected = false;
        from = Math.min(from, cq.maxPhysicOffset >= 0 ? cq.maxPhysicOffset : minPhy);
      }
      from = Math.max(from, minPhy);
      this.#log.warn({ from, pass, queues: [...damaged].map((cq) => `${cq.topic}-${cq.queueId}`) }, 'rebuilding consume queues from the commit log');
      if (from < this.#reads.getMaxOffset()) {
        const pending: Promise<void>[] = [];
        const end = await this.commitLog.scan(from, false, (r) => this.#dispatchRebuild(r, damaged, pending), this.#reputEndOffset());
        await Promise.all(pending);
        await this.#settleDispatch();
        // Controller mode: the rebuild stops at the confirm offset, which may lie before where the reput was to
        // resume (set from the queues as they were before the damaged ones were destroyed): the reput goes on from
        // the rebuild's end, or the rebuilt queues would lack what lies between (and the next entry would land in an
        // empty queue as if it began there). The queues that hold those entries skip them.
        if (end < this.#reputFromOffset) this.#reputFromOffset = end;
      }
      const next = new Set<ConsumeQueue>();
      for (const cq of damaged) {
        cq.refuseGaps = false;
        if (cq.gapDetected) next.add(cq);
        cq.gapDetected = false;
      }
      damaged = next;
    }
  }

  /** Re-dispatch of one record while rebuilding: only to the damaged queues, and to the index. */
  #dispatchRebuild(req: DispatchRequest, queues: ReadonlySet<ConsumeQueue>, pending: Promise<void>[]): void {
    const tranType = req.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
    if (tranType === MessageSysFlag.TRANSACTION_NOT_TYPE || tranType === MessageSysFlag.TRANSACTION_COMMIT_TYPE) {
      const cq = this.findConsumeQueue(req.topic, req.queueId);
      if (cq && queues.has(cq)) {
        const p = cq.putMessagePositionInfo(req.commitLogOffset, req.msgSize, req.tagsCode, req.consumeQueueOffset);
        if (p) pending.push(p);
      }
    }
    if (this.config.messageIndexEnable) {
      const p = this.indexService.buildIndex(req);
      if (p) pending.push(p);
    }
  }

  async #recoverTopicQueueTable(): Promise<void> {
    const minPhy = this.#reads.getMinOffset();
    const table = this.commitLog.topicQueueTable;
    table.clear();
    let dispatchedEnd = minPhy;
    for (const cq of this.#allConsumeQueues()) {
      table.set(`${cq.topic}-${cq.queueId}`, cq.getMaxOffsetInQueue());
      await cq.correctMinOffset(minPhy);
      if (cq.maxPhysicOffset > dispatchedEnd) dispatchedEnd = cq.maxPhysicOffset;
    }
    if (this.#confirmOffsetSource) await this.#compensateForHA(table, dispatchedEnd);
  }

  /**
   * Controller mode (Java's ConsumeQueueStore.compensateForHA): records held beyond what the consume queues cover (not
   * confirmed yet, so not dispatched) already carry their queue offsets; the next offset of each of their queues goes
   * past them, so that a replica turned master gives no new message a queue offset one of them holds. Java reads from
   * the confirm offset; the end of the dispatched records is where that dispatch stopped, always a record's start.
   */
  async #compensateForHA(table: Map<string, number>, dispatchedEnd: number): Promise<void> {
    const end = this.commitLog.getMaxOffset();
    if (dispatchedEnd >= end) return;
    let compensated = 0;
    await this.commitLog.scan(dispatchedEnd, false, (r) => {
      const tranType = r.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
      if (tranType !== MessageSysFlag.TRANSACTION_NOT_TYPE && tranType !== MessageSysFlag.TRANSACTION_COMMIT_TYPE) return;
      const key = `${r.topic}-${r.queueId}`;
      if ((table.get(key) ?? 0) <= r.consumeQueueOffset) table.set(key, r.consumeQueueOffset + 1);
      compensated++;
    }, end);
    if (compensated > 0) this.#log.info({ from: dispatchedEnd, to: end, records: compensated }, 'queue offsets moved past the records not dispatched yet');
  }

  async #settleDispatch(): Promise<void> {
    for (const cq of this.#allConsumeQueues()) await cq.settled();
    await this.indexService.settled();
  }

  /** Starts the services: catches the consume queues up with the commit log, then the flush and cleanup timers. Idempotent. */
  start(): Promise<void> {
    if (!this.#started) this.#started = this.#doStart();
    return this.#started;
  }

  async #doStart(): Promise<void> {
    await this.load();
    await fs.writeFile(StorePath.abort(this.config.storePathRootDir), '');
    // DLedger: the log applies (dispatches) its committed entries itself, from the consume queues' end on.
    if (!this.#replicated) await this.#catchUpDispatch();
    this.#running = true;
    this.#lastThoroughFlush = this.now();
    const every = (ms: number, fn: () => Promise<void>) => {
      const t = setInterval(() => void fn().catch((e) => this.#log.error({ err: e }, 'store service failed')), ms);
      t.unref();
      this.#timers.push(t);
    };
    // A slave flushes what it receives on this timer whatever its flushDiskType (it has no puts to group-commit).
    if (this.config.flushDiskType === FlushDiskType.ASYNC_FLUSH || this.config.brokerRole === BrokerRole.SLAVE) {
      every(this.config.flushIntervalCommitLog, () => this.#flushCommitLogService());
    }
    every(this.config.flushIntervalConsumeQueue, () => this.#flushConsumeQueueService());
    every(this.config.cleanResourceInterval, () => this.cleanFilesPeriodically());
    every(1000, async () => this.#stats.sample(this.now(), this.commitLog.putMessageCount));
  }

  /**
   * Reput at start: dispatch what the consume queues lack (Java's ReputMessageService catch-up); rebuild damaged
   * queues. In controller mode only up to the confirm offset (Java starts the reput there): what lies beyond is
   * dispatched once the role is known and the offset moves.
   */
  async #catchUpDispatch(): Promise<void> {
    let from = this.#reads.getMinOffset();
    for (const cq of this.#allConsumeQueues()) if (cq.maxPhysicOffset > from) from = cq.maxPhysicOffset;
    if (from < 0) from = 0;
    const damaged = new Set(this.#damagedQueues);
    const end = this.#reputEndOffset();
    this.#reputFromOffset = Math.max(from, end);
    if (from < end) {
      // A queue handed an entry beyond its end here lost entries before `from`: it is rebuilt below.
      this.#setRefuseGaps(true);
      const pending: Promise<void>[] = [];
      this.#reputFromOffset = await this.commitLog.scan(from, false, (r) => this.#dispatch(r, pending, false), end);
      await Promise.all(pending);
      await this.#settleDispatch();
      for (const cq of this.#allConsumeQueues()) if (cq.gapDetected) damaged.add(cq);
      this.#setRefuseGaps(false);
    }
    if (damaged.size > 0) await this.#rebuildConsumeQueues(damaged);
    if (from < end || damaged.size > 0) await this.#recoverTopicQueueTable();
    if (this.#confirmOffsetSource) {
      this.#log.info({ confirmOffset: this.#confirmOffset, reputFromOffset: this.#reputFromOffset, maxPhyOffset: this.commitLog.getMaxOffset(), lastExitOK: this.lastExitOK }, 'start-up dispatch done');
    }
  }

  /** Flushes everything, closes files and removes the abort file. Idempotent. */
  shutdown(): Promise<void> {
    if (!this.#shutdown) this.#shutdown = this.#doShutdown();
    return this.#shutdown;
  }

  async #doShutdown(): Promise<void> {
    const wasStarted = this.#started !== null;
    this.#running = false;
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    if (this.#started) await this.#started.catch(() => undefined);
    else if (this.#loaded) await this.#loaded.catch(() => undefined);
    if (!this.#loaded) return;
    while (this.#reputRunning) await this.#reputRunning;
    await this.#settleDispatch();
    await this.commitLog.shutdown();
    for (const cq of this.#allConsumeQueues()) {
      await cq.flush();
      await cq.close();
    }
    await this.indexService.close();
    this.checkpoint.physicMsgTimestamp = Math.max(this.checkpoint.physicMsgTimestamp, this.commitLog.flushedStoreTimestamp);
    if (this.#lastDispatchedStoreTimestamp) this.checkpoint.logicsMsgTimestamp = this.#lastDispatchedStoreTimestamp;
    const idx = this.indexService.files[this.indexService.files.length - 1];
    if (idx) this.checkpoint.indexMsgTimestamp = idx.endTimestamp;
    await this.checkpoint.shutdown();
    if (wasStarted) await fs.rm(StorePath.abort(this.config.storePathRootDir), { force: true });
  }

  // ---- dispatch ----

  #dispatch(req: DispatchRequest, pending: Promise<void>[] | null, notify: boolean): void {
    const tranType = req.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
    let cqDone: void | Promise<void> = undefined;
    if (tranType === MessageSysFlag.TRANSACTION_NOT_TYPE || tranType === MessageSysFlag.TRANSACTION_COMMIT_TYPE) {
      const cq = this.#newConsumeQueue(req.topic, req.queueId);
      cqDone = cq.putMessagePositionInfo(req.commitLogOffset, req.msgSize, req.tagsCode, req.consumeQueueOffset);
    }
    if (this.config.messageIndexEnable) {
      const p = this.indexService.buildIndex(req);
      if (p && pending) pending.push(p);
    }
    this.#lastDispatchedStoreTimestamp = req.storeTimestamp;
    if (cqDone && pending) pending.push(cqDone);
    if (notify && this.#listeners.size && (tranType === MessageSysFlag.TRANSACTION_NOT_TYPE || tranType === MessageSysFlag.TRANSACTION_COMMIT_TYPE)) {
      const fire = () => {
        for (const l of this.#listeners) {
          try {
            l(req.topic, req.queueId, req.consumeQueueOffset + 1, req.tagsCode, req.storeTimestamp, req.propertiesString);
          } catch (e) {
            this.#log.error({ err: e }, 'message arriving listener failed');
          }
        }
      };
      if (cqDone) {
        const fired = cqDone.then(fire);
        if (pending) pending.push(fired);
      } else queueMicrotask(fire);
    }
  }

  /** Registers a listener called after a message is dispatched (long polling). Returns the remover. */
  onMessageArriving(listener: MessageArrivingListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  // ---- writes ----

  #checkStoreStatus(): PutMessageStatus | null {
    if (!this.#running) return PutMessageStatus.SERVICE_NOT_AVAILABLE;
    if (this.config.brokerRole === BrokerRole.SLAVE) return PutMessageStatus.SERVICE_NOT_AVAILABLE;
    if (this.#diskFull) return PutMessageStatus.SERVICE_NOT_AVAILABLE;
    if (this.commitLog.isOSPageCacheBusy()) return PutMessageStatus.OS_PAGECACHE_BUSY;
    return null;
  }

  /**
   * Controller mode, a SYNC_MASTER's put that waits for the store: refused when fewer replicas than
   * minInSyncReplicas are in sync (Java's CommitLog.asyncPutMessage).
   */
  #checkInSyncReplicas(propertiesString: string | undefined): PutMessageStatus | null {
    const ha = this.#replica;
    if (!ha?.inSyncReplicasNums || this.config.brokerRole !== BrokerRole.SYNC_MASTER || !isWaitStoreMsgOK(propertiesString)) return null;
    return ha.inSyncReplicasNums() < this.config.minInSyncReplicas ? PutMessageStatus.IN_SYNC_REPLICAS_NOT_ENOUGH : null;
  }

  putMessage(msg: MessageExtBrokerInner): Promise<PutMessageResult> {
    const bad = this.#checkStoreStatus() ?? this.#checkInSyncReplicas(msg.propertiesString);
    if (bad) return Promise.resolve({ putMessageStatus: bad, appendMessageResult: null });
    // (the commit log refuses a topic over 127 bytes itself)
    if (this.#logReplicator) {
      if (Buffer.byteLength(msg.topic) > 127) return Promise.resolve({ putMessageStatus: PutMessageStatus.MESSAGE_ILLEGAL, appendMessageResult: null });
      return this.#logReplicator.replicate(this.#encodeForLog(msg));
    }
    const pending: Promise<void>[] = [];
    let end = -1;
    const put = this.commitLog.putMessage(msg, (r) => {
      this.#dispatchAppended(r, pending);
      end = r.commitLogOffset + r.msgSize;
    });
    if (this.config.brokerRole !== BrokerRole.SYNC_MASTER) {
      // No slave to wait for: the commit log's own promise when the record was dispatched at once (end known) and no
      // consume queue file is being created; else wait for the dispatch too.
      if (end >= 0 && pending.length === 0) return put;
      return put.then((result) => (pending.length ? Promise.all(pending).then(() => result) : result));
    }
    // Replication starts as soon as the record is appended, beside the write to the OS (Java combines both futures).
    const replica = this.#submitReplica(end, msg.propertiesString);
    return put.then(async (result) => {
      if (pending.length) await Promise.all(pending);
      return this.#handleHA(result, msg.propertiesString, replica, true);
    });
  }

  /** Puts waiting for the end of the current task, to be appended together (putMessageCoalesced), and their callers. */
  #coalesced: MessageExtBrokerInner[] | null = null;
  #coalescedResolvers: ((r: PutMessageResult) => void)[] = [];

  /**
   * putMessage for many callers at once: the puts made during one task (the requests of one socket read) are
   * appended together when it ends (a microtask), through putMessageList: one wait for the OS or disk and one
   * promise chain for all of them. Each caller still gets its own result. Used by the broker's send path; a
   * SYNC_MASTER (which waits for its slave per message) puts at once.
   */
  putMessageCoalesced(msg: MessageExtBrokerInner): Promise<PutMessageResult> {
    // a SYNC_MASTER waits for its slave per message, and a DLedger log replicates each entry: both put at once
    if (this.config.brokerRole === BrokerRole.SYNC_MASTER || this.#logReplicator) return this.putMessage(msg);
    let list = this.#coalesced;
    if (list === null) {
      list = this.#coalesced = [];
      this.#coalescedResolvers = [];
      queueMicrotask(this.#flushCoalesced);
    }
    list.push(msg);
    const resolvers = this.#coalescedResolvers;
    return new Promise<PutMessageResult>((resolve) => { resolvers.push(resolve); });
  }

  readonly #flushCoalesced = (): void => {
    const list = this.#coalesced;
    const resolvers = this.#coalescedResolvers;
    this.#coalesced = null;
    if (!list || list.length === 0) return;
    if (list.length === 1) {
      void this.putMessage(list[0]).then(resolvers[0], (e: unknown) => resolvers[0](this.#putFailed(e)));
      return;
    }
    this.putMessageList(list).then(
      (results) => { for (let i = 0; i < resolvers.length; i++) resolvers[i](results[i]); },
      (e: unknown) => { for (const r of resolvers) r(this.#putFailed(e)); },
    );
  };

  #putFailed(e: unknown): PutMessageResult {
    this.#log.error({ err: e }, 'put failed');
    return { putMessageStatus: PutMessageStatus.UNKNOWN_ERROR, appendMessageResult: null };
  }

  /**
   * Puts many messages with one promise and one wait for the OS / disk for all of them (a batch-level put); each
   * gets its own result, as putMessage would give it. A SYNC_MASTER waits for its slave per message (putMessage).
   */
  putMessageList(msgs: readonly MessageExtBrokerInner[]): Promise<PutMessageResult[]> {
    const bad = this.#checkStoreStatus();
    if (bad) return Promise.resolve(msgs.map(() => ({ putMessageStatus: bad, appendMessageResult: null })));
    if (this.config.brokerRole === BrokerRole.SYNC_MASTER || this.#logReplicator) return Promise.all(msgs.map((m) => this.putMessage(m)));
    const pending: Promise<void>[] = [];
    let dispatched = 0;
    const put = this.commitLog.putMessageList(msgs, (r) => {
      this.#dispatchAppended(r, pending);
      dispatched++;
    });
    if (dispatched === msgs.length && pending.length === 0) return put;
    return put.then((results) => (pending.length ? Promise.all(pending).then(() => results) : results));
  }

  async putMessages(batch: MessageExtBatch): Promise<PutMessageResult> {
    const bad = this.#checkStoreStatus() ?? this.#checkInSyncReplicas(batch.propertiesString);
    if (bad) return { putMessageStatus: bad, appendMessageResult: null };
    if (Buffer.byteLength(batch.topic) > 127) return { putMessageStatus: PutMessageStatus.MESSAGE_ILLEGAL, appendMessageResult: null };
    if (this.#logReplicator) return this.#replicateBatch(batch);
    const syncMaster = this.config.brokerRole === BrokerRole.SYNC_MASTER;
    const pending: Promise<void>[] = [];
    let end = -1;
    const put = this.commitLog.putMessages(batch, (r) => {
      this.#dispatchAppended(r, pending);
      end = Math.max(end, r.commitLogOffset + r.msgSize);
    });
    const replica = this.#submitReplica(end, batch.propertiesString);
    const result = await put;
    if (pending.length) await Promise.all(pending);
    return this.#handleHA(result, batch.propertiesString, replica, syncMaster);
  }

  /**
   * SYNC_MASTER: starts waiting for a slave to hold `end` (the appended record's end), or says no slave is close
   * enough; null when the put does not wait (another role, WAIT=false, nothing appended yet).
   */
  #submitReplica(end: number, propertiesString: string | undefined): Promise<PutMessageStatus> | null {
    if (end < 0 || this.config.brokerRole !== BrokerRole.SYNC_MASTER || !isWaitStoreMsgOK(propertiesString)) return null;
    const ha = this.#replica;
    if (!ha || !ha.isSlaveOK(end)) return Promise.resolve(PutMessageStatus.SLAVE_NOT_AVAILABLE);
    return ha.waitTransfer(end, this.config.syncFlushTimeout)
      .then((ok) => (ok ? PutMessageStatus.PUT_OK : PutMessageStatus.FLUSH_SLAVE_TIMEOUT));
  }

  #dispatchAppended(r: DispatchRequest, pending: Promise<void>[]): void {
    if (this.#confirmOffsetSource) this.#scheduleReput();
    else this.#dispatch(r, pending, true);
    this.#scheduleAppendNotify();
  }

  /** Controller mode: the reput dispatches what the puts of this task appended, up to the confirm offset. */
  #scheduleReput(): void {
    if (this.#reputScheduled) return;
    this.#reputScheduled = true;
    queueMicrotask(() => {
      this.#reputScheduled = false;
      void this.#wakeReput();
    });
  }

  // ---- controller mode: the confirm offset and truncation ----

  /**
   * Controller mode (Java's CommitLog.getConfirmOffset under enableControllerMode): every record is dispatched to the
   * consume queues and the index by the reput, on a master too, and only up to the offset `source` returns (what
   * the replicas of the SyncStateSet hold), so consumers never see what a failover may take back. null: records
   * are dispatched as they are appended (the default).
   */
  setConfirmOffsetSource(source: (() => number) | null): void {
    this.#confirmOffsetSource = source;
    if (source) this.#reputFromOffset = Math.min(this.#reputFromOffset, this.commitLog.getMaxOffset());
  }

  /** The offset dispatch goes up to: the confirm offset in controller mode, else the end of the log. */
  getConfirmOffset(): number {
    return this.#confirmOffsetSource ? this.#confirmOffsetSource() : this.commitLog.getMaxOffset();
  }

  /** Controller mode: the confirm offset as last set, or as read from the checkpoint (Java's getConfirmOffsetDirectly). */
  getConfirmOffsetDirectly(): number {
    return this.#confirmOffset;
  }

  /**
   * Controller mode: sets the confirm offset (Java's setConfirmOffset): kept in the checkpoint (confirmPhyOffset,
   * written with its next flush) and, when it moved, what it now covers is dispatched.
   */
  setConfirmOffset(offset: number): void {
    if (offset === this.#confirmOffset) return;
    this.#confirmOffset = offset;
    this.checkpoint.confirmPhyOffset = offset;
    this.notifyConfirmOffsetChanged();
  }

  /** The confirm offset moved: dispatch what it now covers. */
  notifyConfirmOffsetChanged(): void {
    if (this.#confirmOffsetSource && this.#running) this.#scheduleReput();
  }

  /**
   * Waits until the reput dispatched everything below the confirm offset (Java's changeToMaster waits for it), or
   * made no progress for `patienceMillis`.
   */
  async waitDispatchCaughtUp(patienceMillis = 10_000): Promise<void> {
    let last = this.#reputFromOffset;
    let since = Date.now();
    while (this.#running && this.dispatchBehindBytes() > 0) {
      await this.#wakeReput();
      if (this.dispatchBehindBytes() <= 0) break;
      if (this.#reputFromOffset !== last) {
        last = this.#reputFromOffset;
        since = Date.now();
      } else if (Date.now() - since > patienceMillis) {
        this.#log.warn({ reputFromOffset: this.#reputFromOffset, confirmOffset: this.getConfirmOffset() }, 'dispatch does not catch up with the confirm offset');
        break;
      }
      await new Promise<void>((resolve) => setTimeout(resolve, 20).unref());
    }
    await this.#settleDispatch();
  }

  /** The next queue offset of every queue from the consume queues (Java's recoverTopicQueueTable): a slave turned master. */
  async recoverTopicQueueTable(): Promise<void> {
    await this.#settleDispatch();
    await this.#recoverTopicQueueTable();
  }

  /** Bytes below the confirm offset not dispatched yet (Java's dispatchBehindBytes). */
  dispatchBehindBytes(): number {
    return Math.min(this.getConfirmOffset(), this.commitLog.getMaxOffset()) - this.#reputFromOffset;
  }

  /** Whether a whole record starts at `offset` (or the log ends there; Java's isOffsetAligned). */
  async isOffsetAligned(offset: number): Promise<boolean> {
    if (offset >= this.commitLog.getMaxOffset()) return true;
    const rec = await this.commitLog.getRecord(offset);
    if (!rec) return false;
    const r = this.commitLog.checkMessageAndReturnSize(rec, 0, true);
    return r.success && (r.msgSize === 0 || r.commitLogOffset === offset);
  }

  /**
   * Drops the commit log from `offset` on, with the consume-queue entries and index entries pointing there, on a
   * running store (Java's truncateFiles): false when `offset` is not the start of a record. The caller keeps
   * appends out (a slave, or a master before its first put) and truncates the epoch file.
   */
  async truncateFiles(offset: number): Promise<boolean> {
    if (offset >= this.getMaxPhyOffset()) return true;
    if (!(await this.isOffsetAligned(offset))) {
      this.#log.error({ offset }, 'offset is not aligned, truncate failed, need manual fix');
      return false;
    }
    await this.truncateDirtyFiles(offset);
    return true;
  }

  /** Java's truncateDirtyFiles: consume queues, index and commit log cut back to `offset`; the reput goes on from there. */
  async truncateDirtyFiles(offset: number): Promise<void> {
    if (offset >= this.getMaxPhyOffset()) return;
    this.#log.warn({ offset, maxPhyOffset: this.getMaxPhyOffset(), reputFromOffset: this.#reputFromOffset, confirmOffset: this.#confirmOffset }, 'truncate dirty files');
    this.#reputHeld = true;
    try {
      // no flush or cleanup writes to a file while it is cut (a write under way could bring cut bytes back)
      await Exclusive.runAll([this.#flushRun, this.#cqFlushRun, this.#cleanRun], () => this.#truncateHeld(offset));
    } finally {
      this.#reputHeld = false;
    }
    void this.#wakeReput();
  }

  async #truncateHeld(offset: number): Promise<void> {
    while (this.#reputRunning) await this.#reputRunning;
    await this.#settleDispatch();
    for (const cq of this.#allConsumeQueues()) {
      if (cq.maxPhysicOffset > offset || cq.maxPhysicOffset < 0) await cq.truncateDirtyLogicFiles(offset);
    }
    await this.indexService.truncate(offset);
    await this.commitLog.truncateDirtyFiles(offset);
    if (this.#confirmOffset > offset) this.setConfirmOffset(offset);
    await this.#recoverTopicQueueTable();
    this.#reputFromOffset = Math.min(this.#reputFromOffset, offset);
  }

  /**
   * Cuts a partial record off the end of the log (a slave stopped mid-transfer; Java's
   * AutoSwitchHAService.truncateInvalidMsg): from the dispatched offset on, the log keeps its whole records.
   * Returns the offset truncated to, -1 when nothing was beyond the dispatched offset.
   */
  async truncateInvalidMsg(): Promise<number> {
    while (this.#reputRunning) await this.#reputRunning;
    if (this.#reputFromOffset >= this.commitLog.getMaxOffset()) return -1;
    let end = this.#reputFromOffset;
    for (;;) {
      const next = await this.commitLog.scan(end, true, null);
      if (next > end) { end = next; continue; }
      const mf = this.commitLog.mappedFileQueue.findMappedFileByOffset(end);
      const nextFile = mf ? this.commitLog.rollNextFile(end) : -1;
      if (mf && nextFile < this.commitLog.getMaxOffset() && await this.#atBlank(end)) { end = nextFile; continue; }
      break;
    }
    this.#log.info({ truncateOffset: end, maxPhyOffset: this.commitLog.getMaxOffset() }, 'truncate invalid messages');
    await this.truncateDirtyFiles(end);
    return end;
  }

  /**
   * SYNC_MASTER: an appended message (that waits for the store) is acknowledged once a slave has it, with
   * FLUSH_SLAVE_TIMEOUT after syncFlushTimeout, or SLAVE_NOT_AVAILABLE at once when no slave is close enough
   * (Java's CommitLog.submitReplicaRequest).
   */
  async #handleHA(result: PutMessageResult, propertiesString: string | undefined, early: Promise<PutMessageStatus> | null,
    syncMasterAtPut: boolean): Promise<PutMessageResult> {
    const r = result.appendMessageResult;
    // The role when the put began decides: a SYNC_MASTER that became a slave while its put was under way (a
    // controller-mode election) must not answer PUT_OK for a record no replica confirmed, which the new master's
    // handshake will truncate (chaos net controller-random: an old master acknowledged a send 50 ms after it changed
    // to slave, and the new master acknowledged another at the same queue offset).
    if (!syncMasterAtPut || !r || !isWaitStoreMsgOK(propertiesString)) return result;
    if (result.putMessageStatus !== PutMessageStatus.PUT_OK && result.putMessageStatus !== PutMessageStatus.FLUSH_DISK_TIMEOUT) return result;
    if (!early && this.config.brokerRole !== BrokerRole.SYNC_MASTER) return { ...result, putMessageStatus: PutMessageStatus.FLUSH_SLAVE_TIMEOUT };
    // Appended after a file was created (not synchronously): start now.
    const status = await (early ?? this.#submitReplica(r.wroteOffset + r.wroteBytes, propertiesString)!);
    return status === PutMessageStatus.PUT_OK ? result : { ...result, putMessageStatus: status };
  }

  // ---- DLedger: the replicated log (lib/dledger) ----

  #logReplicator: LogReplicator | null = null;
  #storeHost: HostAddress = { host: '127.0.0.1', port: 10911 };

  /** DLedger mode: puts go through `replicator` (null to remove). */
  setLogReplicator(replicator: LogReplicator | null): void {
    this.#logReplicator = replicator;
  }

  #encodeForLog(msg: MessageExtBrokerInner): Buffer {
    const sh = msg.storeHost ?? this.#storeHost;
    return encodeStoredMessage({
      topic: msg.topic, flag: msg.flag, properties: msg.propertiesString, body: msg.body ?? undefined, queueId: msg.queueId,
      queueOffset: 0, commitLogOffset: 0, sysFlag: msg.sysFlag, bornTimestamp: msg.bornTimestamp,
      bornHost: { address: msg.bornHost.host, port: msg.bornHost.port }, storeTimestamp: this.now(),
      storeHost: { address: sh.host, port: sh.port }, reconsumeTimes: msg.reconsumeTimes, preparedTransactionOffset: msg.preparedTransactionOffset,
    });
  }

  /** A batch in DLedger mode: one log entry per message (not atomic: a failure may leave the first ones stored). */
  async #replicateBatch(batch: MessageExtBatch): Promise<PutMessageResult> {
    const rs: PutMessageResult[] = [];
    for (const m of decodeBatchBody(batch.body)) {
      const props = [m.properties ? propertiesToString(m.properties) : '', batch.propertiesString ?? ''].join('');
      rs.push(await this.#logReplicator!.replicate(this.#encodeForLog({
        topic: batch.topic, queueId: batch.queueId, flag: m.flag, body: m.body, propertiesString: props, bornTimestamp: batch.bornTimestamp,
        bornHost: batch.bornHost, storeHost: batch.storeHost, sysFlag: batch.sysFlag, reconsumeTimes: batch.reconsumeTimes ?? 0, preparedTransactionOffset: 0,
      })));
      if (rs[rs.length - 1].putMessageStatus !== PutMessageStatus.PUT_OK) return rs[rs.length - 1];
    }
    const first = rs[0]?.appendMessageResult;
    if (!first) return rs[0] ?? { putMessageStatus: PutMessageStatus.MESSAGE_ILLEGAL, appendMessageResult: null };
    return {
      putMessageStatus: PutMessageStatus.PUT_OK,
      appendMessageResult: {
        ...first, msgNum: rs.length, wroteBytes: rs.reduce((n, r) => n + (r.appendMessageResult?.wroteBytes ?? 0), 0),
        msgId: rs.map((r) => r.appendMessageResult?.msgId).join(','),
      },
    };
  }

  /**
   * DLedger mode: records are read from `files` (set before load(); the local commit log stays empty). Puts go
   * through setLogReplicator, and committed entries reach the consume queues through dispatchReplicated.
   */
  useReplicatedLog(files: ReplicatedLogFiles): void {
    if (this.#loaded) throw new MessageStoreError('useReplicatedLog must be called before load()');
    this.#replicated = files;
    this.#reads = new ReplicatedLogReads(files);
  }

  /** The end of the last record the consume queues point at (Java's maxPhysicalPosInLogicQueue), -1 when none. */
  maxPhysicOffsetInConsumeQueues(): number {
    let max = -1;
    for (const cq of this.#allConsumeQueues()) if (cq.maxPhysicOffset > max) max = cq.maxPhysicOffset;
    return max;
  }

  /** Records dispatched from the replicated log since start (one per committed entry applied). */
  replicatedDispatched = 0;
  /** The store host of the last record dispatched from the replicated log (its message-id prefix is cached by it). */
  #replicatedStoreHost: Buffer | null = null;

  /**
   * DLedger: dispatches a committed entry's record, which lies at `commitLogOffset` of the log's files, to the
   * consume queues and the index (Java's ReputMessageService reading DLedgerCommitLog), whatever the role. Nothing is
   * written to the commit log: the log's files are the commit log. The record carries the queue offset the leader
   * assigned when it appended it, in log order, so every peer dispatches the same. Resolves with what the leader's
   * put answers (Java's DLedgerCommitLog.putMessage result: the offset message id of that position).
   */
  async dispatchReplicated(record: Buffer, commitLogOffset: number): Promise<PutMessageResult> {
    const r = this.commitLog.checkMessageAndReturnSize(record, 0, false);
    if (!r.success || r.msgSize <= 0) {
      throw new MessageStoreError(`replicated record at ${commitLogOffset} is not a stored message (size ${r.msgSize})`);
    }
    if (r.commitLogOffset !== commitLogOffset) {
      this.#log.warn({ inRecord: r.commitLogOffset, commitLogOffset }, 'replicated record carries another commit-log offset; using its position');
      r.commitLogOffset = commitLogOffset;
    }
    const tranType = r.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
    if (tranType === MessageSysFlag.TRANSACTION_NOT_TYPE || tranType === MessageSysFlag.TRANSACTION_COMMIT_TYPE) {
      const key = `${r.topic}-${r.queueId}`;
      if ((this.commitLog.topicQueueTable.get(key) ?? 0) <= r.consumeQueueOffset) this.commitLog.topicQueueTable.set(key, r.consumeQueueOffset + 1);
    }
    const pending: Promise<void>[] = [];
    this.#dispatchAppended(r, pending);
    this.replicatedDispatched++;
    this.commitLog.putMessageCount++;
    this.commitLog.putMessageSize += r.msgSize;
    if (pending.length) await Promise.all(pending);
    // STOREHOSTADDRESS follows the born host and the store timestamp. A broker's records carry one store host: one
    // buffer of it, not one per record (createMessageId caches the hex prefix by the buffer).
    const hostAt = BORN_HOST_POSITION + ((r.sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) === 0 ? 8 : 20) + 8;
    const hostLen = (r.sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) === 0 ? 8 : 20;
    let storeHost = this.#replicatedStoreHost;
    if (!storeHost || storeHost.length !== hostLen || record.compare(storeHost, 0, hostLen, hostAt, hostAt + hostLen) !== 0) {
      storeHost = this.#replicatedStoreHost = Buffer.from(record.subarray(hostAt, hostAt + hostLen));
    }
    return {
      putMessageStatus: PutMessageStatus.PUT_OK,
      appendMessageResult: {
        status: AppendMessageStatus.PUT_OK, wroteOffset: commitLogOffset, wroteBytes: r.msgSize, msgId: createMessageId(storeHost, commitLogOffset),
        storeTimestamp: r.storeTimestamp, logicsOffset: r.consumeQueueOffset, pagecacheRT: 0, msgNum: 1,
      },
    };
  }

  // ---- replication (the sockets live in lib/ha) ----

  /** The replication service a SYNC_MASTER waits on (null to remove). */
  setReplicaWaiter(waiter: ReplicaWaiter | null): void {
    this.#replica = waiter;
  }

  /** Registers a listener called (once per tick) after records were appended to the commit log. Returns the remover. */
  onCommitLogAppend(listener: () => void): () => void {
    this.#appendListeners.add(listener);
    // Replication ships committed bytes only: wake it when more are committed too.
    this.commitLog.onCommitted = this.#onCommitted;
    return () => {
      this.#appendListeners.delete(listener);
      if (this.#appendListeners.size === 0) this.commitLog.onCommitted = null;
    };
  }

  readonly #onCommitted = (): void => this.#scheduleAppendNotify();

  #scheduleAppendNotify(): void {
    if (this.#appendNotifyScheduled || this.#appendListeners.size === 0) return;
    this.#appendNotifyScheduled = true;
    queueMicrotask(() => {
      this.#appendNotifyScheduled = false;
      for (const l of this.#appendListeners) {
        try {
          l();
        } catch (e) {
          this.#log.error({ err: e }, 'commit log append listener failed');
        }
      }
    });
  }

  /**
   * Master: the commit-log bytes from `offset` to the end of its file, at most `maxSize` (Java's getCommitLogData);
   * only bytes already handed to the OS: those survive a kill -9 of this process (Java's mmap'd bytes do too), so a
   * slave never holds bytes its master loses, which the master would then overwrite and count as replicated.
   */
  getCommitLogData(offset: number, maxSize?: number): Promise<{ offset: number; data: Buffer } | null> {
    if (!this.#running) return Promise.resolve(null);
    return this.commitLog.getData(offset, maxSize, true);
  }

  /**
   * Slave: appends the master's bytes at `startOffset` and dispatches the whole records they complete to the
   * consume queues and the index (Java's appendToCommitLog + ReputMessageService). False when they do not continue
   * the log.
   */
  async appendToCommitLog(startOffset: number, data: Buffer): Promise<boolean> {
    if (!this.#running) return false;
    const ok = await this.commitLog.appendData(startOffset, data);
    if (!ok) {
      this.#log.error({ startOffset, length: data.length, maxPhyOffset: this.getMaxPhyOffset() }, 'appendToCommitLog failed');
      return false;
    }
    this.#scheduleAppendNotify();
    void this.#wakeReput();
    return true;
  }

  /** Dispatched up to here (slave reput). */
  get reputFromOffset(): number {
    return this.#reputFromOffset;
  }

  /** Resolves once every whole record appended so far is dispatched. */
  async waitReput(): Promise<void> {
    while (this.#reputRunning) await this.#reputRunning;
  }

  #wakeReput(): Promise<void> {
    if (this.#reputRunning) {
      this.#reputAgain = true;
      return this.#reputRunning;
    }
    if (this.#reputHeld) return Promise.resolve();
    const run = async () => {
      do {
        this.#reputAgain = false;
        while (this.#running && !this.#reputHeld && this.#reputFromOffset < this.#reputEndOffset()) {
          // An empty slave's log starts where the master's last file does (Java's doReput correction).
          const minOffset = this.#reads.getMinOffset();
          if (this.#reputFromOffset < minOffset) this.#reputFromOffset = minOffset;
          const pending: Promise<void>[] = [];
          const next = await this.commitLog.scan(this.#reputFromOffset, false, (r) => {
            this.#dispatch(r, pending, true);
            // The checkpoint's commit-log timestamp comes from here on a slave (its records are not put, but appended).
            const mf = this.commitLog.mappedFileQueue.findMappedFileByOffset(r.commitLogOffset);
            if (mf && r.storeTimestamp > mf.storeTimestamp) mf.storeTimestamp = r.storeTimestamp;
          }, this.#reputEndOffset());
          if (pending.length) await Promise.all(pending);
          if (next > this.#reputFromOffset) {
            this.#reputFromOffset = next;
            continue;
          }
          // Nothing whole yet in this file: at its end (blank filler) move on to the next file once it exists.
          const mf = this.commitLog.mappedFileQueue.findMappedFileByOffset(this.#reputFromOffset);
          const nextFile = mf ? this.commitLog.rollNextFile(this.#reputFromOffset) : -1;
          if (mf && nextFile < this.#reputEndOffset() && await this.#atBlank(this.#reputFromOffset)) {
            this.#reputFromOffset = nextFile;
            continue;
          }
          break;
        }
      } while (this.#reputAgain && this.#running);
    };
    this.#reputRunning = run().catch((e) => this.#log.error({ err: e }, 'reput failed')).finally(() => { this.#reputRunning = null; });
    return this.#reputRunning;
  }

  /** Where the reput stops: the end of the log, or the confirm offset in controller mode (Java getReputEndOffset). */
  #reputEndOffset(): number {
    const max = this.commitLog.getMaxOffset();
    if (!this.#confirmOffsetSource || this.config.readUnCommitted) return max;
    return Math.min(max, this.#confirmOffsetSource());
  }

  async #atBlank(offset: number): Promise<boolean> {
    const head = await this.#reads.getMessage(offset, 8);
    return !!head && head.length === 8 && head.readInt32BE(4) === BLANK_MAGIC_CODE;
  }

  // ---- reads ----

  #nextOffsetCorrection(oldOffset: number, newOffset: number): number {
    return this.config.brokerRole !== BrokerRole.SLAVE || this.config.offsetCheckInSlave ? newOffset : oldOffset;
  }

  #isTheBatchFull(sizePy: number, maxMsgNums: number, bufferTotal: number, messageTotal: number, isInDisk: boolean, maxTotalBytes?: number): boolean {
    if (bufferTotal === 0 || messageTotal === 0) return false;
    if (maxMsgNums <= messageTotal) return true;
    if (maxTotalBytes !== undefined && bufferTotal + sizePy > maxTotalBytes) return true;
    const c = this.config;
    if (isInDisk) {
      if (bufferTotal + sizePy > c.maxTransferBytesOnMessageInDisk) return true;
      if (messageTotal > c.maxTransferCountOnMessageInDisk - 1) return true;
    } else {
      if (bufferTotal + sizePy > c.maxTransferBytesOnMessageInMemory) return true;
      if (messageTotal > c.maxTransferCountOnMessageInMemory - 1) return true;
    }
    return false;
  }

  /**
   * Reads up to `maxMsgNums` records of topic/queueId from queue offset `offset` (Java's getMessage, with its
   * statuses and offset corrections). `maxTotalBytes` caps the bytes returned on top of Java's transfer limits.
   * The records are views of the commit log's map where it is mapped (see GetMessageResult.messages).
   */
  async getMessage(group: string, topic: string, queueId: number, offset: number, maxMsgNums: number,
    maxTotalBytes?: number, filter?: MessageFilter | null): Promise<GetMessageResult> {
    void group;
    let status: GetMessageStatus = GetMessageStatus.NO_MESSAGE_IN_QUEUE;
    let nextBeginOffset = offset;
    let minOffset = 0;
    let maxOffset = 0;
    const messages: Buffer[] = [];
    const messageQueueOffsets: number[] = [];
    let bufferTotalSize = 0;
    let suggestPullingFromSlave = false;
    const maxOffsetPy = this.#reads.getMaxOffset();
    const cq = this.findConsumeQueue(topic, queueId);
    if (cq) {
      await cq.settled();
      minOffset = cq.getMinOffsetInQueue();
      maxOffset = cq.getMaxOffsetInQueue();
      if (maxOffset === 0) {
        status = GetMessageStatus.NO_MESSAGE_IN_QUEUE;
        nextBeginOffset = this.#nextOffsetCorrection(offset, 0);
      } else if (offset < minOffset) {
        status = GetMessageStatus.OFFSET_TOO_SMALL;
        nextBeginOffset = this.#nextOffsetCorrection(offset, minOffset);
      } else if (offset === maxOffset) {
        status = GetMessageStatus.OFFSET_OVERFLOW_ONE;
        nextBeginOffset = this.#nextOffsetCorrection(offset, offset);
      } else if (offset > maxOffset) {
        status = GetMessageStatus.OFFSET_OVERFLOW_BADLY;
        nextBeginOffset = this.#nextOffsetCorrection(offset, minOffset === 0 ? minOffset : maxOffset);
      } else {
        const maxFilterMessageCount = Math.max(16000, maxMsgNums * CQ_STORE_UNIT_SIZE);
        // up to 800 entries to scan; the entries of maxMsgNums messages will do when the queue's last read holds them
        const buf = await cq.getIndexBuffer(offset, maxFilterMessageCount, maxMsgNums * CQ_STORE_UNIT_SIZE);
        if (buf) {
          status = GetMessageStatus.NO_MATCHED_MESSAGE;
          let nextPhyFileStartOffset = Number.MIN_SAFE_INTEGER;
          let maxPhyOffsetPulling = 0;
          const memory = TOTAL_PHYSICAL_MEMORY_SIZE * (this.config.accessMessageInMemoryMaxRatio / 100);
          // Pass 1: the entries this pull will most likely return (as if every record can be read and passes the
          // commit-log filter), read together in contiguous ranges. Pass 2 below is the exact logic; it reads
          // any record pass 1 did not foresee on its own.
          const cqMatched: boolean[] = [];
          const prefetched = new Map<number, Buffer>();
          {
            const wantOffsets: number[] = [];
            const wantSizes: number[] = [];
            let total = 0;
            for (let j = 0; j < buf.length && j < maxFilterMessageCount; j += CQ_STORE_UNIT_SIZE) {
              const offsetPy = readI64(buf, j);
              const sizePy = buf.readInt32BE(j + 8);
              const isInDisk = maxOffsetPy - offsetPy > memory;
              if (this.#isTheBatchFull(sizePy, maxMsgNums, total, wantOffsets.length, isInDisk, maxTotalBytes)) break;
              const matched = !filter || filter.isMatchedByConsumeQueue(readI64(buf, j + 12));
              cqMatched.push(matched);
              if (!matched) continue;
              if (wantOffsets.length && offsetPy <= wantOffsets[wantOffsets.length - 1]) break;
              wantOffsets.push(offsetPy);
              wantSizes.push(sizePy);
              total += sizePy;
            }
            if (wantOffsets.length > 1) {
              const recs = await this.#reads.getMessages(wantOffsets, wantSizes, true);
              for (let k = 0; k < recs.length; k++) {
                const r = recs[k];
                if (r) prefetched.set(wantOffsets[k], r);
              }
            }
          }
          let i = 0;
          for (; i < buf.length && i < maxFilterMessageCount; i += CQ_STORE_UNIT_SIZE) {
            const offsetPy = readI64(buf, i);
            const sizePy = buf.readInt32BE(i + 8);
            const tagsCode = readI64(buf, i + 12);
            maxPhyOffsetPulling = offsetPy;
            if (nextPhyFileStartOffset !== Number.MIN_SAFE_INTEGER && offsetPy < nextPhyFileStartOffset) continue;
            const isInDisk = maxOffsetPy - offsetPy > memory;
            if (this.#isTheBatchFull(sizePy, maxMsgNums, bufferTotalSize, messages.length, isInDisk, maxTotalBytes)) break;
            const cqIdx = i / CQ_STORE_UNIT_SIZE;
            const matched = cqIdx < cqMatched.length ? cqMatched[cqIdx] : !filter || filter.isMatchedByConsumeQueue(tagsCode);
            if (!matched) {
              if (bufferTotalSize === 0) status = GetMessageStatus.NO_MATCHED_MESSAGE;
              continue;
            }
            const record = prefetched.get(offsetPy) ?? await this.#reads.getMessage(offsetPy, sizePy, true);
            if (!record) {
              if (bufferTotalSize === 0) status = GetMessageStatus.MESSAGE_WAS_REMOVING;
              nextPhyFileStartOffset = this.#reads.rollNextFile(offsetPy);
              continue;
            }
            if (filter?.isMatchedByCommitLog && !filter.isMatchedByCommitLog(record)) {
              if (bufferTotalSize === 0) status = GetMessageStatus.NO_MATCHED_MESSAGE;
              continue;
            }
            this.#stats.getMessageTransferedMsgCount++;
            messages.push(record);
            messageQueueOffsets.push(offset + i / CQ_STORE_UNIT_SIZE);
            bufferTotalSize += record.length;
            status = GetMessageStatus.FOUND;
            nextPhyFileStartOffset = Number.MIN_SAFE_INTEGER;
          }
          nextBeginOffset = offset + i / CQ_STORE_UNIT_SIZE;
          suggestPullingFromSlave = maxOffsetPy - maxPhyOffsetPulling > memory;
        } else {
          status = GetMessageStatus.OFFSET_FOUND_NULL;
          nextBeginOffset = this.#nextOffsetCorrection(offset, cq.rollNextFile(offset));
          this.#log.warn({ topic, queueId, offset, minOffset, maxOffset }, 'consume queue has no index at this offset');
        }
      }
    } else {
      status = GetMessageStatus.NO_MESSAGE_IN_QUEUE;
      nextBeginOffset = this.#nextOffsetCorrection(offset, 0);
    }
    if (status === GetMessageStatus.FOUND) this.#stats.getMessageTimesTotalFound++;
    else this.#stats.getMessageTimesTotalMiss++;
    return { status, nextBeginOffset, minOffset, maxOffset, messages, messageQueueOffsets, bufferTotalSize, suggestPullingFromSlave };
  }

  getMaxOffsetInQueue(topic: string, queueId: number): number {
    const cq = this.findConsumeQueue(topic, queueId);
    return cq ? cq.getMaxOffsetInQueue() : 0;
  }

  getMinOffsetInQueue(topic: string, queueId: number): number {
    const cq = this.findConsumeQueue(topic, queueId);
    return cq ? cq.getMinOffsetInQueue() : -1;
  }

  async getCommitLogOffsetInQueue(topic: string, queueId: number, consumeQueueOffset: number): Promise<number> {
    const e = await this.findConsumeQueue(topic, queueId)?.getEntry(consumeQueueOffset);
    return e ? e.offset : 0;
  }

  /** Store timestamp of the record at a commit-log offset, -1 if it cannot be read. */
  async pickupStoreTimestamp(offset: number, size: number): Promise<number> {
    const r = await this.#reads.getMessage(offset, Math.min(size, 80));
    if (!r || r.length < 60) return -1;
    const sysFlag = r.readInt32BE(36);
    return readI64(r, 48 + ((sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) === 0 ? 8 : 20));
  }

  async getMessageStoreTimeStamp(topic: string, queueId: number, consumeQueueOffset: number): Promise<number> {
    const e = await this.findConsumeQueue(topic, queueId)?.getEntry(consumeQueueOffset);
    return e ? this.pickupStoreTimestamp(e.offset, e.size) : -1;
  }

  /** Store time of the oldest message of a queue, -1 if none. */
  async getEarliestMessageTime(topic?: string, queueId?: number): Promise<number> {
    if (topic === undefined || queueId === undefined) {
      const min = this.#reads.getMinOffset();
      return min < 0 ? -1 : this.pickupStoreTimestamp(min, 80);
    }
    const cq = this.findConsumeQueue(topic, queueId);
    if (!cq) return -1;
    return this.getMessageStoreTimeStamp(topic, queueId, cq.getMinOffsetInQueue());
  }

  /** The queue offset whose store time is nearest `timestamp` (Java's getOffsetInQueueByTime). */
  async getOffsetInQueueByTime(topic: string, queueId: number, timestamp: number): Promise<number> {
    const cq = this.findConsumeQueue(topic, queueId);
    if (!cq) return 0;
    const minPhy = this.#reads.getMinOffset();
    let low = cq.getMinOffsetInQueue();
    let high = cq.getMaxOffsetInQueue() - 1;
    if (high < low) return 0;
    // Skip entries that point into deleted commit log.
    while (low <= high) {
      const e = await cq.getEntry(low);
      if (e && e.offset >= minPhy) break;
      low++;
    }
    let leftOffset = -1;
    let rightOffset = -1;
    let leftValue = -1;
    let rightValue = -1;
    let target = -1;
    while (high >= low) {
      const mid = Math.floor((low + high) / 2);
      const e = await cq.getEntry(mid);
      const ts = e ? await this.pickupStoreTimestamp(e.offset, e.size) : -1;
      if (ts < 0) return 0;
      if (ts === timestamp) {
        target = mid;
        high = mid - 1; // the first one stored at that time
      } else if (ts > timestamp) {
        high = mid - 1;
        rightOffset = mid;
        rightValue = ts;
      } else {
        low = mid + 1;
        leftOffset = mid;
        leftValue = ts;
      }
    }
    if (target !== -1) return target;
    if (leftValue === -1) return rightOffset;
    if (rightValue === -1) return leftOffset;
    return Math.abs(timestamp - leftValue) > Math.abs(timestamp - rightValue) ? rightOffset : leftOffset;
  }

  /** The raw record at a commit-log offset, or null. */
  lookMessageByOffset(commitLogOffset: number): Promise<Buffer | null> {
    return this.#reads.getRecord(commitLogOffset);
  }

  /** Messages of `topic` whose UNIQ_KEY or one of KEYS is `key`, stored within [begin, end] (Java's queryMessage). */
  async queryMessage(topic: string, key: string, maxNum: number, begin: number, end: number): Promise<QueryMessageResult> {
    const result: QueryMessageResult = { messages: [], indexLastUpdateTimestamp: 0, indexLastUpdatePhyoffset: 0, bufferTotalSize: 0 };
    await this.indexService.settled();
    let lastQueryMsgTime = end;
    for (let i = 0; i < 3; i++) {
      const q = await this.indexService.queryOffset(topic, key, maxNum, begin, lastQueryMsgTime);
      if (q.phyOffsets.length === 0) break;
      q.phyOffsets.sort((a, b) => a - b);
      result.indexLastUpdatePhyoffset = q.indexLastUpdatePhyoffset;
      result.indexLastUpdateTimestamp = q.indexLastUpdateTimestamp;
      for (let m = 0; m < q.phyOffsets.length; m++) {
        const rec = await this.#reads.getRecord(q.phyOffsets[m]);
        if (!rec) continue;
        if (m === 0) lastQueryMsgTime = await this.pickupStoreTimestamp(q.phyOffsets[m], rec.length);
        result.messages.push(rec);
        result.bufferTotalSize += rec.length;
      }
      if (result.bufferTotalSize > 0) break;
      if (lastQueryMsgTime < begin) break;
    }
    return result;
  }

  getMaxPhyOffset(): number {
    return this.#reads.getMaxOffset();
  }

  getMinPhyOffset(): number {
    return this.#reads.getMinOffset();
  }

  /** The queue offset the next message of topic/queueId will get. */
  getNextQueueOffset(topic: string, queueId: number): number {
    return this.commitLog.topicQueueTable.get(`${topic}-${queueId}`) ?? 0;
  }

  /** True while writes are refused because the disk passed 90 %. */
  isDiskFull(): boolean {
    return this.#diskFull;
  }

  isOSPageCacheBusy(): boolean {
    return this.commitLog.isOSPageCacheBusy();
  }

  /** True while puts queue behind an append that is not done (a commit-log file being created). */
  isAppendBusy(): boolean {
    return this.commitLog.appendBusy;
  }

  // ---- flush services ----

  async #flushCommitLogService(): Promise<void> {
    if (!this.#running) return;
    await this.#flushRun.tryRun(async () => {
      let leastPages = this.config.flushCommitLogLeastPages;
      const now = this.now();
      if (now >= this.#lastThoroughFlush + this.config.flushCommitLogThoroughInterval) {
        this.#lastThoroughFlush = now;
        leastPages = 0;
      }
      if (this.commitLog.mappedFileQueue.isAbleToFlush(leastPages)) {
        await this.commitLog.flush();
        if (this.commitLog.flushedStoreTimestamp > 0) this.checkpoint.physicMsgTimestamp = this.commitLog.flushedStoreTimestamp;
      }
    });
  }

  /**
   * Writes and syncs the consume queues and the index, then the checkpoint (Java's FlushConsumeQueueService.doFlush).
   * `leastPages` > 0: every queue's entries are written, but a queue is synced only with that many pages unsynced
   * (or a full file), and the checkpoint's logics time stays where the last full flush left it. The index's new keys
   * are written every time and the checkpoint's index time follows them (a kill -9 keeps them), but synced only at
   * a full flush (and when a file fills, as Java syncs an index file only then): at high rates nearly every page
   * of a file's 20 MB slot table changes each second, which a sync per second wrote to the disk each time. A power
   * loss may lose keys put since the last full flush (lookups miss them; recovery indexes again what it dispatches).
   */
  async flushConsumeQueues(leastPages = 0): Promise<void> {
    // A periodic flush skips while another runs; a full one waits for it (which may have synced less), then runs.
    const flush = async (): Promise<void> => {
      const logicsTs = this.#lastDispatchedStoreTimestamp;
      await this.#settleDispatch();
      for (const cq of this.#allConsumeQueues()) await cq.flush(leastPages);
      const indexTs = await this.indexService.flush(leastPages === 0);
      if (logicsTs > 0 && leastPages === 0) this.checkpoint.logicsMsgTimestamp = logicsTs;
      if (indexTs > 0) this.checkpoint.indexMsgTimestamp = indexTs;
      if (this.commitLog.flushedStoreTimestamp > 0) this.checkpoint.physicMsgTimestamp = this.commitLog.flushedStoreTimestamp;
      await this.checkpoint.flush();
    };
    if (leastPages > 0) await this.#cqFlushRun.tryRun(flush);
    else await this.#cqFlushRun.run(flush);
  }

  /**
   * Every flushIntervalConsumeQueue: a queue is synced once flushConsumeQueueLeastPages pages of its entries wait,
   * every queue every flushConsumeQueueThoroughInterval (the first run too), as Java's FlushConsumeQueueService; an
   * fdatasync per queue per second cost a disk write per active queue, however few its messages.
   */
  async #flushConsumeQueueService(): Promise<void> {
    if (!this.#running) return;
    let leastPages = this.config.flushConsumeQueueLeastPages;
    const now = this.now();
    if (now >= this.#lastThoroughCqFlush + this.config.flushConsumeQueueThoroughInterval) {
      this.#lastThoroughCqFlush = now;
      leastPages = 0;
    }
    await this.flushConsumeQueues(leastPages);
  }

  // ---- cleanup ----

  /** Asks the next cleanup runs to delete expired files regardless of the hour (Java's executeDeleteFilesManually). */
  executeDeleteFilesManually(): void {
    this.#manualDeleteFileSeveralTimes = 20;
  }

  #isTimeToDelete(): boolean {
    const hour = new Date(this.now()).getHours();
    return this.config.deleteWhen.split(';').some((w) => w.trim() !== '' && Number(w) === hour);
  }

  async #isSpaceToDelete(): Promise<boolean> {
    const ratio = this.config.diskMaxUsedSpaceRatio / 100;
    this.#cleanImmediately = false;
    const physicRatio = await this.#diskUsage(this.config.storePathCommitLog);
    this.commitLogDiskRatio = physicRatio;
    if (physicRatio > DISK_SPACE_WARNING_LEVEL_RATIO) {
      if (!this.#diskFull) this.#log.error({ physicRatio }, 'physic disk maybe full soon, so mark disk full');
      this.#diskFull = true;
      this.#cleanImmediately = true;
    } else if (physicRatio > DISK_SPACE_CLEAN_FORCIBLY_RATIO) {
      this.#cleanImmediately = true;
    } else if (this.#diskFull) {
      this.#diskFull = false;
      this.#log.info({ physicRatio }, 'physic disk space OK, mark disk ok');
    }
    if (physicRatio < 0 || physicRatio > ratio) return true;
    const logicsRatio = await this.#diskUsage(StorePath.consumeQueue(this.config.storePathRootDir));
    this.consumeQueueDiskRatio = logicsRatio;
    if (logicsRatio > DISK_SPACE_WARNING_LEVEL_RATIO) {
      this.#diskFull = true;
      this.#cleanImmediately = true;
    } else if (logicsRatio > DISK_SPACE_CLEAN_FORCIBLY_RATIO) {
      this.#cleanImmediately = true;
    }
    return logicsRatio < 0 || logicsRatio > ratio;
  }

  /** One run of the cleanup services (commit log, then consume queues and index). Timer-driven; tests call it directly. */
  async cleanFilesPeriodically(): Promise<void> {
    await this.#cleanRun.tryRun(async () => {
      if (this.#replicated?.deleteExpiredFiles) await this.#replicated.deleteExpiredFiles(this.now());
      await this.#deleteExpiredCommitLogFiles();
      await this.#deleteExpiredConsumeQueueFiles();
    });
  }

  async #deleteExpiredCommitLogFiles(): Promise<void> {
    const timeup = this.#isTimeToDelete();
    const spacefull = await this.#isSpaceToDelete();
    const manual = this.#manualDeleteFileSeveralTimes > 0;
    if (!(timeup || spacefull || manual)) return;
    if (manual) this.#manualDeleteFileSeveralTimes--;
    const cleanAtOnce = this.config.cleanFileForciblyEnable && this.#cleanImmediately;
    const reserved = this.config.fileReservedTime * 3600 * 1000;
    await this.commitLog.flush();
    const n = await this.commitLog.mappedFileQueue.deleteExpiredFileByTime(reserved, this.now(), cleanAtOnce);
    if (n) this.#log.info({ deleted: n, timeup, spacefull, manual, cleanAtOnce }, 'deleted expired commit log files');
  }

  async #deleteExpiredConsumeQueueFiles(): Promise<void> {
    const minOffset = this.#reads.getMinOffset();
    if (minOffset <= this.#lastPhysicalMinOffset) return;
    this.#lastPhysicalMinOffset = minOffset;
    await this.#settleDispatch();
    for (const cq of this.#allConsumeQueues()) await cq.deleteExpiredFile(minOffset);
    await this.indexService.deleteExpiredFile(minOffset);
  }

  /** Destroys consume queues that point only into deleted commit log (Java's cleanExpiredConsumerQueue). */
  async cleanExpiredConsumerQueue(): Promise<void> {
    const minCommitLogOffset = this.#reads.getMinOffset();
    for (const [topic, m] of this.consumeQueueTable) {
      for (const [queueId, cq] of m) {
        if (cq.maxPhysicOffset >= 0 && cq.maxPhysicOffset <= minCommitLogOffset) {
          this.#log.info({ topic, queueId }, 'cleanExpiredConsumerQueue: destroy consume queue');
          await cq.destroy();
          m.delete(queueId);
          this.commitLog.topicQueueTable.delete(`${topic}-${queueId}`);
        }
      }
      if (m.size === 0) {
        this.consumeQueueTable.delete(topic);
        await fs.rm(path.join(StorePath.consumeQueue(this.config.storePathRootDir), topic), { recursive: true, force: true });
      }
    }
  }

  /**
   * Deletes the consume queues of every topic not in `topics` (the broker's topic config), except the schedule and
   * transaction-op topics and LMQ queues (Java's cleanUnusedTopic, answering CLEAN_UNUSED_TOPIC). Resolves with how
   * many topics went.
   */
  async cleanUnusedTopic(topics: ReadonlySet<string>): Promise<number> {
    const unused = [...this.consumeQueueTable.keys()].filter((t) => !topics.has(t) && t !== 'SCHEDULE_TOPIC_XXXX'
      && t !== 'RMQ_SYS_TRANS_OP_HALF_TOPIC' && !t.startsWith('%LMQ%'));
    for (const topic of unused) this.#log.info({ topic }, 'cleanUnusedTopic: topic destroyed');
    return this.deleteTopics(unused);
  }

  /** Deletes the consume queues of these topics (the commit log keeps their records until it expires). */
  async deleteTopics(topics: Iterable<string>): Promise<number> {
    let n = 0;
    for (const topic of topics) {
      // Only a plain file name: "", ".", ".." or a separator would point the rm below at the store itself.
      if (!topic || topic === '.' || topic === '..' || /[/\\\0]/.test(topic)) continue;
      const m = this.consumeQueueTable.get(topic);
      if (m) {
        for (const [queueId, cq] of m) {
          await cq.settled();
          await cq.destroy();
          this.commitLog.topicQueueTable.delete(`${topic}-${queueId}`);
        }
        this.consumeQueueTable.delete(topic);
        n++;
      }
      await fs.rm(path.join(StorePath.consumeQueue(this.config.storePathRootDir), topic), { recursive: true, force: true });
    }
    return n;
  }

  // ---- stats ----

  /** Runtime figures for GET_BROKER_RUNTIME_INFO (Java's StoreStatsService and DefaultMessageStore.getRuntimeInfo names). */
  getRuntimeInfo(): Record<string, string> {
    const s = this.#stats;
    const f = (n: number) => n.toFixed(2);
    return {
      putMessageTimesTotal: String(this.commitLog.putMessageCount),
      putMessageSizeTotal: String(this.commitLog.putMessageSize),
      putTps: `${f(s.tps(10, 'puts'))} ${f(s.tps(60, 'puts'))} ${f(s.tps(600, 'puts'))}`,
      getTransferedTps: `${f(s.tps(10, 'gets'))} ${f(s.tps(60, 'gets'))} ${f(s.tps(600, 'gets'))}`,
      getFoundTps: `${f(s.tps(10, 'found'))} ${f(s.tps(60, 'found'))} ${f(s.tps(600, 'found'))}`,
      getMissTps: `${f(s.tps(10, 'miss'))} ${f(s.tps(60, 'miss'))} ${f(s.tps(600, 'miss'))}`,
      getTotalTps: [10, 60, 600].map((w) => f(s.tps(w, 'found') + s.tps(w, 'miss'))).join(' '),
      getMessageTimesTotalFound: String(s.getMessageTimesTotalFound),
      getMessageTimesTotalMiss: String(s.getMessageTimesTotalMiss),
      getMessageTransferedMsgCount: String(s.getMessageTransferedMsgCount),
      commitLogMinOffset: String(this.getMinPhyOffset()),
      commitLogMaxOffset: String(this.getMaxPhyOffset()),
      commitLogDiskRatio: String(this.commitLogDiskRatio),
      consumeQueueDiskRatio: String(this.consumeQueueDiskRatio),
      pageCacheLockTimeMills: '0',
      dispatchBehindBytes: '0',
    };
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}
