/**
 * The transaction service's access to the broker: the store (half, op and real topics), the consumer offsets of
 * the internal group CID_RMQ_SYS_TRANS, and the system topic configs. Everything lives in the store and the
 * consumer-offset table, so the state survives a restart.
 *
 * @see org.apache.rocketmq.broker.transaction.queue.TransactionalMessageBridge
 */
import { MessageConst } from '../../../protocol/message/message-const';
import { decodeMessage } from '../../../protocol/message/message-decoder';
import type { MessageExt } from '../../../protocol/message/message';
import { propertiesToString, type MessageProperties } from '../../../protocol/message/properties';
import { MessageSysFlag, resetTransactionValue } from '../../../protocol/message/sys-flag';
import { createUniqId } from '../../../protocol/message/message-id';
import type { Logger } from '../../logger';
import type { MessageExtBrokerInner } from '../../store/commit-log';
import { GetMessageStatus, PutMessageStatus, type GetMessageResult, type PutMessageResult } from '../../store/store-status';
import type { HostAddress } from '../../store/stored-record';
import { TransactionalMessageUtil, buildConsumerGroup, buildHalfTopic, buildOpTopic } from './transactional-message-util';

/** The store calls the transaction code makes (a subset of lib/store's DefaultMessageStore and the broker's MessageStore). */
export interface TransactionMessageStore {
  putMessage(msg: MessageExtBrokerInner): Promise<PutMessageResult>;
  getMessage(group: string, topic: string, queueId: number, offset: number, maxMsgNums: number): Promise<GetMessageResult>;
  lookMessageByOffset(commitLogOffset: number): Promise<Buffer | null>;
  getMinOffsetInQueue(topic: string, queueId: number): number;
}

/** What the transaction code needs of the broker (BrokerController implements it through a small adapter). */
export interface TransactionBrokerPort {
  readonly brokerName: string;
  /** The broker's store host, written as born and store host of op messages. */
  readonly storeHost: HostAddress;
  readonly messageStore: TransactionMessageStore;
  /** MessageStoreConfig.fileReservedTime (hours): older half messages are no longer checked. */
  readonly fileReservedTime: number;
  /** ConsumerOffsetManager.queryOffset: -1 when the group never committed an offset for the queue. */
  queryConsumerOffset(group: string, topic: string, queueId: number): number;
  /** ConsumerOffsetManager.commitOffset. */
  commitConsumerOffset(clientHost: string, group: string, topic: string, queueId: number, offset: number): void;
  /**
   * The topic's read queue count; creates the topic (queueNums queues, read+write) when absent, as
   * TopicConfigManager.createTopicInSendMessageBackMethod / createTopicOfTranCheckMaxTime do.
   */
  ensureSystemTopic(topic: string, queueNums: number): number;
}

/** Java's PullStatus, as the bridge reports an internal read. */
export const PullStatus = {
  FOUND: 'FOUND',
  NO_NEW_MSG: 'NO_NEW_MSG',
  NO_MATCHED_MSG: 'NO_MATCHED_MSG',
  OFFSET_ILLEGAL: 'OFFSET_ILLEGAL',
} as const;
export type PullStatus = (typeof PullStatus)[keyof typeof PullStatus];

/** @see org.apache.rocketmq.client.consumer.PullResult (as the bridge fills it) */
export interface InternalPullResult {
  pullStatus: PullStatus;
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
  /** null unless FOUND. */
  msgFoundList: MessageExt[] | null;
}

/** A broker-side decode: msgId is the offset message id, the body stays as stored (Java's decode(bb, true, false)). */
export function decodeBrokerMessage(record: Buffer): MessageExt {
  return decodeMessage(record, 0, { clientMsgId: false, decompressBody: false, copyBody: true });
}

export function getTags(msg: { properties: MessageProperties }): string | undefined {
  return msg.properties[MessageConst.PROPERTY_TAGS];
}

function hostOf(a: { address: string; port: number }): HostAddress {
  return { host: a.address, port: a.port };
}

function hostString(h: HostAddress): string {
  return `${h.host}:${h.port}`;
}

export class TransactionalMessageBridge {
  constructor(readonly broker: TransactionBrokerPort, private readonly log: Logger) {}

  /** The queues of `topic` (queue ids 0..readQueueNums-1), creating the topic with one queue when absent. */
  fetchMessageQueues(topic: string): number[] {
    const n = this.broker.ensureSystemTopic(topic, 1);
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(i);
    return out;
  }

