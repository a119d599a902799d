/**
 * DefaultLitePullConsumer: the application polls. Queues come from `subscribe()` (divided among the group's members
 * by the rebalance) or from `assign()`; background pull loops (at most pullThreadNums PULL_MESSAGE requests at once)
 * fill a cache that `poll()` drains. Offsets are committed automatically (autoCommit, every autoCommitIntervalMillis
 * at the next poll) or by `commitSync()`, and kept by the broker (clustering) or a local file (broadcasting).
 *
 * @see org.apache.rocketmq.client.consumer.DefaultLitePullConsumer
 * @see org.apache.rocketmq.client.impl.consumer.DefaultLitePullConsumerImpl
 * @see org.apache.rocketmq.client.impl.consumer.RebalanceLitePullImpl
 * @see org.apache.rocketmq.client.consumer.TopicMessageQueueChangeListener
 */
import { consumeTraceAfter, consumeTraceBefore } from '../client/trace/trace-hooks';
import { ResponseCode } from '../../protocol/code/response-code';
import type { ConsumerRunningInfo } from '../../protocol/body/consumer-running-info';
import { ConsumerRunningInfoProp } from '../../protocol/body/consumer-running-info';
import { isTagType } from '../../protocol/body/expression-type';
import { ConsumeFromWhere, ConsumeType, MessageModel } from '../../protocol/body/heartbeat-data';
import type { MessageExt } from '../../protocol/message/message';
import { type MessageQueue, messageQueueKey } from '../../protocol/message/message-queue';
import { SearchOffset } from '../../protocol/requests/index';
import { call } from '../client/request-invoker';
import type { ClientConfig, ClientConfigOptions } from '../client/client-config';
import { MixAll } from '../client/mix-all';
import type { MQClientAPI } from '../client/mq-client-api';
import { topicRouteData2TopicSubscribeInfo } from '../client/route-convert';
import { checkGroup } from '../client/validators';
import type { MQClientAPIOptions } from '../client/mq-client-api';
import { ConfigError, InvalidArgumentError, MQBrokerError, OperationFailedError, ResourceNotFoundError, ServiceStateError } from '../errors';
import type { Logger } from '../logger';
import { AssignedMessageQueue } from './assigned-message-queue';
import type { ConsumerClient, ConsumerClientAPI } from './consumer-client';
import { ConsumerCore, type ConsumerExtras } from './consumer-core';
import { MessageSelector, buildSubscriptionData } from './message-selector';
import type { ProcessQueue } from './process-queue';
import { PullStatus, buildPullSysFlag } from './pull-api-wrapper';
import type { RebalanceHooks } from './rebalance-impl';
import type { AllocateMessageQueueStrategy } from './rebalance/allocate-message-queue-strategy';
import { type OffsetStore, ReadOffsetType } from './offset/offset-store';

/** DefaultLitePullConsumerImpl's delays. */
export const LITE_PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL = 50;
export const LITE_PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL = 20;
export const LITE_PULL_TIME_DELAY_MILLS_WHEN_PAUSE = 1000;
export const LITE_PULL_TIME_DELAY_MILLS_ON_EXCEPTION = 3000;
const MIN_AUTOCOMMIT_INTERVAL_MILLIS = 1000;

/** Told when the rebalance changes the queues of a subscribed topic this consumer holds. */
export interface MessageQueueListener {
  messageQueueChanged(topic: string, mqAll: MessageQueue[], mqDivided: MessageQueue[]): void;
}

/** Told when the queues of a topic change (checked every topicMetadataCheckIntervalMillis). */
export interface TopicMessageQueueChangeListener {
  onChanged(topic: string, messageQueues: MessageQueue[]): void;
}

