/**
 * The commit log: every message of every topic, appended in one sequence of files.
 * Appends are stores into the tail file's memory map (in the page cache at once: ASYNC_FLUSH acknowledges then), or,
 * without a map (transientStorePoolEnable), memcpy into the tail's write segment whose bytes reach the OS in one
 * coalesced writev per tick (ASYNC_FLUSH acknowledges then). Either way they reach the disk through fdatasync
 * (SYNC_FLUSH group commit acknowledges then).
 *
 * @see org.apache.rocketmq.store.CommitLog
 */
import type { Logger } from 'pino';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import { javaStringHashCode } from '../../protocol/message/java-hash';
import { FlushThread } from './flush-thread';
import { MappedFileQueue } from './mapped-file-queue';
import { OS_PAGE_SIZE, type MappedFile } from './mapped-file';
import { MAX_MAPPED_FILE_SIZE, mmapUnavailable } from './mmap';
import { FlushDiskType, parseDelayLevel, type MessageStoreConfig } from './message-store-config';
import { AppendMessageStatus, PutMessageStatus, type AppendMessageResult, type PutMessageResult } from './store-status';
import {
  BLANK, BLANK_MAGIC_CODE, END_FILE_MIN_BLANK_LENGTH, ILLEGAL, MESSAGE_MAGIC_CODE, MESSAGE_MAGIC_CODE_V2,
  cachedSocketAddressBytes, calMsgLength, crc32, createMessageId, readI64, scanDispatchProperties, socketAddressBytes, writeI64,
  type DispatchRequest, type HostAddress,
} from './stored-record';

export const SCHEDULE_TOPIC = 'SCHEDULE_TOPIC_XXXX';

/** @see org.apache.rocketmq.store.MessageExtBrokerInner */
export interface MessageExtBrokerInner {
  topic: string;
  queueId: number;
  flag: number;
  body: Buffer | null;
  propertiesString: string;
  /** Informational: the consume queue's tags code is derived from the TAGS (and DELAY) properties, as Java does. */
  tagsCode?: number;
  bornTimestamp: number;
  bornHost: HostAddress;
  /** Defaults to the store's host. */
  storeHost?: HostAddress;
  sysFlag: number;
  reconsumeTimes: number;
  preparedTransactionOffset: number;
}

/** An inner batch: `body` is the SEND_BATCH_MESSAGE body (several messages, one topic and queue). */
export interface MessageExtBatch {
  topic: string;
  queueId: number;
  body: Buffer;
  /** Batch-level properties appended to each message's properties (Java's MessageExtBatch properties). */
  propertiesString?: string;
  bornTimestamp: number;
  bornHost: HostAddress;
  storeHost?: HostAddress;
  sysFlag: number;
  reconsumeTimes?: number;
}

type AppendOutcome = AppendMessageResult | PutMessageResult;

/** The store's per-record callback after append (dispatch). */
export type DispatchFn = (req: DispatchRequest) => void;

/** A put waiting for the group commit: true once `offset` is on disk, false after its deadline (performance.now()). */
interface Waiter {
  offset: number;
  deadline: number;
  resolve: (flushed: boolean) => void;
}

const EMPTY = Buffer.alloc(0);
const TWO32 = 4294967296;

/** Big-endian i32 by byte stores (the append path's hot writes: no bounds or type checks beyond the typed array's). */
function putI32(b: Buffer, p: number, v: number): void {
  b[p] = v >>> 24;
  b[p + 1] = v >>> 16;
  b[p + 2] = v >>> 8;
  b[p + 3] = v;
}

/** Big-endian i64 of a safe integer (as writeI64). */
function putI64(b: Buffer, p: number, v: number): void {
  const hi = Math.floor(v / TWO32);
  putI32(b, p, hi);
  putI32(b, p + 4, v - hi * TWO32);
}

/** Copies a short buffer (hosts, topic, properties) by byte stores: TypedArray#set costs more than the copy for these. */
function putBytes(dst: Buffer, p: number, src: Buffer): number {
  const n = src.length;
  if (n > 64) dst.set(src, p);
  else for (let i = 0; i < n; i++) dst[p + i] = src[i];
  return p + n;
}

/** What dispatch reads of a properties string, with the TAGS hash computed once. */
interface PropsInfo {
  propertiesString: string;
  tagsHash: number;
  keys: string;
  uniqKey: string | null;
  delayLevel: string | undefined;
}

function propsInfo(propertiesString: string): PropsInfo {
  const props = scanDispatchProperties(propertiesString);
  return {
    propertiesString, tagsHash: props.tags ? javaStringHashCode(props.tags) : 0, keys: props.keys ?? '',
    uniqKey: props.uniqKey ?? null, delayLevel: props.delayLevel,
  };
}

/**
 * The result of one appended record. The offset message id is built when first read (Java's msgIdSupplier): the
 * broker's send path reads it, a list put through the store API may not.
 */
class StoredAppendResult implements AppendMessageResult {
  status: AppendMessageStatus = AppendMessageStatus.PUT_OK;
  msgNum = 1;
  #msgId: string | undefined;

  constructor(private readonly storeHost: Buffer, public wroteOffset: number, public wroteBytes: number,
    public storeTimestamp: number, public logicsOffset: number, public pagecacheRT: number) {}

