/**
 * DefaultMQProducer: sends messages sync, async (Promise or Java-style callback), oneway, in batches, to a
 * chosen queue or a queue picked by a selector, with Java's retries, fault isolation, compression and namespaces.
 *
 * Retries (sync): up to retryTimesWhenSendFailed + 1 attempts, each on a queue of another broker than the last
 * failed one where possible; a network failure or one of `retryResponseCodes` (TOPIC_NOT_EXIST,
 * SERVICE_NOT_AVAILABLE, SYSTEM_ERROR, NO_PERMISSION, NO_BUYER_ID, NOT_IN_CURRENT_UNIT) retries, another code
 * fails at once; a stored-but-not-OK status retries only with retryAnotherBrokerWhenNotStoreOK; no attempt starts
 * once sendMsgTimeout has elapsed, and each attempt gets what is left of it. Async sends retry network failures
 * only, up to retryTimesWhenSendAsyncFailed more times (as Java's MQClientAPIImpl.onExceptionImpl). Oneway sends,
 * sends to a given queue and selector sends are tried once.
 *
 * @see org.apache.rocketmq.client.producer.DefaultMQProducer
 * @see org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl
 */
import { type CompressionType, type CompressionTypeName, compressBodyWith, compressionFlag, compressionTypeName, compressionTypeOf } from '../../protocol/message/compression';
import { retriableResponseCodes } from '../../protocol/code/response-code-table';
import { MessageConst } from '../../protocol/message/message-const';
import { createUniqId } from '../../protocol/message/message-id';
import type { Message, MessageExt } from '../../protocol/message/message';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { encodeBatchBody } from '../../protocol/message/batch';
import { propertiesToJavaString } from '../../protocol/message/properties';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import { ClientConfig, type ClientConfigOptions } from '../client/client-config';
import type { ProducerEvents } from '../client/events';
import type { MQProducerInner } from '../client/inner';
import { MixAll, TopicValidator, brokerVIPChannel } from '../client/mix-all';
import type { SendMessageHeader, SendMessageTarget } from '../client/mq-client-api';
import { MQClientManager } from '../client/mq-client-manager';
import type { MQClientInstance, MQClientInstanceOptions } from '../client/mq-client-instance';
import { withoutNamespace } from '../client/namespace';
import { ClientErrorCode, CommunicationMode, type SendResult, SendStatus } from '../client/send-result';
import { TopicPublishInfo } from '../client/topic-publish-info';
import { RequestFutureHolder, createCorrelationId } from '../client/request-future-holder';
import { AsyncTraceDispatcher } from '../client/trace/async-trace-dispatcher';
import { sendTraceAfter, sendTraceBefore } from '../client/trace/trace-hooks';
import { checkGroup, checkMessage } from '../client/validators';
import {
  BrokerNotFoundError, CompressionCodecUnavailableError, ConfigError, InvalidArgumentError, MQBrokerError, MQClientError, RemotingConnectError, RemotingTimeoutError, RemotingTooMuchRequestError, RocketMQError, ServiceStateError,
} from '../errors';
import { type InstrumentationEvent, InstrumentationEmitter } from '../instrumentation/emitter';
import { type Logger, componentLogger } from '../logger';
import type { RPCHook } from '../client/mq-client-api';
import { Lifecycle } from '../util/lifecycle';
import { type RetryDecision, retry } from '../util/retry';
import { MQFaultStrategy } from './latency/mq-fault-strategy';
import { TimedSemaphore } from './back-pressure';
import { checkBatch } from './message-batch';
import type { MessageQueueSelector } from './selector/message-queue-selector';

export interface ProducerOptions {
  /** Producer group; transactional check-backs go to a producer of this group. */
  producerGroup: string;
  /** The topic whose config a new topic copies when the broker auto-creates it. */
  createTopicKey: string;
  /** Queues of a topic the broker auto-creates on the first send. */
  defaultTopicQueueNums: number;
  /** Time budget of one send, retries included, ms. */
  sendMsgTimeout: number;
  /** Bodies of at least this many bytes are compressed with `compressType` (not batches). */
  compressMsgBodyOverHowmuch: number;
  /** Level of compressed bodies (Java rocketmq.message.compressLevel): zlib and zstd levels; LZ4 ignores it, as Java. */
  compressLevel: number;
  /**
   * Java 5.x `compressType` (rocketmq.message.compressType): ZLIB (default; what 4.x clients read), LZ4 or ZSTD (read
   * by 5.x clients and by this one). LZ4 needs the optional package `lz4-napi`, ZSTD `@toondepauw/node-zstd` (or a
   * Node with zlib's Zstandard, 22.15+), loaded on the first compressed send.
   */
  compressType: CompressionTypeName;
  /** Extra attempts of a failed sync send, on another broker where possible. */
  retryTimesWhenSendFailed: number;
  /** Extra attempts of an async send after a network failure. */
  retryTimesWhenSendAsyncFailed: number;
  /** Retry a sync send answered FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT or SLAVE_NOT_AVAILABLE. */
  retryAnotherBrokerWhenNotStoreOK: boolean;
  /** Largest body accepted before sending, bytes. */
  maxMessageSize: number;
  /** Latency fault isolation: avoid a broker for notAvailableDuration after a slow or failed send. */
  sendLatencyFaultEnable: boolean;
  /** Send latencies (ms) that map to the isolation times of notAvailableDuration. */
  latencyMax: readonly number[];
  /** How long a broker is avoided (ms) after a send as slow as the latencyMax entry. */
  notAvailableDuration: readonly number[];
  /** Java 5.x: cap asynchronous sends in flight by count and by body bytes; a send waits for room up to its timeout. */
  enableBackpressureForAsyncMode: boolean;
  /** Asynchronous sends in flight at most (at least 10, as Java). */
  backPressureForAsyncSendNum: number;
  /** Body bytes of asynchronous sends in flight at most (at least 1 MiB, as Java). */
  backPressureForAsyncSendSize: number;
  /** Write a Pub trace record of every send (and EndTransaction records of a transaction producer) to the trace topic. */
  enableMsgTrace: boolean;
  /** The trace topic of enableMsgTrace. */
  customizedTraceTopic: string;
}

