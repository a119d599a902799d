/**
 * Delay levels: a message with a DELAY property is stored in SCHEDULE_TOPIC_XXXX, queue (level - 1), with its real
 * topic and queue in REAL_TOPIC / REAL_QID ({@link rewriteDelayedMessage}, Java's CommitLog.putMessage). One delivery
 * loop per level reads that queue from its saved offset and, when a message is due (store time + the level's delay),
 * stores it again under its real topic and queue (Java's messageTimeup: the properties string is kept as stored, so
 * the delivered message still shows DELAY, REAL_TOPIC and REAL_QID, as Java's does). Progress goes to delayOffset.json
 * (`{"offsetTable":{1:5,2:0}}`, Java's DelayOffsetSerializeWrapper) every 10 s and on shutdown.
 *
 * Each level keeps one timer armed for the due time of its next message (not a 100 ms poll); a message arriving in
 * an idle level (through {@link ScheduleMessageService.notifyMessageArriving} or the rewrite) arms it. An idle level
 * re-checks its queue every `idleCheckIntervalMillis` as a safety net.
 *
 * @see org.apache.rocketmq.store.schedule.ScheduleMessageService (4.9.8)
 * @see org.apache.rocketmq.store.schedule.DelayOffsetSerializeWrapper
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { MessageConst } from '../../../protocol/message/message-const';
import { findProperty, stringToProperties, propertiesToString } from '../../../protocol/message/properties';
import { layoutRecord } from '../../../protocol/message/message-decoder';
import { MessageSysFlag, getTransactionValue } from '../../../protocol/message/sys-flag';
import { encodeFastjson } from '../../../protocol/body/fastjson';
import { asLong, numberMap, parseBody } from '../../../protocol/body/body-util';
import type { MessageExtBrokerInner } from '../../store/commit-log';
import type { GetMessageResult, PutMessageResult } from '../../store/store-status';
import { componentLogger, type Logger } from '../../logger';

export const SCHEDULE_TOPIC = 'SCHEDULE_TOPIC_XXXX';
export const DEFAULT_MESSAGE_DELAY_LEVEL = '1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h';
/** Java's DELAY_FOR_A_WHILE: retry after a failed put or when the queue is not readable yet. */
export const DELAY_FOR_A_WHILE = 100;
/** Java's FIRST_DELAY_TIME. */
export const FIRST_DELAY_TIME = 1000;
/** Java's DELAY_FOR_A_PERIOD (after an unexpected error). */
export const DELAY_FOR_A_PERIOD = 10000;
const BATCH = 32;
const TIME_UNITS: Readonly<Record<string, number>> = Object.freeze({ s: 1000, m: 60000, h: 3600000, d: 86400000 });

export function delayLevel2QueueId(level: number): number {
  return level - 1;
}

export function queueId2DelayLevel(queueId: number): number {
  return queueId + 1;
}

/**
 * Parses `messageDelayLevel` ("1s 5s ... 2h"; units s, m, h, d) into level (1-based) → milliseconds.
 * Throws on an item Java would refuse (unknown unit, not a number).
 */
export function parseDelayLevel(levels: string): Map<number, number> {
  const table = new Map<number, number>();
  const items = levels.split(' ');
  items.forEach((item, i) => {
    const unit = TIME_UNITS[item.slice(-1)];
    const num = item.length > 1 ? Number(item.slice(0, -1)) : NaN;
    if (unit === undefined || !Number.isInteger(num)) throw new Error(`bad messageDelayLevel item "${item}" in "${levels}"`);
    table.set(i + 1, num * unit);
  });
  return table;
}

/**
 * Rewrites a message with a DELAY level > 0 for SCHEDULE_TOPIC_XXXX, in place (Java CommitLog.putMessage): the level is
 * capped at `maxDelayLevel`, REAL_TOPIC / REAL_QID keep the real destination, topic and queueId become
 * SCHEDULE_TOPIC_XXXX and (level - 1). Only plain and commit messages are delayed; a message already in
 * SCHEDULE_TOPIC_XXXX is left alone. Returns the level used, or 0 when the message is not delayed.
 * The store computes the consume-queue tags code (the deliver timestamp) from the DELAY property.
 */
