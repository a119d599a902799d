/**
 * DefaultMQPushConsumer: the broker "pushes" through long-polling pulls. One pull loop per owned queue feeds the
 * queue's ProcessQueue; a consume service hands the messages to the listener (concurrently or orderly); offsets go
 * to the broker (clustering) or a local file (broadcasting). Queues are divided among the group's members by the
 * rebalance (every 20 s, at start and when the broker notifies a change of members).
 *
 * @see org.apache.rocketmq.client.consumer.DefaultMQPushConsumer
 * @see org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl
 * @see org.apache.rocketmq.client.impl.consumer.RebalancePushImpl
 */
import { type ConsumeMessageDirectlyResult } from '../../protocol/body/consume-message-directly-result';
import { type ConsumerRunningInfo, ConsumerRunningInfoProp, type ConsumeStatus, type ProcessQueueInfo } from '../../protocol/body/consumer-running-info';
import { ExpressionType } from '../../protocol/body/expression-type';
import { ConsumeFromWhere, ConsumeType, MessageModel, type SubscriptionData } from '../../protocol/body/heartbeat-data';
import { MessageConst } from '../../protocol/message/message-const';
import type { MessageExt } from '../../protocol/message/message';
import { type MessageQueue, messageQueueKey } from '../../protocol/message/message-queue';
import { propertiesToString } from '../../protocol/message/properties';
import type { ClientConfigOptions } from '../client/client-config';
import { MixAll, getRetryTopic } from '../client/mix-all';
import { consumerSendMessageBack } from '../client/mq-client-api-consumer';
import type { MQClientAPIOptions } from '../client/mq-client-api';
import { BrokerNotFoundError, ConfigError, ResourceNotFoundError, ServiceStateError } from '../errors';
import type { Logger } from '../logger';
import type { ConsumeMessageService, ConsumeServiceHost } from './consume-service';
import { ConsumeMessageConcurrentlyService } from './consume-message-concurrently-service';
import { ConsumeMessageOrderlyService } from './consume-message-orderly-service';
import type { ConsumerClient } from './consumer-client';
import { ConsumerCore, type ConsumerExtras } from './consumer-core';
import {
  ConsumeConcurrentlyStatus, type MessageListenerConcurrently, type MessageListenerOrderly,
} from './listener';
import { MessageSelector, buildSubscriptionData } from './message-selector';
import type { ProcessQueue, PullRequest } from './process-queue';
import { PullStatus, buildPullSysFlag, undecodableBody } from './pull-api-wrapper';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import type { RebalanceHooks } from './rebalance-impl';
import type { AllocateMessageQueueStrategy } from './rebalance/allocate-message-queue-strategy';
import { type OffsetStore, ReadOffsetType } from './offset/offset-store';

/** Java's DefaultMQPushConsumerImpl constants. */
export const PULL_TIME_DELAY_MILLS_WHEN_SUSPEND = 1_000;
export const PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL = 50;
export const PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION = 3_000;
export const BROKER_SUSPEND_MAX_TIME_MILLIS = 15_000;
export const CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND = 30_000;