export const DEFAULT_PRODUCER_OPTIONS: Readonly<ProducerOptions> = Object.freeze({
  producerGroup: MixAll.DEFAULT_PRODUCER_GROUP,
  createTopicKey: TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC,
  defaultTopicQueueNums: 4,
  sendMsgTimeout: 3000,
  compressMsgBodyOverHowmuch: 1024 * 4,
  compressLevel: 5,
  compressType: 'ZLIB',
  retryTimesWhenSendFailed: 2,
  retryTimesWhenSendAsyncFailed: 2,
  retryAnotherBrokerWhenNotStoreOK: false,
  maxMessageSize: 1024 * 1024 * 4,
  sendLatencyFaultEnable: false,
  latencyMax: Object.freeze([50, 100, 550, 1000, 2000, 3000, 15000]),
  notAvailableDuration: Object.freeze([0, 0, 30000, 60000, 120000, 180000, 600000]),
  enableBackpressureForAsyncMode: false,
  backPressureForAsyncSendNum: 10000,
  backPressureForAsyncSendSize: 100 * 1024 * 1024,
  enableMsgTrace: false,
  customizedTraceTopic: TopicValidator.RMQ_SYS_TRACE_TOPIC,
});

export interface DefaultMQProducerOptions extends Partial<ProducerOptions>, Partial<ClientConfigOptions> {
  rpcHook?: RPCHook;
  logger?: Logger;
  /** Manager of shared client instances (default: the process-wide one). */
  clientManager?: MQClientManager;
  /** Passed to a newly created MQClientInstance (remoting options, HTTP lookup address...). */
  instanceOptions?: MQClientInstanceOptions;
  /** Clock (ms) the latency fault strategy measures send latencies and isolation periods with (default Date.now; tests pass a fake one). */
  now?: () => number;
}

/** Java's SendCallback. */
export interface SendCallback {
  onSuccess(result: SendResult): void;
  onException(err: Error): void;
}

/** Java's RequestCallback: the reply of a request, or why there is none (RequestTimeoutError, a failed send). */
export interface RequestCallback {
  onSuccess(message: MessageExt): void;
  onException(err: Error): void;
}

/** The response codes a sync send retries on (DefaultMQProducer.retryResponseCodes): the retriable rows of protocol/code/response-code-table.ts. */
export const DEFAULT_RETRY_RESPONSE_CODES: readonly number[] = Object.freeze(retriableResponseCodes());

type Mode = CommunicationMode;

/**
 * What a failed send attempt leads to (Java DefaultMQProducerImpl.sendDefaultImpl): too many requests (the time
 * budget used up) ends the loop; an async send retries network failures only (MQClientAPIImpl.onExceptionImpl); a
 * sync send retries everything of ours but broker codes outside `retryCodes`, which end it (with the earlier
 * stored-but-not-OK result when there is one).
 */
export function sendRetryDecision(err: unknown, mode: Mode, retryCodes: ReadonlySet<number>, haveResult: boolean): RetryDecision {
  if (err instanceof RemotingTooMuchRequestError) return 'stop';
  // no attempt can compress with a codec that is not installed here: the typed error at once
  if (err instanceof CompressionCodecUnavailableError) return 'throw';
  if (mode === CommunicationMode.ASYNC) {
    return !(err instanceof RocketMQError) || err instanceof MQBrokerError || err instanceof MQClientError ? 'throw' : 'retry';
  }
  if (err instanceof MQBrokerError && !retryCodes.has(err.responseCode)) return haveResult ? 'stop' : 'throw';
  return err instanceof RocketMQError ? 'retry' : 'throw';
}
type Target = { kind: 'default' } | { kind: 'queue'; mq: MessageQueue } | { kind: 'selector'; selector: MessageQueueSelector; arg: unknown };

/** A message as prepared for the wire: topic with namespace, body maybe compressed, properties encoded once. */
interface Outgoing {
  /** The user's message (its properties get UNIQ_KEY, as Java). */
  msg: Message;
  topic: string;
  userTopic: string;
  body: Buffer;
  flag: number;
  batch: boolean;
  uniqMsgId: string;
  count: number;
}

function isMessageQueue(v: unknown): v is MessageQueue {
  return typeof v === 'object' && v !== null && typeof (v as MessageQueue).brokerName === 'string' && typeof (v as MessageQueue).queueId === 'number';
}

