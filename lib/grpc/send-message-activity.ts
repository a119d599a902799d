/**
 * SendMessage: the messages of one request (one topic) stored through the broker's SEND_MESSAGE processor (a batch
 * through SEND_BATCH_MESSAGE), on the queue Java's proxy picks: the message group's consistent hash over the
 * writable queues, else the next queue in turn. Each message keeps its 5.x id as UNIQ_KEY; the answer carries it,
 * the queue offset and the transaction id.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.producer.SendMessageActivity
 * @see org.apache.rocketmq.proxy.service.message.LocalMessageService#sendMessage
 */
import { isWriteable } from '../../protocol/body/perm-name';
import { ResponseCode } from '../../protocol/code/response-code';
import { encodeBatchBody } from '../../protocol/message/batch';
import { javaStringHashCode } from '../../protocol/message/java-hash';
import { decodeOffsetMessageId } from '../../protocol/message/message-id';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import { propertiesToString } from '../../protocol/message/properties';
import { MixAll, TopicValidator } from '../../protocol/mix-all';
import { MessageConst } from '../../protocol/message/message-const';
import type { MessageProperties } from '../../protocol/message/properties';
import { SendBatchMessage, SendMessage } from '../../protocol/requests/send-message';
import { SendMessageResponseHeader } from '../../protocol/header/send-message-response-header';
import { GrpcProxyError } from '../errors';
import type { ActivityContext } from './activity-context';
import type { GrpcClientChannel } from './grpc-client-channel';
import { buildMessageProperties, buildSysFlag, validateMessageBodySize } from './grpc-converter';
import { validateTopic } from './grpc-validator';
import type { PbStatus, SendMessageRequest } from './pb';
import type { ProxyContext } from './proxy-context';
import { buildStatus, topicNotExistMessage } from './response-builder';
import { topicMessageType } from './route-activity';
import type { TransactionService } from './transaction-service';

/** Guava's Hashing.consistentHash(long, int) (the proxy's queue of a message group). */
export function consistentHash(input: number | bigint, buckets: number): number {
  let state = BigInt.asUintN(64, BigInt(input));
  let candidate = 0;
  for (;;) {
    state = BigInt.asUintN(64, 2862933555777941757n * state + 1n);
    const next = Math.trunc((candidate + 1) / ((Number(BigInt.asIntN(32, state >> 33n)) + 1) / 0x80000000));
    if (next >= 0 && next < buckets) candidate = next;
    else return candidate;
  }
}

/** TopicMessageType.parseFromMessageProperty: the type a message's properties make it. */
export function parseTopicMessageType(props: MessageProperties): string {
  if (props[MessageConst.PROPERTY_TRANSACTION_PREPARED] === 'true') return 'TRANSACTION';
  if (props[MessageConst.PROPERTY_DELAY_TIME_LEVEL] !== undefined || props[MessageConst.PROPERTY_TIMER_DELIVER_MS] !== undefined
    || props[MessageConst.PROPERTY_TIMER_DELAY_SEC] !== undefined || props[MessageConst.PROPERTY_TIMER_DELAY_MS] !== undefined) return 'DELAY';
  if (props[MessageConst.PROPERTY_SHARDING_KEY] !== undefined) return 'FIFO';
  return 'NORMAL';
}

/** DefaultTopicMessageTypeValidator.validate: MESSAGE_PROPERTY_CONFLICT_WITH_TYPE unless the types match or the topic is MIXED. */
export function validateTopicMessageType(expectedType: string, actualType: string): void {
  if (actualType === 'UNSPECIFIED' || (actualType !== expectedType && expectedType !== 'MIXED')) {
    throw new GrpcProxyError('MESSAGE_PROPERTY_CONFLICT_WITH_TYPE',
      `TopicMessageType validate failed, the expected type is ${expectedType}, but actual type is ${actualType}`);
  }
}

interface SendResultEntry { status: PbStatus; messageId?: string; transactionId?: string; offset?: number; recallHandle?: string }

export class SendMessageActivity {
  /** The next queue of each topic (MessageQueueSelector.selectOneByPipeline's index). */
  readonly #index = new Map<string, number>();

  constructor(private readonly a: ActivityContext, private readonly transactions: TransactionService) {}