export interface PushConsumerOptions extends ClientConfigOptions, ConsumerExtras<ConsumerClient> {
  /** Consumer group (required): consumers of a group share the queues (CLUSTERING) and the offsets. */
  consumerGroup: string;
  /** Signs every request (AclClientRPCHook for a broker with aclEnable=true), as Java's constructor argument. */
  rpcHook?: MQClientAPIOptions['rpcHook'];
  /**
   * CLUSTERING: each message to one consumer of the group, offsets on the broker; BROADCASTING: to every consumer, offsets in a local file.
   */
  messageModel: MessageModel;
  /**
   * Where a group without a committed offset starts: CONSUME_FROM_LAST_OFFSET, CONSUME_FROM_FIRST_OFFSET or CONSUME_FROM_TIMESTAMP.
   */
  consumeFromWhere: ConsumeFromWhere;
  /**
   * yyyyMMddHHmmss, where CONSUME_FROM_TIMESTAMP starts.
   * @default half an hour before the consumer was created
   */
  consumeTimestamp: string;
  /**
   * How a group's queues are divided among its consumers.
   * @default AllocateMessageQueueAveragely
   */
  allocateMessageQueueStrategy: AllocateMessageQueueStrategy;
  /** Kept for Java parity; consumeThreadMax bounds the listener calls. */
  consumeThreadMin: number;
  /** The most listener calls running at once. */
  consumeThreadMax: number;
  /** Kept for Java parity (no thread pool to adjust). */
  adjustThreadPoolNumsThreshold: number;
  /** Pause pulling a queue when its cached messages span more offsets than this (concurrent mode). */
  consumeConcurrentlyMaxSpan: number;
  /** Pause pulling a queue when this many messages are cached for it. */
  pullThresholdForQueue: number;
  /** Pause pulling a queue when its cached message bodies exceed this many MiB. */
  pullThresholdSizeForQueue: number;
  /** Messages cached for a whole topic, spread over its queues (overrides pullThresholdForQueue); -1: no limit. */
  pullThresholdForTopic: number;
  /** MiB cached for a whole topic, spread over its queues (overrides pullThresholdSizeForQueue); -1: no limit. */
  pullThresholdSizeForTopic: number;
  /** Pause between two pulls of a queue, ms. */
  pullInterval: number;
  /** Most messages given to one listener call. */
  consumeMessageBatchMaxSize: number;
  /** Most messages asked for by one pull. */
  pullBatchSize: number;
  /** Send the subscription with each pull. */
  postSubscriptionWhenPull: boolean;
  /** Retries of a failing message before it goes to %DLQ%<group>; -1: 16 for concurrent consumption, unlimited for orderly. */
  maxReconsumeTimes: number;
  /** Orderly: pause before a queue is retried after SUSPEND_CURRENT_QUEUE_A_MOMENT, ms. */
  suspendCurrentQueueTimeMillis: number;
  /** Concurrent mode: a message still being consumed after this many minutes is sent back for a retry. */
  consumeTimeout: number;
  /**
   * Concurrently: how long shutdown() lets queued listener calls still run, ms (0: none; dropped, redelivered later).
   * Calls already running are awaited in both modes, however long they take (Java's 0 waits for none of them).
   */
  awaitTerminationMillisWhenShutdown: number;
  /** Write SubBefore / SubAfter trace records of every listener call to the trace topic. */
  enableMsgTrace: boolean;
  /** The trace topic of enableMsgTrace. */
  customizedTraceTopic: string;
  /**
   * Base directory of broadcasting offset files (Java's rocketmq.client.localOffsetStoreDir).
   * @default env ROCKETMQ_CLIENT_LOCAL_OFFSET_STORE_DIR, else ~/.rocketmq_offsets
   */
  localOffsetStoreDir: string;
  /** A client to use instead of the shared MQClientInstance (tests). */
  client?: ConsumerClient;
  /** An offset store to use instead of the default one. */
  offsetStore?: OffsetStore;
  /** Parent of the consumer's loggers (its rebalance, offset store and consume service too); default: the root logger. */
  logger?: Logger;
}

export { parseConsumeTimestamp } from './consume-timestamp';

export const DEFAULT_PUSH_CONSUMER_OPTIONS = Object.freeze({
  consumerGroup: MixAll.DEFAULT_CONSUMER_GROUP as string,
  messageModel: MessageModel.CLUSTERING as MessageModel,
  consumeFromWhere: ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET as ConsumeFromWhere,
  consumeThreadMin: 20,
  consumeThreadMax: 20,
  adjustThreadPoolNumsThreshold: 100_000,
  consumeConcurrentlyMaxSpan: 2000,
  pullThresholdForQueue: 1000,
  pullThresholdSizeForQueue: 100,
  pullThresholdForTopic: -1,
  pullThresholdSizeForTopic: -1,
  pullInterval: 0,
  consumeMessageBatchMaxSize: 1,
  pullBatchSize: 32,
  postSubscriptionWhenPull: false,
  maxReconsumeTimes: -1,
  suspendCurrentQueueTimeMillis: 1000,
  consumeTimeout: 15,
  awaitTerminationMillisWhenShutdown: 0,
  enableMsgTrace: false,
  customizedTraceTopic: 'RMQ_SYS_TRACE_TOPIC',
});

