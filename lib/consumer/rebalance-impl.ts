/**
 * Queue ownership of one consumer group member: which queues it consumes (allocation among the group's client ids,
 * or every queue in broadcasting), the ProcessQueue of each, and the broker locks of orderly consumption.
 * The push and lite-pull consumers supply the hooks (start offset, dispatch of new pull work, cleanup).
 *
 * @see org.apache.rocketmq.client.impl.consumer.RebalanceImpl
 * @see org.apache.rocketmq.client.impl.consumer.RebalancePushImpl
 * @see org.apache.rocketmq.client.impl.consumer.RebalanceLitePullImpl
 */
import { type MessageModel, MessageModel as MM, type SubscriptionData } from '../../protocol/body/heartbeat-data';
import { type MessageQueue, compareMessageQueue, messageQueueKey } from '../../protocol/message/message-queue';
import { MixAll } from '../client/mix-all';
import { lockBatchMQ, unlockBatchMQ } from '../client/mq-client-api-consumer';
import { type Logger, componentLogger } from '../logger';
import type { ConsumerClient } from './consumer-client';
import { ProcessQueue } from './process-queue';
import type { AllocateMessageQueueStrategy } from './rebalance/allocate-message-queue-strategy';
import { compareClientId } from './rebalance/allocate-message-queue-strategy';


export interface RebalanceHooks {
  /** The start offset of a newly owned queue (< 0: not known, skip the queue this round). */
  computePullFromWhere(mq: MessageQueue): Promise<number>;
  /** A newly owned queue: start pulling it. */
  dispatchPullRequest(mq: MessageQueue, pq: ProcessQueue, nextOffset: number): void;
  /** A queue given up: persist its offset, unlock; false keeps it (orderly, consumption under way). */
  removeUnnecessaryMessageQueue(mq: MessageQueue, pq: ProcessQueue): Promise<boolean>;
  /** The owned set of a topic changed. */
  messageQueueChanged(topic: string, mqAll: MessageQueue[], mqDivided: MessageQueue[]): void;
  /** Drop the offset of a queue about to be added (RebalancePushImpl.removeDirtyOffset). */
  removeDirtyOffset(mq: MessageQueue): void;
  /** CONSUME_PASSIVELY (push) drops queues whose pulls stalled for 120 s. */
  readonly passive: boolean;
}

export class RebalanceImpl {
  readonly processQueueTable = new Map<string, { mq: MessageQueue; pq: ProcessQueue }>();
  readonly topicSubscribeInfoTable = new Map<string, MessageQueue[]>();
  readonly subscriptionInner = new Map<string, SubscriptionData>();
  #rebalancing: Promise<void> | null = null;
  readonly #log: Logger;

  constructor(
    readonly consumerGroup: string,
    public messageModel: MessageModel,
    public allocateMessageQueueStrategy: AllocateMessageQueueStrategy,
    readonly client: ConsumerClient,
    readonly hooks: RebalanceHooks,
    logger?: Logger,
  ) {
    this.#log = componentLogger('rebalance', logger);
  }

  processQueues(): Array<[MessageQueue, ProcessQueue]> {
    return [...this.processQueueTable.values()].map(({ mq, pq }) => [mq, pq]);
  }

  getProcessQueue(mq: MessageQueue): ProcessQueue | undefined {
    return this.processQueueTable.get(messageQueueKey(mq))?.pq;
  }

  /** Runs one rebalance of every subscribed topic; concurrent calls share the run. */
  doRebalance(isOrder: boolean): Promise<void> {
    if (this.#rebalancing) return this.#rebalancing;
    this.#rebalancing = this.#doRebalance(isOrder).finally(() => { this.#rebalancing = null; });
    return this.#rebalancing;
  }

  async #doRebalance(isOrder: boolean): Promise<void> {
    for (const topic of [...this.subscriptionInner.keys()]) {
      try {
        await this.rebalanceByTopic(topic, isOrder);
      } catch (err) {
        if (!topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) this.#log.warn({ err, group: this.consumerGroup, topic }, 'rebalanceByTopic exception');
      }
    }
    await this.truncateMessageQueueNotMyTopic();
  }

