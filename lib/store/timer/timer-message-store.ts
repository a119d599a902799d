/**
 * 5.x timer messages: a message sent with TIMER_DELIVER_MS (epoch ms), TIMER_DELAY_SEC or TIMER_DELAY_MS (or the
 * ONS-era `__STARTDELIVERTIME`, epoch ms, which Java 5.3.3's broker does not read) is stored in
 * `rmq_sys_wheel_timer` (queue 0) with TIMER_OUT_MS (its deliver time), REAL_TOPIC and REAL_QID
 * ({@link rewriteTimerMessage}, Java's HookUtils.handleScheduleMessage), then:
 *
 * - enqueue: the records of rmq_sys_wheel_timer are read in order from the checkpoint's queue offset and each
 *   gets a TimerLog unit linked into the wheel slot of its deliver time (a deliver time beyond the wheel's turn,
 *   slotsTotal × timerPrecisionMs, goes to the wheel's last slot and is linked again further on when reached);
 * - dequeue: the wheel is read slot by slot from the checkpoint's read time; each due message is read back from
 *   the commit log and stored in its real topic and queue (REAL_TOPIC / REAL_QID removed), at its own deliver
 *   time (a timer is set for the ones inside the current slot), and the read time moves past a slot once all its
 *   messages are delivered.
 *
 * On disk: the records themselves (commit log), the wheel (timer-wheel.ts), the TimerLog (timer-log.ts: files of
 * `mappedFileSizeTimerLog` bytes, deleted every 30 s once the commit log no longer holds the records they name) and
 * `config/timercheck` (read time, TimerLog write position, enqueue queue offset: four i64 as Java's
 * TimerCheckpoint begins). After a restart the wheel resumes from the checkpoint: a message due while the broker
 * was down is delivered at once. Delivery is at least once (a crash between a delivery and the next checkpoint
 * repeats it).
 *
 * @see org.apache.rocketmq.store.timer.TimerMessageStore (5.3.3)
 * @see org.apache.rocketmq.broker.util.HookUtils#handleScheduleMessage (5.3.3)
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { MessageConst } from '../../../protocol/message/message-const';
import { decodeMessage } from '../../../protocol/message/message-decoder';
import { findProperty, propertiesToString, stringToProperties } from '../../../protocol/message/properties';
import { MessageSysFlag } from '../../../protocol/message/sys-flag';
import type { Logger } from '../../logger';
import type { MessageExtBrokerInner } from '../commit-log';
import type { GetMessageResult, PutMessageResult } from '../store-status';
import { GetMessageStatus, PutMessageStatus } from '../store-status';
import { TimerLog } from './timer-log';
import { TimerMetrics } from './timer-metrics';
import { TimerWheel } from './timer-wheel';

export const TIMER_TOPIC = 'rmq_sys_wheel_timer';
/** How often the timer log's files are checked for deletion (Java's scheduler: every 30 s). */
const CLEAN_INTERVAL_MS = 30_000;
/** Java's TimerMessageStore.TIMER_WHEEL_TTL_DAY × DAY_SECS: slots in the wheel. */
export const DEFAULT_SLOTS_TOTAL = 7 * 24 * 3600;
/** TIMER_ENQUEUE_MS of Long.MAX_VALUE marks a message never enqueued (Java's addMetric skips it). */
const NEVER_ENQUEUED = '9223372036854775807';
/** The ONS-era deliver-time property (epoch ms). */
export const PROPERTY_START_DELIVER_TIME = '__STARTDELIVERTIME';

/** Why a timer message was refused (Java's PutMessageStatus WHEEL_TIMER_*). */
export const TimerRefusal = {
  WHEEL_TIMER_NOT_ENABLE: 'WHEEL_TIMER_NOT_ENABLE',
  WHEEL_TIMER_MSG_ILLEGAL: 'WHEEL_TIMER_MSG_ILLEGAL',
} as const;
export type TimerRefusal = (typeof TimerRefusal)[keyof typeof TimerRefusal];

/**
 * What GET_TIMER_CHECK_POINT (60) carries: Java's TimerCheckpoint.encode, seven big-endian i64 (56 bytes): last read
 * time, timer log flush position, timer queue offset, the master's timer queue offset, then the data version's
 * stateVersion, timestamp and counter.
 *
 * @see org.apache.rocketmq.store.timer.TimerCheckpoint#encode
 */