export interface LitePullConsumerOptions extends ClientConfigOptions, ConsumerExtras<LitePullConsumerClient> {
  /** Consumer group (required): consumers of a group share the queues (CLUSTERING) and the offsets. */
  consumerGroup: string;
  /** Signs every request (AclClientRPCHook for a broker with aclEnable=true), as Java's constructor argument. */
  rpcHook?: MQClientAPIOptions['rpcHook'];
  /** CLUSTERING: each message to one consumer of the group, offsets on the broker; BROADCASTING: to every consumer, offsets in a local file. */
  messageModel: MessageModel;
  /**
   * How subscribed queues are divided.
   * @default AllocateMessageQueueAveragely
   */
  allocateMessageQueueStrategy: AllocateMessageQueueStrategy;
  /** Commit the offsets of polled messages every autoCommitIntervalMillis (else call commitSync()). */
  autoCommit: boolean;
  /** How often autoCommit commits, ms (at least 1000). */
  autoCommitIntervalMillis: number;
  /** Most messages asked for by one pull. */
  pullBatchSize: number;
  /** The most PULL_MESSAGE requests in flight at once (Java: the pull thread pool size). */
  pullThreadNums: number;
  /** Flow control: cached pull results × pullBatchSize above this pauses every pull loop. */
  pullThresholdForAll: number;
  /** Pause pulling a queue when its cached messages span more offsets than this. */
  consumeMaxSpan: number;
  /** Pause pulling a queue when this many messages are cached for it. */
  pullThresholdForQueue: number;
  /** Pause pulling a queue when its cached message bodies exceed this many MiB. */
  pullThresholdSizeForQueue: number;
  /** The default timeout of poll(). */
  pollTimeoutMillis: number;
  /** How often the queues of watched topics are checked, ms. */
  topicMetadataCheckIntervalMillis: number;
  /** Where a group without a committed offset starts. */
  consumeFromWhere: ConsumeFromWhere;
  /**
   * yyyyMMddHHmmss, where CONSUME_FROM_TIMESTAMP starts.
   * @default half an hour before the consumer was created
   */
  consumeTimestamp: string;
  /** How long the broker may hold a pull that finds nothing, ms. */
  brokerSuspendMaxTimeMillis: number;
  /** Timeout of a held pull on the client side, ms (above brokerSuspendMaxTimeMillis). */
  consumerTimeoutMillisWhenSuspend: number;
  /** Timeout of a pull that is not held, ms. */
  consumerPullTimeoutMillis: number;
  /**
   * Base directory of broadcasting offset files.
   * @default env ROCKETMQ_CLIENT_LOCAL_OFFSET_STORE_DIR, else ~/.rocketmq_offsets
   */
  localOffsetStoreDir: string;
  /** Write SubBefore / SubAfter trace records of every pull that found messages (as 4.9.8, right after the pull). */
  enableMsgTrace: boolean;
  /** The trace topic of enableMsgTrace. */
  customizedTraceTopic: string;
  /** A client to use instead of the shared MQClientInstance (tests). */
  client?: LitePullConsumerClient;
  /** An offset store to use instead of the default one. */
  offsetStore?: OffsetStore;
  /** Parent of the consumer's loggers (its rebalance and offset store too); default: the root logger. */
  logger?: Logger;
}

/** What the lite pull consumer uses of MQClientInstance: the consumer's subset plus the route query of fetchMessageQueues. */
export type LitePullConsumerClient = Omit<ConsumerClient, 'api'> & {
  readonly api: ConsumerClientAPI & Pick<MQClientAPI, 'getTopicRouteInfoFromNameServer'>;
  readonly clientConfig?: ClientConfig;
};

export const DEFAULT_LITE_PULL_CONSUMER_OPTIONS = Object.freeze({
  consumerGroup: MixAll.DEFAULT_CONSUMER_GROUP as string,
  messageModel: MessageModel.CLUSTERING as MessageModel,
  autoCommit: true,
  autoCommitIntervalMillis: 5_000,
  pullBatchSize: 10,
  pullThreadNums: 20,
  pullThresholdForAll: 10_000,
  consumeMaxSpan: 2_000,
  pullThresholdForQueue: 1_000,
  pullThresholdSizeForQueue: 100,
  pollTimeoutMillis: 5_000,
  topicMetadataCheckIntervalMillis: 30_000,
  consumeFromWhere: ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET as ConsumeFromWhere,
  brokerSuspendMaxTimeMillis: 20_000,
  consumerTimeoutMillisWhenSuspend: 30_000,
  consumerPullTimeoutMillis: 10_000,
  enableMsgTrace: false,
  customizedTraceTopic: 'RMQ_SYS_TRACE_TOPIC',
});

const SubscriptionType = { NONE: 'NONE', SUBSCRIBE: 'SUBSCRIBE', ASSIGN: 'ASSIGN' } as const;
type SubscriptionType = (typeof SubscriptionType)[keyof typeof SubscriptionType];

interface ConsumeRequest {
  readonly messageExts: MessageExt[];
  readonly messageQueue: MessageQueue;
  readonly processQueue: ProcessQueue;
}

interface PullTask {
  readonly messageQueue: MessageQueue;
  cancelled: boolean;
}

