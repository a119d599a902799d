/**
 * The producer that writes trace messages: Java's AsyncTraceDispatcher owns a DefaultMQProducer of group
 * `_INNER_TRACE_PRODUCER-<group>-<PRODUCE|CONSUME>-<n>` on its own client instance (`PID_CLIENT_INNER_TRACE_PRODUCER_
 * <namesrvAddr>`), sendMsgTimeout 5000, maxMessageSize 128000, no VIP channel. It lives in lib/client (below the
 * producer and the consumers, which both trace) and sends through MQClientAPI as the producer's send path does,
 * without retries: a lost trace is logged, never retried (Java sends it async with a callback that only logs).
 *
 * @see org.apache.rocketmq.client.trace.AsyncTraceDispatcher#getAndCreateTraceProducer
 */
import { compressBody } from '../../../protocol/message/compression';
import { MessageConst } from '../../../protocol/message/message-const';
import { createUniqId } from '../../../protocol/message/message-id';
import { propertiesToJavaString } from '../../../protocol/message/properties';
import { MessageSysFlag } from '../../../protocol/message/sys-flag';
import { TraceConstants } from '../../../protocol/trace/trace-data-encoder';
import { BrokerNotFoundError, InvalidArgumentError, MQClientError, ResourceNotFoundError, ServiceStateError } from '../../errors';
import type { Logger } from '../../logger';
import type { ClientConfig } from '../client-config';
import type { MQProducerInner } from '../inner';
import { TopicValidator } from '../mix-all';
import type { MQClientInstance, MQClientInstanceOptions } from '../mq-client-instance';
import type { MQClientManager } from '../mq-client-manager';
import { TopicPublishInfo } from '../topic-publish-info';

/** Java's trace producer settings. */
export const TRACE_PRODUCER_DEFAULTS = Object.freeze({ sendMsgTimeout: 5000, maxMessageSize: 128000, compressMsgBodyOverHowmuch: 4096, compressLevel: 5 });

export class TraceProducer implements MQProducerInner {
  readonly maxMessageSize = TRACE_PRODUCER_DEFAULTS.maxMessageSize;
  readonly #publishInfo = new Map<string, TopicPublishInfo>();
  #instance: MQClientInstance | null = null;

  constructor(
    readonly group: string,
    private readonly clientConfig: ClientConfig,
    private readonly manager: MQClientManager,
    private readonly instanceOptions: MQClientInstanceOptions,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.#instance) return;
    const instance = this.manager.acquire(this.clientConfig, this.instanceOptions);
    if (!instance.registerProducer(this.group, this)) {
      await this.manager.release(instance);
      throw new InvalidArgumentError(`The producer group[${this.group}] has been created before, specify another name please.`);
    }
    this.#instance = instance;
    try {
      await instance.start();
    } catch (err) {
      await instance.unregisterProducer(this.group);
      await this.manager.release(instance);
      this.#instance = null;
      throw err;
    }
  }

  async shutdown(): Promise<void> {
    const instance = this.#instance;
    if (!instance) return;
    this.#instance = null;
    await instance.unregisterProducer(this.group);
    await this.manager.release(instance);
    this.#publishInfo.clear();
  }

  // MQProducerInner
  getPublishTopicList(): Iterable<string> {
    return this.#publishInfo.keys();
  }
  isPublishTopicNeedUpdate(topic: string): boolean {
    const info = this.#publishInfo.get(topic);
    return !info || !info.ok();
  }
  updateTopicPublishInfo(topic: string, info: TopicPublishInfo): void {
    this.#publishInfo.set(topic, info);
  }
  isUnitMode(): boolean {
    return this.clientConfig.unitMode;
  }

  /** Sends one trace message (body UTF-8, KEYS the key set joined by spaces); rejects on any failure. */
  async send(topic: string, data: string, keys: Iterable<string>): Promise<void> {
    const instance = this.#instance;
    if (!instance) throw new ServiceStateError('The trace producer is not running');
    let info = this.#publishInfo.get(topic);
    if (!info || !info.ok()) {
      if (!info) this.#publishInfo.set(topic, new TopicPublishInfo());
      await instance.updateTopicRouteInfoFromNameServer(topic);
      info = this.#publishInfo.get(topic)!;
      if (!info.ok()) {
        // no route yet: the broker creates the topic from the default topic (Java's send without a broker set)
        await instance.updateTopicRouteInfoFromNameServer(topic, { createTopicKey: TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, defaultTopicQueueNums: 4 });
        info = this.#publishInfo.get(topic)!;
      }
    }
    if (!info.ok()) throw new ResourceNotFoundError(`No route info of this topic: ${topic}`);
    const mq = info.selectOneMessageQueue();
    const brokerAddr = instance.findBrokerAddressInPublish(mq.brokerName);
    if (!brokerAddr) throw new BrokerNotFoundError(mq.brokerName);
    let body: Buffer = Buffer.from(data, 'utf8');
    if (body.length > TRACE_PRODUCER_DEFAULTS.maxMessageSize) throw new MQClientError(13, `the message body size over max value, MAX: ${TRACE_PRODUCER_DEFAULTS.maxMessageSize}`);
    const uniqId = createUniqId();
    const properties: Record<string, string> = { [MessageConst.PROPERTY_WAIT_STORE_MSG_OK]: 'true', [MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX]: uniqId };
    const keyString = [...keys].join(' ').trim();
    if (keyString.length > 0) properties[MessageConst.PROPERTY_KEYS] = keyString;
    let sysFlag = 0;
    if (body.length >= TRACE_PRODUCER_DEFAULTS.compressMsgBodyOverHowmuch) {
      body = compressBody(body, TRACE_PRODUCER_DEFAULTS.compressLevel);
      sysFlag |= MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_ZLIB_TYPE;
    }
    await instance.api.sendMessage(
      { brokerAddr, brokerName: mq.brokerName, body, uniqMsgId: uniqId, userTopic: topic },
      {
        producerGroup: this.group, topic, defaultTopic: TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, defaultTopicQueueNums: 4, queueId: mq.queueId,
        sysFlag, bornTimestamp: Date.now(), flag: 0, properties: propertiesToJavaString(properties), reconsumeTimes: 0, unitMode: this.clientConfig.unitMode,
        batch: false,
      },
      TRACE_PRODUCER_DEFAULTS.sendMsgTimeout,
    );
    this.logger.debug({ topic, brokerName: mq.brokerName, bytes: body.length }, 'trace data sent');
  }
}

/** The client instance name of the trace producers for one name-server address. */
export function traceInstanceName(namesrvAddr: string | undefined): string {
  return `${TraceConstants.TRACE_INSTANCE_NAME}_${namesrvAddr ?? ''}`;
}