export interface TimerCheckpointData {
  lastReadTimeMs: number;
  lastTimerLogFlushPos: number;
  lastTimerQueueOffset: number;
  masterTimerQueueOffset: number;
  dataVersion: { stateVersion: number; timestamp: number; counter: number };
}

export function encodeTimerCheckpoint(c: TimerCheckpointData): Buffer {
  const b = Buffer.alloc(56);
  [c.lastReadTimeMs, c.lastTimerLogFlushPos, c.lastTimerQueueOffset, c.masterTimerQueueOffset,
    c.dataVersion.stateVersion, c.dataVersion.timestamp, c.dataVersion.counter].forEach((v, i) => b.writeBigInt64BE(BigInt(v), i * 8));
  return b;
}

/** Java's TimerCheckpoint.decode: the data version only when the body has it (32 bytes before 5.x's addition). */
export function decodeTimerCheckpoint(b: Buffer): TimerCheckpointData {
  const at = (i: number) => (b.length >= (i + 1) * 8 ? Number(b.readBigInt64BE(i * 8)) : 0);
  return {
    lastReadTimeMs: at(0), lastTimerLogFlushPos: at(1), lastTimerQueueOffset: at(2), masterTimerQueueOffset: at(3),
    dataVersion: { stateVersion: at(4), timestamp: at(5), counter: at(6) },
  };
}

/** A quick test that can only be false for messages without timer properties (no map built). */
export function mayBeTimerMessage(propertiesString: string): boolean {
  return propertiesString.includes('TIMER_') || propertiesString.includes(PROPERTY_START_DELIVER_TIME);
}

/** The deliver time asked for, or undefined (not a timer message), or NaN (malformed). */
export function timerDeliverMs(propertiesString: string, now: number): number | undefined {
  const sec = findProperty(propertiesString, MessageConst.PROPERTY_TIMER_DELAY_SEC);
  if (sec !== undefined) return now + parseLong(sec) * 1000;
  const ms = findProperty(propertiesString, MessageConst.PROPERTY_TIMER_DELAY_MS);
  if (ms !== undefined) return now + parseLong(ms);
  const at = findProperty(propertiesString, MessageConst.PROPERTY_TIMER_DELIVER_MS);
  if (at !== undefined) return parseLong(at);
  const start = findProperty(propertiesString, PROPERTY_START_DELIVER_TIME);
  if (start !== undefined) return parseLong(start);
  return undefined;
}

function parseLong(s: string): number {
  return /^-?\d+$/.test(s.trim()) ? Number(s.trim()) : NaN;
}

/**
 * Rewrites a timer message for rmq_sys_wheel_timer in place (plain and commit messages whose deliver time is in
 * the future; a message with a delay level keeps the level and loses its timer properties, as Java). Returns null
 * when the message is to be stored (rewritten or not), or why it is refused.
 */
export function rewriteTimerMessage(msg: MessageExtBrokerInner, cfg: { timerWheelEnable: boolean; timerMaxDelaySec: number }, now: number): TimerRefusal | null {
  const tranType = msg.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
  if (tranType !== 0 && tranType !== MessageSysFlag.TRANSACTION_COMMIT_TYPE) return null;
  if (msg.topic === TIMER_TOPIC || !mayBeTimerMessage(msg.propertiesString)) return null;
  if (findProperty(msg.propertiesString, MessageConst.PROPERTY_TIMER_OUT_MS) !== undefined) return null;
  const level = findProperty(msg.propertiesString, MessageConst.PROPERTY_DELAY_TIME_LEVEL);
  if (level !== undefined && Number(level) > 0) {
    const props = stringToProperties(msg.propertiesString);
    delete props[MessageConst.PROPERTY_TIMER_DELIVER_MS];
    delete props[MessageConst.PROPERTY_TIMER_DELAY_SEC];
    delete props[MessageConst.PROPERTY_TIMER_DELAY_MS];
    msg.propertiesString = propertiesToString(props);
    return null;
  }
  const deliverMs = timerDeliverMs(msg.propertiesString, now);
  if (deliverMs === undefined) return null;
  if (!cfg.timerWheelEnable) return TimerRefusal.WHEEL_TIMER_NOT_ENABLE;
  if (!Number.isFinite(deliverMs)) return TimerRefusal.WHEEL_TIMER_MSG_ILLEGAL;
  if (deliverMs <= now) return null;
  if (deliverMs - now > cfg.timerMaxDelaySec * 1000) return TimerRefusal.WHEEL_TIMER_MSG_ILLEGAL;
  const props = stringToProperties(msg.propertiesString);
  props[MessageConst.PROPERTY_TIMER_OUT_MS] = String(deliverMs);
  props[MessageConst.PROPERTY_REAL_TOPIC] = msg.topic;
  props[MessageConst.PROPERTY_REAL_QUEUE_ID] = String(msg.queueId);
  msg.propertiesString = propertiesToString(props);
  msg.topic = TIMER_TOPIC;
  msg.queueId = 0;
  return null;
}