function isSelector(v: unknown): v is MessageQueueSelector {
  return typeof v === 'object' && v !== null && typeof (v as MessageQueueSelector).select === 'function';
}

function isCallback(v: unknown): v is SendCallback {
  return typeof v === 'object' && v !== null && typeof (v as SendCallback).onSuccess === 'function';
}

/** Accepts a Message, or a plain object with a string body and no properties yet. */
function normalize(msg: Message): Message {
  if (typeof (msg.body as unknown) === 'string') msg.body = Buffer.from(msg.body as unknown as string, 'utf8');
  if (!msg.properties) msg.properties = {};
  if (msg.flag === undefined) msg.flag = 0;
  return msg;
}

/** Java CompressionType.of, as a ConfigError for a name it does not know. */
function parseCompressType(name: string): CompressionType {
  try {
    return compressionTypeOf(String(name));
  } catch (e) {
    throw new ConfigError(`compressType must be ZLIB, LZ4 or ZSTD, not ${JSON.stringify(name)}`, { cause: e });
  }
}

export class DefaultMQProducer implements MQProducerInner {
  readonly clientConfig: ClientConfig;
  readonly options: ProducerOptions;
  readonly instrumentation = new InstrumentationEmitter<ProducerEvents>();
  readonly retryResponseCodes = new Set<number>(DEFAULT_RETRY_RESPONSE_CODES);
  readonly #topicPublishInfoTable = new Map<string, TopicPublishInfo>();
  readonly #faultStrategy: MQFaultStrategy;
  /** The latency fault strategy's clock. */
  readonly #now: () => number;
  readonly #manager: MQClientManager;
  readonly #instanceOptions: MQClientInstanceOptions;
  readonly #logger: Logger;
  readonly #lifecycle: Lifecycle;
  #instance: MQClientInstance | null = null;
  /** `options.compressType` as Java's CompressionType value. */
  #compressType: CompressionType;
  readonly #asyncSendNum: TimedSemaphore;
  readonly #asyncSendSize: TimedSemaphore;

  constructor(options: DefaultMQProducerOptions = {}) {
    const { rpcHook, logger, clientManager, instanceOptions, now, ...rest } = options;
    const producerOptions: Partial<ProducerOptions> = {};
    const clientOptions: Partial<ClientConfigOptions> = {};
    for (const [k, v] of Object.entries(rest)) {
      if (v === undefined) continue;
      if (k in DEFAULT_PRODUCER_OPTIONS) (producerOptions as Record<string, unknown>)[k] = v;
      else (clientOptions as Record<string, unknown>)[k] = v;
    }
    this.options = { ...DEFAULT_PRODUCER_OPTIONS, ...producerOptions };
    this.#compressType = parseCompressType(this.options.compressType);
    this.clientConfig = new ClientConfig(clientOptions);
    this.#now = now ?? Date.now;
    this.#faultStrategy = new MQFaultStrategy({
      sendLatencyFaultEnable: this.options.sendLatencyFaultEnable,
      latencyMax: this.options.latencyMax,
      notAvailableDuration: this.options.notAvailableDuration,
    }, { now: this.#now, logger });
    this.#manager = clientManager ?? MQClientManager.getInstance();
    this.#instanceOptions = { ...instanceOptions, rpcHook: rpcHook ?? instanceOptions?.rpcHook, logger: logger ?? instanceOptions?.logger };
    this.#logger = componentLogger('producer', logger).child({ group: this.options.producerGroup });
    this.#lifecycle = new Lifecycle(() => this.#doStart(), () => this.#doShutdown());
    this.#asyncSendNum = new TimedSemaphore(Math.max(this.options.backPressureForAsyncSendNum, 10));
    this.#asyncSendSize = new TimedSemaphore(Math.max(this.options.backPressureForAsyncSendSize, 1024 * 1024));
    if (this.options.enableMsgTrace) {
      this.traceDispatcher = new AsyncTraceDispatcher(this.options.producerGroup, 'PRODUCE', this.options.customizedTraceTopic, {
        clientConfig: this.clientConfig, clientManager: this.#manager, instanceOptions: this.#instanceOptions, logger,
      });
    }
  }

  /** The trace dispatcher of enableMsgTrace (null without). */
  readonly traceDispatcher: AsyncTraceDispatcher | null = null;

  /** Free permits of the async-send count cap (Java getSemaphoreAsyncSendNumAvailablePermits). */
  getSemaphoreAsyncSendNumAvailablePermits(): number {
    return this.#asyncSendNum.availablePermits;
  }

  /** Free bytes of the async-send size cap (Java getSemaphoreAsyncSendSizeAvailablePermits). */
  getSemaphoreAsyncSendSizeAvailablePermits(): number {
    return this.#asyncSendSize.availablePermits;
  }

  get producerGroup(): string {
    return this.options.producerGroup;
  }

  /** The shared client instance (after start). */
  get clientInstance(): MQClientInstance | null {
    return this.#instance;
  }

  /** Listens to `producer.send`, `client.route_updated`, `network.request_timeout`...; returns the remover. */
  on<K extends keyof ProducerEvents & string>(type: K, listener: (event: InstrumentationEvent<ProducerEvents[K]>) => void): () => void {
    return this.instrumentation.on(type, listener);
  }

