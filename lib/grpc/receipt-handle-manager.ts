/**
 * Receipt-handle auto-renewal for messages received with auto_renew (rocketmq-client-nodejs's PushConsumer, which
 * never renews by itself): each such message's handle is kept per client and group until the client acks it,
 * changes its invisible duration or forwards it to the DLQ (those RPCs then act on the newest handle). Every
 * renewSchedulePeriodMillis (5 s) a handle with less than renewAheadTimeMillis (10 s) left is renewed by a change
 * of invisible time of 1 min, 3, 5, 10, 30 min, then 1 h (RenewStrategyPolicy); one held for renewMaxTimeMillis
 * (3 h) is nacked with its group's retry delay instead. When the client leaves its group (termination, expiry, or
 * its connection gone), its handles are made visible again after invisibleTimeMillisWhenClear (1 s).
 *
 * @see org.apache.rocketmq.proxy.service.receipt.DefaultReceiptHandleManager
 * @see org.apache.rocketmq.proxy.processor.ReceiptHandleProcessor
 * @see org.apache.rocketmq.proxy.common.MessageReceiptHandle
 * @see org.apache.rocketmq.proxy.common.ReceiptHandleGroup
 * @see org.apache.rocketmq.proxy.common.RenewStrategyPolicy
 */
import { decodeReceiptHandle } from '../../protocol/grpc/receipt-handle';
import { GrpcProxyError } from '../errors';
import type { ActivityContext } from './activity-context';
import { type ConsumerProcessor, parseReceiptHandle } from './consumer-processor';
import type { GrpcClientChannel } from './grpc-client-channel';
import { consumerBackoffPolicy } from './grpc-client-settings-manager';
import { pbToMillis } from './pb';

/** RenewStrategyPolicy's `next`: 1 min, 3, 5, 10, 30 min, 1 h. */
export const RENEW_POLICY_NEXT: readonly number[] = Object.freeze([60_000, 180_000, 300_000, 600_000, 1_800_000, 3_600_000]);

export function renewDelay(renewTimes: number): number {
  return RENEW_POLICY_NEXT[Math.min(Math.max(renewTimes, 0), RENEW_POLICY_NEXT.length - 1)];
}

export interface MessageReceiptHandle {
  readonly group: string;
  readonly topic: string;
  readonly queueId: number;
  readonly messageId: string;
  readonly queueOffset: number;
  readonly originalReceiptHandleStr: string;
  readonly reconsumeTimes: number;
  /** The first receive (the original handle's retrieve time). */
  readonly consumeTimestamp: number;
  receiptHandleStr: string;
  renewRetryTimes: number;
  renewTimes: number;
}

export function newMessageReceiptHandle(group: string, topic: string, queueId: number, receiptHandleStr: string, messageId: string,
  queueOffset: number, reconsumeTimes: number): MessageReceiptHandle {
  return {
    group, topic, queueId, messageId, queueOffset, reconsumeTimes, receiptHandleStr, originalReceiptHandleStr: receiptHandleStr,
    consumeTimestamp: decodeReceiptHandle(receiptHandleStr).retrieveTime, renewRetryTimes: 0, renewTimes: 0,
  };
}

/** One client's handles in one group: message id → original handle → handle (ReceiptHandleGroup). */
interface ReceiptHandleGroup {
  readonly channel: GrpcClientChannel;
  readonly group: string;
  readonly handles: Map<string, Map<string, MessageReceiptHandle>>;
  /** Handles a renewal is under way for, with its end (Java locks the entry; a removal waits for it). */
  readonly busy: Map<MessageReceiptHandle, Promise<void>>;
}

export class ReceiptHandleManager {
  /** clientId + "\u0001" + group → the group (ReceiptHandleGroupKey: the channel, named by the client id, and group). */
  readonly #groups = new Map<string, ReceiptHandleGroup>();
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(private readonly a: ActivityContext, private readonly consumer: ConsumerProcessor) {}