/** What the timer store uses of the message store. */
export interface TimerStoreBackend {
  getMessage(group: string, topic: string, queueId: number, offset: number, maxMsgNums: number): Promise<GetMessageResult>;
  putMessage(msg: MessageExtBrokerInner): Promise<PutMessageResult>;
  lookMessageByOffset(commitLogOffset: number): Promise<Buffer | null>;
  /** The commit log's first offset (older timer log files are deleted against it). */
  getMinPhyOffset(): number;
}

export interface TimerMessageStoreOptions {
  storePathRootDir: string;
  timerPrecisionMs: number;
  slotsTotal?: number;
  /** Size of one timer log file (Java's mappedFileSizeTimerLog; default 100 MiB). */
  timerLogFileSize?: number;
  logger: Logger;
  /** The clock (tests inject one and drive {@link TimerMessageStore.runOnce}). */
  now?: () => number;
  /** false: no background loop, the caller drives runOnce() (tests). */
  autoRun?: boolean;
}

interface Pending {
  deliverMs: number;
  offsetPy: number;
  sizePy: number;
}

export class TimerMessageStore {
  readonly precisionMs: number;
  readonly slotsTotal: number;
  readonly #wheel: TimerWheel;
  readonly #timerLog: TimerLog;
  readonly #checkFile: string;
  readonly #now: () => number;
  readonly #log: Logger;
  /** Start time of the next slot to read. */
  #readTimeMs = 0;
  /** Next rmq_sys_wheel_timer queue offset to enqueue. */
  #enqueueOffset = 0;
  /** The units of the slot at #readTimeMs not delivered yet (loaded when the slot is reached). */
  #current: Pending[] | null = null;
  #running: Promise<void> | null = null;
  #again = false;
  #timer: NodeJS.Timeout | null = null;
  #started = false;
  #dirty = false;
  #lastPersist = 0;
  /** The TimerLog position the checkpoint holds: where the search for the log's end starts. */
  #logPosAtCheckpoint = 0;
  /** When the timer log's files were last checked for deletion (Java: every 30 s). */
  #lastClean = 0;
  /**
   * Whether due messages are delivered (Java's shouldRunningDequeue): a master delivers; a controller-mode slave only
   * enqueues (its wheel follows the replicated records) and takes the master's read time (GET_TIMER_CHECK_POINT), so
   * that as master it delivers from where the old master stopped.
   */
  #shouldRunningDequeue = true;
  /** Java's TimerCheckpoint data version: moves on with each checkpoint persisted; a slave takes its master's. */
  #dataVersion = { stateVersion: 0, timestamp: Date.now(), counter: 0 };
  /** The master's timer queue offset (Java masterTimerQueueOffset): a slave's last copy, this store's own on a master. */
  #masterTimerQueueOffset = 0;
  /** Messages delivered so far, and how late each was (ms after its deliver time), for benches and reports. */
  readonly stats = { delivered: 0, enqueued: 0, maxLatenessMs: 0, totalLatenessMs: 0 };
  /** The messages waiting per real topic (Java's TimerMetrics, `config/timermetrics`; GET_TIMER_METRICS answers it). */
  readonly timerMetrics: TimerMetrics;

  constructor(private readonly backend: TimerStoreBackend, private readonly options: TimerMessageStoreOptions) {
    this.precisionMs = options.timerPrecisionMs;
    this.slotsTotal = options.slotsTotal ?? DEFAULT_SLOTS_TOTAL;
    this.#wheel = new TimerWheel(path.join(options.storePathRootDir, 'timerwheel'), this.slotsTotal, this.precisionMs);
    this.#timerLog = new TimerLog(path.join(options.storePathRootDir, 'timerlog'), options.timerLogFileSize);
    this.#checkFile = path.join(options.storePathRootDir, 'config', 'timercheck');
    this.#now = options.now ?? Date.now;
    this.#log = options.logger;
    this.timerMetrics = new TimerMetrics(options.storePathRootDir, this.#now);
  }

  #floor(t: number): number {
    return Math.floor(t / this.precisionMs) * this.precisionMs;
  }