export function rewriteDelayedMessage(msg: MessageExtBrokerInner, maxDelayLevel: number): number {
  const tranType = getTransactionValue(msg.sysFlag);
  if (tranType !== MessageSysFlag.TRANSACTION_NOT_TYPE && tranType !== MessageSysFlag.TRANSACTION_COMMIT_TYPE) return 0;
  if (msg.topic === SCHEDULE_TOPIC || maxDelayLevel <= 0) return 0;
  const raw = findProperty(msg.propertiesString, MessageConst.PROPERTY_DELAY_TIME_LEVEL);
  if (raw === undefined) return 0;
  let level = parseInt(raw, 10);
  if (!(level > 0)) return 0;
  const props = stringToProperties(msg.propertiesString);
  if (level > maxDelayLevel) {
    level = maxDelayLevel;
    props[MessageConst.PROPERTY_DELAY_TIME_LEVEL] = String(level);
  }
  props[MessageConst.PROPERTY_REAL_TOPIC] = msg.topic;
  props[MessageConst.PROPERTY_REAL_QUEUE_ID] = String(msg.queueId);
  msg.propertiesString = propertiesToString(props);
  msg.topic = SCHEDULE_TOPIC;
  msg.queueId = delayLevel2QueueId(level);
  return level;
}

/**
 * Rebuilds the message a SCHEDULE_TOPIC_XXXX record stands for, addressed to its real topic and queue (Java's
 * messageTimeup). The body is kept as stored (compressed or not, sysFlag unchanged). Null when the record has no
 * REAL_TOPIC / REAL_QID.
 */
export function messageTimeup(record: Buffer): MessageExtBrokerInner | null {
  const l = layoutRecord(record, 0);
  const propertiesString = record.toString('utf8', l.propertiesPosition, l.propertiesPosition + l.propertiesLength);
  const topic = findProperty(propertiesString, MessageConst.PROPERTY_REAL_TOPIC);
  const qid = findProperty(propertiesString, MessageConst.PROPERTY_REAL_QUEUE_ID);
  if (!topic || qid === undefined || !/^-?\d+$/.test(qid)) return null;
  const bornHostPos = 48;
  const storeHostPos = l.storeTimestampPosition + 8;
  const host = (pos: number, len: 4 | 16) => ({
    host: len === 4 ? Array.from(record.subarray(pos, pos + 4)).join('.') : ipv6(record.subarray(pos, pos + 16)),
    port: record.readInt32BE(pos + len),
  });
  return {
    topic,
    queueId: Number(qid),
    flag: record.readInt32BE(16),
    body: Buffer.from(record.subarray(l.bodyPosition, l.bodyPosition + l.bodyLength)),
    propertiesString,
    bornTimestamp: readLong(record, 40),
    bornHost: host(bornHostPos, l.bornHostLength),
    storeHost: host(storeHostPos, l.storeHostLength),
    sysFlag: l.sysFlag,
    reconsumeTimes: record.readInt32BE(l.reconsumeTimesPosition),
    preparedTransactionOffset: readLong(record, l.reconsumeTimesPosition + 4),
  };
}

function readLong(buf: Buffer, at: number): number {
  return buf.readInt32BE(at) * 4294967296 + buf.readUInt32BE(at + 4);
}

function ipv6(b: Buffer): string {
  const parts: string[] = [];
  for (let i = 0; i < 16; i += 2) parts.push(b.readUInt16BE(i).toString(16));
  return parts.join(':');
}

/** What the schedule service needs of the message store (a subset of the broker's store interface). */
export interface ScheduleMessageStore {
  getMessage(group: string, topic: string, queueId: number, offset: number, maxMsgNums: number, filter: null): Promise<GetMessageResult>;
  putMessage(msg: MessageExtBrokerInner): Promise<PutMessageResult>;
  getMinOffsetInQueue(topic: string, queueId: number): number;
  getMaxOffsetInQueue(topic: string, queueId: number): number;
}