  async rebalanceByTopic(topic: string, isOrder: boolean): Promise<void> {
    const mqSet = this.topicSubscribeInfoTable.get(topic);
    if (this.messageModel === MM.BROADCASTING) {
      if (!mqSet) {
        this.#log.warn({ group: this.consumerGroup, topic }, 'doRebalance, but the topic route is not known');
        return;
      }
      if (await this.updateProcessQueueTableInRebalance(topic, mqSet, isOrder)) this.hooks.messageQueueChanged(topic, mqSet, mqSet);
      return;
    }
    const cidAll = await this.client.findConsumerIdList(topic, this.consumerGroup);
    if (!mqSet) {
      if (!topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) this.#log.warn({ group: this.consumerGroup, topic }, 'doRebalance, but the topic route is not known');
      return;
    }
    if (!cidAll || cidAll.length === 0) {
      this.#log.warn({ group: this.consumerGroup, topic }, 'doRebalance, get consumer id list failed');
      return;
    }
    const mqAll = [...mqSet].sort(compareMessageQueue);
    const cids = [...cidAll].sort(compareClientId);
    let allocated: MessageQueue[];
    try {
      allocated = this.allocateMessageQueueStrategy.allocate(this.consumerGroup, this.client.clientId, mqAll, cids);
    } catch (err) {
      this.#log.error({ err, group: this.consumerGroup, strategy: this.allocateMessageQueueStrategy.getName() }, 'allocate message queue exception');
      return;
    }
    const seen = new Set<string>();
    const unique = allocated.filter((mq) => (seen.has(messageQueueKey(mq)) ? false : (seen.add(messageQueueKey(mq)), true)));
    if (await this.updateProcessQueueTableInRebalance(topic, unique, isOrder)) {
      this.#log.info({ group: this.consumerGroup, topic, clientId: this.client.clientId, mqAllSize: mqAll.length, cidAllSize: cids.length, allocated: unique.length }, 'rebalance result changed');
      this.hooks.messageQueueChanged(topic, mqSet, unique);
    }
  }

  /** Drops queues no longer owned (or stalled), adds the newly owned ones; true when the set changed. */
  async updateProcessQueueTableInRebalance(topic: string, mqSet: readonly MessageQueue[], isOrder: boolean): Promise<boolean> {
    let changed = false;
    const wanted = new Set(mqSet.map(messageQueueKey));
    for (const [key, { mq, pq }] of [...this.processQueueTable]) {
      if (mq.topic !== topic) continue;
      if (!wanted.has(key)) {
        pq.dropped = true;
        if (await this.hooks.removeUnnecessaryMessageQueue(mq, pq)) {
          this.processQueueTable.delete(key);
          changed = true;
          this.#log.info({ group: this.consumerGroup, topic, queueId: mq.queueId, brokerName: mq.brokerName }, 'drop unnecessary mq');
        }
      } else if (this.hooks.passive && pq.isPullExpired()) {
        pq.dropped = true;
        if (await this.hooks.removeUnnecessaryMessageQueue(mq, pq)) {
          this.processQueueTable.delete(key);
          changed = true;
          this.#log.warn({ group: this.consumerGroup, topic, queueId: mq.queueId }, 'pull expired, drop mq');
        }
      }
    }
    for (const mq of mqSet) {
      const key = messageQueueKey(mq);
      if (this.processQueueTable.has(key)) continue;
      if (isOrder && !(await this.lock(mq))) {
        this.#log.warn({ group: this.consumerGroup, topic, queueId: mq.queueId }, 'add new mq failed, because lock failed');
        continue;
      }
      this.hooks.removeDirtyOffset(mq);
      const pq = new ProcessQueue();
      let nextOffset: number;
      try {
        nextOffset = await this.hooks.computePullFromWhere(mq);
      } catch (err) {
        this.#log.warn({ err, group: this.consumerGroup, topic, queueId: mq.queueId }, 'computePullFromWhere exception');
        continue;
      }
      if (nextOffset < 0) {
        this.#log.warn({ group: this.consumerGroup, topic, queueId: mq.queueId }, 'doRebalance, add new mq failed');
        continue;
      }
      if (this.processQueueTable.has(key)) continue;
      if (isOrder) pq.locked = true;
      this.processQueueTable.set(key, { mq, pq });
      this.#log.info({ group: this.consumerGroup, topic, queueId: mq.queueId, brokerName: mq.brokerName, nextOffset }, 'add new mq');
      this.hooks.dispatchPullRequest(mq, pq, nextOffset);
      changed = true;
    }
    return changed;
  }

  /** Drops queues of topics no longer subscribed. */
  async truncateMessageQueueNotMyTopic(): Promise<void> {
    for (const [key, { mq, pq }] of [...this.processQueueTable]) {
      if (!this.subscriptionInner.has(mq.topic)) {
        pq.dropped = true;
        this.processQueueTable.delete(key);
        await this.hooks.removeUnnecessaryMessageQueue(mq, pq).catch(() => false);
        this.#log.info({ group: this.consumerGroup, topic: mq.topic, queueId: mq.queueId }, 'doRebalance, truncateMessageQueueNotMyTopic');
      }
    }
  }