  /** The internal group's offset of topic/queueId; the queue's min offset when none was committed. */
  fetchConsumeOffset(topic: string, queueId: number): number {
    let offset = this.broker.queryConsumerOffset(buildConsumerGroup(), topic, queueId);
    if (offset === -1) {
      // Java's findConsumeQueue creates a missing queue, so its min offset is 0; our store answers -1 for it.
      offset = Math.max(0, this.broker.messageStore.getMinOffsetInQueue(topic, queueId));
    }
    return offset;
  }

  updateConsumeOffset(topic: string, queueId: number, offset: number): void {
    this.broker.commitConsumerOffset(hostString(this.broker.storeHost), buildConsumerGroup(), topic, queueId, offset);
  }

  getHalfMessage(queueId: number, offset: number, nums: number): Promise<InternalPullResult> {
    return this.#getMessage(buildHalfTopic(), queueId, offset, nums);
  }

  getOpMessage(queueId: number, offset: number, nums: number): Promise<InternalPullResult> {
    return this.#getMessage(buildOpTopic(), queueId, offset, nums);
  }

  async #getMessage(topic: string, queueId: number, offset: number, nums: number): Promise<InternalPullResult> {
    const group = buildConsumerGroup();
    const r = await this.broker.messageStore.getMessage(group, topic, queueId, offset, nums);
    let pullStatus: PullStatus = PullStatus.NO_NEW_MSG;
    let found: MessageExt[] | null = null;
    switch (r.status) {
      case GetMessageStatus.FOUND:
        pullStatus = PullStatus.FOUND;
        found = r.messages.map(decodeBrokerMessage);
        break;
      case GetMessageStatus.NO_MATCHED_MESSAGE:
        pullStatus = PullStatus.NO_MATCHED_MSG;
        this.log.warn({ status: r.status, topic, group, offset }, 'no matched message');
        break;
      case GetMessageStatus.NO_MESSAGE_IN_QUEUE:
      case GetMessageStatus.OFFSET_OVERFLOW_ONE:
        pullStatus = PullStatus.NO_NEW_MSG;
        break;
      default:
        pullStatus = PullStatus.OFFSET_ILLEGAL;
        this.log.warn({ status: r.status, topic, group, offset }, 'offset illegal');
        break;
    }
    return { pullStatus, nextBeginOffset: r.nextBeginOffset, minOffset: r.minOffset, maxOffset: r.maxOffset, msgFoundList: found };
  }

  /** Stores a prepared message as a half message (parseHalfMessageInner). `properties` is the message's map. */
  putHalfMessage(inner: MessageExtBrokerInner, properties: MessageProperties): Promise<PutMessageResult> {
    return this.broker.messageStore.putMessage(parseHalfMessageInner(inner, properties));
  }

  /** Records that the half message `halfMsg` is done (commit or rollback): an op message tagged "d". */
  async putOpMessage(halfMsg: MessageExt, opType: string): Promise<boolean> {
    if (opType !== TransactionalMessageUtil.REMOVETAG) return true;
    const now = Date.now();
    const props: MessageProperties = {
      [MessageConst.PROPERTY_TAGS]: TransactionalMessageUtil.REMOVETAG,
      [MessageConst.PROPERTY_WAIT_STORE_MSG_OK]: 'true',
      [MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX]: createUniqId(),
    };
    const inner: MessageExtBrokerInner = {
      topic: buildOpTopic(),
      queueId: halfMsg.queueId,
      flag: 0,
      body: Buffer.from(String(halfMsg.queueOffset), 'utf8'),
      propertiesString: propertiesToString(props),
      bornTimestamp: now,
      bornHost: this.broker.storeHost,
      storeHost: this.broker.storeHost,
      sysFlag: 0,
      reconsumeTimes: 0,
      preparedTransactionOffset: 0,
    };
    return this.putMessage(inner);
  }

  putMessageReturnResult(inner: MessageExtBrokerInner): Promise<PutMessageResult> {
    return this.broker.messageStore.putMessage(inner);
  }

  async putMessage(inner: MessageExtBrokerInner): Promise<boolean> {
    const r = await this.broker.messageStore.putMessage(inner);
    if (r.putMessageStatus === PutMessageStatus.PUT_OK) return true;
    this.log.error({ topic: inner.topic, queueId: inner.queueId, status: r.putMessageStatus }, 'put message failed');
    return false;
  }

  /** The stored message at a commit-log offset, decoded as the broker sees it, or null. */
  async lookMessageByOffset(commitLogOffset: number): Promise<MessageExt | null> {
    const rec = await this.broker.messageStore.lookMessageByOffset(commitLogOffset);
    if (!rec) return null;
    try {
      return decodeBrokerMessage(rec);
    } catch (err) {
      this.log.warn({ err, commitLogOffset }, 'stored record at offset does not decode');
      return null;
    }
  }
}