  get msgId(): string {
    return (this.#msgId ??= createMessageId(this.storeHost, this.wroteOffset));
  }

  set msgId(id: string) {
    this.#msgId = id;
  }
}

const topicBytesCache = new Map<string, Buffer>();
const topicQueueKeys = new Map<string, string[]>();
/** `${topic}-${queueId}`, the key of topicQueueTable, built once per queue (a put looks it up twice). */
function topicQueueKey(topic: string, queueId: number): string {
  let keys = topicQueueKeys.get(topic);
  if (!keys) {
    if (topicQueueKeys.size > 10000) topicQueueKeys.clear();
    keys = [];
    topicQueueKeys.set(topic, keys);
  }
  if (queueId >= 0 && queueId < 1024) return (keys[queueId] ??= `${topic}-${queueId}`);
  return `${topic}-${queueId}`;
}

function topicBytes(topic: string): Buffer {
  let b = topicBytesCache.get(topic);
  if (!b) {
    b = Buffer.from(topic, 'utf8');
    if (topicBytesCache.size > 10000) topicBytesCache.clear();
    topicBytesCache.set(topic, b);
  }
  return b;
}

export class CommitLog {
  readonly mappedFileQueue: MappedFileQueue;
  /** Next queue offset per `topic-queueId`. */
  topicQueueTable = new Map<string, number>();
  readonly delayLevelTable: Map<number, number>;
  readonly maxDelayLevel: number;
  #appendChain: Promise<unknown> = Promise.resolve();
  /** The commit the puts of this tick wait for (shared). */
  #nextCommit: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | null = null;
  /** Appends waiting in #appendChain (for a file to be created); while zero, appends run synchronously. */
  #queuedAppends = 0;
  #commitScheduled = false;
  #commitRunning = false;
  /** The write under way (#runCommit), for a truncation to wait on. */
  #commitRun: Promise<void> | null = null;
  /** Bytes appended since the last commit began (what the next one writes, roughly). */
  #uncommittedBytes = 0;
  readonly #commitLeastBytes: number;
  #flushWaiters: Waiter[] = [];
  #flushRunning = false;
  #flushScheduled = false;
  /** Set while waiters wait: fires at the first one's deadline (see #waitFlush). */
  #flushTimer: NodeJS.Timeout | null = null;
  /** Group commit rounds run (one flush each; tests count them against the puts). */
  groupCommits = 0;
  /** How appends reach the files: 'mapped', or 'write segments (why)' (lib/store/mapped-file.ts). */
  readonly writeMode: string;
  /** Called after bytes were handed to the OS (replication ships only those: a kill -9 keeps them). */
  onCommitted: (() => void) | null = null;
  #beginTimeInLock = 0;
  #defaultStoreHost: Buffer;
  putMessageCount = 0;
  putMessageSize = 0;
  /** Store timestamp of the last record flushed (for the checkpoint). */
  flushedStoreTimestamp = 0;
  /** SYNC_FLUSH: the thread the group commit's fdatasyncs run on (started by the first, ended by shutdown()). */
  readonly flushThread: FlushThread | null;

  constructor(
    private readonly config: MessageStoreConfig,
    storeHost: HostAddress,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {
    const notMapped = config.transientStorePoolEnable ? 'transientStorePoolEnable=true'
      : config.mappedFileSizeCommitLog > MAX_MAPPED_FILE_SIZE ? `mappedFileSizeCommitLog above ${MAX_MAPPED_FILE_SIZE}`
        : mmapUnavailable();
    this.mappedFileQueue = new MappedFileQueue(config.storePathCommitLog, config.mappedFileSizeCommitLog, config.writeSegmentSize,
      notMapped === null);
    this.writeMode = notMapped === null ? 'mapped' : `write segments (${notMapped})`;
    this.flushThread = config.flushDiskType === FlushDiskType.SYNC_FLUSH ? new FlushThread(log) : null;
    this.mappedFileQueue.syncer = this.flushThread;
    this.#defaultStoreHost = socketAddressBytes(storeHost);
    this.#commitLeastBytes = Math.max(0, config.commitCommitLogLeastPages) * OS_PAGE_SIZE;
    this.mappedFileQueue.copyIntoMapMax = this.#commitLeastBytes;
    this.delayLevelTable = parseDelayLevel(config.messageDelayLevel);
    this.maxDelayLevel = Math.max(0, ...this.delayLevelTable.keys());
  }

  async load(): Promise<void> {
    // SYNC_FLUSH: the flush thread boots now, beside the recovery, not inside the first put's wait (tens of ms).
    this.flushThread?.start();
    await this.mappedFileQueue.load();
  }

  getMinOffset(): number {
    const first = this.mappedFileQueue.getFirstMappedFile();
    return first ? first.fileFromOffset : -1;
  }

  getMaxOffset(): number {
    return this.mappedFileQueue.getMaxOffset();
  }

  rollNextFile(offset: number): number {
    const size = this.config.mappedFileSizeCommitLog;
    return offset + size - (offset % size);
  }

  /** True while an append has held the lock for more than osPageCacheBusyTimeOutMills (Java's isOSPageCacheBusy). */
  isOSPageCacheBusy(): boolean {
    const begin = this.#beginTimeInLock;
    if (begin <= 0) return false;
    const diff = this.now() - begin;
    return diff < 10000000 && diff > this.config.osPageCacheBusyTimeOutMills;
  }

  /** How long the append under way has held the lock, ms (0: none; Java's lockTimeMills). */
  lockTimeMills(): number {
    const begin = this.#beginTimeInLock;
    return begin > 0 ? this.now() - begin : 0;
  }

  /** True while appends wait behind one that is not done (a file being created): new puts would queue. */
  get appendBusy(): boolean {
    return this.#queuedAppends > 0;
  }

  /** The tags code the consume queue stores: TAGS hash, or the deliver time for SCHEDULE_TOPIC_XXXX. */
  computeTagsCode(topic: string, propertiesString: string, storeTimestamp: number): number {
    return this.#tagsCodeOf(topic, propsInfo(propertiesString), storeTimestamp);
  }

  #tagsCodeOf(topic: string, info: PropsInfo, storeTimestamp: number): number {
    let tagsCode = info.tagsHash;
    if (topic === SCHEDULE_TOPIC && info.delayLevel !== undefined) {
      let level = parseInt(info.delayLevel, 10);
      if (level > this.maxDelayLevel) level = this.maxDelayLevel;
      if (level > 0) tagsCode = (this.delayLevelTable.get(level) ?? 0) + storeTimestamp;
    }
    return tagsCode;
  }

  /** The dispatch request of a record just written or read back. */
  #dispatchRequest(msgSize: number, topic: string, queueId: number, commitLogOffset: number, storeTimestamp: number,
    consumeQueueOffset: number, sysFlag: number, preparedTransactionOffset: number, propertiesString: string): DispatchRequest {
    const info = propsInfo(propertiesString);
    return {
      msgSize, success: true, topic, queueId, commitLogOffset,
      tagsCode: this.#tagsCodeOf(topic, info, storeTimestamp), storeTimestamp, consumeQueueOffset,
      keys: info.keys, uniqKey: info.uniqKey, sysFlag, preparedTransactionOffset, propertiesString,
    };
  }