/** A counting semaphore: the pull-thread limit. */
class Slots {
  #free: number;
  readonly #waiters: Array<() => void> = [];

  constructor(n: number) {
    this.#free = n;
  }

  acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#free++;
  }
}

/** The lite pull consumer's options after defaults (without the client settings and the constructor's seams). */
export type LitePullConsumerConfig = Omit<LitePullConsumerOptions, keyof ClientConfigOptions | keyof ConsumerExtras<LitePullConsumerClient>>;

export class DefaultLitePullConsumer extends ConsumerCore<LitePullConsumerConfig, LitePullConsumerClient> {
  #subscriptionType: SubscriptionType = SubscriptionType.NONE;
  readonly #topicToSubExpression = new Map<string, string>();
  #messageQueueListener: MessageQueueListener | undefined;
  readonly #assigned = new AssignedMessageQueue();
  readonly #taskTable = new Map<string, PullTask>();
  readonly #consumeRequestCache: ConsumeRequest[] = [];
  readonly #pollWaiters: Array<() => void> = [];
  readonly #topicListeners = new Map<string, TopicMessageQueueChangeListener>();
  readonly #messageQueuesForTopic = new Map<string, MessageQueue[]>();
  readonly #slots: Slots;
  #nextAutoCommitDeadline = -1;

  constructor(options: Partial<LitePullConsumerOptions> & { consumerGroup: string }) {
    super('lite-pull-consumer', DEFAULT_LITE_PULL_CONSUMER_OPTIONS, options);
    if (this.options.autoCommitIntervalMillis < MIN_AUTOCOMMIT_INTERVAL_MILLIS) this.options.autoCommitIntervalMillis = MIN_AUTOCOMMIT_INTERVAL_MILLIS;
    this.#slots = new Slots(Math.max(1, this.options.pullThreadNums));
  }

  // ------------------------------------------------------------------ subscription

  /**
   * Subscribes a topic (tags or a MessageSelector); the rebalance divides its queues among the group's members.
   * Exclusive with assign(). The listener, if given, is told when this member's queues of the topic change.
   */
  subscribe(topic: string, expression: string | MessageSelector = '*', messageQueueListener?: MessageQueueListener): void {
    if (!topic) throw new ConfigError('Topic can not be null or empty.');
    this.#setSubscriptionType(SubscriptionType.SUBSCRIBE);
    if (messageQueueListener) this.#messageQueueListener = messageQueueListener;
    const t = this.addSubscription(topic, expression, this.running);
    if (t) {
      void this.client!.sendHeartbeatToAllBrokerWithLock().catch(() => undefined);
      void this.client!.updateTopicRouteInfoFromNameServer(t).catch(() => false).then(() => this.doRebalance());
    }
  }

  unsubscribe(topic: string): void {
    const t = this.removeSubscription(topic);
    this.#removePullTask(t);
    this.#assigned.removeAssignedMessageQueue(t);
  }

  /** Consumes exactly these queues (no rebalance). Exclusive with subscribe(). */
  assign(messageQueues: readonly MessageQueue[]): void {
    if (!messageQueues || messageQueues.length === 0) throw new ConfigError('Message queues can not be null or empty.');
    this.#setSubscriptionType(SubscriptionType.ASSIGN);
    const mqs = this.clientConfig.queuesWithNamespace([...messageQueues]);
    this.#assigned.updateAssignedMessageQueue(undefined, mqs);
    if (this.running) this.#updateAssignPullTask(mqs);
  }

  /** The tag expression used to pull the assigned queues of a topic (before start). */
  setSubExpressionForAssign(topic: string, subExpression: string): void {
    if (!subExpression || subExpression.trim() === '') throw new ConfigError('subExpression can not be null or empty.');
    if (this.lifecycle.current !== 'created') throw new ServiceStateError('setAssignTag only can be called before start.');
    this.#setSubscriptionType(SubscriptionType.ASSIGN);
    this.#topicToSubExpression.set(this.clientConfig.withNamespace(topic), subExpression);
  }

  /** The queues held now (assigned, or allocated to this member). */
  assignment(): MessageQueue[] {
    return this.#assigned.messageQueues().map((mq) => this.#userQueue(mq));
  }