  async sendMessage(ctx: ProxyContext, req: SendMessageRequest, channel: GrpcClientChannel): Promise<{ status: PbStatus; entries: SendResultEntry[] }> {
    if (!req.messages || req.messages.length === 0) throw new GrpcProxyError('MESSAGE_CORRUPTED', 'no message to send');
    const first = req.messages[0];
    const topic = validateTopic(first.topic);
    const now = Date.now();
    const entries = req.messages.map((m) => {
      if (m.topic?.name !== topic || (m.topic?.resourceNamespace ?? '') !== (first.topic?.resourceNamespace ?? '')) {
        throw new GrpcProxyError('MESSAGE_CORRUPTED', 'topic in message is not same');
      }
      validateMessageBodySize(m.body, this.a.config);
      return { body: m.body, properties: buildMessageProperties(m, topic, ctx.remoteAddress, this.a.config, now) };
    });
    const tc = this.a.broker.topicConfigManager.selectTopicConfig(topic);
    // ProducerProcessor: the message's type checked against the topic's (a topic the broker lacks is UNSPECIFIED).
    if (this.a.config.enableTopicMessageTypeCheck && entries[0].properties[MessageConst.PROPERTY_TRANSFER_FLAG] === undefined
      && !topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) && !topic.startsWith(MixAll.DLQ_GROUP_TOPIC_PREFIX)) {
      validateTopicMessageType(tc ? topicMessageType(tc) : 'UNSPECIFIED', parseTopicMessageType(entries[0].properties));
    }
    if (!tc) throw new GrpcProxyError('TOPIC_NOT_FOUND', topicNotExistMessage(topic));
    const writeQueues = isWriteable(tc.perm) ? tc.writeQueueNums : 0;
    if (writeQueues <= 0) throw new GrpcProxyError('FORBIDDEN', `no writable queue of topic ${topic}`);
    const shardingKey = req.messages.length === 1 ? (first.systemProperties?.messageGroup ?? '') : '';
    let queueId: number;
    if (shardingKey) {
      queueId = consistentHash(javaStringHashCode(shardingKey), writeQueues);
    } else {
      const i = this.#index.get(topic) ?? Math.floor(Math.random() * writeQueues);
      this.#index.set(topic, (i + 1) % 0x7fffffff);
      queueId = i % writeQueues;
    }
    const header = {
      producerGroup: topic,
      topic,
      defaultTopic: TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC,
      defaultTopicQueueNums: 4,
      queueId,
      sysFlag: buildSysFlag(first),
      bornTimestamp: now,
      flag: 0,
      reconsumeTimes: 0,
      unitMode: false,
      batch: entries.length > 1,
    };
    const request = entries.length === 1
      ? SendMessage.request({ ...header, properties: propertiesToString(entries[0].properties) }, entries[0].body)
      : SendBatchMessage.request(header, encodeBatchBody(entries));
    const response = await this.a.invoker.invoke(request, channel);
    let status: PbStatus;
    switch (response.code) {
      case ResponseCode.FLUSH_DISK_TIMEOUT:
        status = buildStatus('MASTER_PERSISTENCE_TIMEOUT', 'send message failed, sendStatus=FLUSH_DISK_TIMEOUT');
        break;
      case ResponseCode.FLUSH_SLAVE_TIMEOUT:
        status = buildStatus('SLAVE_PERSISTENCE_TIMEOUT', 'send message failed, sendStatus=FLUSH_SLAVE_TIMEOUT');
        break;
      case ResponseCode.SLAVE_NOT_AVAILABLE:
        status = buildStatus('HA_NOT_AVAILABLE', 'send message failed, sendStatus=SLAVE_NOT_AVAILABLE');
        break;
      case ResponseCode.SUCCESS: {
        const h = SendMessageResponseHeader.decode(response.extFields);
        const messageId = entries.map((e) => e.properties.UNIQ_KEY).join(',');
        // A 5.x broker answers the message's UNIQ_KEY as its transaction id (SendMessageProcessor); the same here
        // when the answer has none.
        const transactionId = h.transactionId || (entries.length === 1 ? entries[0].properties.UNIQ_KEY ?? '' : '');
        if ((header.sysFlag & MessageSysFlag.TRANSACTION_PREPARED_TYPE) !== 0 && transactionId) {
          this.#fillTransactionData(topic, h.msgId, h.queueOffset, transactionId);
        }
        const entry: SendResultEntry = {
          status: buildStatus('OK', 'OK'), offset: h.queueOffset, messageId, transactionId, recallHandle: h.recallHandle ?? '',
        };
        return { status: entry.status, entries: [entry] };
      }
      default:
        throw new GrpcProxyError('INTERNAL_SERVER_ERROR', response.remark ?? `send message failed, code ${response.code}`);
    }
    return { status, entries: [{ status }] };
  }

  /** ProducerProcessor.fillTransactionData: the half message's offsets kept for its EndTransaction (group = topic). */
  #fillTransactionData(topic: string, offsetMsgId: string, queueOffset: number, transactionId: string): void {
    try {
      const commitLogOffset = decodeOffsetMessageId(offsetMsgId).offset;
      this.transactions.addTransactionData(topic, topic, queueOffset, commitLogOffset, transactionId);
    } catch (err) {
      this.a.logger.warn({ err, topic, offsetMsgId, transactionId }, 'fillTransactionData failed');
    }
  }
}
