/**
 * The 5.x POP requests, over any RequestInvoker (MQClientAPI): POP_MESSAGE, ACK_MESSAGE, CHANGE_MESSAGE_INVISIBLETIME,
 * NOTIFICATION, each through its module in protocol/requests/.
 * A popped message gets its checkpoint in the POP_CK property (extraInfo) exactly as Java's processPopResponse
 * builds it, so that an ack or a change of invisible time names the right checkpoint.
 *
 * @see org.apache.rocketmq.client.impl.MQClientAPIImpl#popMessageAsync / #processPopResponse / #ackMessageAsync
 *      / #changeInvisibleTimeAsync (5.3.3)
 */
import { ResponseCode } from '../../protocol/code/response-code';
import type { AckMessageRequestHeader } from '../../protocol/header/ack-message-request-header';
import type { ChangeInvisibleTimeRequestHeader } from '../../protocol/header/change-invisible-time-request-header';
import type { NotificationRequestHeader } from '../../protocol/header/notification-request-header';
import type { PopMessageRequestHeader } from '../../protocol/header/pop-message-request-header';
import {
  buildExtraInfo, orderCountOf, parseMsgOffsetInfo, parseOrderCountInfo, parseStartOffsetInfo, retryMark,
} from '../../protocol/message/extra-info-util';
import type { MessageExt } from '../../protocol/message/message';
import { MessageConst } from '../../protocol/message/message-const';
import { decodeMessages } from '../../protocol/message/message-decoder';
import type { RemotingCommand } from '../../protocol/remoting-command';
import { AckMessage, ChangeInvisibleTime, Notification, PopMessage } from '../../protocol/requests/index';
import { MQBrokerError } from '../errors';
import { type RequestInvoker, call } from './request-invoker';

/** @see org.apache.rocketmq.client.consumer.PopStatus */
export const PopStatus = {
  FOUND: 'FOUND',
  NO_NEW_MSG: 'NO_NEW_MSG',
  POLLING_FULL: 'POLLING_FULL',
  POLLING_NOT_FOUND: 'POLLING_NOT_FOUND',
} as const;
export type PopStatus = (typeof PopStatus)[keyof typeof PopStatus];

/** @see org.apache.rocketmq.client.consumer.PopResult */
export interface PopResult {
  popStatus: PopStatus;
  msgFoundList: MessageExt[];
  popTime: number;
  invisibleTime: number;
  restNum: number;
}

/** @see org.apache.rocketmq.client.consumer.AckStatus */
export const AckStatus = { OK: 'OK', NO_EXIST: 'NO_EXIST' } as const;
export type AckStatus = (typeof AckStatus)[keyof typeof AckStatus];

/** @see org.apache.rocketmq.client.consumer.AckResult */
export interface AckResult {
  status: AckStatus;
  /** CHANGE_MESSAGE_INVISIBLETIME: the message's new POP_CK. */
  extraInfo?: string;
  popTime?: number;
}

/**
 * POP_MESSAGE. SUCCESS → FOUND (records decoded, POP_CK and 1ST_POP_TIME set, brokerName set),
 * POLLING_FULL → POLLING_FULL, POLLING_TIMEOUT / PULL_NOT_FOUND → POLLING_NOT_FOUND; other codes are MQBrokerError.
 */
export async function popMessage(api: RequestInvoker, brokerName: string, addr: string, header: PopMessageRequestHeader,
  timeoutMillis: number): Promise<PopResult> {
  const response = await call(api, addr, PopMessage, header, timeoutMillis);
  return processPopResponse(brokerName, response, header.topic, addr, header.order === true);
}

/**
 * MQClientAPIImpl.processPopResponse (non-LMQ). An orderly pop's (`order`) messages take their reconsumeTimes from
 * the answer's orderCountInfo: the message's own count, else its queue's.
 */
