/**
 * The order info of orderly POP (FIFO consumer groups): per `topic@group` and queue, the batch last popped (its pop
 * time, invisible time, queue offsets, which of them are acknowledged, per-message next visible times after a change
 * of invisible time, and how many times each was delivered before). While a message of that batch is neither
 * acknowledged nor past its visible time, the queue is blocked for the group (checkBlock), except for a pop repeating
 * the batch's attempt id; an acknowledgement moves the group's offset to the first message not acknowledged
 * (commitAndNext). An orderly pop writes no checkpoint: what is not acknowledged in time is popped again from the
 * same offset, in order, its delivery counted here.
 *
 * Persisted as Java does, in `<storePathRootDir>/config/consumerOrderInfo.json` (fastjson; integer map keys
 * unquoted; auto-cleaned of gone topics, groups and queues and of queues not consumed for a day on each write),
 * every 10 s and at shutdown, so a block and its delivery counts survive a restart.
 *
 *   {"table":{"<topic>@<group>":{<queueId>:{"a":attemptId,"cm":commitOffsetBit,"i":invisibleTime,
 *     "l":lastConsumeTimestamp,"o":[first,diff,...],"oc":{<offset>:count},"ot":{<offset>:nextVisibleTime},"popTime":..}}}}
 *
 * @see org.apache.rocketmq.broker.offset.ConsumerOrderInfoManager (5.3.3)
 * @see org.apache.rocketmq.broker.offset.ConsumerOrderInfoLockManager (5.3.3)
 */
import path from 'node:path';
import { ConfigManager, configDir } from '../config-manager';
import type { Logger } from '../../logger';
import { type JsonObject, asLong, asObject, arr, long, numberMap, parseBody, str, stringMap } from '../../../protocol/body/body-util';
import { toFastjson } from '../../../protocol/body/fastjson';
import { appendQueueIdOrderCountInfo, appendQueueOffsetOrderCountInfo } from '../../../protocol/message/extra-info-util';

const TOPIC_GROUP_SEPARATOR = '@';
/** A queue's order info not touched for this long is dropped (CLEAN_SPAN_FROM_LAST). */
export const ORDER_INFO_CLEAN_SPAN_FROM_LAST = 24 * 3600 * 1000;

/**
 * The longest delay setTimeout takes (2^31 - 1 ms, about 24.8 days; beyond it Node fires at once with a warning). A
 * block ending later (a huge invisible time) waits in steps of it.
 */
const MAX_TIMER_DELAY = 2 ** 31 - 1;

/** 2^i without 32-bit shifts (a batch has up to 32 messages; Java keeps the bits in a long). */
function bit(i: number): number {
  return 2 ** i;
}

/** @see org.apache.rocketmq.broker.offset.ConsumerOrderInfoManager.OrderInfo */
export class OrderInfo {
  popTime: number;
  /** "i": the invisible time of the pop (null in a file written before it was kept). */
  invisibleTime: number | null;
  /** "o": offsetList[0] is the first message's queue offset, offsetList[i > 0] the distance of message i from it. */
  offsetList: number[];
  /** "ot": queue offset → next visible time, for messages whose invisible time was changed. */
  offsetNextVisibleTime: Map<number, number> | null;
  /** "oc": queue offset → times delivered before this pop (only counts > 0). */
  offsetConsumedCount: Map<number, number> | null;
  /** "l" */
  lastConsumeTimestamp: number;
  /** "cm": bit i set when message i is acknowledged. */
  commitOffsetBit: number;
  /** "a" */
  attemptId: string | null;

  constructor(attemptId: string | null, popTime: number, invisibleTime: number | null, queueOffsetList: readonly number[],
    lastConsumeTimestamp: number, commitOffsetBit: number) {
    this.popTime = popTime;
    this.invisibleTime = invisibleTime;
    this.offsetList = OrderInfo.buildOffsetList(queueOffsetList);
    this.offsetNextVisibleTime = null;
    this.offsetConsumedCount = null;
    this.lastConsumeTimestamp = lastConsumeTimestamp;
    this.commitOffsetBit = commitOffsetBit;
    this.attemptId = attemptId;
  }

