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
  return consumeStatsFromJson(parseBody(buf, 'ConsumeStats'));
}

function consumeStatsToJson(s: ConsumeStats): JsonObject {
  const table = new FastjsonMap<JsonObject, JsonObject>(s.offsetTable.map(([mq, w]) => [
    messageQueueBean(mq),
    { brokerOffset: w.brokerOffset, consumerOffset: w.consumerOffset, lastTimestamp: w.lastTimestamp },
  ]));
  return { consumeTps: javaDouble(s.consumeTps), offsetTable: table };
}

function consumeStatsFromJson(v: unknown): ConsumeStats {
  const o = asObject(v, 'ConsumeStats');
  return { offsetTable: mqEntries(o, 'offsetTable', offsetWrapperFromJson), consumeTps: double(o, 'consumeTps') };
}

export function encodeConsumeStats(s: ConsumeStats): Buffer {
  return encodeFastjson(consumeStatsToJson(s));
}

/**
 * The body of GET_BROKER_CONSUME_STATS: per subscription group of the broker, the consume stats of each topic it
 * has offsets for. @see org.apache.rocketmq.common.protocol.body.ConsumeStatsList
 */
export interface ConsumeStatsList {
  /** One single-entry map (group -> stats per topic) per group, in the broker's order. */
  consumeStatsList: Array<Map<string, ConsumeStats[]>>;
  brokerAddr: string;
  totalDiff: number;
}

export function encodeConsumeStatsList(l: ConsumeStatsList): Buffer {
  return encodeFastjson({
    brokerAddr: l.brokerAddr,
    consumeStatsList: l.consumeStatsList.map((m) => new Map([...m].map(([g, list]) => [g, list.map(consumeStatsToJson)]))),
    totalDiff: l.totalDiff,
  });
}

export function decodeConsumeStatsList(buf: Buffer): ConsumeStatsList {
  const o = parseBody(buf, 'ConsumeStatsList');
  const list = Array.isArray(o.consumeStatsList) ? o.consumeStatsList : [];
  return {
    brokerAddr: typeof o.brokerAddr === 'string' ? o.brokerAddr : '',
    totalDiff: long(o, 'totalDiff'),
    consumeStatsList: list.map((m) => {
      const entries = Object.entries(asObject(m, 'consumeStatsList[]'));
      return new Map(entries.map(([g, v]) => [g, (Array.isArray(v) ? v : []).map(consumeStatsFromJson)]));
    }),
  };
}

/** Java's computeTotalDiff: the sum of brokerOffset - consumerOffset. */
export function computeTotalDiff(s: ConsumeStats): number {
  let diff = 0;
  for (const [, w] of s.offsetTable) diff += w.brokerOffset - w.consumerOffset;
  return diff;
}
