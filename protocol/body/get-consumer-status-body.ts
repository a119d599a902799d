/**
 * GET_CONSUMER_STATUS_FROM_CLIENT (221) response body (a client's offsets in messageQueueTable) and
 * INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223) response body (every client's table in consumerTable, by client id).
 * Both maps keyed by MessageQueue beans.
 *
 * @see org.apache.rocketmq.common.protocol.body.GetConsumerStatusBody
 */
import type { MessageQueue } from '../message/message-queue';
import { type JsonObject, asLong, entries, messageQueueBean, mqEntries, parseBody } from './body-util';
import { FastjsonMap, encodeFastjson } from './fastjson';

export interface GetConsumerStatusBody {
  messageQueueTable: Array<[MessageQueue, number]>;
  consumerTable: Map<string, Array<[MessageQueue, number]>>;
}

function mqTable(t: Array<[MessageQueue, number]>): FastjsonMap<JsonObject, number> {
  return new FastjsonMap<JsonObject, number>(t.map(([mq, off]) => [messageQueueBean(mq), off]));
}

export function encodeGetConsumerStatusBody(b: GetConsumerStatusBody): Buffer {
  const consumerTable = new Map<string, FastjsonMap<JsonObject, number>>();
  for (const [clientId, t] of b.consumerTable) consumerTable.set(clientId, mqTable(t));
  return encodeFastjson({ consumerTable, messageQueueTable: mqTable(b.messageQueueTable) });
}

export function decodeGetConsumerStatusBody(buf: Buffer): GetConsumerStatusBody {
  const o = parseBody(buf, 'GetConsumerStatusBody');
  const consumerTable = new Map<string, Array<[MessageQueue, number]>>();
  for (const [clientId, v] of entries(o, 'consumerTable')) {
    if (v === null) continue;
    consumerTable.set(String(clientId), mqEntries({ t: v }, 't', (x) => asLong(x, 'consumerTable')));
  }
  return { messageQueueTable: mqEntries(o, 'messageQueueTable', (x) => asLong(x, 'messageQueueTable')), consumerTable };
}
