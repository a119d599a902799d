/**
 * SimpleConsumer: 5.x POP consumption over remoting. The application receives messages, which stay invisible to
 * the group's other receivers for an invisible duration, and acknowledges each one; a message not acknowledged
 * in time is delivered again (by the broker's revive, from the group's pop retry topic, reconsumeTimes + 1).
 * No queue is owned by a consumer: every receive pops from every queue of one broker (queueId -1), brokers taken
 * in turn. Needs a 5.x broker (ours or Java 5.x); a 4.x broker answers REQUEST_CODE_NOT_SUPPORTED.
 *
 * With `order: true` the pops are orderly (a FIFO consumer group): a queue hands out its next messages only once
 * the batch it gave is acknowledged (or its invisible time passed, then the same messages come again, in order,
 * reconsumeTimes counting the deliveries); a receive passing the attemptId of a previous one (a retry after a
 * lost answer) gets that batch again.
 *
 * The calls are those of Java's DefaultMQPushConsumer in pop mode (MQClientAPIImpl popMessageAsync, ackMessageAsync,
 * changeInvisibleTimeAsync); the shape of the API is that of the 5.x SimpleConsumer (rocketmq-clients).
 *
 * @see org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl#popMessage / #ackAsync / #changePopInvisibleTimeAsync (5.3.3)
 */
import { ExpressionType } from '../../protocol/body/expression-type';
import { ConsumeFromWhere, ConsumeType, MessageModel, type SubscriptionData } from '../../protocol/body/heartbeat-data';
import type { ConsumerRunningInfo } from '../../protocol/body/consumer-running-info';
import { ConsumeInitMode } from '../../protocol/header/pop-message-request-header';
import { parseExtraInfo, realTopicOf } from '../../protocol/message/extra-info-util';
import type { MessageExt } from '../../protocol/message/message';
import { MessageConst } from '../../protocol/message/message-const';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { ClientConfig, type ClientConfigOptions } from '../client/client-config';
import { MixAll } from '../client/mix-all';
import type { MQConsumerInner } from '../client/inner';
import type { MQClientInstance } from '../client/mq-client-instance';
import { MQClientManager } from '../client/mq-client-manager';
import type { MQClientAPIOptions } from '../client/mq-client-api';
import { PopStatus, ackMessage, changeInvisibleTime, popMessage } from '../client/mq-client-api-pop';
import { checkGroup, checkTopic } from '../client/validators';
import { BrokerNotFoundError, ConfigError, InvalidArgumentError, OperationFailedError, ResourceNotFoundError, ServiceStateError } from '../errors';
import { componentLogger, type Logger } from '../logger';
import { Lifecycle } from '../util/lifecycle';
import { MessageSelector, buildSubscriptionDataOfType } from './message-selector';

/** The most messages one receive may ask for (the broker refuses more than 32). */
export const SIMPLE_CONSUMER_MAX_RECEIVE = 32;

export interface SimpleConsumerOptions extends Partial<ClientConfigOptions> {
  /** Consumer group (required). */
  consumerGroup: string;
  /** Topic → tag expression (`'*'`, `'TagA || TagB'`) or MessageSelector (SQL92 needs enablePropertyFilter). */
  subscriptions: Record<string, string | MessageSelector>;
  /**
   * How long the broker may hold a receive that finds nothing (long polling), ms.
   * @default 5000
   */
  awaitDuration?: number;
  /**
   * Where a group without a pop offset starts on a queue: MAX (the queue's end; a queue whose first message is
   * still at offset 0 is read from 0, as Java's initPopOffsetByCheckMsgInMem) or MIN (its start).
   * @default ConsumeInitMode.MAX
   */
  initMode?: ConsumeInitMode;
  /**
   * Orderly pops (PopMessageRequestHeader.order), for FIFO consumption: per queue, one batch in flight at a time.
   * @default false
   */
  order?: boolean;
  /** Signs every request (AclClientRPCHook). */
  rpcHook?: MQClientAPIOptions['rpcHook'];
  /** A pino logger (default: the package's root logger). */
  logger?: Logger;
}

export const DEFAULT_SIMPLE_CONSUMER_OPTIONS = Object.freeze({
  awaitDuration: 5_000,
  initMode: ConsumeInitMode.MAX as ConsumeInitMode,
  order: false,
});