export function processPopResponse(brokerName: string, response: RemotingCommand, topic: string, addr: string, order = false): PopResult {
  let popStatus: PopStatus;
  switch (response.code) {
    case ResponseCode.SUCCESS: popStatus = PopStatus.FOUND; break;
    case ResponseCode.POLLING_FULL: popStatus = PopStatus.POLLING_FULL; break;
    case ResponseCode.POLLING_TIMEOUT:
    case ResponseCode.PULL_NOT_FOUND: popStatus = PopStatus.POLLING_NOT_FOUND; break;
    default: throw new MQBrokerError(response.code, response.remark, addr);
  }
  if (popStatus !== PopStatus.FOUND) {
    const restNum = Number(response.extFields?.restNum ?? 0);
    return { popStatus, msgFoundList: [], popTime: 0, invisibleTime: 0, restNum: Number.isFinite(restNum) ? restNum : 0 };
  }
  const h = PopMessage.responseHeader.decode(response.extFields);
  const result: PopResult = { popStatus, msgFoundList: [], popTime: h.popTime, invisibleTime: h.invisibleTime, restNum: h.restNum };
  if (!response.body) return result;
  const msgs = decodeMessages(response.body);
  const startOffsetInfo = parseStartOffsetInfo(h.startOffsetInfo);
  const msgOffsetInfo = parseMsgOffsetInfo(h.msgOffsetInfo);
  const orderCountInfo = order ? parseOrderCountInfo(h.orderCountInfo) : null;
  // Sorted queue offsets per "retry@queueId" in arrival order (buildQueueOffsetSortedMap): the index of a message
  // there is its index in msgOffsetInfo.
  const sortMap = new Map<string, number[]>();
  const keyOf = (m: MessageExt): string => {
    const ck = m.properties[MessageConst.PROPERTY_POP_CK];
    const mark = ck !== undefined ? ck.split(' ')[4] : retryMark(m.topic);
    return `${mark}@${m.queueId}`;
  };
  for (const m of msgs) {
    const k = keyOf(m);
    let l = sortMap.get(k);
    if (!l) sortMap.set(k, (l = []));
    l.push(m.queueOffset);
  }
  const firstCk = new Map<string, string>();
  for (const m of msgs) {
    if (!startOffsetInfo) {
      // An old broker without offset info: the first message of a queue is the checkpoint's start.
      const key = m.topic + m.queueId;
      let ck = firstCk.get(key);
      if (ck === undefined) {
        ck = buildExtraInfo(m.queueOffset, h.popTime, h.invisibleTime, h.reviveQid, m.topic, brokerName, m.queueId);
        firstCk.set(key, ck);
      }
      m.properties[MessageConst.PROPERTY_POP_CK] = `${ck} ${m.queueOffset}`;
    } else if (m.properties[MessageConst.PROPERTY_POP_CK] === undefined) {
      const k = keyOf(m);
      const index = sortMap.get(k)!.indexOf(m.queueOffset);
      const msgQueueOffset = msgOffsetInfo?.get(k)?.[index] ?? m.queueOffset;
      m.properties[MessageConst.PROPERTY_POP_CK] = buildExtraInfo(startOffsetInfo.get(k) ?? m.queueOffset, h.popTime, h.invisibleTime,
        h.reviveQid, m.topic, brokerName, m.queueId, msgQueueOffset);
      const count = orderCountOf(orderCountInfo, m.topic, m.queueId, m.queueOffset);
      if (count !== undefined) m.reconsumeTimes = count;
    }
    if (m.properties[MessageConst.PROPERTY_FIRST_POP_TIME] === undefined) {
      m.properties[MessageConst.PROPERTY_FIRST_POP_TIME] = String(h.popTime);
    }
    m.brokerName = brokerName;
    m.topic = topic;
  }
  result.msgFoundList = msgs;
  return result;
}

/** ACK_MESSAGE: SUCCESS → OK, any other code → NO_EXIST (as Java). */
export async function ackMessage(api: RequestInvoker, addr: string, header: AckMessageRequestHeader, timeoutMillis: number): Promise<AckResult> {
  const response = await call(api, addr, AckMessage, header, timeoutMillis);
  return { status: response.code === ResponseCode.SUCCESS ? AckStatus.OK : AckStatus.NO_EXIST };
}

/** CHANGE_MESSAGE_INVISIBLETIME: OK with the message's new extraInfo, else NO_EXIST. */
export async function changeInvisibleTime(api: RequestInvoker, brokerName: string, addr: string, header: ChangeInvisibleTimeRequestHeader,
  timeoutMillis: number): Promise<AckResult> {
  const response = await call(api, addr, ChangeInvisibleTime, header, timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) return { status: AckStatus.NO_EXIST };
  const h = ChangeInvisibleTime.responseHeader.decode(response.extFields);
  const extraInfo = `${buildExtraInfo(header.offset, h.popTime, h.invisibleTime, h.reviveQid, header.topic, brokerName, header.queueId)} ${header.offset}`;
  return { status: AckStatus.OK, popTime: h.popTime, extraInfo };
}

/** NOTIFICATION: whether a pop would find messages (held by the broker up to pollTime). */
export async function notification(api: RequestInvoker, addr: string, header: NotificationRequestHeader, timeoutMillis: number): Promise<boolean> {
  const response = await call(api, addr, Notification, header, timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) throw new MQBrokerError(response.code, response.remark, addr);
  return Notification.responseHeader.decode(response.extFields).hasMsg;
}