/** A message from `consumer.messages()`: acknowledge it, or ask for a later redelivery. */
export interface AckableMessage extends MessageExt {
  ack(): void;
  /** RECONSUME_LATER: the message comes back through %RETRY%<group>. */
  nack(): void;
}

/** The push consumer's options after defaults (without the client settings and the constructor's seams). */
export type PushConsumerConfig = Omit<PushConsumerOptions, keyof ClientConfigOptions | keyof ConsumerExtras<ConsumerClient>>;

export class DefaultMQPushConsumer extends ConsumerCore<PushConsumerConfig, ConsumerClient> implements ConsumeServiceHost {
  #consumeService: ConsumeMessageService | undefined;
  #listener: { kind: 'concurrently'; fn: MessageListenerConcurrently } | { kind: 'orderly'; fn: MessageListenerOrderly } | undefined;
  #pause = false;
  #queueThresholds = { count: 0, sizeMiB: 0 };
  #pulls = { count: 0, rtTotal: 0 };
  /** The heartbeat round announcing a new subVersion, until the brokers answered it. */
  #subscriptionsAnnounced: Promise<void> | null = null;

  constructor(options: Partial<PushConsumerOptions> & { consumerGroup: string }) {
    super('push-consumer', DEFAULT_PUSH_CONSUMER_OPTIONS, options);
    this.#queueThresholds = { count: this.options.pullThresholdForQueue, sizeMiB: this.options.pullThresholdSizeForQueue };
  }

  // ------------------------------------------------------------------ public API

  /** Subscribes a topic with a tag expression (`"*"`, `"TagA || TagB"`) or a MessageSelector (`bySql`). */
  subscribe(topic: string, expression: string | MessageSelector = '*'): void {
    if (this.addSubscription(topic, expression, true)) this.#announceSubscriptions();
  }

  unsubscribe(topic: string): void {
    this.removeSubscription(topic);
  }

  registerMessageListener(listener: MessageListenerConcurrently): void {
    this.#listener = { kind: 'concurrently', fn: listener };
  }

  registerMessageListenerOrderly(listener: MessageListenerOrderly): void {
    this.#listener = { kind: 'orderly', fn: listener };
  }

  /** Stops pulling (queues stay owned); `resume()` goes on. */
  suspend(): void {
    this.#pause = true;
  }

  resume(): void {
    this.#pause = false;
    void this.doRebalance();
  }

  isPause(): boolean {
    return this.#pause;
  }

  /**
   * The messages as an async iterable (instead of a listener; call before start()). Each message must be
   * `ack()`ed or `nack()`ed; moving to the next message acknowledges the previous one if neither was called.
   * Up to consumeThreadMax messages wait in the iterator's buffer. The signal ends the iteration; buffered
   * messages not yet handed out are then redelivered later (RECONSUME_LATER).
   */
  messages(options: { signal?: AbortSignal } = {}): AsyncIterable<AckableMessage> {
    if (this.lifecycle.current !== 'created' && this.lifecycle.current !== 'stopped') {
      throw new ServiceStateError('messages() must be called before start()');
    }
    type Pending = { msg: AckableMessage; done: boolean };
    const buffer: Pending[] = [];
    let waiter: ((v: Pending | null) => void) | null = null;
    let ended = false;
    const end = (): void => {
      ended = true;
      for (const p of buffer.splice(0)) p.msg.nack();
      if (waiter) {
        const w = waiter;
        waiter = null;
        w(null);
      }
    };
    options.signal?.addEventListener('abort', end, { once: true });
    this.registerMessageListener(async (msgs) => {
      if (ended) return ConsumeConcurrentlyStatus.RECONSUME_LATER;
      const results = msgs.map((m) => new Promise<boolean>((resolve) => {
        const am = m as AckableMessage;
        const p: Pending = { msg: am, done: false };
        am.ack = () => { if (!p.done) { p.done = true; resolve(true); } };
        am.nack = () => { if (!p.done) { p.done = true; resolve(false); } };
        if (waiter) {
          const w = waiter;
          waiter = null;
          w(p);
        } else {
          buffer.push(p);
        }
      }));
      const ok = await Promise.all(results);
      return ok.every(Boolean) ? ConsumeConcurrentlyStatus.CONSUME_SUCCESS : ConsumeConcurrentlyStatus.RECONSUME_LATER;
    });
    return {
      [Symbol.asyncIterator]: () => {
        let previous: Pending | null = null;
        return {
          next: async (): Promise<IteratorResult<AckableMessage>> => {
            if (previous && !previous.done) previous.msg.ack();
            previous = null;
            if (ended) return { done: true, value: undefined };
            const p = buffer.shift() ?? (await new Promise<Pending | null>((r) => { waiter = r; }));
            if (!p) return { done: true, value: undefined };
            previous = p;
            return { done: false, value: p.msg };
          },
          return: async (): Promise<IteratorResult<AckableMessage>> => {
            if (previous && !previous.done) previous.msg.ack();
            end();
            return { done: true, value: undefined };
          },
        };
      },
    };
  }