  static buildOffsetList(queueOffsetList: readonly number[]): number[] {
    if (queueOffsetList.length <= 1) return [...queueOffsetList];
    const first = queueOffsetList[0];
    return [first, ...queueOffsetList.slice(1).map((o) => o - first)];
  }

  static queueOffsetOf(offsetList: readonly number[], index: number): number {
    return index === 0 ? offsetList[0] : offsetList[0] + offsetList[index];
  }

  queueOffset(index: number): number {
    return OrderInfo.queueOffsetOf(this.offsetList, index);
  }

  isNotAck(index: number): boolean {
    return Math.floor(this.commitOffsetBit / bit(index)) % 2 === 0;
  }

  setAcked(index: number): void {
    if (this.isNotAck(index)) this.commitOffsetBit += bit(index);
  }

  #nextVisibleTime(index: number): number {
    return this.offsetNextVisibleTime?.get(this.queueOffset(index)) ?? this.popTime + (this.invisibleTime ?? 0);
  }

  /** Whether a pop (of another attempt) must wait: a message of the batch is neither acknowledged nor visible again. */
  needBlock(attemptId: string | null, currentInvisibleTime: number, now: number): boolean {
    if (this.offsetList.length === 0) return false;
    if (this.attemptId !== null && this.attemptId === attemptId) return false;
    if (this.invisibleTime === null || this.invisibleTime <= 0) this.invisibleTime = currentInvisibleTime;
    for (let i = 0; i < this.offsetList.length; i++) {
      if (this.isNotAck(i) && now < this.#nextVisibleTime(i)) return true;
    }
    return false;
  }

  /** When the block ends: a future time, `now` when nothing blocks, null when unknown (no invisible time kept). */
  lockFreeTimestamp(now: number): number | null {
    if (this.offsetList.length === 0) return null;
    for (let i = 0; i < this.offsetList.length; i++) {
      if (!this.isNotAck(i)) continue;
      if (this.invisibleTime === null || this.invisibleTime <= 0) return null;
      const t = this.#nextVisibleTime(i);
      if (now < t) return t;
    }
    return now;
  }

  updateOffsetNextVisibleTime(queueOffset: number, nextVisibleTime: number): void {
    (this.offsetNextVisibleTime ??= new Map()).set(queueOffset, nextVisibleTime);
  }

  /** The offset to commit: the first message not acknowledged, or past the last when all are (-2: empty). */
  nextOffset(): number {
    const n = this.offsetList.length;
    if (n === 0) return -2;
    for (let i = 0; i < n; i++) if (this.isNotAck(i)) return this.queueOffset(i);
    return this.queueOffset(n - 1) + 1;
  }

  /**
   * The delivery counts of this pop from the previous one's: a message popped again counts one more; the same
   * attempt id (a retried receive) keeps the previous counts.
   */
  mergeOffsetConsumedCount(preAttemptId: string | null, preOffsetList: readonly number[], prevCounts: Map<number, number> | null): void {
    const prev = prevCounts ?? new Map<number, number>();
    if (preAttemptId !== null && preAttemptId === this.attemptId) {
      this.offsetConsumedCount = prev;
      return;
    }
    const pre = new Set(preOffsetList.map((_, i) => OrderInfo.queueOffsetOf(preOffsetList, i)));
    const counts = new Map<number, number>();
    for (let i = 0; i < this.offsetList.length; i++) {
      const o = this.queueOffset(i);
      if (pre.has(o)) counts.set(o, (prev.get(o) ?? 0) + 1);
    }
    this.offsetConsumedCount = counts;
  }

  toJson(): JsonObject {
    return {
      a: this.attemptId, cm: this.commitOffsetBit, i: this.invisibleTime, l: this.lastConsumeTimestamp, o: this.offsetList,
      oc: this.offsetConsumedCount, ot: this.offsetNextVisibleTime, popTime: this.popTime,
    };
  }

  static fromJson(v: unknown, what: string): OrderInfo {
    const o = asObject(v, what);
    const info = new OrderInfo(str(o, 'a') ?? null, long(o, 'popTime'), o.i === undefined || o.i === null ? null : long(o, 'i'), [],
      long(o, 'l'), long(o, 'cm'));
    info.offsetList = arr(o, 'o').map((x) => asLong(x, `${what}.o`));
    info.offsetNextVisibleTime = o.ot === undefined || o.ot === null ? null : numberMap(o, 'ot', (x) => asLong(x, `${what}.ot`));
    info.offsetConsumedCount = o.oc === undefined || o.oc === null ? null : numberMap(o, 'oc', (x) => asLong(x, `${what}.oc`));
    return info;
  }
}