/** Per-receive options. */
export interface ReceiveOptions {
  /**
   * Orderly pops: the attempt id of this receive; the attempt id of an earlier receive gets its batch again while
   * that batch is in flight (the client's retry of a receive whose answer was lost). A repeated attempt id pops the
   * topic and broker its first receive popped (the last 1,024 attempt ids are remembered), not the next in turn.
   */
  attemptId?: string;
}

interface Target {
  topic: string;
  brokerName: string;
}

/** How many attempt ids a consumer remembers the target of (the oldest forgotten first). */
const ATTEMPT_TARGETS_MAX = 1024;

export class SimpleConsumer implements MQConsumerInner {
  readonly clientConfig: ClientConfig;
  readonly consumerGroup: string;
  readonly awaitDuration: number;
  readonly initMode: ConsumeInitMode;
  readonly order: boolean;
  readonly #subscriptions = new Map<string, SubscriptionData>();
  readonly #brokersByTopic = new Map<string, string[]>();
  /** The target (topic and broker) of recent orderly receives by attempt id: a repeated attempt pops where it did. */
  readonly #attemptTargets = new Map<string, Target>();
  readonly #rpcHook: MQClientAPIOptions['rpcHook'];
  readonly #lifecycle: Lifecycle;
  readonly #log: Logger;
  #instance: MQClientInstance | undefined;
  #next = 0;

  constructor(options: SimpleConsumerOptions) {
    this.clientConfig = new ClientConfig(options);
    this.consumerGroup = options.consumerGroup;
    this.awaitDuration = options.awaitDuration ?? DEFAULT_SIMPLE_CONSUMER_OPTIONS.awaitDuration;
    this.initMode = options.initMode ?? DEFAULT_SIMPLE_CONSUMER_OPTIONS.initMode;
    this.order = options.order ?? DEFAULT_SIMPLE_CONSUMER_OPTIONS.order;
    this.#rpcHook = options.rpcHook;
    this.#log = componentLogger('simple-consumer', options.logger).child({ group: options.consumerGroup });
    if (!options.subscriptions || Object.keys(options.subscriptions).length === 0) throw new ConfigError('subscriptions must name at least one topic');
    if (!Number.isFinite(this.awaitDuration) || this.awaitDuration < 0) throw new ConfigError('awaitDuration must be >= 0');
    for (const [topic, expr] of Object.entries(options.subscriptions)) {
      checkTopic(topic);
      const sel = typeof expr === 'string' ? MessageSelector.byTag(expr) : expr;
      const t = this.clientConfig.withNamespace(topic);
      this.#subscriptions.set(t, buildSubscriptionDataOfType(t, sel.getExpression(), sel.getExpressionType()));
    }
    this.#lifecycle = new Lifecycle(() => this.#doStart(), () => this.#doShutdown());
  }

  start(): Promise<void> {
    return this.#lifecycle.start();
  }

  shutdown(): Promise<void> {
    return this.#lifecycle.shutdown();
  }

  get isRunning(): boolean {
    return this.#lifecycle.isRunning;
  }