/**
 * Java's parseHalfMessageInner: keeps the real topic and queue in REAL_TOPIC / REAL_QID, clears the transaction
 * type of the sysFlag and moves the message to the half topic, queue 0.
 */
export function parseHalfMessageInner(inner: MessageExtBrokerInner, properties: MessageProperties): MessageExtBrokerInner {
  const props: MessageProperties = { ...properties };
  // 5.x: the half message carries its transaction id (the producer's message id), as Java 5.3.3's parseHalfMessageInner.
  const uniqId = props[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX];
  if (uniqId) props[MessageConst.PROPERTY_TRANSACTION_ID] = uniqId;
  props[MessageConst.PROPERTY_REAL_TOPIC] = inner.topic;
  props[MessageConst.PROPERTY_REAL_QUEUE_ID] = String(inner.queueId);
  return {
    ...inner,
    sysFlag: resetTransactionValue(inner.sysFlag, MessageSysFlag.TRANSACTION_NOT_TYPE),
    topic: buildHalfTopic(),
    queueId: 0,
    propertiesString: propertiesToString(props),
  };
}

/**
 * Java's renewHalfMessageInner: the half message again, at the end of its half queue, with its (updated)
 * properties. Unlike Java, the application flag is carried over (Java's copy drops it, so a message that was
 * checked once would be committed with flag 0).
 */
export function renewHalfMessageInner(msgExt: MessageExt): MessageExtBrokerInner {
  return {
    topic: msgExt.topic,
    queueId: msgExt.queueId,
    flag: msgExt.flag,
    body: msgExt.body,
    propertiesString: propertiesToString(msgExt.properties),
    bornTimestamp: msgExt.bornTimestamp,
    bornHost: hostOf(msgExt.bornHost),
    storeHost: hostOf(msgExt.storeHost),
    sysFlag: msgExt.sysFlag,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
  };
}

/** Java's renewImmunityHalfMessageInner: also records the first half message's queue offset (TRAN_PREPARED_QUEUE_OFFSET). */
export function renewImmunityHalfMessageInner(msgExt: MessageExt): MessageExtBrokerInner {
  const props: MessageProperties = { ...msgExt.properties };
  const fromPrepare = props[MessageConst.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET];
  props[MessageConst.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET] = fromPrepare ?? String(msgExt.queueOffset);
  return { ...renewHalfMessageInner(msgExt), propertiesString: propertiesToString(props) };
}

/**
 * Java's EndTransactionProcessor.endMessageTransaction: the committed message in its real topic and queue,
 * without REAL_TOPIC / REAL_QID (the caller also clears TRAN_MSG and sets the commit type).
 */
export function endMessageTransaction(msgExt: MessageExt): { inner: MessageExtBrokerInner; properties: MessageProperties } {
  const props: MessageProperties = { ...msgExt.properties };
  const topic = props[MessageConst.PROPERTY_REAL_TOPIC] ?? msgExt.topic;
  const queueId = parseInt(props[MessageConst.PROPERTY_REAL_QUEUE_ID] ?? '0', 10);
  delete props[MessageConst.PROPERTY_REAL_TOPIC];
  delete props[MessageConst.PROPERTY_REAL_QUEUE_ID];
  return {
    inner: {
      topic,
      queueId,
      flag: msgExt.flag,
      body: msgExt.body,
      propertiesString: propertiesToString(props),
      bornTimestamp: msgExt.bornTimestamp,
      bornHost: hostOf(msgExt.bornHost),
      storeHost: hostOf(msgExt.storeHost),
      sysFlag: msgExt.sysFlag,
      reconsumeTimes: msgExt.reconsumeTimes,
      preparedTransactionOffset: 0,
    },
    properties: props,
  };
}
