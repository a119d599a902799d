/**
 * The consumer side of the endpoint over the broker's POP processors, as Java's proxy ConsumerProcessor with
 * LocalMessageService: POP_MESSAGE with the client's filter and invisible time, each message's POP_CK completed
 * from the answer's start / message offset info and turned into a receipt handle (POP_CK + commit-log offset);
 * ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME on a receipt handle; CONSUMER_SEND_MSG_BACK to the DLQ.
 *
 * A FIFO group pops orderly (order=true, the client's attemptId passed on): each message's reconsumeTimes is its
 * count in the answer's orderCountInfo (its own "qo<queueId>%<offset>" entry, else its queue's), so a message popped
 * again after a failed attempt is delivered with the attempt counted and, once out of attempts, goes to the DLQ
 * like any other (the DLQ send, then the ack that lets the queue's next messages out). Java's LocalMessageService
 * reads the queue's entry only, the smallest count of the batch; the per-message entry is what
 * MQClientAPIImpl.processPopResponse reads first, and is right for a batch mixing redelivered and new messages.
 *
 * @see org.apache.rocketmq.proxy.processor.ConsumerProcessor
 * @see org.apache.rocketmq.proxy.processor.ProducerProcessor#forwardMessageToDeadLetterQueue
 * @see org.apache.rocketmq.proxy.service.message.LocalMessageService
 */
import { ResponseCode } from '../../protocol/code/response-code';
import type { SubscriptionData } from '../../protocol/body/heartbeat-data';
import { SUB_ALL } from '../../protocol/body/heartbeat-data';
import { ConsumeInitMode } from '../../protocol/header/pop-message-request-header';
import { MessageConst } from '../../protocol/message/message-const';
import { decodeMessages } from '../../protocol/message/message-decoder';
import type { MessageExt } from '../../protocol/message/message';
import {
  buildExtraInfo, orderCountOf, parseMsgOffsetInfo, parseOrderCountInfo, parseStartOffsetInfo, startOffsetInfoKey,
} from '../../protocol/message/extra-info-util';
import { PopMessage } from '../../protocol/requests/pop-message';
import { AckMessage } from '../../protocol/requests/ack-message';
import { ChangeInvisibleTime } from '../../protocol/requests/change-invisible-time';
import { ConsumerSendMsgBack } from '../../protocol/requests/consumer-send-msg-back';
import {
  type ReceiptHandle, createReceiptHandle, decodeReceiptHandle, encodeReceiptHandle, isReceiptHandleExpired, receiptHandleRealTopic,
} from '../../protocol/grpc/receipt-handle';
import { GrpcProxyError, ProtocolError } from '../errors';
import type { Channel } from '../transport/connection';
import type { ActivityContext } from './activity-context';

export type PopStatus = 'FOUND' | 'NO_NEW_MSG' | 'POLLING_FULL' | 'POLLING_NOT_FOUND';

export interface PopResult {
  status: PopStatus;
  /** Each with its receipt handle in POP_CK, its topic the one popped, its body as stored (compressed or not). */
  messages: MessageExt[];
}

export interface PopRequest {
  group: string;
  topic: string;
  maxMsgNums: number;
  invisibleTime: number;
  pollTime: number;
  subscription: SubscriptionData;
  fifo: boolean;
  attemptId?: string;
  /** Messages delivered this many times or more go to the DLQ instead (PopMessageResultFilterImpl). */
  maxAttempts: number;
}

/** The decoded handle, or INVALID_RECEIPT_HANDLE. */
export function parseReceiptHandle(handle: string): ReceiptHandle {
  try {
    return decodeReceiptHandle(handle);
  } catch (err) {
    if (err instanceof ProtocolError) throw new GrpcProxyError('INVALID_RECEIPT_HANDLE', err.message, { cause: err });
    throw err;
  }
}

