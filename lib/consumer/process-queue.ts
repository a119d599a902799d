/**
 * The client-side cache of one consumed queue: pulled messages not yet acknowledged, in offset order, with the
 * counters flow control reads, the lock state of orderly consumption and the dropped flag.
 *
 * @see org.apache.rocketmq.client.impl.consumer.ProcessQueue
 */
import type { ProcessQueueInfo } from '../../protocol/body/consumer-running-info';
import { MessageConst } from '../../protocol/message/message-const';
import type { MessageExt } from '../../protocol/message/message';
import { OffsetTreeMap } from './offset-tree-map';

/** Java's -Drocketmq.client.rebalance.lockMaxLiveTime. */
export const REBALANCE_LOCK_MAX_LIVE_TIME = 30_000;
/** Java's -Drocketmq.client.rebalance.lockInterval. */
export const REBALANCE_LOCK_INTERVAL = 20_000;
/** Java's -Drocketmq.client.pull.pullMaxIdleTime. */
export const PULL_MAX_IDLE_TIME = 120_000;

export class ProcessQueue {
  readonly msgTreeMap = new OffsetTreeMap<MessageExt>();
  /** Messages taken by an orderly consume call and not yet committed. */
  readonly consumingMsgOrderlyTreeMap = new OffsetTreeMap<MessageExt>();
  msgCount = 0;
  /** Body bytes cached. */
  msgSize = 0;
  queueOffsetMax = 0;
  dropped = false;
  lastPullTimestamp = Date.now();
  lastConsumeTimestamp = Date.now();
  locked = false;
  lastLockTimestamp = Date.now();
  /** True while a consume request of this queue is queued or running (orderly dispatch). */
  consuming = false;
  /** Messages the broker holds beyond the last pulled one (MAX_OFFSET - last offset). */
  msgAccCnt = 0;
  tryUnlockTimes = 0;
  /** Orderly: a listener call of this queue is running (Java's consumeLock). */
  consumeLocked = false;

  constructor(private readonly clock: () => number = Date.now) {
    const now = clock();
    this.lastPullTimestamp = now;
    this.lastConsumeTimestamp = now;
    this.lastLockTimestamp = now;
  }

  isLockExpired(): boolean {
    return this.clock() - this.lastLockTimestamp > REBALANCE_LOCK_MAX_LIVE_TIME;
  }

  isPullExpired(): boolean {
    return this.clock() - this.lastPullTimestamp > PULL_MAX_IDLE_TIME;
  }

  /**
   * Adds pulled messages (a message already cached is ignored). Returns true when a consume request should be
   * dispatched: there are messages and none is being consumed (meaningful for orderly consumption).
   */
  putMessage(msgs: readonly MessageExt[]): boolean {
    let dispatchToConsume = false;
    let validMsgCnt = 0;
    for (const msg of msgs) {
      if (this.msgTreeMap.set(msg.queueOffset, msg) === undefined) {
        validMsgCnt++;
        this.queueOffsetMax = msg.queueOffset;
        this.msgSize += msg.body.length;
      }
    }
    this.msgCount += validMsgCnt;
    if (!this.msgTreeMap.isEmpty() && !this.consuming) {
      dispatchToConsume = true;
      this.consuming = true;
    }
    if (msgs.length > 0) {
      const last = msgs[msgs.length - 1];
      const property = last.properties[MessageConst.PROPERTY_MAX_OFFSET];
      if (property !== undefined) {
        const accTotal = Number(property) - last.queueOffset;
        if (accTotal > 0) this.msgAccCnt = accTotal;
      }
    }
    return dispatchToConsume;
  }

  /** Offset distance between the first and the last cached message (0 when empty). */
  getMaxSpan(): number {
    if (this.msgTreeMap.isEmpty()) return 0;
    return this.msgTreeMap.lastKey()! - this.msgTreeMap.firstKey()!;
  }

  /**
   * Removes consumed messages; returns the offset to commit: the first cached offset still in flight, or
   * queueOffsetMax + 1 when none is left, or -1 when nothing was cached.
   */
  removeMessage(msgs: readonly MessageExt[]): number {
    let result = -1;
    const now = this.clock();
    if (!this.msgTreeMap.isEmpty()) {
      result = this.queueOffsetMax + 1;
      let removed = 0;
      for (const msg of msgs) {
        const prev = this.msgTreeMap.delete(msg.queueOffset);
        if (prev !== undefined) {
          removed++;
          this.msgSize -= msg.body.length;
        }
      }
      this.msgCount -= removed;
      if (!this.msgTreeMap.isEmpty()) result = this.msgTreeMap.firstKey()!;
    }
    this.lastConsumeTimestamp = now;
    return result;
  }