  static #key(clientId: string, group: string): string {
    return `${clientId}\u0001${group}`;
  }

  /** How many handles are kept (every client and group). */
  get size(): number {
    let n = 0;
    for (const g of this.#groups.values()) for (const m of g.handles.values()) n += m.size;
    return n;
  }

  addReceiptHandle(channel: GrpcClientChannel, group: string, messageId: string, handle: MessageReceiptHandle): void {
    if (this.#stopped) return;
    const key = ReceiptHandleManager.#key(channel.clientId, group);
    let g = this.#groups.get(key);
    if (!g) {
      g = { channel, group, handles: new Map(), busy: new Map() };
      this.#groups.set(key, g);
    }
    let byHandle = g.handles.get(messageId);
    if (!byHandle) {
      byHandle = new Map();
      g.handles.set(messageId, byHandle);
    }
    byHandle.set(handle.originalReceiptHandleStr, handle);
  }

  /**
   * Forgets the handle the client names (by the handle it received) and answers it, with its newest handle string
   * (after a renewal under way ends); undefined when the endpoint does not renew it.
   */
  async removeReceiptHandle(clientId: string, group: string, messageId: string, receiptHandle: string): Promise<MessageReceiptHandle | undefined> {
    const key = ReceiptHandleManager.#key(clientId, group);
    const g = this.#groups.get(key);
    const byHandle = g?.handles.get(messageId);
    const h = byHandle?.get(receiptHandle);
    if (!g || !byHandle || !h) return undefined;
    byHandle.delete(receiptHandle);
    if (byHandle.size === 0) g.handles.delete(messageId);
    await g.busy.get(h);
    if (g.handles.size === 0 && g.busy.size === 0 && this.#groups.get(key) === g) this.#groups.delete(key);
    return h;
  }

  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => this.scheduleRenewTask(), this.a.config.renewSchedulePeriodMillis);
    this.#timer.unref();
  }

  /** Stops the renewals; every handle still kept is made visible again soon (clearAllHandle). */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await Promise.all([...this.#groups.keys()].map((key) => this.#clearGroup(key)));
  }

  /** One pass: groups of clients no longer in their consumer group are cleared; handles near their end renewed. */
  scheduleRenewTask(now = Date.now()): void {
    for (const [key, g] of [...this.#groups]) {
      if (!this.a.broker.consumerManager.findChannel(g.group, g.channel.clientId)) {
        void this.#clearGroup(key);
        continue;
      }
      if (g.handles.size === 0 && g.busy.size === 0) {
        this.#groups.delete(key);
        continue;
      }
      for (const byHandle of g.handles.values()) {
        for (const h of byHandle.values()) {
          if (g.busy.has(h)) continue;
          let nextVisibleTime: number;
          try {
            nextVisibleTime = decodeReceiptHandle(h.receiptHandleStr).nextVisibleTime;
          } catch {
            this.#drop(key, h);
            continue;
          }
          if (nextVisibleTime - now > this.a.config.renewAheadTimeMillis) continue;
          const done = this.#renewMessage(key, g, h, now).finally(() => g.busy.delete(h));
          g.busy.set(h, done);
        }
      }
    }
  }

  /** Makes every handle of a client in a group visible again soon (its client left the group). */
  clearGroup(clientId: string, group: string): Promise<void> {
    return this.#clearGroup(ReceiptHandleManager.#key(clientId, group));
  }

  async #renewMessage(key: string, g: ReceiptHandleGroup, h: MessageReceiptHandle, now: number): Promise<void> {
    const c = this.a.config;
    if (h.renewRetryTimes >= c.maxRenewRetryTimes) {
      this.a.logger.warn({ messageId: h.messageId, group: h.group }, 'handle has exceed max renewRetryTimes');
      this.#drop(key, h);
      return;
    }
    if (now - h.consumeTimestamp < c.renewMaxTimeMillis) {
      try {
        const renewed = await this.consumer.changeInvisibleTime(parseReceiptHandle(h.receiptHandleStr), h.group, h.topic,
          renewDelay(h.renewTimes), g.channel);
        if (renewed === null) {
          this.a.logger.error({ messageId: h.messageId, group: h.group }, 'renew response is not ok');
          this.#drop(key, h);
          return;
        }
        h.receiptHandleStr = renewed;
        h.renewRetryTimes = 0;
        h.renewTimes++;
      } catch (err) {
        this.a.logger.error({ err, messageId: h.messageId, group: h.group }, 'error when renew');
        if (err instanceof GrpcProxyError && err.code === 'INVALID_RECEIPT_HANDLE') this.#drop(key, h);
        else h.renewRetryTimes++;
      }
    } else {
      // Held too long: given back with the group's next retry delay, and no longer renewed.
      this.#drop(key, h);
      await this.consumer.changeInvisibleTime(parseReceiptHandle(h.receiptHandleStr), h.group, h.topic, this.#groupRetryDelay(h), g.channel)
        .catch((err: unknown) => this.a.logger.error({ err, messageId: h.messageId }, 'error when nack in renew'));
    }
  }

  /** The group's RetryPolicy.nextDelayDuration(reconsumeTimes). */
  #groupRetryDelay(h: MessageReceiptHandle): number {
    const config = this.a.broker.subscriptionGroupManager.findSubscriptionGroupConfig(h.group);
    if (!config) return this.a.config.invisibleTimeMillisWhenClear;
    const p = consumerBackoffPolicy(config);
    const times = Math.max(h.reconsumeTimes, 0);
    if (p.exponentialBackoff) {
      const e = p.exponentialBackoff;
      return Math.min(pbToMillis(e.max), pbToMillis(e.initial) * Math.pow(e.multiplier, Math.min(times, 32)));
    }
    const next = p.customizedBackoff?.next ?? [];
    if (next.length === 0) return this.a.config.invisibleTimeMillisWhenClear;
    return pbToMillis(next[Math.min(times + 2, next.length - 1)]);
  }

  #drop(key: string, h: MessageReceiptHandle): void {
    const g = this.#groups.get(key);
    const byHandle = g?.handles.get(h.messageId);
    if (!g || !byHandle) return;
    if (byHandle.get(h.originalReceiptHandleStr) === h) byHandle.delete(h.originalReceiptHandleStr);
    if (byHandle.size === 0) g.handles.delete(h.messageId);
  }

  async #clearGroup(key: string): Promise<void> {
    const g = this.#groups.get(key);
    if (!g) return;
    this.#groups.delete(key);
    const all = [...g.handles.values()].flatMap((m) => [...m.values()]);
    if (all.length > 0) this.a.logger.info({ clientId: g.channel.clientId, group: g.group, handles: all.length }, 'clear handles of a client gone from its group');
    await Promise.all(all.map((h) => this.consumer.changeInvisibleTime(parseReceiptHandle(h.receiptHandleStr), h.group, h.topic,
      this.a.config.invisibleTimeMillisWhenClear, g.channel).catch((err: unknown) => {
      this.a.logger.warn({ err, messageId: h.messageId, group: h.group }, 'error when clear handle for group');
    })));
  }
}