  /** Java setCompressType: the algorithm of bodies compressed from now on (`ZLIB`, `LZ4`, `ZSTD`). */
  setCompressType(compressType: CompressionTypeName): void {
    this.#compressType = parseCompressType(compressType);
    this.options.compressType = compressionTypeName(this.#compressType);
  }

  addRetryResponseCode(code: number): void {
    this.retryResponseCodes.add(code);
  }

  setSendLatencyFaultEnable(enable: boolean): void {
    this.options.sendLatencyFaultEnable = enable;
    this.#faultStrategy.sendLatencyFaultEnable = enable;
  }

  // ---------------------------------------------------------------- lifecycle

  start(): Promise<void> {
    return this.#lifecycle.start();
  }

  shutdown(): Promise<void> {
    return this.#lifecycle.shutdown();
  }

  async #doStart(): Promise<void> {
    const group = this.options.producerGroup;
    checkGroup(group);
    if (group === MixAll.DEFAULT_PRODUCER_GROUP) {
      throw new InvalidArgumentError(`producerGroup can not equal ${MixAll.DEFAULT_PRODUCER_GROUP}, please specify another one.`);
    }
    if (group !== MixAll.CLIENT_INNER_PRODUCER_GROUP) this.clientConfig.changeInstanceNameToPID();
    const instance = this.#manager.acquire(this.clientConfig, this.#instanceOptions);
    const wireGroup = this.#wireGroup();
    if (!instance.registerProducer(wireGroup, this)) {
      await this.#manager.release(instance);
      throw new InvalidArgumentError(`The producer group[${group}] has been created before, specify another name please.`);
    }
    this.#instance = instance;
    this.#topicPublishInfoTable.set(this.options.createTopicKey, new TopicPublishInfo());
    instance.attachEmitter(this.instrumentation);
    try {
      await instance.start();
    } catch (err) {
      instance.detachEmitter(this.instrumentation);
      await instance.unregisterProducer(wireGroup);
      await this.#manager.release(instance);
      this.#instance = null;
      throw err;
    }
    void instance.sendHeartbeatToAllBrokerWithLock();
    if (this.traceDispatcher) {
      try {
        await this.traceDispatcher.start();
      } catch (err) {
        this.#logger.warn({ err }, 'trace dispatcher start failed');
      }
    }
    this.#logger.info({ clientId: instance.clientId }, 'the producer started');
  }

  async #doShutdown(): Promise<void> {
    await this.traceDispatcher?.shutdown();
    this.#asyncSendNum.rejectAll();
    this.#asyncSendSize.rejectAll();
    const instance = this.#instance;
    if (!instance) return;
    this.#instance = null;
    instance.detachEmitter(this.instrumentation);
    await instance.unregisterProducer(this.#wireGroup());
    await this.#manager.release(instance);
    this.#topicPublishInfoTable.clear();
    this.#logger.info('the producer shut down');
  }