  /** The queues owned now. */
  processQueues(): Array<[MessageQueue, ProcessQueue]> {
    return this.rebalance?.processQueues() ?? [];
  }

  // ------------------------------------------------------------------ lifecycle

  protected checkConfig(): void {
    if (!this.#listener) throw new ConfigError('messageListener is null');
    if (!this.consumerGroup) throw new ConfigError('consumerGroup is null');
    if (this.options.consumeThreadMin < 1 || this.options.consumeThreadMax < 1) throw new ConfigError('consumeThreadMin/Max out of range');
    if (this.options.consumeMessageBatchMaxSize < 1 || this.options.consumeMessageBatchMaxSize > 1024) throw new ConfigError('consumeMessageBatchMaxSize Out of range [1, 1024]');
  }

  protected override innerSubscriptions(group: string): SubscriptionData[] {
    if (this.options.messageModel !== MessageModel.CLUSTERING) return [];
    const retry = getRetryTopic(group);
    return [buildSubscriptionData(retry, '*')];
  }

  protected rebalanceHooks(group: string): RebalanceHooks {
    return {
      passive: true,
      computePullFromWhere: (mq) => this.computePullFromWhere(mq),
      dispatchPullRequest: (mq, pq, nextOffset) => this.#executePullRequestImmediately({
        consumerGroup: group, messageQueue: mq, processQueue: pq, nextOffset, lockedFirst: false,
      }),
      removeUnnecessaryMessageQueue: (mq, pq) => this.#removeUnnecessaryMessageQueue(mq, pq),
      messageQueueChanged: (topic, mqAll, mqDivided) => this.#messageQueueChanged(topic, mqAll, mqDivided),
      removeDirtyOffset: (mq) => this.offsetStore.removeOffset(mq),
    };
  }

  protected override beforeRunning(): void {
    const listener = this.#listener!;
    this.#consumeService = listener.kind === 'orderly'
      ? new ConsumeMessageOrderlyService(this, listener.fn, this.partLogger)
      : new ConsumeMessageConcurrentlyService(this, listener.fn, this.partLogger);
    this.#consumeService.start();
  }

  protected async afterRunning(client: ConsumerClient): Promise<void> {
    if (this.#listener?.kind === 'orderly' && this.options.messageModel === MessageModel.CLUSTERING) {
      this.timers.every(20_000, () => void this.rebalance?.lockAll());
    }
    await this.joinGroup(client, true);
  }

  /** Stops pulling, waits for running listener calls, persists offsets, unlocks queues (then the core unregisters). */
  protected async stopLoop(): Promise<void> {
    this.running = false;
    this.timers.clear();
    await this.#consumeService?.shutdown(this.options.awaitTerminationMillisWhenShutdown);
    await this.persistConsumerOffset();
    if (this.#listener?.kind === 'orderly' && this.options.messageModel === MessageModel.CLUSTERING) await this.rebalance!.unlockAll(false);
  }

  // ------------------------------------------------------------------ ConsumeServiceHost

  get consumeThreadMax(): number { return this.options.consumeThreadMax; }
  get consumeMessageBatchMaxSize(): number { return this.options.consumeMessageBatchMaxSize; }
  get consumeTimeout(): number { return this.options.consumeTimeout; }
  get suspendCurrentQueueTimeMillis(): number { return this.options.suspendCurrentQueueTimeMillis; }
  get maxReconsumeTimes(): number { return this.options.maxReconsumeTimes; }

  withoutNamespace(resource: string): string {
    return this.clientConfig.withoutNamespace(resource);
  }

  /** Concurrently: -1 is 16. */
  #maxReconsumeTimesForSendBack(): number {
    return this.options.maxReconsumeTimes === -1 ? 16 : this.options.maxReconsumeTimes;
  }

  /** CONSUMER_SEND_MSG_BACK to the message's broker; when that fails, a new message to %RETRY%<group>. */
  async sendMessageBack(msg: MessageExt, delayLevel: number, brokerName: string | undefined): Promise<void> {
    const client = this.client;
    if (!client) throw new ServiceStateError('The consumer is not running');
    const group = this.rebalance!.consumerGroup;
    const originalTopic = msg.topic;
    msg.topic = this.clientConfig.withNamespace(msg.topic);
    try {
      const addr = brokerName ? client.findBrokerAddressInPublish(brokerName) : `${msg.storeHost.address}:${msg.storeHost.port}`;
      if (!addr) throw new BrokerNotFoundError(brokerName ?? '');
      await consumerSendMessageBack(client.api, addr, msg, group, delayLevel, 5000, this.#maxReconsumeTimesForSendBack(), brokerName);
    } catch (err) {
      this.log.warn({ err, msgId: msg.msgId }, 'sendMessageBack exception, send to retry topic through the inner producer');
      await this.#sendToRetryTopic(msg, 3 + msg.reconsumeTimes, msg.reconsumeTimes + 1, brokerName);
    } finally {
      msg.topic = originalTopic;
    }
  }

  /** The inner-producer path of sendMessageBack: a copy of the message to %RETRY%<group>. */
  async #sendToRetryTopic(msg: MessageExt, delayLevel: number, reconsumeTimes: number, brokerName: string | undefined): Promise<void> {
    const client = this.client!;
    const group = this.rebalance!.consumerGroup;
    const retryTopic = getRetryTopic(group);
    const props = { ...msg.properties };
    props[MessageConst.PROPERTY_ORIGIN_MESSAGE_ID] = msg.properties[MessageConst.PROPERTY_ORIGIN_MESSAGE_ID] ?? msg.msgId;
    props[MessageConst.PROPERTY_RETRY_TOPIC] = msg.topic;
    props[MessageConst.PROPERTY_RECONSUME_TIME] = String(reconsumeTimes);
    props[MessageConst.PROPERTY_MAX_RECONSUME_TIMES] = String(this.#maxReconsumeTimesForSendBack());
    if (delayLevel > 0) props[MessageConst.PROPERTY_DELAY_TIME_LEVEL] = String(delayLevel);
    delete props[MessageConst.PROPERTY_MIN_OFFSET];
    delete props[MessageConst.PROPERTY_MAX_OFFSET];
    delete props[MessageConst.PROPERTY_CONSUME_START_TIMESTAMP];
    await client.updateTopicRouteInfoFromNameServer(retryTopic).catch(() => false);
    const bn = brokerName ?? msg.brokerName;
    const addr = bn ? client.findBrokerAddressInPublish(bn) : undefined;
    if (!addr || !bn) throw new ResourceNotFoundError(`no broker to send ${retryTopic} to`);
    await client.api.sendMessage(
      { brokerAddr: addr, brokerName: bn, body: msg.body, uniqMsgId: msg.msgId, userTopic: retryTopic },
      {
        producerGroup: MixAll.CLIENT_INNER_PRODUCER_GROUP, topic: retryTopic, defaultTopic: 'TBW102', defaultTopicQueueNums: 4,
        // a body this process could not decompress goes back as it came, with its compression bits
        queueId: 0, sysFlag: undecodableBody(msg) ? msg.sysFlag & (MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_TYPE_COMPARATOR) : 0,
        bornTimestamp: Date.now(), flag: msg.flag, properties: propertiesToString(props),
        reconsumeTimes, unitMode: false, maxReconsumeTimes: this.#maxReconsumeTimesForSendBack(), batch: false,
      },
      3000,
    );
  }

  async sendRetryMessageForOrderly(msg: MessageExt): Promise<boolean> {
    try {
      await this.#sendToRetryTopic(msg, 0, msg.reconsumeTimes, msg.brokerName);
      return true;
    } catch (err) {
      this.log.error({ err, msgId: msg.msgId }, 'sendMessageBack (orderly) exception');
      return false;
    }
  }

  lockOneMQ(mq: MessageQueue): Promise<boolean> {
    return this.rebalance ? this.rebalance.lock(mq) : Promise.resolve(false);
  }

  // ------------------------------------------------------------------ rebalance hooks

  /** RebalancePushImpl.computePullFromWhereWithException (4.9.8). */
  computePullFromWhere(mq: MessageQueue): Promise<number> {
    return this.pullStartOffset(mq, ReadOffsetType.READ_FROM_STORE);
  }

  async #removeUnnecessaryMessageQueue(mq: MessageQueue, pq: ProcessQueue): Promise<boolean> {
    await this.offsetStore.persist(mq);
    this.offsetStore.removeOffset(mq);
    if (this.#listener?.kind === 'orderly' && this.options.messageModel === MessageModel.CLUSTERING) {
      // wait (up to 1 s) for a running listener call of the queue, then release the broker lock
      const deadline = Date.now() + 1000;
      while (pq.consumeLocked && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10).unref());
      if (pq.consumeLocked) {
        pq.tryUnlockTimes++;
        return false;
      }
      await this.rebalance!.unlock(mq, true);
    }
    return true;
  }

  #messageQueueChanged(topic: string, _mqAll: MessageQueue[], mqDivided: MessageQueue[]): void {
    const sd = this.rebalance!.subscriptionInner.get(topic);
    if (sd) sd.subVersion = Date.now();
    const n = this.rebalance!.processQueueTable.size;
    if (n > 0) {
      if (this.options.pullThresholdForTopic !== -1) {
        this.#queueThresholds.count = Math.max(1, Math.floor(this.options.pullThresholdForTopic / n));
      }
      if (this.options.pullThresholdSizeForTopic !== -1) {
        this.#queueThresholds.sizeMiB = Math.max(1, Math.floor(this.options.pullThresholdSizeForTopic / n));
      }
    }
    this.log.info({ topic, owned: mqDivided.length }, 'messageQueueChanged');
    this.#announceSubscriptions();
  }

  /**
   * Heartbeats the subscriptions (with their new subVersion) to the brokers; pulls wait until the brokers answered.
   * A broker refuses a pull whose subVersion is newer than the one it holds (SUBSCRIPTION_NOT_LATEST), and the queue
   * then waits PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION (3 s). A Java broker runs heartbeats and pulls on different
   * thread pools, so a pull sent right behind the heartbeat often overtook it: after each rebalance change, a few
   * queues of a draining consumer stalled for 3 s (test/integration/consumer/subscription-version.test.ts).
   */
  #announceSubscriptions(): void {
    const client = this.client;
    if (!client) return;
    const round: Promise<void> = client.sendHeartbeatToAllBrokerWithLock().catch(() => undefined).finally(() => {
      if (this.#subscriptionsAnnounced === round) this.#subscriptionsAnnounced = null;
    });
    this.#subscriptionsAnnounced = round;
  }

  // ------------------------------------------------------------------ pull loop

  /**
   * The next pull of a queue starts in a microtask, not a later event-loop turn: with the client transport's
   * per-tick flush the PULL_MESSAGE leaves in the same turn as the response that ended the previous pull.
   */
  #executePullRequestImmediately(req: PullRequest): void {
    if (!this.running) return;
    queueMicrotask(() => void this.#pullMessage(req));
  }

  #executePullRequestLater(req: PullRequest, delayMillis: number): void {
    if (!this.running) return;
    this.timers.schedule(delayMillis, () => void this.#pullMessage(req));
  }

  /** DefaultMQPushConsumerImpl.pullMessage: flow control, then one long-polling PULL_MESSAGE. */
  async #pullMessage(req: PullRequest): Promise<void> {
    const pq = req.processQueue;
    const mq = req.messageQueue;
    if (pq.dropped || !this.running) return;
    pq.lastPullTimestamp = Date.now();
    if (this.#pause) {
      this.#executePullRequestLater(req, PULL_TIME_DELAY_MILLS_WHEN_SUSPEND);
      return;
    }
    if (pq.msgCount > this.#queueThresholds.count || pq.msgSize / (1024 * 1024) > this.#queueThresholds.sizeMiB) {
      this.#executePullRequestLater(req, PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL);
      return;
    }
    const orderly = this.#listener?.kind === 'orderly';
    if (!orderly) {
      if (pq.getMaxSpan() > this.options.consumeConcurrentlyMaxSpan) {
        this.#executePullRequestLater(req, PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL);
        return;
      }
    } else if (pq.locked) {
      if (!req.lockedFirst) {
        const offset = await this.computePullFromWhere(mq).catch(() => -1);
        if (offset < 0) {
          this.#executePullRequestLater(req, PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION);
          return;
        }
        req.lockedFirst = true;
        req.nextOffset = offset;
      }
    } else {
      this.#executePullRequestLater(req, PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION);
      return;
    }
    if (this.#subscriptionsAnnounced) {
      // the brokers have not acknowledged the latest subVersion yet (see #announceSubscriptions)
      await this.#subscriptionsAnnounced;
      if (pq.dropped || !this.running) return;
    }
    const sd = this.rebalance!.subscriptionInner.get(mq.topic);
    if (!sd) {
      this.#executePullRequestLater(req, PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION);
      return;
    }
    // read before any await: a pull that passed the check above must not carry a subVersion bumped meanwhile
    const subVersion = sd.subVersion;
    let commitOffsetEnable = false;
    let commitOffsetValue = 0;
    if (this.options.messageModel === MessageModel.CLUSTERING) {
      commitOffsetValue = await this.offsetStore.readOffset(mq, ReadOffsetType.READ_FROM_MEMORY);
      if (commitOffsetValue > 0) commitOffsetEnable = true;
      else commitOffsetValue = 0;
    }
    let subExpression: string | undefined;
    if (this.options.postSubscriptionWhenPull && !sd.classFilterMode) subExpression = sd.subString;
    if (sd.expressionType !== ExpressionType.TAG && sd.expressionType !== undefined) subExpression = subExpression ?? sd.subString;
    const sysFlag = buildPullSysFlag(commitOffsetEnable, true, subExpression !== undefined, sd.classFilterMode);
    const begin = Date.now();
    let result;
    try {
      result = await this.pullAPIWrapper!.pull({
        mq, subExpression, expressionType: sd.expressionType, subVersion, offset: req.nextOffset,
        maxNums: this.options.pullBatchSize, sysFlag, commitOffset: commitOffsetValue,
        brokerSuspendMaxTimeMillis: BROKER_SUSPEND_MAX_TIME_MILLIS, timeoutMillis: CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND,
      }, sd, true); // a body this process cannot decompress reaches the consume service, which sends it back
    } catch (err) {
      if (!mq.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) && this.running) {
        this.log.warn({ err, topic: mq.topic, queueId: mq.queueId }, 'execute the pull request exception');
      }
      this.#executePullRequestLater(req, PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION);
      return;
    }
    this.#pulls.count++;
    this.#pulls.rtTotal += Date.now() - begin;
    if (pq.dropped || !this.running) return;
    switch (result.pullStatus) {
      case PullStatus.FOUND: {
        req.nextOffset = result.nextBeginOffset;
        if (result.msgFoundList.length === 0) {
          this.#executePullRequestImmediately(req);
        } else {
          const dispatch = pq.putMessage(result.msgFoundList);
          this.#consumeService!.submitConsumeRequest(result.msgFoundList, pq, mq, dispatch);
          if (this.options.pullInterval > 0) this.#executePullRequestLater(req, this.options.pullInterval);
          else this.#executePullRequestImmediately(req);
        }
        break;
      }
      case PullStatus.NO_NEW_MSG:
      case PullStatus.NO_MATCHED_MSG:
        req.nextOffset = result.nextBeginOffset;
        if (pq.msgCount === 0) this.offsetStore.updateOffset(mq, req.nextOffset, true);
        this.#executePullRequestImmediately(req);
        break;
      case PullStatus.OFFSET_ILLEGAL: {
        this.log.warn({ topic: mq.topic, queueId: mq.queueId, offset: req.nextOffset, nextBeginOffset: result.nextBeginOffset }, 'the pull request offset illegal');
        req.nextOffset = result.nextBeginOffset;
        pq.dropped = true;
        this.timers.schedule(10_000, () => {
          this.offsetStore.updateOffset(mq, req.nextOffset, false);
          void this.offsetStore.persist(mq).then(() => this.rebalance?.removeProcessQueue(mq));
        });
        break;
      }
    }
  }

  // ------------------------------------------------------------------ MQConsumerInner

  consumeType(): ConsumeType {
    return ConsumeType.CONSUME_PASSIVELY;
  }

  async doRebalance(): Promise<void> {
    if (!this.#pause && this.rebalance && this.running) await this.rebalance.doRebalance(this.#listener?.kind === 'orderly');
  }

  /** Persists the owned queues' offsets; a failure is logged (as Java), so that a shutdown still releases the client. */
  async persistConsumerOffset(): Promise<void> {
    if (!this.rebalance) return;
    try {
      await this.getOffsetStore()?.persistAll(this.ownedQueues());
    } catch (err) {
      this.log.error({ err }, 'persistConsumerOffset exception');
    }
  }

  /** RESET_CONSUMER_CLIENT_OFFSET: drop the queues, set and persist the offsets, rebalance again. */
  async resetOffset(topic: string, offsetTable: Array<[MessageQueue, number]>): Promise<void> {
    const rebalance = this.rebalance;
    if (!rebalance) return;
    this.suspend();
    try {
      for (const [mq] of offsetTable) {
        const pq = rebalance.getProcessQueue(mq);
        if (pq) {
          pq.dropped = true;
          pq.clear();
        }
      }
      for (const [mq, offset] of offsetTable) {
        this.offsetStore.updateOffset(mq, offset, false);
        await this.offsetStore.updateConsumeOffsetToBroker(mq, offset, false).catch((err: unknown) => this.log.warn({ err, topic }, 'reset offset failed'));
        await rebalance.removeProcessQueue(mq);
      }
    } finally {
      this.#pause = false;
    }
    await this.doRebalance();
  }

  consumeMessageDirectly(msg: MessageExt, brokerName: string | undefined): Promise<ConsumeMessageDirectlyResult> {
    if (!this.#consumeService) throw new ServiceStateError('The consumer is not running');
    return this.#consumeService.consumeMessageDirectly(msg, brokerName);
  }

  /** GET_CONSUMER_RUNNING_INFO, as DefaultMQPushConsumerImpl.consumerRunningInfo. */
  consumerRunningInfo(): ConsumerRunningInfo {
    const properties = this.runningInfoProperties();
    properties.set(ConsumerRunningInfoProp.PROP_CONSUME_ORDERLY, String(this.#listener?.kind === 'orderly'));
    properties.set(ConsumerRunningInfoProp.PROP_THREADPOOL_CORE_SIZE, String(this.options.consumeThreadMax));
    properties.set(ConsumerRunningInfoProp.PROP_CONSUMER_START_TIMESTAMP, String(this.startTimestamp));
    const mqTable: Array<[MessageQueue, ProcessQueueInfo]> = [];
    for (const [mq, pq] of this.processQueues()) {
      mqTable.push([mq, pq.toProcessQueueInfo(this.getOffsetStore()?.cloneOffsetTable(mq.topic).find(([q]) => messageQueueKey(q) === messageQueueKey(mq))?.[1] ?? -1)]);
    }
    const statusTable = new Map<string, ConsumeStatus>();
    const stats = this.#consumeService?.stats();
    const secs = stats ? Math.max(1, (Date.now() - stats.since) / 1000) : 1;
    for (const sd of this.subscriptions()) {
      statusTable.set(sd.topic, {
        pullRT: this.#pulls.count ? this.#pulls.rtTotal / this.#pulls.count : 0,
        pullTPS: this.#pulls.count / secs,
        consumeRT: stats && stats.consumeCalls ? stats.consumeRTTotal / stats.consumeCalls : 0,
        consumeOKTPS: stats ? stats.consumeOK / secs : 0,
        consumeFailedTPS: stats ? stats.consumeFailed / secs : 0,
        consumeFailedMsgs: stats ? stats.consumeFailed : 0,
      });
    }
    return { properties, subscriptionSet: this.subscriptions(), mqTable, statusTable };
  }
}