export interface ScheduleMessageServiceOptions {
  /** Java's messageDelayLevel. */
  messageDelayLevel: string;
  /** Where delayOffset.json lives: `${storePathRootDir}/config/delayOffset.json`. */
  delayOffsetFile: string;
  /** Java's flushDelayOffsetInterval. */
  flushDelayOffsetInterval: number;
  /** First run of each level after start (Java's FIRST_DELAY_TIME). */
  firstDelayMillis: number;
  /** How often an idle level re-reads its queue when no arrival was notified. */
  idleCheckIntervalMillis: number;
  now: () => number;
  logger?: Logger;
}

export const DEFAULT_SCHEDULE_MESSAGE_SERVICE_OPTIONS: Readonly<Omit<ScheduleMessageServiceOptions, 'delayOffsetFile' | 'logger'>> =
  Object.freeze({
    messageDelayLevel: DEFAULT_MESSAGE_DELAY_LEVEL,
    flushDelayOffsetInterval: 10000,
    firstDelayMillis: FIRST_DELAY_TIME,
    idleCheckIntervalMillis: 1000,
    now: Date.now,
  });

/** Encodes the offset table as Java's DelayOffsetSerializeWrapper (fastjson: integer keys unquoted). */
export function encodeDelayOffset(table: ReadonlyMap<number, number>): string {
  const sorted = new Map([...table].sort((a, b) => a[0] - b[0]));
  return encodeFastjson({ offsetTable: sorted }).toString('utf8');
}

/** Reads delayOffset.json (`{"offsetTable":{1:5}}`, keys quoted or not). */
export function decodeDelayOffset(text: string): Map<number, number> {
  const o = parseBody(Buffer.from(text, 'utf8'), 'DelayOffsetSerializeWrapper');
  return numberMap(o, 'offsetTable', (v) => asLong(v, 'offsetTable'));
}

class LevelDeliverer {
  offset: number;
  #timer: NodeJS.Timeout | null = null;
  #armedAt = Infinity;
  #running: Promise<void> | null = null;
  #rearmAt: number | null = null;

  constructor(
    private readonly service: ScheduleMessageService,
    readonly level: number,
    readonly delayMillis: number,
    offset: number,
  ) {
    this.offset = offset;
  }

  /** Arms the timer for `at` unless it is already armed for an earlier time. */
  arm(at: number): void {
    if (!this.service.isStarted) return;
    if (this.#running) {
      this.#rearmAt = this.#rearmAt === null ? at : Math.min(this.#rearmAt, at);
      return;
    }
    if (this.#timer && this.#armedAt <= at) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#armedAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#armedAt = Infinity;
      this.#run();
    }, Math.max(0, at - this.service.now()));
    this.#timer.unref();
  }

  #run(): void {
    if (!this.service.isStarted || this.#running) return;
    this.#running = (async () => {
      let next: number;
      try {
        next = await this.#deliverDue();
      } catch (err) {
        this.service.logger.error({ err, level: this.level, offset: this.offset }, 'schedule delivery failed');
        next = this.service.now() + DELAY_FOR_A_PERIOD;
      }
      this.#running = null;
      if (this.#rearmAt !== null) next = Math.min(next, this.#rearmAt);
      this.#rearmAt = null;
      this.arm(next);
    })();
  }

  /** Java's correctDeliverTimestamp: a deliver time further away than the level's delay is due now. */
  #correct(now: number, deliver: number): number {
    return deliver > now + this.delayMillis ? now : deliver;
  }

  /** Delivers every due message; returns when to look again. */
  async #deliverDue(): Promise<number> {
    const store = this.service.store;
    const queueId = delayLevel2QueueId(this.level);
    for (;;) {
      if (!this.service.isStarted) return Infinity;
      const min = store.getMinOffsetInQueue(SCHEDULE_TOPIC, queueId);
      const max = store.getMaxOffsetInQueue(SCHEDULE_TOPIC, queueId);
      if (this.offset < min) {
        this.service.logger.error({ level: this.level, offset: this.offset, min }, 'schedule offset below the queue, corrected');
        this.offset = min;
      } else if (this.offset > max) {
        this.service.logger.error({ level: this.level, offset: this.offset, max }, 'schedule offset beyond the queue, corrected');
        this.offset = max;
      }
      if (this.offset >= max) return this.service.now() + this.service.options.idleCheckIntervalMillis;
      const r = await store.getMessage(SCHEDULE_TOPIC, SCHEDULE_TOPIC, queueId, this.offset, BATCH, null);
      if (r.messages.length === 0) return this.service.now() + DELAY_FOR_A_WHILE;
      for (let i = 0; i < r.messages.length; i++) {
        if (!this.service.isStarted) return Infinity;
        const rec = r.messages[i];
        const queueOffset = r.messageQueueOffsets[i] ?? this.offset + i;
        const l = layoutRecord(rec, 0);
        const storeTimestamp = readLong(rec, l.storeTimestampPosition);
        const now = this.service.now();
        const deliver = this.#correct(now, storeTimestamp + this.delayMillis);
        if (deliver > now) return deliver;
        const inner = messageTimeup(rec);
        if (inner === null || inner.topic === 'RMQ_SYS_TRANS_HALF_TOPIC') {
          this.service.logger.error({ level: this.level, queueOffset }, 'schedule message without a real topic, discarded');
        } else {
          const put = await store.putMessage(inner);
          if (put.putMessageStatus !== 'PUT_OK') {
            this.service.logger.error({ level: this.level, queueOffset, status: put.putMessageStatus, topic: inner.topic }, 'delayed message put failed');
            return this.service.now() + DELAY_FOR_A_WHILE;
          }
        }
        this.offset = queueOffset + 1;
        this.service.offsetTable.set(this.level, this.offset);
      }
    }
  }

  clear(): Promise<void> | null {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#armedAt = Infinity;
    this.#rearmAt = null;
    return this.#running;
  }
}