  #wireGroup(): string {
    return this.clientConfig.withNamespace(this.options.producerGroup);
  }

  // ---------------------------------------------------------------- MQProducerInner

  getPublishTopicList(): Iterable<string> {
    return this.#topicPublishInfoTable.keys();
  }

  isPublishTopicNeedUpdate(topic: string): boolean {
    const info = this.#topicPublishInfoTable.get(topic);
    return !info || !info.ok();
  }

  updateTopicPublishInfo(topic: string, info: TopicPublishInfo): void {
    this.#topicPublishInfoTable.set(topic, info);
  }

  isUnitMode(): boolean {
    return this.clientConfig.unitMode;
  }

  /** The writable queues of a topic (Java fetchPublishMessageQueues), topics without namespace. */
  async fetchPublishMessageQueues(topic: string): Promise<MessageQueue[]> {
    const info = await this.#tryToFindTopicPublishInfo(this.clientConfig.withNamespace(topic));
    return info.messageQueueList.map((mq) => ({ ...mq, topic: withoutNamespace(mq.topic, this.clientConfig.getNamespace()) }));
  }

  // ---------------------------------------------------------------- public sends

  /**
   * Sends and resolves with the SendResult. Forms: `send(msg)`, `send(msg, timeout)`, `send(messages[])` (a batch),
   * `send(msg, mq)`, `send(msg, selector, arg)` (each with an optional trailing timeout). With a SendCallback in
   * place of the timeout (`send(msg, callback)`, `send(msg, mq, callback)`, `send(msg, selector, arg, callback)`)
   * the send is asynchronous and returns undefined, as Java's.
   */
  send(msg: Message | Message[], timeout?: number): Promise<SendResult>;
  send(msg: Message | Message[], mq: MessageQueue, timeout?: number): Promise<SendResult>;
  send(msg: Message, selector: MessageQueueSelector, arg: unknown, timeout?: number): Promise<SendResult>;
  send(msg: Message | Message[], callback: SendCallback, timeout?: number): void;
  send(msg: Message | Message[], mq: MessageQueue, callback: SendCallback, timeout?: number): void;
  send(msg: Message, selector: MessageQueueSelector, arg: unknown, callback: SendCallback, timeout?: number): void;
  send(msg: Message | Message[], a?: unknown, b?: unknown, c?: unknown, d?: unknown): Promise<SendResult> | void {
    const { target, callback, timeout } = this.#parseArgs(a, b, c, d);
    if (callback) {
      this.#sendAsyncBounded(msg, target, timeout).then(
        (r) => { try { callback.onSuccess(r as SendResult); } catch { /* the callback's own failure */ } },
        (err: Error) => { try { callback.onException(err); } catch { /* the callback's own failure */ } },
      );
      return;
    }
    return this.#send(msg, CommunicationMode.SYNC, target, timeout) as Promise<SendResult>;
  }

  /** The asynchronous send as a Promise: `sendAsync(msg)`, `(msg, mq)`, `(msg, selector, arg)`, optional timeout. */
  sendAsync(msg: Message | Message[], timeout?: number): Promise<SendResult>;
  sendAsync(msg: Message | Message[], mq: MessageQueue, timeout?: number): Promise<SendResult>;
  sendAsync(msg: Message, selector: MessageQueueSelector, arg: unknown, timeout?: number): Promise<SendResult>;
  sendAsync(msg: Message | Message[], a?: unknown, b?: unknown, c?: unknown): Promise<SendResult> {
    const { target, timeout } = this.#parseArgs(a, b, c, undefined);
    return this.#sendAsyncBounded(msg, target, timeout);
  }

  /**
   * An asynchronous send under back-pressure when enabled: a permit of the count cap, then the message's body bytes
   * of the size cap, each waited for up to what is left of the timeout, else RemotingTooMuchRequestError with Java's
   * text. Both are given back when the send settles.
   */
  async #sendAsyncBounded(msg: Message | Message[], target: Target, timeout: number): Promise<SendResult> {
    if (!this.options.enableBackpressureForAsyncMode) return this.#send(msg, CommunicationMode.ASYNC, target, timeout) as Promise<SendResult>;
    const begin = Date.now();
    const len = Math.max(1, Array.isArray(msg) ? msg.reduce((s, m) => s + m.body.length, 0) : msg.body.length);
    const size = Math.min(len, this.#asyncSendSize.permits);
    const gotNum = this.#asyncSendNum.tryAcquireNow() || (timeout > 0 && await this.#asyncSendNum.tryAcquire(1, timeout));
    if (!gotNum) throw new RemotingTooMuchRequestError('send message tryAcquire semaphoreAsyncNum timeout');
    try {
      const left = timeout - (Date.now() - begin);
      const gotSize = this.#asyncSendSize.tryAcquireNow(size) || (left > 0 && await this.#asyncSendSize.tryAcquire(size, left));
      if (!gotSize) throw new RemotingTooMuchRequestError('send message tryAcquire semaphoreAsyncSize timeout');
      try {
        return await (this.#send(msg, CommunicationMode.ASYNC, target, timeout - (Date.now() - begin)) as Promise<SendResult>);
      } finally {
        this.#asyncSendSize.release(size);
      }
    } finally {
      this.#asyncSendNum.release();
    }
  }

  /**
   * Request-reply (RocketMQ 4.6+): sends `msg` with CORRELATION_ID, REPLY_TO_CLIENT (this client's id) and TTL
   * (the timeout) and resolves with the reply a consumer sends back with {@link createReplyMessage}, which the broker
   * pushes to this client. `(msg, timeout?)`, `(msg, mq, timeout?)`, `(msg, selector, arg, timeout?)`. Rejects with a
   * `RequestTimeoutError` when the request was sent but no reply came within `timeout` ms (default sendMsgTimeout),
   * with an `MQClientError` when the request could not be sent. With a RequestCallback in place of the timeout
   * (`request(msg, callback, timeout?)`, `(msg, mq, callback, timeout?)`, `(msg, selector, arg, callback, timeout?)`)
   * it returns undefined and the callback gets the reply or the error, as Java's.
   *
   * @see org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl#request
   */
  request(msg: Message, timeout?: number): Promise<MessageExt>;
  request(msg: Message, mq: MessageQueue, timeout?: number): Promise<MessageExt>;
  request(msg: Message, selector: MessageQueueSelector, arg: unknown, timeout?: number): Promise<MessageExt>;
  request(msg: Message, callback: RequestCallback, timeout?: number): void;
  request(msg: Message, mq: MessageQueue, callback: RequestCallback, timeout?: number): void;
  request(msg: Message, selector: MessageQueueSelector, arg: unknown, callback: RequestCallback, timeout?: number): void;
  request(msg: Message, a?: unknown, b?: unknown, c?: unknown, d?: unknown): Promise<MessageExt> | void {
    const { target, callback, timeout } = this.#parseArgs(a, b, c, d);
    if (!callback) return this.#request(msg, target, timeout);
    const cb = callback as unknown as RequestCallback;
    this.#request(msg, target, timeout).then(
      (reply) => { try { cb.onSuccess(reply); } catch { /* the callback's own failure */ } },
      (err: Error) => { try { cb.onException(err); } catch { /* the callback's own failure */ } },
    );
  }

  async #request(msg: Message, target: Target, timeout: number): Promise<MessageExt> {
    const begin = Date.now();
    this.#makeSureStateOK();
    const instance = this.#instance!;
    normalize(msg);
    const correlationId = createCorrelationId();
    msg.properties[MessageConst.PROPERTY_CORRELATION_ID] = correlationId;
    msg.properties[MessageConst.PROPERTY_MESSAGE_REPLY_TO_CLIENT] = instance.clientId;
    msg.properties[MessageConst.PROPERTY_MESSAGE_TTL] = String(timeout);
    const topic = this.clientConfig.withNamespace(msg.topic);
    if (!instance.getTopicRoute(topic)) {
      // The broker pushes the reply over a connection it knows this client by: register before the first request.
      await this.#tryToFindTopicPublishInfo(topic);
      await instance.sendHeartbeatToAllBrokerWithLock();
    }
    const future = RequestFutureHolder.instance.create(correlationId, timeout, timeout - (Date.now() - begin), msg.topic);
    this.#send(msg, CommunicationMode.ASYNC, target, timeout - (Date.now() - begin)).then(
      () => { future.sendRequestOk = true; },
      (err: Error) => future.failSend(err),
    );
    return future.promise;
  }

  /** Sends without waiting for the broker: resolves once written. `(msg)`, `(msg, mq)`, `(msg, selector, arg)`. */
  sendOneway(msg: Message | Message[]): Promise<void>;
  sendOneway(msg: Message | Message[], mq: MessageQueue): Promise<void>;
  sendOneway(msg: Message, selector: MessageQueueSelector, arg: unknown): Promise<void>;
  async sendOneway(msg: Message | Message[], a?: unknown, b?: unknown): Promise<void> {
    const { target } = this.#parseArgs(a, b, undefined, undefined);
    await this.#send(msg, CommunicationMode.ONEWAY, target, this.options.sendMsgTimeout);
  }

  /** `[mq | selector, arg]`, then a callback (SendCallback or RequestCallback: both have onSuccess) and / or a timeout. */
  #parseArgs(a: unknown, b: unknown, c: unknown, d: unknown): { target: Target; callback?: SendCallback; timeout: number } {
    let target: Target = { kind: 'default' };
    let rest: unknown[];
    if (isMessageQueue(a)) {
      target = { kind: 'queue', mq: a };
      rest = [b, c];
    } else if (isSelector(a)) {
      target = { kind: 'selector', selector: a, arg: b };
      rest = [c, d];
    } else {
      rest = [a, b];
    }
    let callback: SendCallback | undefined;
    let timeout = this.options.sendMsgTimeout;
    for (const r of rest) {
      if (isCallback(r)) callback = r;
      else if (typeof r === 'number') timeout = r;
    }
    return { target, callback, timeout };
  }

  // ---------------------------------------------------------------- the send path

  async #send(input: Message | Message[], mode: Mode, target: Target, timeout: number): Promise<SendResult | null> {
    const begin = Date.now();
    let attempts = 0;
    let out: Outgoing | undefined;
    const report = (result: SendResult | null, error?: Error, mq?: MessageQueue) => {
      if (!this.instrumentation.hasListeners('producer.send')) return;
      this.instrumentation.emit('producer.send', () => ({
        group: this.options.producerGroup,
        topic: out?.userTopic ?? (Array.isArray(input) ? input[0]?.topic : input.topic) ?? '',
        mode,
        count: out?.count ?? 1,
        durationMs: Date.now() - begin,
        attempts,
        brokerName: result?.messageQueue.brokerName ?? mq?.brokerName,
        queueId: result?.messageQueue.queueId ?? mq?.queueId,
        sendStatus: result?.sendStatus,
        msgId: result?.msgId ?? out?.uniqMsgId,
        error,
      }));
    };
    try {
      this.#makeSureStateOK();
      out = this.#prepare(input);
      let result: SendResult | null;
      if (target.kind === 'default') {
        result = await this.#sendDefault(out, mode, timeout, begin, (n) => { attempts = n; });
      } else {
        attempts = 1;
        result = await this.#sendToChosen(out, mode, target, timeout, begin);
      }
      report(result);
      return result;
    } catch (err) {
      report(null, err as Error);
      throw err;
    }
  }

  #makeSureStateOK(): void {
    if (!this.#instance || !this.#lifecycle.isRunning) {
      throw new ServiceStateError(`The producer service state not OK, ${this.#lifecycle.current.toUpperCase()}`);
    }
  }

  /** Validation, UNIQ_KEY, namespace, batch encoding. */
  #prepare(input: Message | Message[]): Outgoing {
    const maxMessageSize = this.options.maxMessageSize;
    const namespace = this.clientConfig.getNamespace();
    if (Array.isArray(input)) {
      const messages = input.map(normalize);
      checkBatch(messages);
      const ids: string[] = new Array(messages.length);
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i];
        checkMessage({ topic: this.clientConfig.withNamespace(m.topic), body: m.body }, maxMessageSize);
        ids[i] = setUniqId(m);
        if (namespace) m.properties[MessageConst.PROPERTY_INSTANCE_ID] = namespace;
      }
      const first = messages[0];
      const topic = this.clientConfig.withNamespace(first.topic);
      const body = encodeBatchBody(messages, propertiesToJavaString);
      const batch: Message = {
        topic,
        flag: 0,
        properties: { [MessageConst.PROPERTY_WAIT_STORE_MSG_OK]: first.properties[MessageConst.PROPERTY_WAIT_STORE_MSG_OK] === 'false' ? 'false' : 'true' },
        body,
      };
      checkMessage(batch, maxMessageSize);
      return { msg: batch, topic, userTopic: first.topic, body, flag: 0, batch: true, uniqMsgId: ids.join(','), count: messages.length };
    }
    const msg = normalize(input);
    const topic = this.clientConfig.withNamespace(msg.topic);
    checkMessage({ topic, body: msg.body }, maxMessageSize);
    const uniqMsgId = setUniqId(msg);
    if (namespace) msg.properties[MessageConst.PROPERTY_INSTANCE_ID] = namespace;
    return { msg, topic, userTopic: withoutNamespace(msg.topic, namespace), body: msg.body, flag: msg.flag, batch: false, uniqMsgId, count: 1 };
  }

  async #sendDefault(out: Outgoing, mode: Mode, timeout: number, begin: number, setAttempts: (n: number) => void): Promise<SendResult | null> {
    const info = await this.#tryToFindTopicPublishInfo(out.topic);
    if (!info || !info.ok()) {
      this.#validateNameServerSetting();
      throw new MQClientError(ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION, `No route info of this topic: ${out.topic}`);
    }
    const timesTotal = mode === CommunicationMode.SYNC
      ? 1 + this.options.retryTimesWhenSendFailed
      : mode === CommunicationMode.ASYNC ? 1 + this.options.retryTimesWhenSendAsyncFailed : 1;
    const brokersSent: string[] = [];
    let mq: MessageQueue | null = null;
    let cost = 0;
    const outcome = await retry<SendResult | null>(async (times) => {
      const chosen = mq!;
      setAttempts(times + 1);
      const latencyBegin = this.#now();
      try {
        const r = await this.#sendKernel(out, chosen, mode, timeout - cost);
        this.#faultStrategy.updateFaultItem(chosen.brokerName, this.#now() - latencyBegin, false);
        return r;
      } catch (err) {
        this.#faultStrategy.updateFaultItem(chosen.brokerName, this.#now() - latencyBegin, true);
        throw err;
      }
    }, {
      attempts: timesTotal,
      // Each attempt on a queue of another broker than the last one where possible; none starts once the
      // timeout has elapsed.
      beforeAttempt: () => {
        mq = this.#faultStrategy.selectOneMessageQueue(info, mq ? mq.brokerName : null);
        brokersSent.push(mq.brokerName);
        cost = Date.now() - begin;
        return timeout >= cost;
      },
      // A stored-but-not-OK sync send tries another broker only with retryAnotherBrokerWhenNotStoreOK.
      accept: (r) => !(mode === CommunicationMode.SYNC && r && r.sendStatus !== SendStatus.SEND_OK && this.options.retryAnotherBrokerWhenNotStoreOK),
      onError: (err, times, state) => {
        this.#logger.warn({ err, attempt: times + 1, brokerName: mq!.brokerName, topic: out.topic }, 'send failed');
        return sendRetryDecision(err, mode, this.retryResponseCodes, state.hasResult && !!state.result);
      },
    });
    if (outcome.end === 'accepted') return outcome.result!;
    const sendResult = outcome.result;
    const lastError = outcome.lastError;
    const times = outcome.attempts;
    if (sendResult) return sendResult;
    if (outcome.end === 'budget' || outcome.end === 'stopped') {
      throw new RemotingTooMuchRequestError(`sendDefaultImpl call timeout after ${Date.now() - begin} ms`, { cause: lastError });
    }
    let code: number = -1;
    if (lastError instanceof MQBrokerError) code = lastError.responseCode;
    else if (lastError instanceof RemotingConnectError) code = ClientErrorCode.CONNECT_BROKER_EXCEPTION;
    else if (lastError instanceof RemotingTimeoutError) code = ClientErrorCode.ACCESS_BROKER_TIMEOUT;
    else if (lastError instanceof MQClientError) code = ClientErrorCode.BROKER_NOT_EXIST_EXCEPTION;
    throw new MQClientError(
      code,
      `Send [${times}] times, still failed, cost [${Date.now() - begin}]ms, Topic: ${out.topic}, BrokersSent: [${brokersSent.join(', ')}]` +
        (lastError instanceof Error ? `: ${lastError.message}` : ''),
      { cause: lastError },
    );
  }

  async #sendToChosen(out: Outgoing, mode: Mode, target: Exclude<Target, { kind: 'default' }>, timeout: number, begin: number): Promise<SendResult | null> {
    const info = await this.#tryToFindTopicPublishInfo(out.topic);
    let mq: MessageQueue | null;
    if (target.kind === 'queue') {
      mq = this.clientConfig.queueWithNamespace(target.mq);
      if (mq.topic !== out.topic) throw new InvalidArgumentError("message's topic not equal mq's topic");
    } else {
      if (!info || !info.ok()) {
        this.#validateNameServerSetting();
        throw new MQClientError(ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION, `No route info for this topic, ${out.topic}`);
      }
      const namespace = this.clientConfig.getNamespace();
      const userMessage: Message = { ...out.msg, topic: withoutNamespace(out.msg.topic, namespace) };
      const chosen = target.selector.select(info.messageQueueList, userMessage, target.arg);
      mq = chosen ? this.clientConfig.queueWithNamespace(chosen) : null;
      if (!mq) throw new InvalidArgumentError('select message queue return null.');
    }
    const cost = Date.now() - begin;
    if (timeout < cost) throw new RemotingTooMuchRequestError('sendSelectImpl call timeout');
    const latencyBegin = this.#now();
    try {
      const r = await this.#sendKernel(out, mq, mode, timeout - cost);
      this.#faultStrategy.updateFaultItem(mq.brokerName, this.#now() - latencyBegin, false);
      return r;
    } catch (err) {
      this.#faultStrategy.updateFaultItem(mq.brokerName, this.#now() - latencyBegin, true);
      throw err;
    }
  }

  async #tryToFindTopicPublishInfo(topic: string): Promise<TopicPublishInfo> {
    const instance = this.#instance!;
    let info = this.#topicPublishInfoTable.get(topic);
    if (!info || !info.ok()) {
      if (!info) this.#topicPublishInfoTable.set(topic, new TopicPublishInfo());
      await instance.updateTopicRouteInfoFromNameServer(topic);
      info = this.#topicPublishInfoTable.get(topic)!;
    }
    if (info.haveTopicRouterInfo || info.ok()) return info;
    await instance.updateTopicRouteInfoFromNameServer(topic, {
      createTopicKey: this.options.createTopicKey,
      defaultTopicQueueNums: this.options.defaultTopicQueueNums,
    });
    return this.#topicPublishInfoTable.get(topic) ?? info;
  }

  #validateNameServerSetting(): void {
    if (!this.#instance || this.#instance.api.getNameServerAddressList().length === 0) {
      throw new MQClientError(ClientErrorCode.NO_NAME_SERVER_EXCEPTION, 'No name server address, please set it.');
    }
  }

  async #sendKernel(out: Outgoing, mq: MessageQueue, mode: Mode, timeout: number): Promise<SendResult | null> {
    const begin = Date.now();
    const instance = this.#instance!;
    let brokerAddr = instance.findBrokerAddressInPublish(mq.brokerName);
    if (!brokerAddr) {
      await this.#tryToFindTopicPublishInfo(mq.topic);
      brokerAddr = instance.findBrokerAddressInPublish(mq.brokerName);
    }
    if (!brokerAddr) throw new BrokerNotFoundError(mq.brokerName);
    brokerAddr = brokerVIPChannel(this.clientConfig.vipChannelEnabled, brokerAddr);

    const msg = out.msg;
    let sysFlag = 0;
    let body = out.body;
    if (!out.batch && body.length >= this.options.compressMsgBodyOverHowmuch) {
      body = compressBodyWith(this.#compressType, body, this.options.compressLevel);
      sysFlag |= MessageSysFlag.COMPRESSED_FLAG | compressionFlag(this.#compressType);
    }
    const tran = msg.properties[MessageConst.PROPERTY_TRANSACTION_PREPARED];
    if (tran !== undefined && tran.toLowerCase() === 'true') sysFlag |= MessageSysFlag.TRANSACTION_PREPARED_TYPE;

    const header: SendMessageHeader = {
      producerGroup: this.#wireGroup(),
      topic: out.topic,
      defaultTopic: this.options.createTopicKey,
      defaultTopicQueueNums: this.options.defaultTopicQueueNums,
      queueId: mq.queueId,
      sysFlag,
      bornTimestamp: Date.now(),
      flag: out.flag,
      properties: propertiesToJavaString(msg.properties),
      reconsumeTimes: 0,
      unitMode: this.clientConfig.unitMode,
      batch: out.batch,
    };
    if (msg.properties[MessageConst.PROPERTY_MESSAGE_TYPE] === MixAll.REPLY_MESSAGE_FLAG) header.reply = true;
    if (out.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
      const reconsumeTimes = msg.properties[MessageConst.PROPERTY_RECONSUME_TIME];
      if (reconsumeTimes !== undefined) {
        header.reconsumeTimes = Number.parseInt(reconsumeTimes, 10);
        delete msg.properties[MessageConst.PROPERTY_RECONSUME_TIME];
      }
      const maxReconsumeTimes = msg.properties[MessageConst.PROPERTY_MAX_RECONSUME_TIMES];
      if (maxReconsumeTimes !== undefined) {
        header.maxReconsumeTimes = Number.parseInt(maxReconsumeTimes, 10);
        delete msg.properties[MessageConst.PROPERTY_MAX_RECONSUME_TIMES];
      }
    }
    const target: SendMessageTarget = { brokerAddr, brokerName: mq.brokerName, body, uniqMsgId: out.uniqMsgId, userTopic: out.userTopic };
    const trace = this.traceDispatcher ? sendTraceBefore(this.traceDispatcher, this.options.producerGroup, out.userTopic, msg, brokerAddr, body.length) : null;
    const cost = Date.now() - begin;
    if (timeout < cost) throw new RemotingTooMuchRequestError('sendKernelImpl call timeout');
    if (mode === CommunicationMode.ONEWAY) {
      await instance.api.sendMessageOneway(target, header, timeout - cost);
      return null;
    }
    const result = await instance.api.sendMessage(target, header, timeout - cost);
    if (trace) sendTraceAfter(this.traceDispatcher!, trace, result);
    return result;
  }
}

/** Sets UNIQ_KEY when absent (Java MessageClientIDSetter.setUniqID) and returns it. */
function setUniqId(msg: Message): string {
  const key = MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX;
  let id = msg.properties[key];
  if (id === undefined) {
    id = createUniqId();
    msg.properties[key] = id;
  }
  return id;
}