/** What auto clean asks of the broker. */
export interface ConsumerOrderInfoBroker {
  readonly topicConfigManager: { selectTopicConfig(topic: string): { readQueueNums: number } | null | undefined };
  readonly subscriptionGroupManager: { containsSubscriptionGroup(group: string): boolean };
}

export interface ConsumerOrderInfoManagerOptions {
  storePathRootDir: string;
  logger: Logger;
  /** For auto clean; without it nothing is cleaned (Java's manager without a controller). */
  broker?: ConsumerOrderInfoBroker;
  /**
   * Called when a queue's block ends (its lock-free time, or at once after an acknowledgement that ends it), so that
   * held pops run again (ConsumerOrderInfoLockManager; brokerConfig.enableNotifyAfterPopOrderLockRelease).
   */
  notifyLockFree?: (topic: string, group: string, queueId: number) => void;
  /** Read on each use: brokerConfig.enableNotifyAfterPopOrderLockRelease (default true). */
  enableNotifyAfterPopOrderLockRelease?: () => boolean;
  /** The clock (tests inject one). */
  now?: () => number;
}

export class ConsumerOrderInfoManager extends ConfigManager {
  /** `topic@group` → queueId → order info. */
  table = new Map<string, Map<number, OrderInfo>>();
  readonly #opts: ConsumerOrderInfoManagerOptions;
  readonly #now: () => number;
  /** ConsumerOrderInfoLockManager's timeouts, per `topic@group@queueId`. */
  readonly #lockFreeTimers = new Map<string, NodeJS.Timeout>();
  #stopped = false;

  constructor(options: ConsumerOrderInfoManagerOptions) {
    super(options.logger);
    this.#opts = options;
    this.#now = options.now ?? Date.now;
  }

