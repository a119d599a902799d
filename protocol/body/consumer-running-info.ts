/**
 * GET_CONSUMER_RUNNING_INFO (307) response body, written by the client and read by the broker / mqadmin.
 * mqTable is a TreeMap<MessageQueue, ProcessQueueInfo> (queue beans as keys, sorted by MessageQueue.compareTo);
 * statusTable a TreeMap<String, ConsumeStatus> whose rates are Java doubles.
 *
 * @see org.apache.rocketmq.common.protocol.body.ConsumerRunningInfo
 * @see org.apache.rocketmq.common.protocol.body.ProcessQueueInfo
 * @see org.apache.rocketmq.common.protocol.body.ConsumeStatus
 */
import { type MessageQueue, compareMessageQueue } from '../message/message-queue';
import {
  type JsonObject, asObject, asString, bool, double, int, long, messageQueueBean, mqEntries, objArr, parseBody,
  str, stringMap,
} from './body-util';
import { FastjsonMap, encodeFastjson, javaDouble } from './fastjson';
import { type SubscriptionData, subscriptionDataFromJson, subscriptionDataToJson } from './heartbeat-data';

export const ConsumerRunningInfoProp = {
  PROP_NAMESERVER_ADDR: 'PROP_NAMESERVER_ADDR',
  PROP_THREADPOOL_CORE_SIZE: 'PROP_THREADPOOL_CORE_SIZE',
  PROP_CONSUME_ORDERLY: 'PROP_CONSUMEORDERLY',
  PROP_CONSUME_TYPE: 'PROP_CONSUME_TYPE',
  PROP_CLIENT_VERSION: 'PROP_CLIENT_VERSION',
  PROP_CONSUMER_START_TIMESTAMP: 'PROP_CONSUMER_START_TIMESTAMP',
} as const;

export interface ProcessQueueInfo {
  commitOffset: number;
  cachedMsgMinOffset: number;
  cachedMsgMaxOffset: number;
  cachedMsgCount: number;
  cachedMsgSizeInMiB: number;
  transactionMsgMinOffset: number;
  transactionMsgMaxOffset: number;
  transactionMsgCount: number;
  locked: boolean;
  tryUnlockTimes: number;
  lastLockTimestamp: number;
  droped: boolean;
  lastPullTimestamp: number;
  lastConsumeTimestamp: number;
}

export interface ConsumeStatus {
  pullRT: number;
  pullTPS: number;
  consumeRT: number;
  consumeOKTPS: number;
  consumeFailedTPS: number;
  consumeFailedMsgs: number;
}

export interface ConsumerRunningInfo {
  properties: Map<string, string>;
  subscriptionSet: SubscriptionData[];
  mqTable: Array<[MessageQueue, ProcessQueueInfo]>;
  statusTable: Map<string, ConsumeStatus>;
  jstack?: string;
}

const PQ_LONGS = ['commitOffset', 'cachedMsgMinOffset', 'cachedMsgMaxOffset', 'transactionMsgMinOffset',
  'transactionMsgMaxOffset', 'tryUnlockTimes', 'lastLockTimestamp', 'lastPullTimestamp', 'lastConsumeTimestamp'] as const;

function processQueueInfoFromJson(v: unknown): ProcessQueueInfo {
  const o = asObject(v, 'ProcessQueueInfo');
  const p = {
    cachedMsgCount: int(o, 'cachedMsgCount'),
    cachedMsgSizeInMiB: int(o, 'cachedMsgSizeInMiB'),
    transactionMsgCount: int(o, 'transactionMsgCount'),
    locked: bool(o, 'locked'),
    droped: bool(o, 'droped'),
  } as ProcessQueueInfo;
  for (const k of PQ_LONGS) p[k] = long(o, k);
  return p;
}

function consumeStatusFromJson(v: unknown): ConsumeStatus {
  const o = asObject(v, 'ConsumeStatus');
  return {
    pullRT: double(o, 'pullRT'),
    pullTPS: double(o, 'pullTPS'),
    consumeRT: double(o, 'consumeRT'),
    consumeOKTPS: double(o, 'consumeOKTPS'),
    consumeFailedTPS: double(o, 'consumeFailedTPS'),
    consumeFailedMsgs: long(o, 'consumeFailedMsgs'),
  };
}

export function decodeConsumerRunningInfo(buf: Buffer): ConsumerRunningInfo {
  const o = parseBody(buf, 'ConsumerRunningInfo');
  const info: ConsumerRunningInfo = {
    properties: stringMap(o, 'properties', (v) => asString(v, 'properties')),
    subscriptionSet: objArr(o, 'subscriptionSet', subscriptionDataFromJson),
    mqTable: mqEntries(o, 'mqTable', processQueueInfoFromJson),
    statusTable: stringMap(o, 'statusTable', consumeStatusFromJson),
  };
  const js = str(o, 'jstack');
  if (js !== undefined) info.jstack = js;
  return info;
}

/** Writes mqTable and statusTable in TreeMap order, as Java does, whatever order they are given in. */
export function encodeConsumerRunningInfo(info: ConsumerRunningInfo): Buffer {
  const mq = [...info.mqTable].sort((a, b) => compareMessageQueue(a[0], b[0]));
  const status = [...info.statusTable.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return encodeFastjson({
    jstack: info.jstack,
    mqTable: new FastjsonMap<JsonObject, ProcessQueueInfo>(mq.map(([k, v]) => [messageQueueBean(k), { ...v }])),
    properties: info.properties,
    statusTable: new Map(status.map(([k, s]) => [k, {
      consumeFailedMsgs: s.consumeFailedMsgs,
      consumeFailedTPS: javaDouble(s.consumeFailedTPS),
      consumeOKTPS: javaDouble(s.consumeOKTPS),
      consumeRT: javaDouble(s.consumeRT),
      pullRT: javaDouble(s.pullRT),
      pullTPS: javaDouble(s.pullTPS),
    }])),
    subscriptionSet: info.subscriptionSet.map(subscriptionDataToJson),
  });
}