  /** Reads the checkpoint; the wheel and the log are opened when there is something to keep (lazily). */
  async load(): Promise<void> {
    try {
      const b = await fsp.readFile(this.#checkFile);
      if (b.length >= 24) {
        this.#readTimeMs = Number(b.readBigInt64BE(0));
        this.#logPosAtCheckpoint = Number(b.readBigInt64BE(8));
        this.#enqueueOffset = Number(b.readBigInt64BE(16));
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await this.timerMetrics.load();
    if (this.#readTimeMs > 0) await this.#openFiles();
  }

  async #openFiles(): Promise<void> {
    if (this.#wheel.isOpen) return;
    await this.#wheel.open();
    await this.#timerLog.open(this.#logPosAtCheckpoint);
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.kick();
  }

  /** A record arrived in rmq_sys_wheel_timer (or anything worth a look): run the loop now. */
  kick(): void {
    if (!this.#started || this.options.autoRun === false) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#running = this.runOnce().catch((err: unknown) => {
      this.#log.error({ err }, 'timer loop failed');
      return this.#readTimeMs + this.precisionMs;
    }).then((next) => {
      this.#running = null;
      if (!this.#started) return;
      if (this.#again) {
        this.#again = false;
        this.kick();
        return;
      }
      const wait = Math.max(0, Math.min(next - this.#now(), 1000));
      this.#timer = setTimeout(() => {
        this.#timer = null;
        this.kick();
      }, wait);
      this.#timer.unref();
    });
  }

  get shouldRunningDequeue(): boolean {
    return this.#shouldRunningDequeue;
  }

  /** Starts (true, a master) or stops (false, a slave) delivery; enqueueing goes on (Java setShouldRunningDequeue). */
  setShouldRunningDequeue(on: boolean): void {
    if (on === this.#shouldRunningDequeue) return;
    this.#shouldRunningDequeue = on;
    // the slot under way is read again from the wheel (its read time may have moved on the slave)
    this.#current = null;
    this.kick();
  }

  /** GET_TIMER_CHECK_POINT's answer: this store's checkpoint (Java's TimerCheckpoint as the master holds it). */
  getCheckpoint(): TimerCheckpointData {
    return {
      lastReadTimeMs: this.#readTimeMs, lastTimerLogFlushPos: this.#timerLog.writePos, lastTimerQueueOffset: this.#enqueueOffset,
      masterTimerQueueOffset: this.#shouldRunningDequeue ? this.#enqueueOffset : this.#masterTimerQueueOffset, dataVersion: { ...this.#dataVersion },
    };
  }

  /**
   * A slave takes its master's checkpoint (Java's SlaveSynchronize.syncTimerCheckPoint): the read time (what the
   * master delivered is not delivered again after a failover), the master's queue offset and data version.
   */
  syncCheckpointFromMaster(c: TimerCheckpointData): void {
    if (this.#shouldRunningDequeue) return;
    this.#masterTimerQueueOffset = c.masterTimerQueueOffset;
    this.#dataVersion = { ...c.dataVersion };
    if (c.lastReadTimeMs > this.#readTimeMs) {
      this.#readTimeMs = c.lastReadTimeMs;
      this.#current = null;
      this.#dirty = true;
    }
  }

  /** One enqueue and dequeue round at the clock's now; resolves to the time the next round is due. */
  async runOnce(): Promise<number> {
    const more = await this.#enqueue();
    const next = this.#shouldRunningDequeue ? await this.#dequeue() : this.#now() + 1000;
    if (more) return this.#now();
    if (this.#dirty && this.#now() - this.#lastPersist >= 1000) await this.persist();
    if (this.#wheel.isOpen && this.#now() - this.#lastClean >= CLEAN_INTERVAL_MS) await this.cleanTimerLog();
    return next;
  }

  /** Deletes the timer log files whose units all name records the commit log has deleted (Java's 30 s task). */
  async cleanTimerLog(): Promise<number> {
    this.#lastClean = this.#now();
    const n = await this.#timerLog.deleteExpiredFiles(this.backend.getMinPhyOffset());
    if (n > 0) this.#log.info({ files: n }, 'timer log files deleted: the commit log no longer holds their records');
    return n;
  }

  /** Enqueues up to 512 records per round (so that delivery is not held up by a burst of sends); true when more wait. */
  async #enqueue(): Promise<boolean> {
    for (let round = 0; ; round++) {
      if (round === 16) return true;
      let r = await this.backend.getMessage('timer', TIMER_TOPIC, 0, this.#enqueueOffset, 32);
      if (r.status === GetMessageStatus.OFFSET_TOO_SMALL || r.status === GetMessageStatus.OFFSET_OVERFLOW_BADLY
        || r.status === GetMessageStatus.OFFSET_FOUND_NULL) {
        if (r.nextBeginOffset === this.#enqueueOffset) return false;
        this.#enqueueOffset = r.nextBeginOffset;
        this.#dirty = true;
        r = await this.backend.getMessage('timer', TIMER_TOPIC, 0, this.#enqueueOffset, 32);
      }
      if (r.messages.length === 0) {
        if (r.nextBeginOffset > this.#enqueueOffset) {
          this.#enqueueOffset = r.nextBeginOffset;
          this.#dirty = true;
        }
        return false;
      }
      await this.#openFiles();
      if (this.#readTimeMs === 0) this.#readTimeMs = this.#floor(this.#now());
      for (let i = 0; i < r.messages.length; i++) {
        const rec = r.messages[i];
        const m = decodeMessage(rec, 0, { readBody: false, clientMsgId: false });
        const deliverMs = Number(m.properties[MessageConst.PROPERTY_TIMER_OUT_MS]);
        const p: Pending = { deliverMs: Number.isFinite(deliverMs) ? deliverMs : 0, offsetPy: m.commitLogOffset, sizePy: rec.length };
        this.#link(p);
        this.stats.enqueued++;
        this.#addMetric(m.properties, 1);
      }
      // The queue offset moves only once the units and slots of the batch are written.
      await this.#flushFiles();
      this.#enqueueOffset = Math.max(r.messageQueueOffsets[r.messageQueueOffsets.length - 1] + 1, r.nextBeginOffset);
      this.#dirty = true;
    }
  }

  /** Links a message into the wheel (or into the slot being read when it is due there or earlier). */
  #link(p: Pending): void {
    const slotTime = this.#floor(p.deliverMs);
    if (slotTime <= this.#readTimeMs) {
      // Due in the slot being read or before it: delivered with that slot (linked there too, for a restart).
      this.#addToSlot(this.#readTimeMs, p);
      if (this.#current) this.#current.push(p);
      return;
    }
    const horizon = this.#readTimeMs + (this.slotsTotal - 1) * this.precisionMs;
    this.#addToSlot(Math.min(slotTime, horizon), p);
  }

  /** Links a unit into a slot in memory; #flushFiles() writes the TimerLog units and the changed slots. */
  #addToSlot(slotTime: number, p: Pending): void {
    const slot = this.#wheel.getSlot(slotTime);
    const pos = this.#timerLog.append({ prevPos: slot.lastPos, slotTime, deliverMs: p.deliverMs, offsetPy: p.offsetPy, sizePy: p.sizePy });
    this.#wheel.putSlot({ timeMs: slotTime, firstPos: slot.num === 0 ? pos : slot.firstPos, lastPos: pos, num: slot.num + 1 });
  }

  async #flushFiles(): Promise<void> {
    await this.#timerLog.flush();
    await this.#wheel.flush();
  }

  async #loadSlot(slotTime: number): Promise<Pending[]> {
    const slot = this.#wheel.getSlot(slotTime);
    const out: Pending[] = [];
    let pos = slot.lastPos;
    for (let i = 0; i < slot.num && pos >= 0; i++) {
      const u = await this.#timerLog.read(pos);
      if (!u) break;
      out.push({ deliverMs: u.deliverMs, offsetPy: u.offsetPy, sizePy: u.sizePy });
      pos = u.prevPos;
    }
    return out.reverse();
  }

  async #dequeue(): Promise<number> {
    if (!this.#wheel.isOpen || this.#readTimeMs === 0) return this.#now() + 1000;
    for (;;) {
      const now = this.#now();
      if (this.#readTimeMs > now) return this.#readTimeMs;
      if (!this.#current) this.#current = await this.#loadSlot(this.#readTimeMs);
      const rest: Pending[] = [];
      const due: Pending[] = [];
      const slotEnd = this.#readTimeMs + this.precisionMs;
      let rolled = false;
      for (const p of this.#current) {
        if (p.deliverMs >= slotEnd) {
          // Rolled: its slot was beyond the wheel's turn when it was linked.
          this.#addToSlot(Math.min(this.#floor(p.deliverMs), this.#readTimeMs + (this.slotsTotal - 1) * this.precisionMs), p);
          rolled = true;
        } else if (p.deliverMs <= now) {
          due.push(p);
        } else {
          rest.push(p);
        }
      }
      if (rolled) await this.#flushFiles();
      const delivered = await Promise.all(due.map((p) => this.#deliver(p, now)));
      due.forEach((p, i) => { if (!delivered[i]) rest.push(p); });
      this.#current = rest;
      if (rest.length > 0) {
        // Wait for the earliest (a failed put is tried again in 100 ms).
        return Math.min(...rest.map((p) => (p.deliverMs <= now ? now + 100 : p.deliverMs)));
      }
      this.#current = null;
      this.#readTimeMs = slotEnd;
      this.#dirty = true;
    }
  }

  async #deliver(p: Pending, now: number): Promise<boolean> {
    const rec = await this.backend.lookMessageByOffset(p.offsetPy);
    if (!rec) {
      this.#log.warn({ offsetPy: p.offsetPy }, 'timer message no longer in the commit log, dropped');
      return true;
    }
    const m = decodeMessage(rec, 0, { decompressBody: false, clientMsgId: false });
    const props = { ...m.properties };
    const topic = props[MessageConst.PROPERTY_REAL_TOPIC];
    const queueId = Number(props[MessageConst.PROPERTY_REAL_QUEUE_ID]);
    if (!topic || !Number.isInteger(queueId)) {
      this.#log.warn({ offsetPy: p.offsetPy }, 'timer message without REAL_TOPIC / REAL_QID, dropped');
      return true;
    }
    delete props[MessageConst.PROPERTY_REAL_TOPIC];
    delete props[MessageConst.PROPERTY_REAL_QUEUE_ID];
    props[MessageConst.PROPERTY_TIMER_DEQUEUE_MS] = String(now);
    const r = await this.backend.putMessage({
      topic, queueId, flag: m.flag, body: m.body, propertiesString: propertiesToString(props),
      bornTimestamp: m.bornTimestamp, bornHost: { host: m.bornHost.address, port: m.bornHost.port },
      storeHost: { host: m.storeHost.address, port: m.storeHost.port }, sysFlag: m.sysFlag, reconsumeTimes: m.reconsumeTimes,
      preparedTransactionOffset: 0,
    });
    if (r.putMessageStatus !== PutMessageStatus.PUT_OK) {
      this.#log.warn({ topic, queueId, status: r.putMessageStatus }, 'timer message delivery failed, tried again');
      return false;
    }
    this.#addMetric(m.properties, -1);
    const late = Math.max(0, this.#now() - p.deliverMs);
    this.stats.delivered++;
    this.stats.totalLatenessMs += late;
    this.stats.maxLatenessMs = Math.max(this.stats.maxLatenessMs, late);
    return true;
  }

  /** Java's addMetric: the real topic's count moves, unless the message has none or was never enqueued. */
  #addMetric(props: Record<string, string>, value: number): void {
    const topic = props[MessageConst.PROPERTY_REAL_TOPIC];
    if (!topic || props[MessageConst.PROPERTY_TIMER_ENQUEUE_MS] === NEVER_ENQUEUED) return;
    this.timerMetrics.addAndGet(topic, value);
  }

  /** Writes config/timercheck (read time, TimerLog write position, enqueue offset, 0) and config/timermetrics. */
  async persist(): Promise<void> {
    const b = Buffer.alloc(32);
    b.writeBigInt64BE(BigInt(this.#readTimeMs), 0);
    b.writeBigInt64BE(BigInt(this.#timerLog.writePos), 8);
    b.writeBigInt64BE(BigInt(this.#enqueueOffset), 16);
    await fsp.mkdir(path.dirname(this.#checkFile), { recursive: true });
    await fsp.writeFile(`${this.#checkFile}.tmp`, b);
    await fsp.rename(`${this.#checkFile}.tmp`, this.#checkFile);
    this.#dirty = false;
    this.#lastPersist = this.#now();
    if (this.#shouldRunningDequeue) this.#dataVersion = { ...this.#dataVersion, timestamp: this.#now(), counter: this.#dataVersion.counter + 1 };
    await this.timerMetrics.persist();
  }

  get readTimeMs(): number {
    return this.#readTimeMs;
  }

  get enqueueOffset(): number {
    return this.#enqueueOffset;
  }

  async shutdown(): Promise<void> {
    this.#started = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
    if (this.#dirty) await this.persist();
    else await this.timerMetrics.persist();
    await this.#wheel.close();
    await this.#timerLog.close();
  }
}