/** FilterUtils.isTagMatched. */
function isTagMatched(tagsSet: readonly string[], tag: string | undefined): boolean {
  if (tagsSet.length === 0 || tagsSet.includes(SUB_ALL)) return true;
  return tag !== undefined && tagsSet.includes(tag);
}

export class ConsumerProcessor {
  constructor(private readonly a: ActivityContext) {}

  /** `isActive`: false once the receive call is cancelled (a held pop woken then pops nothing). */
  async popMessage(req: PopRequest, channel: Channel, isActive?: () => boolean): Promise<PopResult> {
    const maxMsgNums = Math.min(req.maxMsgNums, this.a.config.maxMsgNumsForPopRequest);
    const bornTime = Date.now();
    const request = PopMessage.request({
      consumerGroup: req.group,
      topic: req.topic,
      queueId: -1,
      maxMsgNums,
      invisibleTime: req.invisibleTime,
      pollTime: req.pollTime,
      bornTime,
      initMode: ConsumeInitMode.MAX,
      expType: req.subscription.expressionType,
      exp: req.subscription.subString,
      order: req.fifo,
      ...(req.attemptId ? { attemptId: req.attemptId } : {}),
    });
    const r = await this.a.invoker.invoke(request, channel, isActive);
    let status: PopStatus;
    switch (r.code) {
      case ResponseCode.SUCCESS: status = 'FOUND'; break;
      case ResponseCode.POLLING_FULL: status = 'POLLING_FULL'; break;
      case ResponseCode.POLLING_TIMEOUT:
      case ResponseCode.PULL_NOT_FOUND: status = 'POLLING_NOT_FOUND'; break;
      default: throw new GrpcProxyError('INTERNAL_SERVER_ERROR', r.remark ?? `pop failed, code ${r.code}`);
    }
    if (status !== 'FOUND') return { status, messages: [] };
    const h = PopMessage.responseHeader.decode(r.extFields);
    // Bodies as stored (decompressed per message by the caller, which knows what the client can read).
    const parts = r.bodyParts ?? (r.body ? [r.body] : []);
    const found = parts.flatMap((part) => decodeMessages(part, { decompressBody: false, copyBody: true }));
    const brokerName = this.a.broker.brokerConfig.brokerName;
    const startOffsetInfo = parseStartOffsetInfo(h.startOffsetInfo);
    const msgOffsetInfo = parseMsgOffsetInfo(h.msgOffsetInfo);
    const orderCountInfo = req.fifo ? parseOrderCountInfo(h.orderCountInfo) : null;
    const seen = new Map<string, number>();
    const out: MessageExt[] = [];
    for (const m of found) {
      const props = m.properties;
      if (props[MessageConst.PROPERTY_POP_CK] === undefined && startOffsetInfo && msgOffsetInfo) {
        const key = startOffsetInfoKey(m.topic, m.queueId);
        const index = seen.get(key) ?? 0;
        seen.set(key, index + 1);
        const msgQueueOffset = msgOffsetInfo.get(key)?.[index] ?? m.queueOffset;
        props[MessageConst.PROPERTY_POP_CK] = buildExtraInfo(startOffsetInfo.get(key) ?? m.queueOffset, h.popTime, h.invisibleTime,
          h.reviveQid, m.topic, brokerName, m.queueId, msgQueueOffset);
        const count = orderCountOf(orderCountInfo, m.topic, m.queueId, msgQueueOffset);
        if (count !== undefined) m.reconsumeTimes = count;
      }
      props[MessageConst.PROPERTY_FIRST_POP_TIME] ??= String(h.popTime);
      m.topic = req.topic;
      m.brokerName = brokerName;
      // ConsumerProcessor: UNIQ_KEY from the offset msgId when the message has none; the handle gets the commit-log offset.
      props[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX] ??= m.offsetMsgId;
      const handleString = createReceiptHandle(props[MessageConst.PROPERTY_POP_CK], m.commitLogOffset);
      props[MessageConst.PROPERTY_POP_CK] = handleString;
      const messageId = props[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX];
      if (!isTagMatched(req.subscription.tagsSet, props[MessageConst.PROPERTY_TAGS])) {
        this.ackMessage(parseReceiptHandle(handleString), req.group, req.topic, channel).catch((err: unknown) => {
          this.a.logger.warn({ err, messageId }, 'ack of a message not matching the filter failed');
        });
        continue;
      }
      if (m.reconsumeTimes >= req.maxAttempts) {
        this.forwardMessageToDeadLetterQueue(parseReceiptHandle(handleString), messageId, req.group, req.topic, channel).catch((err: unknown) => {
          this.a.logger.warn({ err, messageId }, 'forward to the DLQ of a message out of attempts failed');
        });
        continue;
      }
      out.push(m);
    }
    return { status, messages: out };
  }