  get #group(): string {
    return this.clientConfig.withNamespace(this.consumerGroup);
  }

  async #doStart(): Promise<void> {
    checkGroup(this.consumerGroup);
    if (this.consumerGroup === MixAll.DEFAULT_CONSUMER_GROUP) throw new ConfigError(`consumerGroup can not equal ${MixAll.DEFAULT_CONSUMER_GROUP}, please specify another one.`);
    this.clientConfig.changeInstanceNameToPID();
    const instance = MQClientManager.getInstance().acquire(this.clientConfig, { rpcHook: this.#rpcHook });
    if (!instance.registerConsumer(this.#group, this)) {
      await MQClientManager.getInstance().release(instance);
      throw new InvalidArgumentError(`The consumer group[${this.consumerGroup}] has been created before, specify another name please.`);
    }
    this.#instance = instance;
    try {
      await instance.start();
      await Promise.all([...this.#subscriptions.keys()].map((t) => instance.updateTopicRouteInfoFromNameServer(t).catch(() => false)));
      await instance.sendHeartbeatToAllBrokerWithLock().catch(() => undefined);
    } catch (err) {
      await instance.unregisterConsumer(this.#group).catch(() => undefined);
      await MQClientManager.getInstance().release(instance);
      this.#instance = undefined;
      throw err;
    }
    this.#log.info('the simple consumer started');
  }

  async #doShutdown(): Promise<void> {
    const instance = this.#instance;
    this.#instance = undefined;
    if (!instance) return;
    await instance.unregisterConsumer(this.#group).catch((err: unknown) => this.#log.warn({ err }, 'unregisterConsumer failed'));
    await MQClientManager.getInstance().release(instance);
    this.#log.info('the simple consumer shut down');
  }

  #running(): MQClientInstance {
    if (!this.#instance || !this.#lifecycle.isRunning) throw new ServiceStateError('The consumer not running, please start it first.');
    return this.#instance;
  }

  #targets(): Target[] {
    const out: Target[] = [];
    for (const topic of this.#subscriptions.keys()) {
      for (const brokerName of this.#brokersByTopic.get(topic) ?? []) out.push({ topic, brokerName });
    }
    return out;
  }

  /**
   * Pops up to maxNum (1..32) messages from the next broker of the subscribed topics, waiting up to awaitDuration
   * when there are none. Each stays invisible to other receivers for invisibleDurationMs unless acknowledged.
   * Resolves to an empty array when nothing came in time.
   */
  async receive(maxNum: number, invisibleDurationMs: number, options: ReceiveOptions = {}): Promise<MessageExt[]> {
    const instance = this.#running();
    if (!Number.isInteger(maxNum) || maxNum < 1 || maxNum > SIMPLE_CONSUMER_MAX_RECEIVE) {
      throw new InvalidArgumentError(`maxNum must be an integer in [1, ${SIMPLE_CONSUMER_MAX_RECEIVE}]`);
    }
    if (!Number.isFinite(invisibleDurationMs) || invisibleDurationMs <= 0) throw new InvalidArgumentError('invisibleDurationMs must be > 0');
    if (options.attemptId !== undefined && !this.order) throw new InvalidArgumentError('attemptId is for orderly pops (order: true)');
    let targets = this.#targets();
    if (targets.length === 0) {
      await Promise.all([...this.#subscriptions.keys()].map((t) => instance.updateTopicRouteInfoFromNameServer(t).catch(() => false)));
      targets = this.#targets();
      if (targets.length === 0) throw new ResourceNotFoundError(`no route of the subscribed topics [${[...this.#subscriptions.keys()].join(', ')}]`);
    }
    const attemptId = options.attemptId;
    const remembered = attemptId !== undefined ? this.#attemptTargets.get(attemptId) : undefined;
    const target = remembered && targets.some((t) => t.topic === remembered.topic && t.brokerName === remembered.brokerName)
      ? remembered
      : targets[this.#next++ % targets.length];
    if (attemptId !== undefined) {
      this.#attemptTargets.delete(attemptId);
      this.#attemptTargets.set(attemptId, target);
      if (this.#attemptTargets.size > ATTEMPT_TARGETS_MAX) this.#attemptTargets.delete(this.#attemptTargets.keys().next().value!);
    }
    const found = instance.findBrokerAddressInSubscribe(target.brokerName, MixAll.MASTER_ID, true);
    if (!found) throw new BrokerNotFoundError(target.brokerName);
    const sd = this.#subscriptions.get(target.topic)!;
    const result = await popMessage(instance.api, target.brokerName, found.brokerAddr, {
      consumerGroup: this.#group,
      topic: target.topic,
      queueId: -1,
      maxMsgNums: maxNum,
      invisibleTime: invisibleDurationMs,
      pollTime: this.awaitDuration,
      bornTime: Date.now(),
      initMode: this.initMode,
      expType: sd.expressionType ?? ExpressionType.TAG,
      exp: sd.subString,
      order: this.order,
      ...(options.attemptId !== undefined ? { attemptId: options.attemptId } : {}),
      bname: target.brokerName,
    }, this.awaitDuration + this.clientConfig.mqClientApiTimeout);
    if (result.popStatus !== PopStatus.FOUND) return [];
    for (const m of result.msgFoundList) m.topic = this.clientConfig.withoutNamespace(m.topic);
    return result.msgFoundList;
  }

  #ackTarget(msg: MessageExt): { addr: string; brokerName: string; topic: string; queueId: number; offset: number; extraInfo: string } {
    const instance = this.#running();
    const extraInfo = msg.properties[MessageConst.PROPERTY_POP_CK];
    if (!extraInfo) throw new InvalidArgumentError('the message was not received by a pop (no POP_CK property)');
    const info = parseExtraInfo(extraInfo);
    const found = instance.findBrokerAddressInSubscribe(info.brokerName, MixAll.MASTER_ID, true);
    if (!found) throw new BrokerNotFoundError(info.brokerName);
    return {
      addr: found.brokerAddr,
      brokerName: info.brokerName,
      topic: realTopicOf(info, this.clientConfig.withNamespace(msg.topic), this.#group),
      queueId: info.queueId,
      offset: info.queueOffset ?? msg.queueOffset,
      extraInfo,
    };
  }

  /** ACK_MESSAGE: the message will not come again. Rejects when the broker no longer knows it (MQClientError). */
  async ack(msg: MessageExt): Promise<void> {
    const t = this.#ackTarget(msg);
    const r = await ackMessage(this.#instance!.api, t.addr, {
      consumerGroup: this.#group, topic: t.topic, queueId: t.queueId, extraInfo: t.extraInfo, offset: t.offset, bname: t.brokerName,
    }, this.clientConfig.mqClientApiTimeout);
    if (r.status !== 'OK') throw new OperationFailedError(`ack failed (${r.status}): ${t.topic}@${t.queueId}:${t.offset}`);
  }

  /**
   * CHANGE_MESSAGE_INVISIBLETIME: the message stays invisible for invisibleDurationMs from now (its POP_CK is
   * replaced by the new checkpoint, so ack it with this same object afterwards).
   */
  async changeInvisibleDuration(msg: MessageExt, invisibleDurationMs: number): Promise<void> {
    if (!Number.isFinite(invisibleDurationMs) || invisibleDurationMs <= 0) throw new InvalidArgumentError('invisibleDurationMs must be > 0');
    const t = this.#ackTarget(msg);
    const r = await changeInvisibleTime(this.#instance!.api, t.brokerName, t.addr, {
      consumerGroup: this.#group, topic: t.topic, queueId: t.queueId, extraInfo: t.extraInfo, offset: t.offset,
      invisibleTime: invisibleDurationMs, bname: t.brokerName,
    }, this.clientConfig.mqClientApiTimeout);
    if (r.status !== 'OK' || !r.extraInfo) throw new OperationFailedError(`changeInvisibleDuration failed (${r.status}): ${t.topic}@${t.queueId}:${t.offset}`);
    msg.properties[MessageConst.PROPERTY_POP_CK] = r.extraInfo;
  }

  // ---------------------------------------------------------------- MQConsumerInner (routes and heartbeats)

  groupName(): string {
    return this.#group;
  }

  messageModel(): MessageModel {
    return MessageModel.CLUSTERING;
  }

  consumeType(): ConsumeType {
    return ConsumeType.CONSUME_ACTIVELY;
  }

  consumeFromWhere(): ConsumeFromWhere {
    return ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET;
  }

  subscriptions(): SubscriptionData[] {
    return [...this.#subscriptions.values()];
  }

  isUnitMode(): boolean {
    return false;
  }

  doRebalance(): void {
    // Nothing to balance: every receive pops from all queues of a broker.
  }

  persistConsumerOffset(): void {
    // The broker keeps pop offsets.
  }

  updateTopicSubscribeInfo(topic: string, info: MessageQueue[]): void {
    if (!this.#subscriptions.has(topic)) return;
    this.#brokersByTopic.set(topic, [...new Set(info.map((q) => q.brokerName))].sort());
  }

  isSubscribeTopicNeedUpdate(topic: string): boolean {
    return this.#subscriptions.has(topic) && !this.#brokersByTopic.has(topic);
  }

  consumerRunningInfo(): ConsumerRunningInfo {
    return {
      properties: new Map([['consumeType', ConsumeType.CONSUME_ACTIVELY], ['messageModel', MessageModel.CLUSTERING]]),
      subscriptionSet: this.subscriptions(),
      mqTable: [],
      statusTable: new Map(),
    };
  }
}