  configFilePath(): string {
    return path.join(configDir(this.#opts.storePathRootDir), 'consumerOrderInfo.json');
  }

  static buildKey(topic: string, group: string): string {
    return topic + TOPIC_GROUP_SEPARATOR + group;
  }

  /** The order info of a queue, if any (for tests and tools). */
  get(topic: string, group: string, queueId: number): OrderInfo | undefined {
    return this.table.get(ConsumerOrderInfoManager.buildKey(topic, group))?.get(queueId);
  }

  /**
   * Records an orderly pop's batch of a queue (the offsets of the messages popped) and answers its orderCountInfo
   * part: each message's times delivered before, then the queue's smallest (appended to `orderCountInfo`).
   */
  update(attemptId: string | null, topic: string, group: string, queueId: number, popTime: number, invisibleTime: number,
    msgQueueOffsetList: readonly number[], orderCountInfo: string): string {
    const key = ConsumerOrderInfoManager.buildKey(topic, group);
    let qs = this.table.get(key);
    if (!qs) this.table.set(key, (qs = new Map()));
    const old = qs.get(queueId);
    const info = new OrderInfo(attemptId, popTime, invisibleTime, msgQueueOffsetList, this.#now(), 0);
    if (old) info.mergeOffsetConsumedCount(old.attemptId, old.offsetList, old.offsetConsumedCount);
    qs.set(queueId, info);

    let out = orderCountInfo;
    let minConsumedTimes = Number.MAX_SAFE_INTEGER;
    const counts = info.offsetConsumedCount;
    if (counts) {
      for (const [offset, times] of counts) {
        out = appendQueueOffsetOrderCountInfo(out, topic, queueId, offset, times);
        minConsumedTimes = Math.min(minConsumedTimes, times);
      }
      // Only counts > 0 are kept: a message not in the map is new, so the queue's smallest is 0.
      if (counts.size !== info.offsetList.length) minConsumedTimes = 0;
    } else {
      minConsumedTimes = 0;
    }
    out = appendQueueIdOrderCountInfo(out, topic, queueId, minConsumedTimes);
    this.#updateLockFreeTimestamp(topic, group, queueId, info);
    return out;
  }

  /** Whether an orderly pop of another attempt must skip the queue (a message of its batch still in flight). */
  checkBlock(attemptId: string | null | undefined, topic: string, group: string, queueId: number, invisibleTime: number): boolean {
    const info = this.get(topic, group, queueId);
    return info ? info.needBlock(attemptId ?? null, invisibleTime, this.#now()) : false;
  }

  /** Forgets a queue's batch (a reset of the group's offset). */
  clearBlock(topic: string, group: string, queueId: number): void {
    this.table.get(ConsumerOrderInfoManager.buildKey(topic, group))?.delete(queueId);
  }

  /**
   * Marks a message acknowledged; answers the offset to commit (the first message of the batch not acknowledged),
   * -1 when the message is not in the batch, -2 when the acknowledgement is of an older pop (nothing to commit).
   */
  commitAndNext(topic: string, group: string, queueId: number, queueOffset: number, popTime: number): number {
    const key = ConsumerOrderInfoManager.buildKey(topic, group);
    const qs = this.table.get(key);
    if (!qs) return queueOffset + 1;
    const info = qs.get(queueId);
    if (!info) {
      this.logger.warn({ key, queueId, queueOffset }, 'OrderInfo is null');
      return queueOffset + 1;
    }
    if (info.offsetList.length === 0) {
      this.logger.warn({ key, queueId, queueOffset }, 'OrderInfo is empty');
      return -1;
    }
    if (popTime !== info.popTime) {
      this.logger.warn({ key, queueId, queueOffset, popTime, savedPopTime: info.popTime }, 'popTime is not equal to orderInfo saved');
      return -2;
    }
    let i = 0;
    for (; i < info.offsetList.length; i++) if (info.queueOffset(i) === queueOffset) break;
    if (i >= info.offsetList.length) {
      this.logger.warn({ key, queueId, queueOffset }, 'OrderInfo not found commit offset');
      return -1;
    }
    info.setAcked(i);
    const next = info.nextOffset();
    this.#updateLockFreeTimestamp(topic, group, queueId, info);
    return next;
  }

  /** A change of invisible time of one message of the batch (it blocks the queue until nextVisibleTime). */
  updateNextVisibleTime(topic: string, group: string, queueId: number, queueOffset: number, popTime: number, nextVisibleTime: number): boolean {
    const key = ConsumerOrderInfoManager.buildKey(topic, group);
    const info = this.table.get(key)?.get(queueId);
    if (!info) {
      this.logger.warn({ key, queueId, queueOffset }, 'orderInfo is null');
      return false;
    }
    if (popTime !== info.popTime) {
      this.logger.warn({ key, queueId, queueOffset, popTime, savedPopTime: info.popTime }, 'popTime is not equal to orderInfo saved');
      return false;
    }
    info.updateOffsetNextVisibleTime(queueOffset, nextVisibleTime);
    this.#updateLockFreeTimestamp(topic, group, queueId, info);
    return true;
  }

  // ---------------------------------------------------------------- lock-free notification

  #notifyEnabled(): boolean {
    return !this.#stopped && !!this.#opts.notifyLockFree && (this.#opts.enableNotifyAfterPopOrderLockRelease?.() ?? true);
  }

  #updateLockFreeTimestamp(topic: string, group: string, queueId: number, info: OrderInfo): void {
    this.#scheduleLockFree(topic, group, queueId, info.lockFreeTimestamp(this.#now()));
  }

  #scheduleLockFree(topic: string, group: string, queueId: number, lockFreeTimestamp: number | null): void {
    if (lockFreeTimestamp === null || !this.#notifyEnabled()) return;
    const key = `${topic}${TOPIC_GROUP_SEPARATOR}${group}${TOPIC_GROUP_SEPARATOR}${queueId}`;
    const old = this.#lockFreeTimers.get(key);
    if (old) clearTimeout(old);
    const timer = setTimeout(() => {
      if (this.#lockFreeTimers.get(key) === timer) this.#lockFreeTimers.delete(key);
      if (!this.#notifyEnabled()) return;
      // A Node timer counts from the event loop's cached time, so it may fire a few ms before the clock reaches the
      // block's end: the pops it would wake would still find the queue blocked and answer empty. Wait the rest.
      // (Also the rest of a delay cut to MAX_TIMER_DELAY.)
      if (this.#now() < lockFreeTimestamp) {
        this.#scheduleLockFree(topic, group, queueId, lockFreeTimestamp);
        return;
      }
      try {
        this.#opts.notifyLockFree!(topic, group, queueId);
      } catch (err) {
        this.logger.error({ err, topic, group, queueId }, 'notify of a free order lock failed');
      }
    }, Math.min(MAX_TIMER_DELAY, Math.max(0, lockFreeTimestamp - this.#now())));
    timer.unref();
    this.#lockFreeTimers.set(key, timer);
  }

  /** Timers pending (for tests). */
  get lockFreeTimers(): number {
    return this.#lockFreeTimers.size;
  }

  /** Clears the lock-free timers; no more notifications. */
  shutdown(): void {
    this.#stopped = true;
    for (const t of this.#lockFreeTimers.values()) clearTimeout(t);
    this.#lockFreeTimers.clear();
  }

  /** Notifies again after a shutdown(). */
  start(): void {
    this.#stopped = false;
  }

  // ---------------------------------------------------------------- persistence

  /** Drops the order info of gone topics, groups and queues, and of queues not consumed for a day. */
  autoClean(): void {
    const broker = this.#opts.broker;
    if (!broker) return;
    const now = this.#now();
    for (const [key, qs] of this.table) {
      const f = key.split(TOPIC_GROUP_SEPARATOR);
      if (f.length !== 2) continue;
      const [topic, group] = f;
      const tc = broker.topicConfigManager.selectTopicConfig(topic);
      if (!tc || !broker.subscriptionGroupManager.containsSubscriptionGroup(group) || qs.size === 0) {
        this.table.delete(key);
        this.logger.info({ key }, 'Clean order info');
        continue;
      }
      for (const [queueId, info] of qs) {
        if (queueId >= tc.readQueueNums || now - info.lastConsumeTimestamp > ORDER_INFO_CLEAN_SPAN_FROM_LAST) {
          qs.delete(queueId);
          this.logger.info({ key, queueId }, 'Clean order info of a queue');
        }
      }
    }
  }

  encode(): string {
    this.autoClean();
    const table = new Map<string, Map<number, JsonObject>>();
    for (const [key, qs] of this.table) {
      const m = new Map<number, JsonObject>();
      for (const [queueId, info] of qs) m.set(queueId, info.toJson());
      table.set(key, m);
    }
    return toFastjson({ table });
  }

  decode(text: string): void {
    const o = parseBody(Buffer.from(text, 'utf8'), 'ConsumerOrderInfoManager');
    this.table = stringMap(o, 'table', (v, key) => {
      const qs = numberMap({ [key]: v }, key, (x) => OrderInfo.fromJson(x, key));
      return qs;
    });
    // ConsumerOrderInfoLockManager.recover: the blocks still running end with a notification.
    const now = this.#now();
    for (const [key, qs] of this.table) {
      const f = key.split(TOPIC_GROUP_SEPARATOR);
      if (f.length !== 2) continue;
      for (const [queueId, info] of qs) {
        const t = info.lockFreeTimestamp(now);
        if (t !== null && t > now) this.#scheduleLockFree(f[0], f[1], queueId, t);
      }
    }
  }
}