/** @see org.apache.rocketmq.store.schedule.ScheduleMessageService */
export class ScheduleMessageService {
  readonly options: ScheduleMessageServiceOptions;
  readonly logger: Logger;
  readonly delayLevelTable: Map<number, number>;
  readonly maxDelayLevel: number;
  /** level → next queue offset to deliver. */
  readonly offsetTable = new Map<number, number>();
  #levels = new Map<number, LevelDeliverer>();
  #started = false;
  #persistTimer: NodeJS.Timeout | null = null;
  #persisting: Promise<void> = Promise.resolve();
  #loaded = false;

  constructor(
    readonly store: ScheduleMessageStore,
    options: Partial<ScheduleMessageServiceOptions> & { delayOffsetFile: string },
  ) {
    this.options = { ...DEFAULT_SCHEDULE_MESSAGE_SERVICE_OPTIONS, ...options };
    this.logger = options.logger ?? componentLogger('schedule');
    this.delayLevelTable = parseDelayLevel(this.options.messageDelayLevel);
    this.maxDelayLevel = Math.max(0, ...this.delayLevelTable.keys());
  }

  get isStarted(): boolean {
    return this.#started;
  }

  now(): number {
    return this.options.now();
  }

  /** Java's computeDeliverTimestamp. */
  computeDeliverTimestamp(delayLevel: number, storeTimestamp: number): number {
    const t = this.delayLevelTable.get(delayLevel);
    return t !== undefined ? t + storeTimestamp : storeTimestamp + 1000;
  }

  /** Rewrites a delayed message for SCHEDULE_TOPIC_XXXX (see {@link rewriteDelayedMessage}) and arms its level. */
  rewriteDelayedMessage(msg: MessageExtBrokerInner): number {
    const level = rewriteDelayedMessage(msg, this.maxDelayLevel);
    if (level > 0) this.#levels.get(level)?.arm(this.now() + (this.delayLevelTable.get(level) ?? 0));
    return level;
  }

  /** The controller hook's name for {@link rewriteDelayedMessage} (called by the send processor). */
  rewriteDelayMessage(msg: MessageExtBrokerInner): void {
    this.rewriteDelayedMessage(msg);
  }

  /** The store's arrival callback: a new SCHEDULE_TOPIC_XXXX entry (tagsCode = deliver timestamp) arms its level. */
  notifyMessageArriving(topic: string, queueId: number, _logicOffset: number, tagsCode: number): void {
    if (topic !== SCHEDULE_TOPIC) return;
    const lv = this.#levels.get(queueId2DelayLevel(queueId));
    if (lv) lv.arm(this.#correctArrival(lv, tagsCode));
  }

  #correctArrival(lv: LevelDeliverer, deliver: number): number {
    const now = this.now();
    return deliver > now + lv.delayMillis ? now : deliver;
  }

