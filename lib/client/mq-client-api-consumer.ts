/**
 * The consumer and transaction requests that do more than their module (protocol/requests/): a pull's status, the
 * send-back header made from the message, the lock bodies, the END_TRANSACTION remark. Functions over any
 * RequestInvoker (MQClientAPI, or a test's fake broker). The offset requests (QUERY_CONSUMER_OFFSET,
 * UPDATE_CONSUMER_OFFSET, GET_MAX_OFFSET, GET_MIN_OFFSET, SEARCH_OFFSET_BY_TIMESTAMP, GET_CONSUMER_LIST_BY_GROUP) have
 * no function here: `call(api, addr, TheRequest, values, timeoutMillis)` is the whole of each.
 * Failure codes become MQBrokerError {responseCode, remark, brokerAddr}, as Java's MQBrokerException.
 *
 * @see org.apache.rocketmq.client.impl.MQClientAPIImpl
 */
import { ResponseCode } from '../../protocol/code/response-code';
import { type LockBatchRequestBody, encodeLockBatchRequestBody } from '../../protocol/body/lock-batch';
import type { EndTransactionRequestHeader } from '../../protocol/header/end-transaction-request-header';
import type { PullMessageRequestHeader } from '../../protocol/header/pull-message-request-header';
import type { MessageExt } from '../../protocol/message/message';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { ConsumerSendMsgBack, EndTransaction, LockBatchMQ, PullMessage, UnlockBatchMQ } from '../../protocol/requests/index';
import { type RequestInvoker, call, callOneway } from './request-invoker';

/** @see org.apache.rocketmq.client.consumer.PullStatus */
export const PullStatus = {
  FOUND: 'FOUND',
  NO_NEW_MSG: 'NO_NEW_MSG',
  NO_MATCHED_MSG: 'NO_MATCHED_MSG',
  OFFSET_ILLEGAL: 'OFFSET_ILLEGAL',
} as const;
export type PullStatus = (typeof PullStatus)[keyof typeof PullStatus];

/** A pull response before its records are decoded (Java's PullResultExt). */
export interface PullResultRaw {
  pullStatus: PullStatus;
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
  suggestWhichBrokerId: number;
  /** The stored records back to back (FOUND only). */
  messageBinary: Buffer | null;
}

/** PULL_MESSAGE: SUCCESS → FOUND, PULL_NOT_FOUND → NO_NEW_MSG, PULL_RETRY_IMMEDIATELY → NO_MATCHED_MSG, PULL_OFFSET_MOVED → OFFSET_ILLEGAL. */
export async function pullMessage(api: RequestInvoker, addr: string, header: PullMessageRequestHeader, timeoutMillis: number): Promise<PullResultRaw> {
  const response = await api.invoke(addr, PullMessage.request(header), timeoutMillis);
  const h = PullMessage.parse(response, addr);
  let pullStatus: PullStatus;
  switch (response.code) {
    case ResponseCode.SUCCESS: pullStatus = PullStatus.FOUND; break;
    case ResponseCode.PULL_NOT_FOUND: pullStatus = PullStatus.NO_NEW_MSG; break;
    case ResponseCode.PULL_RETRY_IMMEDIATELY: pullStatus = PullStatus.NO_MATCHED_MSG; break;
    default: pullStatus = PullStatus.OFFSET_ILLEGAL; break; // PULL_OFFSET_MOVED (parse let no other code through)
  }
  return {
    pullStatus,
    nextBeginOffset: h.nextBeginOffset,
    minOffset: h.minOffset,
    maxOffset: h.maxOffset,
    suggestWhichBrokerId: h.suggestWhichBrokerId,
    messageBinary: response.body,
  };
}

/** CONSUMER_SEND_MSG_BACK: a message that failed to consume goes back for a later retry. */
export async function consumerSendMessageBack(
  api: RequestInvoker, addr: string, msg: MessageExt, consumerGroup: string, delayLevel: number, timeoutMillis: number, maxConsumeRetryTimes: number,
  brokerName?: string,
): Promise<void> {
  // bname: the queue's broker name, as MQClientAPIImpl.consumerSendMessageBack (4.9.8) sets it.
  await call(api, addr, ConsumerSendMsgBack, {
    offset: msg.commitLogOffset,
    group: consumerGroup,
    delayLevel,
    originMsgId: msg.msgId,
    originTopic: msg.topic,
    unitMode: false,
    maxReconsumeTimes: maxConsumeRetryTimes,
    ...(brokerName !== undefined ? { bname: brokerName } : {}),
  }, timeoutMillis);
}

/** LOCK_BATCH_MQ: the queues this client now holds the lock of. */
export function lockBatchMQ(api: RequestInvoker, addr: string, body: LockBatchRequestBody, timeoutMillis: number): Promise<MessageQueue[]> {
  return call(api, addr, LockBatchMQ, undefined, timeoutMillis, encodeLockBatchRequestBody(body));
}

/** UNLOCK_BATCH_MQ, oneway or answered. */
export async function unlockBatchMQ(api: RequestInvoker, addr: string, body: LockBatchRequestBody, timeoutMillis: number, oneway: boolean): Promise<void> {
  if (oneway) return callOneway(api, addr, UnlockBatchMQ, undefined, timeoutMillis, encodeLockBatchRequestBody(body));
  await call(api, addr, UnlockBatchMQ, undefined, timeoutMillis, encodeLockBatchRequestBody(body));
}

/** END_TRANSACTION (oneway): commit or roll back a half message. */
export function endTransactionOneway(api: RequestInvoker, addr: string, header: EndTransactionRequestHeader, remark: string | null, timeoutMillis: number): Promise<void> {
  const request = EndTransaction.request(header);
  request.remark = remark;
  return api.invokeOneway(addr, request, timeoutMillis);
}