  #setSubscriptionType(type: SubscriptionType): void {
    if (this.#subscriptionType === SubscriptionType.NONE) this.#subscriptionType = type;
    else if (this.#subscriptionType !== type) throw new InvalidArgumentError('Subscribe and assign are mutually exclusive.');
  }

  // ------------------------------------------------------------------ poll

  /**
   * The next pulled batch (up to pullBatchSize messages of one queue), or [] when none arrived within `timeout`
   * ms (default pollTimeoutMillis). With autoCommit, commits the consumed offsets when autoCommitIntervalMillis passed.
   */
  async poll(timeout: number = this.options.pollTimeoutMillis): Promise<MessageExt[]> {
    this.#checkServiceState();
    if (timeout < 0) throw new ConfigError('Timeout must not be negative');
    if (this.options.autoCommit) this.#maybeAutoCommit();
    const endTime = Date.now() + timeout;
    for (;;) {
      const req = this.#consumeRequestCache.shift();
      if (req) {
        if (req.processQueue.dropped) continue;
        const offset = req.processQueue.removeMessage(req.messageExts);
        this.#assigned.updateConsumeOffset(req.messageQueue, offset);
        if (this.clientConfig.getNamespace()) for (const m of req.messageExts) m.topic = this.clientConfig.withoutNamespace(m.topic);
        return req.messageExts;
      }
      const left = endTime - Date.now();
      if (left <= 0 || !this.running) return [];
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          const i = this.#pollWaiters.indexOf(wake);
          if (i >= 0) this.#pollWaiters.splice(i, 1);
          resolve();
        }, left);
        const wake = (): void => {
          clearTimeout(timer);
          resolve();
        };
        this.#pollWaiters.push(wake);
      });
    }
  }

  #submitConsumeRequest(req: ConsumeRequest): void {
    this.#consumeRequestCache.push(req);
    this.#pollWaiters.shift()?.();
  }

  #wakeAllPollers(): void {
    for (const w of this.#pollWaiters.splice(0)) w();
  }

  #maybeAutoCommit(): void {
    const now = Date.now();
    if (now >= this.#nextAutoCommitDeadline) {
      this.#commitAll();
      this.#nextAutoCommitDeadline = now + this.options.autoCommitIntervalMillis;
    }
  }

  // ------------------------------------------------------------------ offsets

  /**
   * Commits the consumed offsets of every held queue and sends them to the broker (or the local file) before
   * resolving. (Java 4.9.8's commitSync() only updates the in-memory store, persisted within persistConsumerOffsetInterval.)
   * With an offset map: commits those offsets, persisting them when `persist` is true (Java's commitSync(Map, boolean)).
   */
  async commitSync(offsets?: ReadonlyMap<MessageQueue, number> | Array<[MessageQueue, number]>, persist = true): Promise<void> {
    this.#checkServiceState();
    if (offsets === undefined) {
      const mqs = this.#commitAll();
      if (persist) await this.offsetStore.persistAll(mqs);
      return;
    }
    const entries = [...offsets].map(([mq, off]) => [this.clientConfig.queueWithNamespace(mq), off] as const);
    if (entries.length === 0) {
      this.log.warn('MessageQueues is empty, Ignore this commit');
      return;
    }
    for (const [mq, offset] of entries) {
      if (offset === -1) {
        this.log.error({ topic: mq.topic, queueId: mq.queueId }, 'consumerOffset is -1');
        continue;
      }
      const pq = this.#assigned.getProcessQueue(mq);
      if (pq && !pq.dropped) this.offsetStore.updateOffset(mq, offset, false);
    }
    if (persist) await this.offsetStore.persistAll(entries.map(([mq]) => mq));
  }

  /** Commits the consumed offsets of these queues (Java's commit(Set, persist)). */
  async commit(messageQueues: readonly MessageQueue[], persist: boolean): Promise<void> {
    this.#checkServiceState();
    const mqs = this.clientConfig.queuesWithNamespace([...messageQueues]);
    for (const mq of mqs) this.#commitOne(mq);
    if (persist && mqs.length > 0) await this.offsetStore.persistAll(mqs);
  }

  #commitAll(): MessageQueue[] {
    const mqs = this.#assigned.messageQueues();
    for (const mq of mqs) this.#commitOne(mq);
    return mqs;
  }

  #commitOne(mq: MessageQueue): void {
    const consumerOffset = this.#assigned.getConsumerOffset(mq);
    if (consumerOffset === -1) return;
    const pq = this.#assigned.getProcessQueue(mq);
    if (pq && !pq.dropped) this.getOffsetStore()?.updateOffset(mq, consumerOffset, false);
  }

  /** The committed offset of a queue (memory first, then the store); -1 when none. */
  async committed(mq: MessageQueue): Promise<number> {
    this.#checkServiceState();
    const offset = await this.offsetStore.readOffset(this.clientConfig.queueWithNamespace(mq), ReadOffsetType.MEMORY_FIRST_THEN_STORE);
    if (offset === -2) throw new OperationFailedError('Fetch consume offset from broker exception');
    return offset;
  }

  /** Moves the next pull of a held queue to `offset` (within [minOffset, maxOffset]); cached messages of it are dropped. */
  async seek(messageQueue: MessageQueue, offset: number): Promise<void> {
    this.#checkServiceState();
    const mq = this.clientConfig.queueWithNamespace(messageQueue);
    if (!this.#assigned.has(mq)) {
      throw new InvalidArgumentError(this.#subscriptionType === SubscriptionType.SUBSCRIBE
        ? `The message queue is not in assigned list, may be rebalancing, message queue: ${messageQueueKey(mq)}`
        : `The message queue is not in assigned list, message queue: ${messageQueueKey(mq)}`);
    }
    const [minOffset, maxOffset] = await Promise.all([this.#brokerOffset(mq, 'min'), this.#brokerOffset(mq, 'max')]);
    if (offset < minOffset || offset > maxOffset) {
      throw new InvalidArgumentError(`Seek offset illegal, seek offset = ${offset}, min offset = ${minOffset}, max offset = ${maxOffset}`);
    }
    this.#clearMessageQueueInCache(mq);
    const old = this.#taskTable.get(messageQueueKey(mq));
    if (old) {
      old.cancelled = true;
      this.#taskTable.delete(messageQueueKey(mq));
    }
    this.#assigned.setSeekOffset(mq, offset);
    this.#startPullTask([mq]);
  }

  async seekToBegin(mq: MessageQueue): Promise<void> {
    this.#checkServiceState();
    await this.seek(mq, await this.#brokerOffset(this.clientConfig.queueWithNamespace(mq), 'min'));
  }

  async seekToEnd(mq: MessageQueue): Promise<void> {
    this.#checkServiceState();
    await this.seek(mq, await this.#brokerOffset(this.clientConfig.queueWithNamespace(mq), 'max'));
  }

  /** The offset of the first message stored at or after `timestamp` (epoch ms). */
  async offsetForTimestamp(mq: MessageQueue, timestamp: number): Promise<number> {
    this.#checkServiceState();
    const q = this.clientConfig.queueWithNamespace(mq);
    const addr = await this.#brokerAddr(q);
    return call(this.client!.api, addr, SearchOffset, { topic: q.topic, queueId: q.queueId, timestamp }, this.clientConfig.mqClientApiTimeout);
  }

  pause(messageQueues: readonly MessageQueue[]): void {
    this.#assigned.pause(this.clientConfig.queuesWithNamespace([...messageQueues]));
  }

  resume(messageQueues: readonly MessageQueue[]): void {
    this.#assigned.resume(this.clientConfig.queuesWithNamespace([...messageQueues]));
  }

  /** The readable queues of a topic, from the name server. */
  async fetchMessageQueues(topic: string): Promise<MessageQueue[]> {
    this.#checkServiceState();
    const t = this.clientConfig.withNamespace(topic);
    const route = await this.client!.api.getTopicRouteInfoFromNameServer(t, this.clientConfig.mqClientApiTimeout);
    const mqs = topicRouteData2TopicSubscribeInfo(t, route);
    if (mqs.length === 0) throw new ResourceNotFoundError(`Can not find Message Queue for this topic, ${t} Namesrv return empty`);
    return mqs.map((mq) => this.#userQueue(mq));
  }

  /** Watches a topic's queues; the listener is called when they change (every topicMetadataCheckIntervalMillis). */
  async registerTopicMessageQueueChangeListener(topic: string, listener: TopicMessageQueueChangeListener): Promise<void> {
    if (!topic || !listener) throw new InvalidArgumentError('Topic or listener is null');
    const t = this.clientConfig.withNamespace(topic);
    if (this.#topicListeners.has(t)) this.log.warn({ topic: t }, 'Topic had been registered, new listener will overwrite the old one');
    this.#topicListeners.set(t, listener);
    if (this.running) this.#messageQueuesForTopic.set(t, await this.fetchMessageQueues(topic));
  }

  isRunning(): boolean {
    return this.running;
  }

  isAutoCommit(): boolean {
    return this.options.autoCommit;
  }

  setAutoCommit(autoCommit: boolean): void {
    this.options.autoCommit = autoCommit;
  }

  // ------------------------------------------------------------------ lifecycle

  #checkServiceState(): void {
    if (!this.running) throw new ServiceStateError('The consumer not running, please start it first.');
  }

  protected checkConfig(): void {
    checkGroup(this.consumerGroup);
    if (!this.options.allocateMessageQueueStrategy) throw new ConfigError('allocateMessageQueueStrategy is null');
    if (this.options.consumerTimeoutMillisWhenSuspend < this.options.brokerSuspendMaxTimeMillis) {
      throw new ConfigError('Long polling mode, the consumer consumerTimeoutMillisWhenSuspend must greater than brokerSuspendMaxTimeMillis');
    }
  }

  protected rebalanceHooks(): RebalanceHooks {
    this.#assigned.setProcessQueueSource((mq) => this.rebalance?.getProcessQueue(mq));
    return {
      passive: false,
      computePullFromWhere: (mq) => this.#computePullFromWhere(mq),
      dispatchPullRequest: () => undefined,
      removeUnnecessaryMessageQueue: async (mq) => {
        await this.offsetStore.persist(mq);
        this.offsetStore.removeOffset(mq);
        return true;
      },
      messageQueueChanged: (topic, mqAll, mqDivided) => {
        this.#updateAssignQueueAndStartPullTask(topic, mqAll, mqDivided);
        try {
          this.#messageQueueListener?.messageQueueChanged(this.clientConfig.withoutNamespace(topic), mqAll.map((q) => this.#userQueue(q)), mqDivided.map((q) => this.#userQueue(q)));
        } catch (err) {
          this.log.error({ err, topic }, 'messageQueueChanged exception');
        }
      },
      removeDirtyOffset: (mq) => this.offsetStore.removeOffset(mq),
    };
  }

  /** Java's startScheduleTask and operateAfterRunning. */
  protected async afterRunning(client: LitePullConsumerClient): Promise<void> {
    this.#nextAutoCommitDeadline = Date.now() + this.options.autoCommitIntervalMillis;
    const check = (): void => void this.#fetchTopicMessageQueuesAndCompare();
    this.timers.schedule(Math.min(10_000, this.options.topicMetadataCheckIntervalMillis), () => {
      this.timers.every(this.options.topicMetadataCheckIntervalMillis, check);
      check();
    });
    if (this.#subscriptionType === SubscriptionType.SUBSCRIBE) {
      await this.joinGroup(client, false);
    } else {
      await client.sendHeartbeatToAllBrokerWithLock().catch(() => undefined);
      if (this.#subscriptionType === SubscriptionType.ASSIGN) this.#updateAssignPullTask(this.#assigned.messageQueues());
    }
    for (const topic of this.#topicListeners.keys()) {
      try {
        this.#messageQueuesForTopic.set(topic, await this.fetchMessageQueues(this.clientConfig.withoutNamespace(topic)));
      } catch (err) {
        this.log.warn({ err, topic }, 'fetchMessageQueues failed');
      }
    }
  }

  /** Commits (autoCommit) and persists the offsets, stops the pull tasks, wakes the pollers (then the core unregisters). */
  protected async stopLoop(): Promise<void> {
    if (this.options.autoCommit) this.#commitAll();
    await this.persistConsumerOffset();
    this.running = false;
    for (const task of this.#taskTable.values()) task.cancelled = true;
    this.#taskTable.clear();
    this.#wakeAllPollers();
    this.#consumeRequestCache.length = 0;
    this.#assigned.clear();
    this.#subscriptionType = this.subscriptionTable.size > 0 ? SubscriptionType.SUBSCRIBE : SubscriptionType.NONE;
  }

  // ------------------------------------------------------------------ pull tasks

  #updateAssignQueueAndStartPullTask(topic: string, mqAll: MessageQueue[], mqDivided: MessageQueue[]): void {
    const mqs = this.options.messageModel === MessageModel.BROADCASTING ? mqAll : mqDivided;
    this.#assigned.updateAssignedMessageQueue(topic, mqs);
    const wanted = new Set(mqs.map(messageQueueKey));
    for (const [key, task] of [...this.#taskTable]) {
      if (task.messageQueue.topic === topic && !wanted.has(key)) {
        task.cancelled = true;
        this.#taskTable.delete(key);
      }
    }
    this.#startPullTask(mqs);
  }

  #updateAssignPullTask(mqs: readonly MessageQueue[]): void {
    const wanted = new Set(mqs.map(messageQueueKey));
    for (const [key, task] of [...this.#taskTable]) {
      if (!wanted.has(key)) {
        task.cancelled = true;
        this.#taskTable.delete(key);
      }
    }
    this.#startPullTask(mqs);
  }

  #removePullTask(topic: string): void {
    for (const [key, task] of [...this.#taskTable]) {
      if (task.messageQueue.topic === topic) {
        task.cancelled = true;
        this.#taskTable.delete(key);
      }
    }
  }

  #startPullTask(mqs: readonly MessageQueue[]): void {
    if (!this.running) return;
    for (const mq of mqs) {
      const key = messageQueueKey(mq);
      if (this.#taskTable.has(key)) continue;
      const task: PullTask = { messageQueue: mq, cancelled: false };
      this.#taskTable.set(key, task);
      this.#schedule(task, 0);
    }
  }

  #schedule(task: PullTask, delayMillis: number): void {
    if (task.cancelled || !this.running) return;
    this.timers.schedule(delayMillis, () => void this.#runPullTask(task));
  }

  #clearMessageQueueInCache(mq: MessageQueue): void {
    this.#assigned.getProcessQueue(mq)?.clear();
    const key = messageQueueKey(mq);
    for (let i = this.#consumeRequestCache.length - 1; i >= 0; i--) {
      if (messageQueueKey(this.#consumeRequestCache[i].messageQueue) === key) this.#consumeRequestCache.splice(i, 1);
    }
  }

  async #nextPullOffset(mq: MessageQueue): Promise<number> {
    const seekOffset = this.#assigned.getSeekOffset(mq);
    if (seekOffset !== -1) {
      this.#assigned.updateConsumeOffset(mq, seekOffset);
      this.#assigned.setSeekOffset(mq, -1);
      return seekOffset;
    }
    const offset = this.#assigned.getPullOffset(mq);
    if (offset !== -1) return offset;
    return this.#computePullFromWhere(mq);
  }

  /** PullTaskImpl.run: flow control, then one long-polling PULL_MESSAGE with the lite-pull flag. */
  async #runPullTask(task: PullTask): Promise<void> {
    if (task.cancelled || !this.running) return;
    const mq = task.messageQueue;
    if (this.#assigned.isPaused(mq)) {
      this.#schedule(task, LITE_PULL_TIME_DELAY_MILLS_WHEN_PAUSE);
      return;
    }
    const pq = this.#assigned.getProcessQueue(mq);
    if (!pq || pq.dropped) return;
    const o = this.options;
    if (this.#consumeRequestCache.length * o.pullBatchSize > o.pullThresholdForAll
      || pq.msgCount > o.pullThresholdForQueue
      || pq.msgSize / (1024 * 1024) > o.pullThresholdSizeForQueue
      || pq.getMaxSpan() > o.consumeMaxSpan) {
      this.#schedule(task, LITE_PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL);
      return;
    }
    let offset: number;
    try {
      offset = await this.#nextPullOffset(mq);
      if (offset < 0) throw new ResourceNotFoundError('no start offset');
    } catch (err) {
      this.log.error({ err, topic: mq.topic, queueId: mq.queueId }, 'Failed to get next pull offset');
      this.#schedule(task, LITE_PULL_TIME_DELAY_MILLS_ON_EXCEPTION);
      return;
    }
    if (task.cancelled || pq.dropped) return;
    let delay = 0;
    try {
      const sd = this.#subscriptionType === SubscriptionType.SUBSCRIBE
        ? this.rebalance?.subscriptionInner.get(mq.topic)
        : buildSubscriptionData(mq.topic, this.#topicToSubExpression.get(mq.topic) ?? '*');
      if (!sd) return;
      await this.#slots.acquire();
      let result;
      try {
        if (task.cancelled || !this.running) return;
        result = await this.pullAPIWrapper!.pull({
          mq, subExpression: sd.subString, expressionType: sd.expressionType ?? 'TAG',
          subVersion: isTagType(sd.expressionType) ? 0 : sd.subVersion, offset, maxNums: o.pullBatchSize,
          sysFlag: buildPullSysFlag(false, true, true, false, true), commitOffset: 0,
          brokerSuspendMaxTimeMillis: o.brokerSuspendMaxTimeMillis, timeoutMillis: o.consumerTimeoutMillisWhenSuspend,
        }, sd);
      } finally {
        this.#slots.release();
      }
      const td = this.traceDispatcher;
      if (td && result.msgFoundList.length > 0) {
        // Java runs both hooks right after the pull, marked successful (DefaultLitePullConsumerImpl.pull)
        consumeTraceAfter(td, consumeTraceBefore(td, this.consumerGroup, result.msgFoundList), result.msgFoundList.length, true, 'SUCCESS');
      }
      if (task.cancelled || pq.dropped) return;
      if (result.pullStatus === PullStatus.FOUND) {
        if (result.msgFoundList.length > 0 && this.#assigned.getSeekOffset(mq) === -1) {
          pq.putMessage(result.msgFoundList);
          this.#submitConsumeRequest({ messageExts: result.msgFoundList, messageQueue: mq, processQueue: pq });
        }
      } else if (result.pullStatus === PullStatus.OFFSET_ILLEGAL) {
        this.log.warn({ topic: mq.topic, queueId: mq.queueId, offset, nextBeginOffset: result.nextBeginOffset }, 'The pull request offset illegal');
      }
      if (this.#assigned.getSeekOffset(mq) === -1) this.#assigned.updatePullOffset(mq, result.nextBeginOffset, pq);
    } catch (err) {
      delay = err instanceof MQBrokerError && err.responseCode === ResponseCode.FLOW_CONTROL
        ? LITE_PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL
        : this.clientConfig.pullTimeDelayMillsWhenException;
      if (this.running && !task.cancelled) this.log.warn({ err, topic: mq.topic, queueId: mq.queueId }, 'An error occurred in pull message process.');
    }
    this.#schedule(task, delay);
  }

  // ------------------------------------------------------------------ offsets from the broker

  /** RebalanceLitePullImpl.computePullFromWhereWithException. */
  #computePullFromWhere(mq: MessageQueue): Promise<number> {
    return this.pullStartOffset(mq, ReadOffsetType.MEMORY_FIRST_THEN_STORE);
  }

  #brokerAddr(mq: MessageQueue): Promise<string> {
    return this.queueOffsets.brokerAddr(mq);
  }

  #brokerOffset(mq: MessageQueue, which: 'max' | 'min'): Promise<number> {
    return this.queueOffsets.brokerOffset(mq, which);
  }

  async #fetchTopicMessageQueuesAndCompare(): Promise<void> {
    for (const [topic, listener] of this.#topicListeners) {
      try {
        const old = this.#messageQueuesForTopic.get(topic);
        const now = await this.fetchMessageQueues(this.clientConfig.withoutNamespace(topic));
        const same = old !== undefined && old.length === now.length && old.length > 0
          && now.every((q) => old.some((p) => messageQueueKey(p) === messageQueueKey(q)));
        if (!same) {
          this.#messageQueuesForTopic.set(topic, now);
          listener.onChanged(this.clientConfig.withoutNamespace(topic), now);
        }
      } catch (err) {
        this.log.error({ err, topic }, 'ScheduledTask fetchMessageQueuesAndCompare exception');
      }
    }
  }

  #userQueue(mq: MessageQueue): MessageQueue {
    return { topic: this.clientConfig.withoutNamespace(mq.topic), brokerName: mq.brokerName, queueId: mq.queueId };
  }

  // ------------------------------------------------------------------ MQConsumerInner

  consumeType(): ConsumeType {
    return ConsumeType.CONSUME_ACTIVELY;
  }

  /** Java's DefaultLitePullConsumerImpl answers CONSUME_FROM_LAST_OFFSET whatever the option says. */
  override consumeFromWhere(): ConsumeFromWhere {
    return ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET;
  }

  async doRebalance(): Promise<void> {
    if (this.rebalance && this.running) await this.rebalance.doRebalance(false);
  }

  async persistConsumerOffset(): Promise<void> {
    const store = this.getOffsetStore();
    if (!store || !this.running) return;
    const mqs = this.#subscriptionType === SubscriptionType.SUBSCRIBE ? this.ownedQueues() : this.#assigned.messageQueues();
    try {
      await store.persistAll(mqs);
    } catch (err) {
      this.log.error({ err }, 'Persist consumer offset error');
    }
  }

  /** GET_CONSUMER_RUNNING_INFO, as DefaultLitePullConsumerImpl.consumerRunningInfo: properties and subscriptions. */
  consumerRunningInfo(): ConsumerRunningInfo {
    const properties = this.runningInfoProperties();
    properties.set(ConsumerRunningInfoProp.PROP_CONSUMER_START_TIMESTAMP, String(this.startTimestamp));
    return { properties, subscriptionSet: this.subscriptions(), mqTable: [], statusTable: new Map() };
  }
}
