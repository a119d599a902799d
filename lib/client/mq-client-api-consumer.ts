/**
 * The consumer, offset and transaction requests of MQClientAPI, one function per request code.
 * Failure codes become MQBrokerError {responseCode, remark, brokerAddr}, as Java's MQBrokerException.
 *
 * @see org.apache.rocketmq.client.impl.MQClientAPIImpl
 */
import { RequestCode } from '../../protocol/code/request-code';
import { ResponseCode } from '../../protocol/code/response-code';
import { decodeGetConsumerListByGroupResponseBody } from '../../protocol/body/get-consumer-list-by-group-response-body';
import { type LockBatchRequestBody, decodeLockBatchResponseBody, encodeLockBatchRequestBody } from '../../protocol/body/lock-batch';
import { ConsumerSendMsgBackRequestHeader } from '../../protocol/header/consumer-send-msg-back-request-header';
import { EndTransactionRequestHeader } from '../../protocol/header/end-transaction-request-header';
import { GetConsumerListByGroupRequestHeader } from '../../protocol/header/get-consumer-list-by-group-request-header';
import { GetMaxOffsetRequestHeader } from '../../protocol/header/get-max-offset-request-header';
import { GetMinOffsetRequestHeader } from '../../protocol/header/get-min-offset-request-header';
import { PullMessageRequestHeader } from '../../protocol/header/pull-message-request-header';
import { PullMessageResponseHeader } from '../../protocol/header/pull-message-response-header';
import { QueryConsumerOffsetRequestHeader } from '../../protocol/header/query-consumer-offset-request-header';
import { SearchOffsetRequestHeader } from '../../protocol/header/search-offset-request-header';
import { UpdateConsumerOffsetRequestHeader } from '../../protocol/header/update-consumer-offset-request-header';
import type { MessageExt } from '../../protocol/message/message';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { RemotingCommand } from '../../protocol/remoting-command';
import { MQBrokerError } from '../errors';
import type { RequestInvoker } from './mq-client-api';

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

function fail(response: RemotingCommand, addr: string): never {
  throw new MQBrokerError(response.code, response.remark, addr);
}

function offsetOf(response: RemotingCommand, addr: string): number {
  const raw = response.extFields?.offset;
  const n = raw === undefined ? NaN : Number(raw);
  if (!Number.isFinite(n)) throw new MQBrokerError(response.code, 'response without offset', addr);
  return n;
}

/** PULL_MESSAGE: SUCCESS → FOUND, PULL_NOT_FOUND → NO_NEW_MSG, PULL_RETRY_IMMEDIATELY → NO_MATCHED_MSG, PULL_OFFSET_MOVED → OFFSET_ILLEGAL. */
export async function pullMessage(api: RequestInvoker, addr: string, header: PullMessageRequestHeader, timeoutMillis: number): Promise<PullResultRaw> {
  const request = RemotingCommand.createRequest(RequestCode.PULL_MESSAGE, PullMessageRequestHeader.encode(header));
  const response = await api.invoke(addr, request, timeoutMillis);
  let pullStatus: PullStatus;
  switch (response.code) {
    case ResponseCode.SUCCESS: pullStatus = PullStatus.FOUND; break;
    case ResponseCode.PULL_NOT_FOUND: pullStatus = PullStatus.NO_NEW_MSG; break;
    case ResponseCode.PULL_RETRY_IMMEDIATELY: pullStatus = PullStatus.NO_MATCHED_MSG; break;
    case ResponseCode.PULL_OFFSET_MOVED: pullStatus = PullStatus.OFFSET_ILLEGAL; break;
    default: fail(response, addr);
  }
  const h = PullMessageResponseHeader.decode(response.extFields);
  return {
    pullStatus,
    nextBeginOffset: h.nextBeginOffset,
    minOffset: h.minOffset,
    maxOffset: h.maxOffset,
    suggestWhichBrokerId: h.suggestWhichBrokerId,
    messageBinary: response.body,
  };
}

/** QUERY_CONSUMER_OFFSET; QUERY_NOT_FOUND (22) is an MQBrokerError with that code, as Java. */
export async function queryConsumerOffset(api: RequestInvoker, addr: string, header: QueryConsumerOffsetRequestHeader, timeoutMillis: number): Promise<number> {
  const request = RemotingCommand.createRequest(RequestCode.QUERY_CONSUMER_OFFSET, QueryConsumerOffsetRequestHeader.encode(header));
  const response = await api.invoke(addr, request, timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) fail(response, addr);
  return offsetOf(response, addr);
}

export async function updateConsumerOffset(api: RequestInvoker, addr: string, header: UpdateConsumerOffsetRequestHeader, timeoutMillis: number): Promise<void> {
  const request = RemotingCommand.createRequest(RequestCode.UPDATE_CONSUMER_OFFSET, UpdateConsumerOffsetRequestHeader.encode(header));
  const response = await api.invoke(addr, request, timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) fail(response, addr);
}