  /** Appends one message; resolves when the flush policy is met. */
  putMessage(msg: MessageExtBrokerInner, dispatch: DispatchFn): Promise<PutMessageResult> {
    return this.#put(() => this.#appendSingle(msg, dispatch));
  }

  /**
   * Appends many messages in order, with one wait for the OS (ASYNC_FLUSH) or the disk (SYNC_FLUSH) for all of them:
   * one promise for the list instead of one per message. Each message gets its own result (a refused one its status).
   * While appends queue behind a file being created (and from the message that needs a new file on), the messages
   * go through putMessage one by one.
   */
  putMessageList(msgs: readonly MessageExtBrokerInner[], dispatch: DispatchFn): Promise<PutMessageResult[]> {
    if (this.#queuedAppends > 0) return Promise.all(msgs.map((m) => this.putMessage(m, dispatch)));
    const outcomes: AppendOutcome[] = [];
    // One store time for the list, as for the records of one batch.
    const storeTimestamp = this.now();
    const syncFlush = this.config.flushDiskType === FlushDiskType.SYNC_FLUSH;
    for (let i = 0; i < msgs.length; i++) {
      let r: AppendOutcome | Promise<AppendOutcome>;
      try {
        r = this.#appendSingle(msgs[i], dispatch, storeTimestamp);
      } catch (e) {
        r = this.#appendFailed(e);
      }
      if (!syncFlush && this.#uncommittedBytes >= this.#commitLeastBytes && !this.#commitRunning) {
        // The first records go to the OS while the rest of the list is encoded.
        void this.#runCommit();
      }
      if (r instanceof Promise) {
        const rest: Promise<PutMessageResult>[] = [this.#enqueue(r)];
        for (let j = i + 1; j < msgs.length; j++) rest.push(this.putMessage(msgs[j], dispatch));
        return Promise.all([this.#settleList(outcomes), Promise.all(rest)]).then(([a, b]) => a.concat(b));
      }
      outcomes.push(r);
    }
    return this.#settleList(outcomes);
  }

  /** One wait for the furthest record of `outcomes`, then every result. */
  #settleList(outcomes: AppendOutcome[]): Promise<PutMessageResult[]> {
    let end = -1;
    for (const o of outcomes) {
      if ('putMessageStatus' in o) continue;
      this.putMessageCount += o.msgNum;
      this.putMessageSize += o.wroteBytes;
      if (o.wroteOffset + o.wroteBytes > end) end = o.wroteOffset + o.wroteBytes;
    }
    const results = (status: PutMessageStatus): PutMessageResult[] => outcomes.map((o) =>
      ('putMessageStatus' in o ? o : { putMessageStatus: status, appendMessageResult: o }));
    if (end < 0) return Promise.resolve(results(PutMessageStatus.PUT_OK));
    if (this.config.flushDiskType === FlushDiskType.SYNC_FLUSH) {
      return this.#waitFlush(end).then((ok) => results(ok ? PutMessageStatus.PUT_OK : PutMessageStatus.FLUSH_DISK_TIMEOUT));
    }
    return this.#waitCommit(end).then(
      () => results(PutMessageStatus.PUT_OK),
      (e: unknown) => {
        this.log.error({ err: e }, 'commit log write failed');
        return results(PutMessageStatus.UNKNOWN_ERROR);
      },
    );
  }

  putMessages(batch: MessageExtBatch, dispatch: DispatchFn): Promise<PutMessageResult> {
    return this.#put(() => this.#appendBatch(batch, dispatch));
  }

  /**
   * Runs `append` in order with every other append. While no append waits for a file to be created, appends run
   * synchronously (no promise chain); otherwise they queue behind it.
   */
  #put(append: () => AppendOutcome | Promise<AppendOutcome>): Promise<PutMessageResult> {
    if (this.#queuedAppends === 0) {
      let r: AppendOutcome | Promise<AppendOutcome>;
      try {
        r = append();
      } catch (e) {
        return Promise.resolve(this.#appendFailed(e));
      }
      if (!(r instanceof Promise)) return this.#afterAppend(r);
      return this.#enqueue(r);
    }
    return this.#enqueue(this.#appendChain.then(append));
  }

  #enqueue(run: Promise<AppendOutcome>): Promise<PutMessageResult> {
    this.#queuedAppends++;
    const done = run.finally(() => { this.#queuedAppends--; });
    this.#appendChain = done.catch(() => undefined);
    return done.then((r) => this.#afterAppend(r), (e: unknown) => this.#appendFailed(e));
  }

  #appendFailed(e: unknown): PutMessageResult {
    this.log.error({ err: e }, 'create mapped file failed');
    return { putMessageStatus: PutMessageStatus.CREATE_MAPEDFILE_FAILED, appendMessageResult: null };
  }

  #afterAppend(r: AppendOutcome): Promise<PutMessageResult> {
    if ('putMessageStatus' in r) return Promise.resolve(r);
    const end = r.wroteOffset + r.wroteBytes;
    this.putMessageCount += r.msgNum;
    this.putMessageSize += r.wroteBytes;
    if (this.config.flushDiskType === FlushDiskType.SYNC_FLUSH) {
      return this.#waitFlush(end).then((ok) => ({
        putMessageStatus: ok ? PutMessageStatus.PUT_OK : PutMessageStatus.FLUSH_DISK_TIMEOUT, appendMessageResult: r,
      }));
    }
    return this.#waitCommit(end).then(
      () => ({ putMessageStatus: PutMessageStatus.PUT_OK, appendMessageResult: r }),
      (e: unknown) => {
        this.log.error({ err: e }, 'commit log write failed');
        return { putMessageStatus: PutMessageStatus.UNKNOWN_ERROR, appendMessageResult: r };
      },
    );
  }

  /** The file a record of `len` bytes goes to, if that needs no file creation (else null). */
  #fileForSync(len: number): MappedFile | null {
    const mf = this.mappedFileQueue.getLastMappedFile();
    if (!mf || mf.isFull() || len + END_FILE_MIN_BLANK_LENGTH > mf.fileSize - mf.wrotePosition || mf.writableBytes() < len) return null;
    return mf;
  }

  async #fileFor(len: number): Promise<MappedFile> {
    let mf = this.mappedFileQueue.getLastMappedFile();
    if (!mf || mf.isFull()) mf = await this.mappedFileQueue.getLastMappedFileOrCreate(0);
    if (len + END_FILE_MIN_BLANK_LENGTH > mf.fileSize - mf.wrotePosition) {
      // End this file with the blank filler; the record goes to the next one.
      const rest = mf.fileSize - mf.wrotePosition;
      await this.#writable(mf, rest);
      const { buf, offset } = mf.reserve(rest);
      buf.fill(0, offset, offset + rest);
      buf.writeInt32BE(rest, offset);
      buf.writeInt32BE(BLANK_MAGIC_CODE, offset + 4);
      mf = await this.mappedFileQueue.getLastMappedFileOrCreate(0);
    }
    await this.#writable(mf, len);
    return mf;
  }

  /** Waits until `len` bytes can be appended to `mf` (mapped files: mapped, blocks reserved). */
  async #writable(mf: MappedFile, len: number): Promise<void> {
    const wait = mf.ensureWritable(len);
    if (!wait) return;
    await wait;
    if (mf.mapError && !this.#mapErrorLogged) {
      this.#mapErrorLogged = true;
      this.log.warn({ err: mf.mapError, file: mf.fileName }, 'commit log file cannot be mapped: written through write segments');
    }
  }

  #mapErrorLogged = false;

  #storeHostBytes(h?: HostAddress): Buffer {
    return h ? cachedSocketAddressBytes(h) : this.#defaultStoreHost;
  }

  /**
   * Checks and measures one message, then encodes it (synchronously when the last file has room). `storeTimestamp`:
   * the list's one store time (putMessageList), else the time now.
   */
  #appendSingle(msg: MessageExtBrokerInner, dispatch: DispatchFn, storeTimestamp = 0): AppendOutcome | Promise<AppendOutcome> {
    const topicData = topicBytes(msg.topic);
    const props = msg.propertiesString;
    const propLen = props === this.#lastProps ? this.#lastPropsLength : Buffer.byteLength(props, 'utf8');
    if (topicData.length > 127) return { putMessageStatus: PutMessageStatus.MESSAGE_ILLEGAL, appendMessageResult: null };
    if (propLen > 32767) return { putMessageStatus: PutMessageStatus.PROPERTIES_SIZE_EXCEEDED, appendMessageResult: null };
    const bornHost = cachedSocketAddressBytes(msg.bornHost);
    const storeHost = msg.storeHost ? cachedSocketAddressBytes(msg.storeHost) : this.#defaultStoreHost;
    let sysFlag = msg.sysFlag;
    sysFlag = bornHost.length === 20 ? sysFlag | MessageSysFlag.BORNHOST_V6_FLAG : sysFlag & ~MessageSysFlag.BORNHOST_V6_FLAG;
    sysFlag = storeHost.length === 20 ? sysFlag | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG : sysFlag & ~MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
    const body = msg.body ?? EMPTY;
    const msgLen = calMsgLength(sysFlag, body.length, topicData.length, propLen);
    if (msgLen > this.config.maxMessageSize) {
      this.log.warn({ topic: msg.topic, msgLen }, 'message size exceeded');
      return { putMessageStatus: PutMessageStatus.MESSAGE_ILLEGAL, appendMessageResult: null };
    }
    const begin = storeTimestamp > 0 ? storeTimestamp : this.now();
    this.#beginTimeInLock = begin;
    const mf = this.#fileForSync(msgLen);
    if (mf) return this.#writeSingle(mf, msg, dispatch, msgLen, sysFlag, body, topicData, propLen, bornHost, storeHost, begin);
    return this.#fileFor(msgLen).then(
      (f) => this.#writeSingle(f, msg, dispatch, msgLen, sysFlag, body, topicData, propLen, bornHost, storeHost, this.now()),
      (e: unknown) => { this.#beginTimeInLock = 0; throw e; },
    );
  }

  /** The properties string of the last message encoded, its length in UTF-8 and its bytes (most puts repeat it). */
  #lastProps = '';
  #lastPropsLength = 0;
  #lastPropsBytes: Buffer | null = EMPTY;
  /** What dispatch reads of #lastProps (one scan per distinct string). */
  #lastPropsScan: PropsInfo = propsInfo('');

  #propsInfo(props: string): PropsInfo {
    if (props !== this.#lastPropsScan.propertiesString) this.#lastPropsScan = propsInfo(props);
    return this.#lastPropsScan;
  }

  /**
   * Encodes the record straight into the file's write segment (Java's DefaultAppendMessageCallback layout), then
   * dispatches it. Store timestamp: the time the append began, as Java's beginLockTimestamp.
   */
  #writeSingle(mf: MappedFile, msg: MessageExtBrokerInner, dispatch: DispatchFn, msgLen: number, sysFlag: number,
    body: Buffer, topicData: Buffer, propLen: number, bornHost: Buffer, storeHost: Buffer, storeTimestamp: number): AppendMessageResult {
    try {
      const wroteOffset = mf.fileFromOffset + mf.wrotePosition;
      const topic = msg.topic;
      const queueId = msg.queueId;
      const key = topicQueueKey(topic, queueId);
      const tranType = sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
      const isTx = tranType === MessageSysFlag.TRANSACTION_PREPARED_TYPE || tranType === MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
      const queueOffset = isTx ? 0 : (this.topicQueueTable.get(key) ?? 0);
      let p = mf.reserveOffset(msgLen);
      const buf = mf.tail;
      putI32(buf, p, msgLen);
      putI32(buf, p + 4, MESSAGE_MAGIC_CODE);
      putI32(buf, p + 8, crc32(body));
      putI32(buf, p + 12, queueId);
      putI32(buf, p + 16, msg.flag);
      putI64(buf, p + 20, queueOffset);
      putI64(buf, p + 28, wroteOffset);
      putI32(buf, p + 36, sysFlag);
      putI64(buf, p + 40, msg.bornTimestamp);
      p += 48;
      p = putBytes(buf, p, bornHost);
      putI64(buf, p, storeTimestamp); p += 8;
      p = putBytes(buf, p, storeHost);
      putI32(buf, p, msg.reconsumeTimes);
      putI64(buf, p + 4, msg.preparedTransactionOffset);
      putI32(buf, p + 12, body.length);
      p += 16;
      buf.set(body, p); p += body.length;
      buf[p++] = topicData.length;
      p = putBytes(buf, p, topicData);
      buf[p++] = propLen >>> 8;
      buf[p++] = propLen;
      const props = msg.propertiesString;
      if (propLen) {
        if (props === this.#lastProps && this.#lastPropsBytes !== null) putBytes(buf, p, this.#lastPropsBytes);
        else {
          buf.write(props, p, propLen, 'utf8');
          // Kept for the next put of the same string (a copy: the segment buffer is reused).
          this.#lastPropsBytes = props === this.#lastProps ? Buffer.from(buf.subarray(p, p + propLen)) : null;
          this.#lastProps = props;
          this.#lastPropsLength = propLen;
        }
      }
      mf.storeTimestamp = storeTimestamp;
      this.#uncommittedBytes += msgLen;
      if (!isTx) this.topicQueueTable.set(key, queueOffset + 1);
      const info = this.#propsInfo(props);
      dispatch({
        msgSize: msgLen, success: true, topic, queueId, commitLogOffset: wroteOffset,
        tagsCode: this.#tagsCodeOf(topic, info, storeTimestamp), storeTimestamp, consumeQueueOffset: queueOffset,
        keys: info.keys, uniqKey: info.uniqKey, sysFlag, preparedTransactionOffset: msg.preparedTransactionOffset,
        propertiesString: props,
      });
      return new StoredAppendResult(storeHost, wroteOffset, msgLen, storeTimestamp, queueOffset, this.now() - this.#beginTimeInLock);
    } finally {
      this.#beginTimeInLock = 0;
    }
  }

  async #appendBatch(batch: MessageExtBatch, dispatch: DispatchFn): Promise<AppendMessageResult | PutMessageResult> {
    const topicData = topicBytes(batch.topic);
    if (topicData.length > 127) return { putMessageStatus: PutMessageStatus.MESSAGE_ILLEGAL, appendMessageResult: null };
    const batchProps = Buffer.from(batch.propertiesString ?? '', 'utf8');
    if (batchProps.length > 32767) return { putMessageStatus: PutMessageStatus.PROPERTIES_SIZE_EXCEEDED, appendMessageResult: null };
    if (batch.body.length > this.config.maxMessageSize) return { putMessageStatus: PutMessageStatus.MESSAGE_ILLEGAL, appendMessageResult: null };
    const bornHost = cachedSocketAddressBytes(batch.bornHost);
    const storeHost = this.#storeHostBytes(batch.storeHost);
    let sysFlag = batch.sysFlag;
    sysFlag = bornHost.length === 20 ? sysFlag | MessageSysFlag.BORNHOST_V6_FLAG : sysFlag & ~MessageSysFlag.BORNHOST_V6_FLAG;
    sysFlag = storeHost.length === 20 ? sysFlag | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG : sysFlag & ~MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
    // Parse the inner messages first (Java's MessageExtBatchEncoder).
    interface Inner { flag: number; bodyPos: number; bodyLen: number; propPos: number; propLen: number; sep: boolean; len: number }
    const inners: Inner[] = [];
    const b = batch.body;
    let p = 0;
    try {
      while (p < b.length) {
        p += 12; // TOTALSIZE, MAGICCODE, BODYCRC
        const flag = b.readInt32BE(p); p += 4;
        const bodyLen = b.readInt32BE(p); p += 4;
        const bodyPos = p; p += bodyLen;
        const propLen = b.readInt16BE(p); p += 2;
        const propPos = p; p += propLen;
        if (bodyLen < 0 || propLen < 0 || p > b.length) throw new RangeError('bad batch');
        const sep = propLen > 0 && batchProps.length > 0 && b[p - 1] !== 2;
        const totalProp = propLen + batchProps.length + (sep ? 1 : 0);
        inners.push({ flag, bodyPos, bodyLen, propPos, propLen, sep, len: calMsgLength(sysFlag, bodyLen, topicData.length, totalProp) });
      }
    } catch {
      return { putMessageStatus: PutMessageStatus.MESSAGE_ILLEGAL, appendMessageResult: null };
    }
    if (inners.length === 0) return { putMessageStatus: PutMessageStatus.MESSAGE_ILLEGAL, appendMessageResult: null };
    const total = inners.reduce((s, m) => s + m.len, 0);
    this.#beginTimeInLock = this.now();
    try {
      const mf = await this.#fileFor(total);
      const storeTimestamp = this.now();
      const key = `${batch.topic}-${batch.queueId}`;
      let queueOffset = this.topicQueueTable.get(key) ?? 0;
      const beginQueueOffset = queueOffset;
      const wroteOffset = mf.fileFromOffset + mf.wrotePosition;
      const { buf, offset } = mf.reserve(total);
      let w = offset;
      const msgIds: string[] = [];
      const requests: DispatchRequest[] = [];
      for (const m of inners) {
        const phy = wroteOffset + (w - offset);
        const start = w;
        buf.writeInt32BE(m.len, w); w += 4;
        buf.writeInt32BE(MESSAGE_MAGIC_CODE, w); w += 4;
        buf.writeInt32BE(crc32(b, m.bodyPos, m.bodyPos + m.bodyLen), w); w += 4;
        buf.writeInt32BE(batch.queueId, w); w += 4;
        buf.writeInt32BE(m.flag, w); w += 4;
        writeI64(buf, queueOffset, w); w += 8;
        writeI64(buf, phy, w); w += 8;
        buf.writeInt32BE(sysFlag, w); w += 4;
        writeI64(buf, batch.bornTimestamp, w); w += 8;
        w += bornHost.copy(buf, w);
        writeI64(buf, storeTimestamp, w); w += 8;
        w += storeHost.copy(buf, w);
        buf.writeInt32BE(batch.reconsumeTimes ?? 0, w); w += 4;
        writeI64(buf, 0, w); w += 8;
        buf.writeInt32BE(m.bodyLen, w); w += 4;
        w += b.copy(buf, w, m.bodyPos, m.bodyPos + m.bodyLen);
        buf.writeUInt8(topicData.length, w); w += 1;
        w += topicData.copy(buf, w);
        const propStart = w + 2;
        buf.writeInt16BE(m.propLen + batchProps.length + (m.sep ? 1 : 0), w); w += 2;
        w += b.copy(buf, w, m.propPos, m.propPos + m.propLen);
        if (batchProps.length) {
          if (m.sep) buf[w++] = 2;
          w += batchProps.copy(buf, w);
        }
        const props = buf.toString('utf8', propStart, w);
        if (w - start !== m.len) throw new Error('batch encode length mismatch');
        msgIds.push(createMessageId(storeHost, phy));
        requests.push(this.#dispatchRequest(m.len, batch.topic, batch.queueId, phy, storeTimestamp, queueOffset, sysFlag, 0, props));
        queueOffset++;
      }
      mf.storeTimestamp = storeTimestamp;
      this.#uncommittedBytes += total;
      this.topicQueueTable.set(key, queueOffset);
      for (const r of requests) dispatch(r);
      return {
        status: AppendMessageStatus.PUT_OK, wroteOffset, wroteBytes: total, msgId: msgIds.join(','), storeTimestamp,
        logicsOffset: beginQueueOffset, pagecacheRT: this.now() - this.#beginTimeInLock, msgNum: inners.length,
      };
    } finally {
      this.#beginTimeInLock = 0;
    }
  }

  // ---- replication ----

  /**
   * The bytes from `offset` to the end of what its file holds (Java's CommitLog.getData: one file at most), at most
   * `maxSize` of them (Java maps them; we read them), or null when no file holds `offset` or nothing lies beyond it.
   */
  async getData(offset: number, maxSize = Number.MAX_SAFE_INTEGER, committedOnly = false): Promise<{ offset: number; data: Buffer } | null> {
    const mf = this.mappedFileQueue.findMappedFileByOffset(offset);
    if (!mf) return null;
    const pos = offset - mf.fileFromOffset;
    const len = Math.min((committedOnly ? mf.committedPosition : mf.wrotePosition) - pos, maxSize);
    if (len <= 0) return null;
    const data = mf.readFromMemory(pos, len) ?? await mf.read(pos, len);
    return data ? { offset, data } : null;
  }

  /**
   * A slave appends the master's bytes at `startOffset` (Java's CommitLog.appendData): into the last file, or a
   * new one starting at `startOffset`'s file boundary. False when the bytes do not continue the log or do not fit
   * the file. Resolves once the bytes are handed to the OS.
   */
  appendData(startOffset: number, data: Buffer): Promise<boolean> {
    const run = async (): Promise<boolean> => {
      let mf = this.mappedFileQueue.getLastMappedFile();
      if (!mf || mf.isFull()) mf = await this.mappedFileQueue.getLastMappedFileOrCreate(startOffset);
      if (mf.fileFromOffset + mf.wrotePosition !== startOffset || mf.wrotePosition + data.length > mf.fileSize) return false;
      await this.#writable(mf, data.length);
      mf.appendBuffer(data);
      return true;
    };
    this.#queuedAppends++;
    const done = this.#appendChain.then(run).finally(() => { this.#queuedAppends--; });
    this.#appendChain = done.catch(() => undefined);
    return done.then(async (ok) => {
      if (ok && data.length > 0) {
        this.#uncommittedBytes += data.length;
        await this.#waitCommit(startOffset + data.length);
      }
      return ok;
    });
  }

  /**
   * Drops everything from `offset` on, on a running store (Java's CommitLog.truncateDirtyFiles): waits for the
   * appends and the write under way, then cuts the files back. The caller keeps new appends out (a slave's role).
   */
  async truncateDirtyFiles(offset: number): Promise<void> {
    await this.#appendChain;
    while (this.#commitRun || this.#nextCommit) await (this.#commitRun ?? this.#runCommit());
    await this.mappedFileQueue.truncateDirtyFiles(offset);
    this.#uncommittedBytes = 0;
  }

  // ---- writing to the OS (coalesced) and to the disk (group commit) ----

  /**
   * Resolves once `offset` has been handed to the OS. All puts of a tick share one pending commit (one writev
   * for all of them, one promise to settle).
   */
  #waitCommit(offset: number): Promise<void> {
    if (this.mappedFileQueue.getCommittedWhere() >= offset) return Promise.resolve();
    let next = this.#nextCommit;
    if (!next) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
      next = { promise, resolve, reject };
      this.#nextCommit = next;
    }
    this.#scheduleCommit();
    return next.promise;
  }

  /**
   * Starts the write at once when commitCommitLogLeastPages pages wait for it and none is under way (the appends that
   * follow in the same task overlap with it), else at the end of the tick (setImmediate) so the tick's puts share it.
   */
  #scheduleCommit(): void {
    if (this.#commitRunning) return;
    if (this.#uncommittedBytes >= this.#commitLeastBytes) {
      void this.#runCommit();
      return;
    }
    if (this.#commitScheduled) return;
    this.#commitScheduled = true;
    setImmediate(this.#onCommitTimer);
  }

  readonly #onCommitTimer = (): void => {
    this.#commitScheduled = false;
    if (!this.#commitRunning && this.#nextCommit) void this.#runCommit();
  };

  /** Writes everything appended so far, then settles the puts that waited for it (all appended before the write began). */
  #runCommit(): Promise<void> {
    const run = this.#doCommit().finally(() => { if (this.#commitRun === run) this.#commitRun = null; });
    this.#commitRun = run;
    return run;
  }

  async #doCommit(): Promise<void> {
    this.#commitRunning = true;
    const batch = this.#nextCommit;
    this.#nextCommit = null;
    this.#uncommittedBytes = 0;
    try {
      await this.mappedFileQueue.commit();
      this.onCommitted?.();
      batch?.resolve();
    } catch (e) {
      batch?.reject(e);
    } finally {
      this.#commitRunning = false;
    }
    if (this.#nextCommit) this.#scheduleCommit();
  }

  /**
   * Group commit: resolves true once `offset` is on disk, false after syncFlushTimeout. The first waiter of a turn
   * starts the group commit at the end of the turn (setImmediate), so the puts of every connection read in it share
   * one fdatasync; waiters that come while one runs are taken by the next, with no hop in between. One timer for all
   * waiters (they time out in the order they came), not one per put.
   */
  #waitFlush(offset: number): Promise<boolean> {
    if (this.mappedFileQueue.getFlushedWhere() >= offset) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      this.#flushWaiters.push({ offset, deadline: performance.now() + this.config.syncFlushTimeout, resolve });
      if (!this.#flushTimer) this.#armFlushTimer();
      if (!this.#flushRunning && !this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(this.#startGroupCommit);
      }
    });
  }

  readonly #startGroupCommit = (): void => {
    this.#flushScheduled = false;
    void this.#runGroupCommit();
  };

  /** Times out the waiters past their deadline (FLUSH_DISK_TIMEOUT), then waits for the next one's. */
  #armFlushTimer(): void {
    const first = this.#flushWaiters[0];
    if (!first) return;
    this.#flushTimer = setTimeout(this.#onFlushTimeout, Math.max(0, first.deadline - performance.now()));
    this.#flushTimer.unref();
  }

  readonly #onFlushTimeout = (): void => {
    this.#flushTimer = null;
    const now = performance.now();
    const waiters = this.#flushWaiters;
    let n = 0;
    while (n < waiters.length && waiters[n].deadline <= now) n++;
    if (n > 0) {
      this.#flushWaiters = waiters.slice(n);
      for (let i = 0; i < n; i++) waiters[i].resolve(false);
    }
    this.#armFlushTimer();
  };

  async #runGroupCommit(): Promise<void> {
    if (this.#flushRunning) return;
    this.#flushRunning = true;
    try {
      while (this.#flushWaiters.length) {
        let err: unknown = null;
        try {
          this.groupCommits++;
          await this.flush();
        } catch (e) {
          err = e;
          this.log.error({ err: e }, 'group commit flush failed');
        }
        const where = this.mappedFileQueue.getFlushedWhere();
        const waiters = this.#flushWaiters;
        this.#flushWaiters = [];
        for (const w of waiters) {
          if (err || w.offset <= where) w.resolve(!err);
          else this.#flushWaiters.push(w);
        }
        if (err) break;
      }
    } finally {
      this.#flushRunning = false;
    }
  }

  /** Writes and fdatasyncs everything appended so far; records the flushed store timestamp. */
  async flush(): Promise<void> {
    const last = this.mappedFileQueue.getLastMappedFile();
    const ts = last ? last.storeTimestamp : 0;
    this.#uncommittedBytes = 0;
    if (this.onCommitted) {
      // Written to the OS first, so replication (which ships only that) runs beside the fdatasync.
      await this.mappedFileQueue.commit();
      this.onCommitted();
    }
    await this.mappedFileQueue.flush();
    if (ts > 0) this.flushedStoreTimestamp = ts;
  }

  // ---- reads ----

  /**
   * `size` bytes of the record at `offset`, or null when that file is gone. `view`: a view of the file's map where
   * it can be (see MappedFile.readFromMemory), else a buffer of its own.
   */
  async getMessage(offset: number, size: number, view = false): Promise<Buffer | null> {
    const mf = this.mappedFileQueue.findMappedFileByOffset(offset);
    if (!mf) return null;
    return mf.read(offset - mf.fileFromOffset, size, view);
  }

  /**
   * Reads several records at once: records lying close together in one file (as the records of one queue often
   * do) come from one contiguous read and are sliced out of it. Entry i of the result is the record of
   * `offsets[i]`/`sizes[i]`, or null when that file is gone. `offsets` must be ascending. `view`: as in getMessage.
   */
  async getMessages(offsets: readonly number[], sizes: readonly number[], view = false): Promise<(Buffer | null)[]> {
    const out: (Buffer | null)[] = new Array<Buffer | null>(offsets.length).fill(null);
    let i = 0;
    while (i < offsets.length) {
      const mf = this.mappedFileQueue.findMappedFileByOffset(offsets[i]);
      if (!mf) { i++; continue; }
      // Extend the run while the next record is in the same file and the range stays dense enough.
      const start = offsets[i];
      let end = start + sizes[i];
      let need = sizes[i];
      let j = i + 1;
      for (; j < offsets.length; j++) {
        const o = offsets[j];
        const e = o + sizes[j];
        if (o < end || e > mf.fileEnd) break;
        const span = e - start;
        if (span > MAX_RANGE_READ || span > RANGE_DENSITY * (need + sizes[j]) + RANGE_SLACK) break;
        end = e;
        need += sizes[j];
      }
      const pos = start - mf.fileFromOffset;
      const range = mf.readFromMemory(pos, end - start, view) ?? await mf.read(pos, end - start, view);
      if (range) {
        for (let k = i; k < j; k++) out[k] = range.subarray(offsets[k] - start, offsets[k] - start + sizes[k]);
      } else {
        for (let k = i; k < j; k++) out[k] = await this.getMessage(offsets[k], sizes[k], view);
      }
      i = j;
    }
    return out;
  }

  /** The whole record at `offset` (its size read first), or null. */
  async getRecord(offset: number): Promise<Buffer | null> {
    const mf = this.mappedFileQueue.findMappedFileByOffset(offset);
    if (!mf) return null;
    const head = await mf.read(offset - mf.fileFromOffset, 4);
    if (!head) return null;
    const size = head.readInt32BE(0);
    if (size <= 0 || size > mf.fileSize) return null;
    return mf.read(offset - mf.fileFromOffset, size);
  }

  // ---- checking records (recovery and dispatch) ----

  /**
   * Checks the record at `pos` of `buf` (which must hold the whole record) and returns what dispatch needs.
   * msgSize 0 = blank filler (end of file), -1 = illegal record.
   */
  checkMessageAndReturnSize(buf: Buffer, pos: number, checkCRC: boolean): DispatchRequest {
    if (pos + 8 > buf.length) return ILLEGAL;
    const totalSize = buf.readInt32BE(pos);
    const magic = buf.readInt32BE(pos + 4);
    if (magic === BLANK_MAGIC_CODE) return BLANK;
    if (magic !== MESSAGE_MAGIC_CODE && magic !== MESSAGE_MAGIC_CODE_V2) return ILLEGAL;
    if (totalSize <= 0 || pos + totalSize > buf.length) return ILLEGAL;
    try {
      let p = pos + 8;
      const bodyCRC = buf.readInt32BE(p); p += 4;
      const queueId = buf.readInt32BE(p); p += 4;
      p += 4; // flag
      const queueOffset = readI64(buf, p); p += 8;
      const physicOffset = readI64(buf, p); p += 8;
      const sysFlag = buf.readInt32BE(p); p += 4;
      p += 8; // born timestamp
      p += (sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) === 0 ? 8 : 20;
      const storeTimestamp = readI64(buf, p); p += 8;
      p += (sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) === 0 ? 8 : 20;
      p += 4; // reconsume times
      const preparedTransactionOffset = readI64(buf, p); p += 8;
      const bodyLen = buf.readInt32BE(p); p += 4;
      if (bodyLen < 0 || p + bodyLen > pos + totalSize) return ILLEGAL;
      if (bodyLen > 0 && checkCRC && crc32(buf, p, p + bodyLen) !== bodyCRC) {
        this.log.warn({ physicOffset }, 'CRC check failed');
        return ILLEGAL;
      }
      p += bodyLen;
      let topicLen: number;
      if (magic === MESSAGE_MAGIC_CODE_V2) { topicLen = buf.readInt16BE(p); p += 2; } else { topicLen = buf.readUInt8(p); p += 1; }
      const topic = buf.toString('utf8', p, p + topicLen); p += topicLen;
      const propLen = buf.readInt16BE(p); p += 2;
      const propertiesString = propLen > 0 ? buf.toString('utf8', p, p + propLen) : '';
      p += propLen;
      const readLength = calMsgLength(sysFlag, bodyLen, topicLen, propLen) + (magic === MESSAGE_MAGIC_CODE_V2 ? 1 : 0);
      if (totalSize !== readLength || p - pos !== totalSize) {
        this.log.error({ totalSize, readLength, physicOffset }, 'illegal record length');
        return ILLEGAL;
      }
      return this.#dispatchRequest(totalSize, topic, queueId, physicOffset, storeTimestamp, queueOffset, sysFlag,
        preparedTransactionOffset, propertiesString);
    } catch {
      return ILLEGAL;
    }
  }

  /**
   * Scans forward from commit-log offset `from`, calling `onRecord` for each valid record, and stops at the
   * first illegal one, the end, or before a record that would end beyond `end` (controller mode's confirm offset).
   * Returns the offset after the last valid record.
   */
  async scan(from: number, checkCRC: boolean, onRecord: ((r: DispatchRequest) => void) | null, end = Number.MAX_SAFE_INTEGER): Promise<number> {
    const files = this.mappedFileQueue.files;
    let idx = files.findIndex((f) => from >= f.fileFromOffset && from < f.fileEnd);
    if (idx < 0) return from;
    let processOffset = from;
    const chunkSize = Math.max(4 * 1024 * 1024, this.config.maxMessageSize + 8);
    while (idx < files.length) {
      const mf = files[idx];
      let pos = processOffset - mf.fileFromOffset;
      let chunk: Buffer | null = null;
      let chunkStart = 0;
      let nextFile = false;
      while (pos < mf.wrotePosition) {
        // A record (or the filler) is at least 8 bytes: fewer is a partial tail (a slave mid-transfer).
        if (mf.wrotePosition - pos < 8) return processOffset;
        if (!chunk || pos + 8 > chunkStart + chunk.length) {
          chunkStart = pos;
          chunk = await mf.read(pos, Math.min(chunkSize, mf.wrotePosition - pos));
          if (!chunk) return processOffset;
        }
        let rel = pos - chunkStart;
        const size = chunk.readInt32BE(rel);
        if (size > 0 && pos + size <= mf.wrotePosition && rel + size > chunk.length) {
          chunkStart = pos;
          chunk = await mf.read(pos, Math.min(Math.max(chunkSize, size), mf.wrotePosition - pos));
          if (!chunk) return processOffset;
          rel = 0;
        }
        const r = this.checkMessageAndReturnSize(chunk, rel, checkCRC);
        if (r.success && r.msgSize > 0) {
          if (r.commitLogOffset !== mf.fileFromOffset + pos) {
            this.log.warn({ expected: mf.fileFromOffset + pos, found: r.commitLogOffset }, 'record physical offset mismatch');
            return processOffset;
          }
          if (r.commitLogOffset + r.msgSize > end) return processOffset;
          onRecord?.(r);
          pos += r.msgSize;
          processOffset = mf.fileFromOffset + pos;
        } else if (r.success) {
          nextFile = true;
          break;
        } else {
          return processOffset;
        }
      }
      if (!nextFile && pos < mf.fileSize) return processOffset;
      if (idx + 1 >= files.length) return nextFile ? processOffset : processOffset;
      idx++;
      processOffset = files[idx].fileFromOffset;
    }
    return processOffset;
  }

  /** Store timestamp of the first record of a file, 0 if none. */
  async firstStoreTimestamp(mf: MappedFile): Promise<number> {
    const head = await mf.read(0, Math.min(mf.wrotePosition, 80));
    if (!head || head.length < 8) return 0;
    if (head.readInt32BE(4) !== MESSAGE_MAGIC_CODE && head.readInt32BE(4) !== MESSAGE_MAGIC_CODE_V2) return 0;
    const sysFlag = head.readInt32BE(RecordPos_SYSFLAG);
    const at = 48 + ((sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) === 0 ? 8 : 20);
    return at + 8 <= head.length ? readI64(head, at) : 0;
  }

  async shutdown(): Promise<void> {
    await this.#appendChain;
    // flush() tells onCommitted itself
    await this.flush();
    const waiters = this.#flushWaiters;
    this.#nextCommit?.resolve();
    this.#nextCommit = null;
    this.#flushWaiters = [];
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = null;
    for (const w of waiters) w.resolve(true);
    await this.mappedFileQueue.close();
    await this.flushThread?.close();
  }
}

const RecordPos_SYSFLAG = 36;
/** getMessages: the longest single read, and how sparse a range may be (span <= density * wanted bytes + slack). */
const MAX_RANGE_READ = 4 * 1024 * 1024;
const RANGE_DENSITY = 8;
const RANGE_SLACK = 64 * 1024;
