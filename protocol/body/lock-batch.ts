/**
 * LOCK_BATCH_MQ (41) request and response, UNLOCK_BATCH_MQ (42) request.
 *
 * @see org.apache.rocketmq.common.protocol.body.LockBatchRequestBody
 * @see org.apache.rocketmq.common.protocol.body.LockBatchResponseBody
 * @see org.apache.rocketmq.common.protocol.body.UnlockBatchRequestBody
 */
import type { MessageQueue } from '../message/message-queue';
import { arr, messageQueueBean, messageQueueOf, parseBody, reqStr } from './body-util';
import { encodeFastjson } from './fastjson';

export interface LockBatchRequestBody {
  consumerGroup: string;
  clientId: string;
  /** A Java Set<MessageQueue>. */
  mqSet: MessageQueue[];
}

export type UnlockBatchRequestBody = LockBatchRequestBody;

export interface LockBatchResponseBody {
  lockOKMQSet: MessageQueue[];
}

export function decodeLockBatchRequestBody(buf: Buffer): LockBatchRequestBody {
  const o = parseBody(buf, 'LockBatchRequestBody');
  return {
    consumerGroup: reqStr(o, 'consumerGroup'),
    clientId: reqStr(o, 'clientId'),
    mqSet: arr(o, 'mqSet').map((m) => messageQueueOf(m, 'mqSet')),
  };
}

export function encodeLockBatchRequestBody(b: LockBatchRequestBody): Buffer {
  return encodeFastjson({ clientId: b.clientId, consumerGroup: b.consumerGroup, mqSet: b.mqSet.map(messageQueueBean) });
}

export const decodeUnlockBatchRequestBody = decodeLockBatchRequestBody;
export const encodeUnlockBatchRequestBody = encodeLockBatchRequestBody;

export function decodeLockBatchResponseBody(buf: Buffer): LockBatchResponseBody {
  const o = parseBody(buf, 'LockBatchResponseBody');
  return { lockOKMQSet: arr(o, 'lockOKMQSet').map((m) => messageQueueOf(m, 'lockOKMQSet')) };
}

export function encodeLockBatchResponseBody(b: LockBatchResponseBody): Buffer {
  return encodeFastjson({ lockOKMQSet: b.lockOKMQSet.map(messageQueueBean) });
}
