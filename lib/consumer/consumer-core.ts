/**
 * ConsumerCore: what the push and the lite pull consumer share, as a base class each extends with its own loop and
 * public API (client-go's `defaultConsumer`, embedded in its push and pull consumers, is the model). It owns the
 * options merge, the group checks, the shared MQClientInstance (acquire/release), the RebalanceImpl, the
 * PullAPIWrapper, the offset store choice, the start and shutdown sequences, one TimerSet, the logger and the
 * MQConsumerInner methods that do not depend on the loop.
 *
 * The start sequence, for both consumers (Java 4.9.8 starts DefaultMQPushConsumerImpl and
 * DefaultLitePullConsumerImpl in this order):
 *  1. checks (the consumer's own `checkConfig`, then the group and pullBatchSize);
 *  2. acquire the shared client instance (not started yet) and register the group: a group registered twice in one
 *     instance fails here, before anything was started or loaded;
 *  3. the RebalanceImpl, the PullAPIWrapper, the offset store and its `load()`;
 *  4. start the instance: its route, heartbeat, persist and rebalance loops find the consumer registered with its
 *     subscriptions and offset store in place (before step 3 they would see a consumer with neither);
 *  5. the consumer's `beforeRunning` (push: the consume service), then running;
 *  6. the consumer's `afterRunning` (routes of the subscribed topics, heartbeat, the first rebalance).
 * A failure in 3–5 unregisters the group and releases the instance; the error goes to the caller of start().
 *
 * @see org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl#start
 * @see org.apache.rocketmq.client.impl.consumer.DefaultLitePullConsumerImpl#start
 */
import { ConsumeFromWhere, MessageModel, type SubscriptionData } from '../../protocol/body/heartbeat-data';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { ClientConfig, type ClientConfigOptions } from '../client/client-config';
import { MixAll } from '../client/mix-all';
import type { MQClientAPIOptions } from '../client/mq-client-api';
import type { MQClientInstance } from '../client/mq-client-instance';
import { MQClientManager } from '../client/mq-client-manager';
import { AsyncTraceDispatcher } from '../client/trace/async-trace-dispatcher';
import { ConfigError, InvalidArgumentError, ServiceStateError } from '../errors';
import { type Logger, componentLogger } from '../logger';
import { Lifecycle } from '../util/lifecycle';
import { TimerSet } from './consume-service';
import type { ConsumerClient, MQConsumerInner } from './consumer-client';
import { MessageSelector, buildSubscriptionData, buildSubscriptionDataOfType } from './message-selector';
import { LocalFileOffsetStore, defaultLocalOffsetStoreDir } from './offset/local-file-offset-store';
import type { OffsetStore, ReadOffsetType } from './offset/offset-store';
import { RemoteBrokerOffsetStore } from './offset/remote-broker-offset-store';
import { PullAPIWrapper } from './pull-api-wrapper';
import { QueueOffsets } from './queue-offsets';
import { RebalanceImpl, type RebalanceHooks } from './rebalance-impl';
import { AllocateMessageQueueAveragely } from './rebalance/allocate-message-queue-averagely';
import type { AllocateMessageQueueStrategy } from './rebalance/allocate-message-queue-strategy';

/** The options every consumer has. */
export interface ConsumerCoreOptions {
  consumerGroup: string;
  messageModel: MessageModel;
  allocateMessageQueueStrategy: AllocateMessageQueueStrategy;
  consumeFromWhere: ConsumeFromWhere;
  consumeTimestamp: string;
  pullBatchSize: number;
  localOffsetStoreDir: string;
  enableMsgTrace: boolean;
  customizedTraceTopic: string;
}

/** What a consumer's constructor takes besides its options: the seams and the logger. */
export interface ConsumerExtras<C> {
  /** Signs every request (AclClientRPCHook for a broker with aclEnable=true), as Java's constructor argument. */
  rpcHook?: MQClientAPIOptions['rpcHook'];
  /** Parent of the consumer's loggers (its rebalance, offset store and consume service too); default: the root logger. */
  logger?: Logger;
  /** A client to use instead of the shared MQClientInstance (tests). */
  client?: C;
  /** An offset store to use instead of the default one. */
  offsetStore?: OffsetStore;
}