export function updateConsumerOffsetOneway(api: RequestInvoker, addr: string, header: UpdateConsumerOffsetRequestHeader, timeoutMillis: number): Promise<void> {
  const request = RemotingCommand.createRequest(RequestCode.UPDATE_CONSUMER_OFFSET, UpdateConsumerOffsetRequestHeader.encode(header));
  return api.invokeOneway(addr, request, timeoutMillis);
}

/** GET_CONSUMER_LIST_BY_GROUP: the client ids of the group's consumers connected to that broker. */
export async function getConsumerIdListByGroup(api: RequestInvoker, addr: string, consumerGroup: string, timeoutMillis: number): Promise<string[]> {
  const request = RemotingCommand.createRequest(RequestCode.GET_CONSUMER_LIST_BY_GROUP, GetConsumerListByGroupRequestHeader.encode({ consumerGroup }));
  const response = await api.invoke(addr, request, timeoutMillis);
  if (response.code === ResponseCode.SUCCESS && response.body) {
    return decodeGetConsumerListByGroupResponseBody(response.body).consumerIdList;
  }
  fail(response, addr);
}

/** CONSUMER_SEND_MSG_BACK: a message that failed to consume goes back for a later retry. */
export async function consumerSendMessageBack(
  api: RequestInvoker, addr: string, msg: MessageExt, consumerGroup: string, delayLevel: number, timeoutMillis: number, maxConsumeRetryTimes: number,
  brokerName?: string,
): Promise<void> {
  // bname: the queue's broker name, as MQClientAPIImpl.consumerSendMessageBack (4.9.8) sets it.
  const ext = ConsumerSendMsgBackRequestHeader.encode({
    offset: msg.commitLogOffset,
    group: consumerGroup,
    delayLevel,
    originMsgId: msg.msgId,
    originTopic: msg.topic,
    unitMode: false,
    maxReconsumeTimes: maxConsumeRetryTimes,
    ...(brokerName !== undefined ? { bname: brokerName } : {}),
  });
  const response = await api.invoke(addr, RemotingCommand.createRequest(RequestCode.CONSUMER_SEND_MSG_BACK, ext), timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) fail(response, addr);
}

/** LOCK_BATCH_MQ: the queues this client now holds the lock of. */
export async function lockBatchMQ(api: RequestInvoker, addr: string, body: LockBatchRequestBody, timeoutMillis: number): Promise<MessageQueue[]> {
  const request = RemotingCommand.createRequest(RequestCode.LOCK_BATCH_MQ, null, encodeLockBatchRequestBody(body));
  const response = await api.invoke(addr, request, timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) fail(response, addr);
  return response.body ? decodeLockBatchResponseBody(response.body).lockOKMQSet : [];
}

/** UNLOCK_BATCH_MQ, oneway or answered. */
export async function unlockBatchMQ(api: RequestInvoker, addr: string, body: LockBatchRequestBody, timeoutMillis: number, oneway: boolean): Promise<void> {
  const request = RemotingCommand.createRequest(RequestCode.UNLOCK_BATCH_MQ, null, encodeLockBatchRequestBody(body));
  if (oneway) return api.invokeOneway(addr, request, timeoutMillis);
  const response = await api.invoke(addr, request, timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) fail(response, addr);
}

export async function getMaxOffset(api: RequestInvoker, addr: string, topic: string, queueId: number, timeoutMillis: number): Promise<number> {
  const request = RemotingCommand.createRequest(RequestCode.GET_MAX_OFFSET, GetMaxOffsetRequestHeader.encode({ topic, queueId }));
  const response = await api.invoke(addr, request, timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) fail(response, addr);
  return offsetOf(response, addr);
}

export async function getMinOffset(api: RequestInvoker, addr: string, topic: string, queueId: number, timeoutMillis: number): Promise<number> {
  const request = RemotingCommand.createRequest(RequestCode.GET_MIN_OFFSET, GetMinOffsetRequestHeader.encode({ topic, queueId }));
  const response = await api.invoke(addr, request, timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) fail(response, addr);
  return offsetOf(response, addr);
}

/** SEARCH_OFFSET_BY_TIMESTAMP: the queue offset of the first message stored at or after `timestamp`. */
export async function searchOffset(api: RequestInvoker, addr: string, topic: string, queueId: number, timestamp: number, timeoutMillis: number): Promise<number> {
  const request = RemotingCommand.createRequest(RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, SearchOffsetRequestHeader.encode({ topic, queueId, timestamp }));
  const response = await api.invoke(addr, request, timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) fail(response, addr);
  return offsetOf(response, addr);
}

/** END_TRANSACTION (oneway): commit or roll back a half message. */
export function endTransactionOneway(api: RequestInvoker, addr: string, header: EndTransactionRequestHeader, remark: string | null, timeoutMillis: number): Promise<void> {
  const request = RemotingCommand.createRequest(RequestCode.END_TRANSACTION, EndTransactionRequestHeader.encode(header));
  request.remark = remark;
  return api.invokeOneway(addr, request, timeoutMillis);
}