  /** Orderly: the messages taken by the last calls go back to the cache. */
  rollback(): void {
    for (const [k, v] of this.consumingMsgOrderlyTreeMap.entries()) this.msgTreeMap.set(k, v);
    this.consumingMsgOrderlyTreeMap.clear();
  }

  /** Orderly: the taken messages are consumed; returns the next offset to commit, or -1. */
  commit(): number {
    const offset = this.consumingMsgOrderlyTreeMap.lastKey();
    this.msgCount -= this.consumingMsgOrderlyTreeMap.size;
    for (const msg of this.consumingMsgOrderlyTreeMap.values()) this.msgSize -= msg.body.length;
    this.consumingMsgOrderlyTreeMap.clear();
    return offset !== undefined ? offset + 1 : -1;
  }

  /** Orderly: these taken messages are to be consumed again. */
  makeMessageToConsumeAgain(msgs: readonly MessageExt[]): void {
    for (const msg of msgs) {
      this.consumingMsgOrderlyTreeMap.delete(msg.queueOffset);
      this.msgTreeMap.set(msg.queueOffset, msg);
    }
  }

  /** Orderly: takes up to `batchSize` messages in offset order; clears `consuming` when none is left. */
  takeMessages(batchSize: number): MessageExt[] {
    const result: MessageExt[] = [];
    this.lastConsumeTimestamp = this.clock();
    for (let i = 0; i < batchSize; i++) {
      const entry = this.msgTreeMap.pollFirst();
      if (!entry) break;
      result.push(entry[1]);
      this.consumingMsgOrderlyTreeMap.set(entry[0], entry[1]);
    }
    if (result.length === 0) this.consuming = false;
    return result;
  }

  hasTempMessage(): boolean {
    return !this.msgTreeMap.isEmpty();
  }

  clear(): void {
    this.msgTreeMap.clear();
    this.consumingMsgOrderlyTreeMap.clear();
    this.msgCount = 0;
    this.msgSize = 0;
    this.queueOffsetMax = 0;
  }

  /**
   * Messages whose consumption started more than `consumeTimeoutMinutes` ago (concurrent consumption only), at most
   * 16, oldest first; the caller sends each back and then removes it (ProcessQueue.cleanExpiredMsg).
   */
  expiredMessages(consumeTimeoutMinutes: number): MessageExt[] {
    const out: MessageExt[] = [];
    const limit = consumeTimeoutMinutes * 60 * 1000;
    const now = this.clock();
    for (const [, msg] of this.msgTreeMap.entries()) {
      if (out.length >= 16) break;
      const start = msg.properties[MessageConst.PROPERTY_CONSUME_START_TIMESTAMP];
      if (start === undefined || now - Number(start) <= limit) break;
      out.push(msg);
    }
    return out;
  }

  /** ProcessQueue.fillProcessQueueInfo for GET_CONSUMER_RUNNING_INFO. */
  toProcessQueueInfo(commitOffset: number): ProcessQueueInfo {
    const first = this.msgTreeMap.firstKey();
    const last = this.msgTreeMap.lastKey();
    const tFirst = this.consumingMsgOrderlyTreeMap.firstKey();
    const tLast = this.consumingMsgOrderlyTreeMap.lastKey();
    return {
      commitOffset,
      cachedMsgMinOffset: first ?? 0,
      cachedMsgMaxOffset: last ?? 0,
      cachedMsgCount: this.msgTreeMap.size,
      cachedMsgSizeInMiB: Math.floor(this.msgSize / (1024 * 1024)),
      transactionMsgMinOffset: tFirst ?? 0,
      transactionMsgMaxOffset: tLast ?? 0,
      transactionMsgCount: this.consumingMsgOrderlyTreeMap.size,
      locked: this.locked,
      tryUnlockTimes: this.tryUnlockTimes,
      lastLockTimestamp: this.lastLockTimestamp,
      droped: this.dropped,
      lastPullTimestamp: this.lastPullTimestamp,
      lastConsumeTimestamp: this.lastConsumeTimestamp,
    };
  }
}

/** One pull loop's state: which queue, from which offset. @see org.apache.rocketmq.client.impl.consumer.PullRequest */
export interface PullRequest {
  consumerGroup: string;
  messageQueue: import('../../protocol/message/message-queue').MessageQueue;
  processQueue: ProcessQueue;
  nextOffset: number;
  /** Orderly: the start offset was recomputed after the first lock. */
  lockedFirst: boolean;
}