/** yyyyMMddHHmmss half an hour ago: the default consumeTimestamp. */
export function halfAnHourAgo(): string {
  const d = new Date(Date.now() - 30 * 60 * 1000);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${p(d.getFullYear(), 4)}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

export abstract class ConsumerCore<O extends ConsumerCoreOptions, C extends ConsumerClient> implements MQConsumerInner {
  readonly clientConfig: ClientConfig;
  readonly consumerGroup: string;
  readonly options: O;
  protected readonly log: Logger;
  /**
   * The parent of the loggers of the parts the consumer builds (rebalance, offset store, consume service): the
   * consumer's logger without its `group` binding, which those parts write on each line themselves.
   */
  protected readonly partLogger: Logger;
  /** Every timer of the consumer's loop; cleared at shutdown. */
  protected readonly timers = new TimerSet();
  /** The subscriptions given before start (copied into the rebalance at start). */
  protected readonly subscriptionTable = new Map<string, SubscriptionData>();
  protected readonly queueOffsets = new QueueOffsets(() => this.client!, () => this.clientConfig.mqClientApiTimeout);
  /** Set from start until shutdown. */
  protected client: C | undefined;
  protected rebalance: RebalanceImpl | undefined;
  protected pullAPIWrapper: PullAPIWrapper | undefined;
  protected running = false;
  protected startTimestamp = 0;
  protected readonly lifecycle: Lifecycle;
  /** The trace dispatcher of enableMsgTrace (null without). */
  readonly traceDispatcher: AsyncTraceDispatcher | null = null;
  readonly #rpcHook: MQClientAPIOptions['rpcHook'];
  readonly #loggerOption: Logger | undefined;
  readonly #injectedClient: C | undefined;
  #instance: MQClientInstance | undefined;
  #offsetStore: OffsetStore | undefined;
  /** The offset store was given as an option (kept across restarts); else each start makes one on its client. */
  readonly #offsetStoreGiven: boolean;

  protected constructor(component: string, defaults: Partial<O>, options: Partial<O> & ConsumerExtras<C> & Partial<ClientConfigOptions> & { consumerGroup: string }) {
    const { client, offsetStore, rpcHook, logger, ...rest } = options;
    this.#rpcHook = rpcHook;
    this.#loggerOption = logger;
    this.clientConfig = new ClientConfig(rest);
    const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
    this.options = {
      ...defaults,
      consumeTimestamp: halfAnHourAgo(),
      allocateMessageQueueStrategy: new AllocateMessageQueueAveragely(),
      localOffsetStoreDir: defaultLocalOffsetStoreDir(),
      ...defined,
    } as unknown as O;
    this.consumerGroup = options.consumerGroup;
    this.#injectedClient = client;
    this.#offsetStore = offsetStore;
    this.#offsetStoreGiven = offsetStore !== undefined;
    this.partLogger = componentLogger(component, logger);
    this.log = this.partLogger.child({ group: this.consumerGroup });
    this.lifecycle = new Lifecycle(() => this.#doStart(), () => this.teardown());
    if (this.options.enableMsgTrace) {
      this.traceDispatcher = new AsyncTraceDispatcher(this.consumerGroup, 'CONSUME', this.options.customizedTraceTopic, {
        clientConfig: this.clientConfig, instanceOptions: { rpcHook },
      });
    }
  }

  // ------------------------------------------------------------------ what each consumer adds

  /** The consumer's own checks, before the shared ones (group, pullBatchSize). */
  protected abstract checkConfig(): void;
  /** The rebalance hooks of the consumer's loop. */
  protected abstract rebalanceHooks(group: string): RebalanceHooks;
  /** Subscriptions the consumer adds itself at start (push, clustering: its %RETRY% topic). */
  protected innerSubscriptions(_group: string): SubscriptionData[] {
    return [];
  }
  /** After the offset store loaded and the instance started, before the consumer counts as running. */
  protected beforeRunning(): void {}
  /** Once running: routes, heartbeat, first rebalance (what each consumer does differs). */
  protected abstract afterRunning(client: C): Promise<void>;
  /** First step of shutdown, while the client is still there: stop the loop, persist the offsets. */
  protected abstract stopLoop(): Promise<void>;

  // ------------------------------------------------------------------ lifecycle

  start(): Promise<void> {
    return this.lifecycle.start();
  }

  shutdown(): Promise<void> {
    return this.lifecycle.shutdown();
  }

  async #doStart(): Promise<void> {
    this.checkConfig();
    if (this.consumerGroup === MixAll.DEFAULT_CONSUMER_GROUP) throw new ConfigError(`consumerGroup can not equal ${MixAll.DEFAULT_CONSUMER_GROUP}, please specify another one.`);
    if (this.options.pullBatchSize < 1 || this.options.pullBatchSize > 1024) throw new ConfigError('pullBatchSize Out of range [1, 1024]');
    if (this.options.messageModel === MessageModel.CLUSTERING) this.clientConfig.changeInstanceNameToPID();

    let client = this.#injectedClient;
    if (!client) {
      const instance = MQClientManager.getInstance().acquire(this.clientConfig, { rpcHook: this.#rpcHook, logger: this.#loggerOption });
      this.#instance = instance;
      client = instance as unknown as C;
    }
    const group = this.clientConfig.withNamespace(this.consumerGroup);
    if (!client.registerConsumer(group, this)) {
      await this.#releaseInstance();
      throw new InvalidArgumentError(`The consumer group[${this.consumerGroup}] has been created before, specify another name please.`);
    }
    this.client = client;
    const rebalance = new RebalanceImpl(group, this.options.messageModel, this.options.allocateMessageQueueStrategy, client,
      this.rebalanceHooks(group), this.partLogger);
    this.rebalance = rebalance;
    for (const [t, sd] of this.subscriptionTable) rebalance.subscriptionInner.set(t, sd);
    for (const sd of this.innerSubscriptions(group)) rebalance.subscriptionInner.set(sd.topic, sd);
    this.pullAPIWrapper = new PullAPIWrapper(client, group, this.clientConfig.unitMode);
    // A store of our own is made anew at each start: the last one is bound to the client instance of the last run,
    // which its shutdown closed when this consumer was its last user.
    const offsetStore = this.#offsetStoreGiven && this.#offsetStore ? this.#offsetStore
      : this.options.messageModel === MessageModel.BROADCASTING
        ? new LocalFileOffsetStore(client.clientId, group, this.options.localOffsetStoreDir, this.partLogger)
        : new RemoteBrokerOffsetStore(client, group, undefined, this.partLogger);
    this.#offsetStore = offsetStore;
    try {
      await offsetStore.load();
      if (this.#instance) await this.#instance.start();
      this.beforeRunning();
    } catch (err) {
      await client.unregisterConsumer(group).catch(() => undefined);
      await this.#releaseInstance();
      this.client = undefined;
      throw err;
    }
    this.running = true;
    this.startTimestamp = Date.now();
    await this.afterRunning(client);
    // Java starts the trace dispatcher once the consumer runs (DefaultMQPushConsumer.start)
    if (this.traceDispatcher) await this.traceDispatcher.start().catch((err: unknown) => this.log.warn({ err }, 'trace dispatcher start failed'));
    this.log.info('the consumer started');
  }

  /** The shutdown sequence (also what a start that fails once running undoes). */
  protected async teardown(): Promise<void> {
    await this.stopLoop();
    await this.traceDispatcher?.shutdown();
    this.running = false;
    this.timers.clear();
    const client = this.client!;
    const rebalance = this.rebalance!;
    rebalance.destroy();
    await client.unregisterConsumer(rebalance.consumerGroup).catch((err: unknown) => this.log.warn({ err }, 'unregisterConsumer failed'));
    await this.#releaseInstance();
    this.client = undefined;
    this.log.info('the consumer shut down');
  }

  async #releaseInstance(): Promise<void> {
    if (this.#instance) await MQClientManager.getInstance().release(this.#instance);
    this.#instance = undefined;
  }

  /**
   * Once running: the routes of the subscribed topics, (push) CHECK_CLIENT_CONFIG at every broker, a heartbeat,
   * then a rebalance at once (Java's updateTopicSubscribeInfoWhenSubscriptionChanged, checkClientInBroker,
   * sendHeartbeatToAllBrokerWithLock, rebalanceImmediately). A refused check shuts the consumer down and throws.
   */
  protected async joinGroup(client: C, checkClientInBroker: boolean): Promise<void> {
    await Promise.all([...this.rebalance!.subscriptionInner.keys()].map((t) => client.updateTopicRouteInfoFromNameServer(t).catch(() => false)));
    if (checkClientInBroker) {
      try {
        await client.checkClientInBroker();
      } catch (err) {
        await this.teardown().catch(() => undefined);
        throw err;
      }
    }
    await client.sendHeartbeatToAllBrokerWithLock().catch(() => undefined);
    await this.doRebalance();
    client.rebalanceImmediately();
  }

  // ------------------------------------------------------------------ subscriptions

  /**
   * Records a subscription (tags or a MessageSelector) of a topic. When `live` and a rebalance exists, the rebalance
   * gets it at once and the namespaced topic is returned (the caller announces it); otherwise undefined.
   */
  protected addSubscription(topic: string, expression: string | MessageSelector, live: boolean): string | undefined {
    const t = this.clientConfig.withNamespace(topic);
    const sd = expression instanceof MessageSelector
      ? buildSubscriptionDataOfType(t, expression.getExpression(), expression.getExpressionType())
      : buildSubscriptionData(t, expression);
    this.subscriptionTable.set(t, sd);
    if (!this.rebalance || !live) return undefined;
    this.rebalance.subscriptionInner.set(t, sd);
    return t;
  }

  /** Drops the subscription of a topic; returns the namespaced topic. */
  protected removeSubscription(topic: string): string {
    const t = this.clientConfig.withNamespace(topic);
    this.subscriptionTable.delete(t);
    this.rebalance?.subscriptionInner.delete(t);
    return t;
  }

  // ------------------------------------------------------------------ offsets

  /** The offset store (after start). */
  getOffsetStore(): OffsetStore | undefined {
    return this.#offsetStore;
  }

  /** The offset store; throws before start. */
  get offsetStore(): OffsetStore {
    if (!this.#offsetStore) throw new ServiceStateError('The consumer not running, please start it first.');
    return this.#offsetStore;
  }

  /** Where a newly owned queue starts (computePullFromWhereWithException of RebalancePushImpl / RebalanceLitePullImpl). */
  protected pullStartOffset(mq: MessageQueue, readType: ReadOffsetType): Promise<number> {
    return this.queueOffsets.computePullFromWhere(mq, this.offsetStore, readType, this.options.consumeFromWhere, this.options.consumeTimestamp);
  }

  /** The queues the rebalance owns now. */
  protected ownedQueues(): MessageQueue[] {
    return [...(this.rebalance?.processQueueTable.values() ?? [])].map((e) => e.mq);
  }

  /** The options of GET_CONSUMER_RUNNING_INFO's properties (without the strategy object) and the start time. */
  protected runningInfoProperties(): Map<string, string> {
    const properties = new Map<string, string>();
    for (const [k, v] of Object.entries({ ...this.clientConfig.toOptions(), ...this.options })) {
      if (v === undefined || v === null || k === 'allocateMessageQueueStrategy') continue;
      properties.set(k, String(v));
    }
    return properties;
  }

  // ------------------------------------------------------------------ MQConsumerInner

  abstract consumeType(): ReturnType<MQConsumerInner['consumeType']>;
  abstract doRebalance(): Promise<void>;
  abstract persistConsumerOffset(): Promise<void>;
  abstract consumerRunningInfo(): ReturnType<MQConsumerInner['consumerRunningInfo']>;

  groupName(): string {
    return this.rebalance?.consumerGroup ?? this.clientConfig.withNamespace(this.consumerGroup);
  }

  messageModel(): MessageModel {
    return this.options.messageModel;
  }

  consumeFromWhere(): ConsumeFromWhere {
    return this.options.consumeFromWhere;
  }

  subscriptions(): SubscriptionData[] {
    return [...(this.rebalance?.subscriptionInner.values() ?? this.subscriptionTable.values())];
  }

  isUnitMode(): boolean {
    return this.clientConfig.unitMode;
  }

  updateTopicSubscribeInfo(topic: string, info: MessageQueue[]): void {
    if (this.rebalance?.subscriptionInner.has(topic)) this.rebalance.topicSubscribeInfoTable.set(topic, info);
  }

  isSubscribeTopicNeedUpdate(topic: string): boolean {
    return !!this.rebalance?.subscriptionInner.has(topic) && !this.rebalance.topicSubscribeInfoTable.has(topic);
  }

  getConsumerStatus(topic: string): Array<[MessageQueue, number]> {
    return this.#offsetStore?.cloneOffsetTable(topic) ?? [];
  }
}