  /** Drops one queue now (OFFSET_ILLEGAL handling, reset). */
  async removeProcessQueue(mq: MessageQueue): Promise<void> {
    const key = messageQueueKey(mq);
    const e = this.processQueueTable.get(key);
    if (!e) return;
    this.processQueueTable.delete(key);
    e.pq.dropped = true;
    await this.hooks.removeUnnecessaryMessageQueue(mq, e.pq);
  }

  #masterOf(brokerName: string): string | undefined {
    return this.client.findBrokerAddressInSubscribe(brokerName, MixAll.MASTER_ID, true)?.brokerAddr;
  }

  /** LOCK_BATCH_MQ of one queue; true when this client holds the lock. */
  async lock(mq: MessageQueue): Promise<boolean> {
    const addr = this.#masterOf(mq.brokerName);
    if (!addr) return false;
    try {
      const ok = await lockBatchMQ(this.client.api, addr, { consumerGroup: this.consumerGroup, clientId: this.client.clientId, mqSet: [mq] }, 1000);
      const now = Date.now();
      for (const q of ok) {
        const pq = this.getProcessQueue(q);
        if (pq) {
          pq.locked = true;
          pq.lastLockTimestamp = now;
        }
      }
      return ok.some((q) => messageQueueKey(q) === messageQueueKey(mq));
    } catch (err) {
      this.#log.error({ err, group: this.consumerGroup, topic: mq.topic, queueId: mq.queueId }, 'lockBatchMQ exception');
      return false;
    }
  }

  /** Renews the locks of every owned queue, broker by broker (every 20 s in orderly clustering). */
  async lockAll(): Promise<void> {
    for (const [brokerName, mqs] of this.#byBroker()) {
      const addr = this.#masterOf(brokerName);
      if (!addr) continue;
      try {
        const ok = await lockBatchMQ(this.client.api, addr, { consumerGroup: this.consumerGroup, clientId: this.client.clientId, mqSet: mqs }, 1000);
        const okKeys = new Set(ok.map(messageQueueKey));
        const now = Date.now();
        for (const mq of mqs) {
          const pq = this.getProcessQueue(mq);
          if (!pq) continue;
          if (okKeys.has(messageQueueKey(mq))) {
            pq.locked = true;
            pq.lastLockTimestamp = now;
          } else {
            pq.locked = false;
            this.#log.warn({ group: this.consumerGroup, topic: mq.topic, queueId: mq.queueId }, 'the message queue locking failed');
          }
        }
      } catch (err) {
        this.#log.error({ err, group: this.consumerGroup, brokerName }, 'lockBatchMQ exception');
      }
    }
  }

  async unlock(mq: MessageQueue, oneway: boolean): Promise<void> {
    const addr = this.#masterOf(mq.brokerName);
    if (!addr) return;
    try {
      await unlockBatchMQ(this.client.api, addr, { consumerGroup: this.consumerGroup, clientId: this.client.clientId, mqSet: [mq] }, 1000, oneway);
    } catch (err) {
      this.#log.warn({ err, group: this.consumerGroup, topic: mq.topic, queueId: mq.queueId }, 'unlockBatchMQ exception');
    }
  }

  async unlockAll(oneway: boolean): Promise<void> {
    for (const [brokerName, mqs] of this.#byBroker()) {
      const addr = this.#masterOf(brokerName);
      if (!addr) continue;
      try {
        await unlockBatchMQ(this.client.api, addr, { consumerGroup: this.consumerGroup, clientId: this.client.clientId, mqSet: mqs }, 1000, oneway);
        for (const mq of mqs) {
          const pq = this.getProcessQueue(mq);
          if (pq) pq.locked = false;
        }
      } catch (err) {
        this.#log.warn({ err, group: this.consumerGroup, brokerName }, 'unlockBatchMQ exception');
      }
    }
  }

  #byBroker(): Map<string, MessageQueue[]> {
    const out = new Map<string, MessageQueue[]>();
    for (const { mq } of this.processQueueTable.values()) {
      let l = out.get(mq.brokerName);
      if (!l) out.set(mq.brokerName, (l = []));
      l.push(mq);
    }
    return out;
  }

  /** Drops every queue (shutdown). */
  destroy(): void {
    for (const { pq } of this.processQueueTable.values()) pq.dropped = true;
    this.processQueueTable.clear();
  }
}
