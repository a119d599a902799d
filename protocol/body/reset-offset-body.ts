/**
 * RESET_CONSUMER_CLIENT_OFFSET (220) / INVOKE_BROKER_TO_RESET_OFFSET response body:
 * offsetTable Map<MessageQueue, Long>, queue beans as keys.
 *
 * @see org.apache.rocketmq.common.protocol.body.ResetOffsetBody
 */
import type { MessageQueue } from '../message/message-queue';
import { type JsonObject, asLong, messageQueueBean, mqEntries, parseBody } from './body-util';
import { FastjsonMap, encodeFastjson } from './fastjson';

export interface ResetOffsetBody {
  offsetTable: Array<[MessageQueue, number]>;
}

export function decodeResetOffsetBody(buf: Buffer): ResetOffsetBody {
  return { offsetTable: mqEntries(parseBody(buf, 'ResetOffsetBody'), 'offsetTable', (v) => asLong(v, 'offsetTable')) };
}

export function encodeResetOffsetBody(b: ResetOffsetBody): Buffer {
  const table = new FastjsonMap<JsonObject, number>(b.offsetTable.map(([mq, off]) => [messageQueueBean(mq), off]));
  return encodeFastjson({ offsetTable: table });
}
