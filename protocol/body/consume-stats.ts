/**
 * GET_CONSUME_STATS (208) response body. offsetTable is a HashMap<MessageQueue, OffsetWrapper>, so fastjson
 * writes each queue bean as the key: `{"offsetTable":{{"brokerName":..,"queueId":..,"topic":..}:{...}}}`.
 * consumeTps is a Java double (`0.0`).
 *
 * @see org.apache.rocketmq.common.admin.ConsumeStats
 * @see org.apache.rocketmq.common.admin.OffsetWrapper
 */
import type { MessageQueue } from '../message/message-queue';
import { type JsonObject, asObject, double, long, messageQueueBean, mqEntries, parseBody } from './body-util';
import { FastjsonMap, encodeFastjson, javaDouble } from './fastjson';

export interface OffsetWrapper {
  brokerOffset: number;
  consumerOffset: number;
  lastTimestamp: number;
}

export interface ConsumeStats {
  /** Entries in wire order (a Java HashMap keyed by MessageQueue). */
  offsetTable: Array<[MessageQueue, OffsetWrapper]>;
  consumeTps: number;
}

function offsetWrapperFromJson(v: unknown): OffsetWrapper {
  const o = asObject(v, 'OffsetWrapper');
  return {
    brokerOffset: long(o, 'brokerOffset'),
    consumerOffset: long(o, 'consumerOffset'),
    lastTimestamp: long(o, 'lastTimestamp'),
  };
}

export function decodeConsumeStats(buf: Buffer): ConsumeStats {
  const o = parseBody(buf, 'ConsumeStats');
  return { offsetTable: mqEntries(o, 'offsetTable', offsetWrapperFromJson), consumeTps: double(o, 'consumeTps') };
}

export function encodeConsumeStats(s: ConsumeStats): Buffer {
  const table = new FastjsonMap<JsonObject, JsonObject>(s.offsetTable.map(([mq, w]) => [
    messageQueueBean(mq),
    { brokerOffset: w.brokerOffset, consumerOffset: w.consumerOffset, lastTimestamp: w.lastTimestamp },
  ]));
  return encodeFastjson({ consumeTps: javaDouble(s.consumeTps), offsetTable: table });
}

/** Java's computeTotalDiff: the sum of brokerOffset - consumerOffset. */
export function computeTotalDiff(s: ConsumeStats): number {
  let diff = 0;
  for (const [, w] of s.offsetTable) diff += w.brokerOffset - w.consumerOffset;
  return diff;
}