  /** Loads delayOffset.json (or its .bak); a missing file is an empty table. */
  async load(): Promise<boolean> {
    const file = this.options.delayOffsetFile;
    for (const f of [file, `${file}.bak`]) {
      let text: string;
      try {
        text = await fsp.readFile(f, 'utf8');
      } catch {
        continue;
      }
      if (!text.trim()) continue;
      try {
        const t = decodeDelayOffset(text);
        for (const [k, v] of t) this.offsetTable.set(k, v);
        this.#loaded = true;
        return true;
      } catch (err) {
        this.logger.error({ err, file: f }, 'delayOffset.json corrupt');
        // Java's ConfigManager.loadBak: a corrupt .bak fails the load (the broker refuses to start).
        if (f !== file) return false;
      }
    }
    this.#loaded = true;
    return true;
  }

  /** Java's correctDelayOffset: a saved offset outside its queue's bounds is moved inside (needs the loaded store). */
  correctDelayOffset(): void {
    for (const level of this.delayLevelTable.keys()) {
      const cur = this.offsetTable.get(level);
      if (cur === undefined) continue;
      const qid = delayLevel2QueueId(level);
      const min = this.store.getMinOffsetInQueue(SCHEDULE_TOPIC, qid);
      const max = this.store.getMaxOffsetInQueue(SCHEDULE_TOPIC, qid);
      const fixed = cur < min ? min : cur > max ? max : cur;
      if (fixed !== cur) {
        this.logger.error({ level, from: cur, to: fixed }, 'correct delay offset');
        this.offsetTable.set(level, fixed);
      }
    }
  }

  async start(): Promise<void> {
    if (this.#started) return;
    if (!this.#loaded) await this.load();
    this.correctDelayOffset();
    this.#started = true;
    const first = this.now() + this.options.firstDelayMillis;
    for (const [level, delay] of this.delayLevelTable) {
      const lv = new LevelDeliverer(this, level, delay, this.offsetTable.get(level) ?? 0);
      this.#levels.set(level, lv);
      lv.arm(first);
    }
    const tick = () => {
      this.#persistTimer = setTimeout(() => {
        void this.persist().finally(() => {
          if (this.#started) tick();
        });
      }, this.options.flushDelayOffsetInterval);
      this.#persistTimer.unref();
    };
    tick();
  }

  async shutdown(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    if (this.#persistTimer) clearTimeout(this.#persistTimer);
    this.#persistTimer = null;
    const running: Promise<void>[] = [];
    for (const lv of this.#levels.values()) {
      const r = lv.clear();
      if (r) running.push(r);
    }
    await Promise.all(running);
    this.#levels.clear();
    await this.persist();
  }

  /** Writes delayOffset.json atomically, keeping the previous one as .bak. */
  persist(): Promise<void> {
    this.#persisting = this.#persisting.then(async () => {
      const file = this.options.delayOffsetFile;
      try {
        await fsp.mkdir(path.dirname(file), { recursive: true });
        const tmp = `${file}.tmp`;
        await fsp.writeFile(tmp, this.encode());
        await fsp.copyFile(file, `${file}.bak`).catch(() => undefined);
        await fsp.rename(tmp, file);
      } catch (err) {
        this.logger.error({ err, file }, 'persist delayOffset.json failed');
      }
    });
    return this.#persisting;
  }

  encode(): string {
    return encodeDelayOffset(this.offsetTable);
  }

  /** level → offset of the messages still to deliver, for GET_BROKER_RUNTIME_INFO / GET_ALL_DELAY_OFFSET. */
  getMaxOffsetTable(): Map<number, number> {
    const out = new Map<number, number>();
    for (const level of this.delayLevelTable.keys()) {
      out.set(level, this.store.getMaxOffsetInQueue(SCHEDULE_TOPIC, delayLevel2QueueId(level)));
    }
    return out;
  }
}
