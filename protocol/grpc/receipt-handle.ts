/**
 * The receipt handle a 5.x gRPC client acknowledges with: the POP checkpoint's extraInfo (POP_CK, 8 fields:
 * ckQueueOffset popTime invisibleTime reviveQid retry brokerName queueId queueOffset) and the message's commit-log
 * offset, space-separated, as Java's proxy builds it (ConsumerProcessor.createHandle) and reads it back.
 *
 * @see org.apache.rocketmq.common.consumer.ReceiptHandle
 */
import { ProtocolError } from '../errors';
import { realTopicOf } from '../message/extra-info-util';

export const RECEIPT_HANDLE_SEPARATOR = ' ';

export interface ReceiptHandle {
  readonly startOffset: number;
  readonly retrieveTime: number;
  readonly invisibleTime: number;
  /** retrieveTime + invisibleTime. */
  readonly nextVisibleTime: number;
  readonly reviveQueueId: number;
  /** "0" normal topic, "1" pop retry topic v1, "2" pop retry topic v2. */
  readonly topicType: string;
  readonly brokerName: string;
  readonly queueId: number;
  readonly offset: number;
  /** -1 when the handle has no ninth field. */
  readonly commitLogOffset: number;
  /** The string as received (what the broker's ACK_MESSAGE gets as extraInfo). */
  readonly receiptHandle: string;
}

function num(s: string, what: string, handle: string): number {
  if (!/^-?\d+$/.test(s)) throw new ProtocolError(`receipt handle ${what} is not a number: ${JSON.stringify(handle)}`);
  return Number(s);
}

/** ReceiptHandle.decode: at least 8 fields, else a ProtocolError. */
export function decodeReceiptHandle(receiptHandle: string): ReceiptHandle {
  const f = receiptHandle.split(RECEIPT_HANDLE_SEPARATOR);
  if (f.length < 8) throw new ProtocolError(`Parse failed, dataList size ${f.length}`);
  const retrieveTime = num(f[1], 'retrieveTime', receiptHandle);
  const invisibleTime = num(f[2], 'invisibleTime', receiptHandle);
  return {
    startOffset: num(f[0], 'startOffset', receiptHandle),
    retrieveTime,
    invisibleTime,
    nextVisibleTime: retrieveTime + invisibleTime,
    reviveQueueId: num(f[3], 'reviveQueueId', receiptHandle),
    topicType: f[4],
    brokerName: f[5],
    queueId: num(f[6], 'queueId', receiptHandle),
    offset: num(f[7], 'offset', receiptHandle),
    commitLogOffset: f.length >= 9 ? num(f[8], 'commitLogOffset', receiptHandle) : -1,
    receiptHandle,
  };
}

/** ReceiptHandle.encode: the nine fields (a handle built without a commit-log offset carries 0, as Java's builder). */
export function encodeReceiptHandle(h: Omit<ReceiptHandle, 'nextVisibleTime' | 'receiptHandle' | 'commitLogOffset'> & { commitLogOffset?: number }): string {
  return [h.startOffset, h.retrieveTime, h.invisibleTime, h.reviveQueueId, h.topicType, h.brokerName, h.queueId, h.offset,
    h.commitLogOffset ?? 0].join(RECEIPT_HANDLE_SEPARATOR);
}

/** ConsumerProcessor.createHandle: the message's POP_CK and its commit-log offset. */
export function createReceiptHandle(popCk: string, commitLogOffset: number): string {
  return `${popCk}${RECEIPT_HANDLE_SEPARATOR}${commitLogOffset}`;
}

/** ReceiptHandle.isExpired: the message is visible again (its handle can no longer ack). */
export function isReceiptHandleExpired(h: Pick<ReceiptHandle, 'nextVisibleTime'>, now = Date.now()): boolean {
  return h.nextVisibleTime <= now;
}

/** ReceiptHandle.getRealTopic: the topic the broker acks on (the pop retry topic for a redelivered message). */
export function receiptHandleRealTopic(h: Pick<ReceiptHandle, 'topicType'>, topic: string, group: string): string {
  return realTopicOf({ retry: h.topicType }, topic, group);
}