  /** ConsumerProcessor.validateReceiptHandle: an expired handle can no longer act. */
  #validate(handle: ReceiptHandle): void {
    if (isReceiptHandleExpired(handle)) throw new GrpcProxyError('INVALID_RECEIPT_HANDLE', 'receipt handle is expired');
  }

  /** ACK_MESSAGE; true when the broker answered SUCCESS (AckStatus.OK). */
  async ackMessage(handle: ReceiptHandle, group: string, topic: string, channel: Channel): Promise<boolean> {
    this.#validate(handle);
    const r = await this.a.invoker.invoke(AckMessage.request({
      consumerGroup: group,
      topic: receiptHandleRealTopic(handle, topic, group),
      queueId: handle.queueId,
      extraInfo: handle.receiptHandle,
      offset: handle.offset,
    }), channel);
    return r.code === ResponseCode.SUCCESS;
  }

  /**
   * CHANGE_MESSAGE_INVISIBLETIME; the new receipt handle, or null when the broker refused. The new handle names the
   * one-message checkpoint the broker made (start offset = the message's offset, the answer's pop time and revive
   * queue) and keeps the commit-log offset, as ConsumerProcessor.createHandle appends it.
   */
  async changeInvisibleTime(handle: ReceiptHandle, group: string, topic: string, invisibleTime: number, channel: Channel): Promise<string | null> {
    this.#validate(handle);
    const r = await this.a.invoker.invoke(ChangeInvisibleTime.request({
      consumerGroup: group,
      topic: receiptHandleRealTopic(handle, topic, group),
      queueId: handle.queueId,
      extraInfo: handle.receiptHandle,
      offset: handle.offset,
      invisibleTime,
    }), channel);
    if (r.code !== ResponseCode.SUCCESS) return null;
    const h = ChangeInvisibleTime.responseHeader.decode(r.extFields);
    return encodeReceiptHandle({
      startOffset: handle.offset,
      retrieveTime: h.popTime,
      invisibleTime: h.invisibleTime,
      reviveQueueId: h.reviveQid,
      topicType: handle.topicType,
      brokerName: handle.brokerName,
      queueId: handle.queueId,
      offset: handle.offset,
      commitLogOffset: handle.commitLogOffset,
    });
  }

  /** CONSUMER_SEND_MSG_BACK with maxReconsumeTimes 0 (straight to %DLQ%group), then the ack; the broker's answer code. */
  async forwardMessageToDeadLetterQueue(handle: ReceiptHandle, messageId: string, group: string, topic: string, channel: Channel): Promise<number> {
    if (handle.commitLogOffset < 0) throw new GrpcProxyError('INVALID_RECEIPT_HANDLE', 'commit log offset is empty');
    const r = await this.a.invoker.invoke(ConsumerSendMsgBack.request({
      offset: handle.commitLogOffset,
      group,
      delayLevel: -1,
      originMsgId: messageId,
      originTopic: receiptHandleRealTopic(handle, topic, group),
      unitMode: false,
      maxReconsumeTimes: 0,
    }), channel);
    if (r.code === ResponseCode.SUCCESS) await this.ackMessage(handle, group, topic, channel).catch(() => false);
    return r.code;
  }
}
