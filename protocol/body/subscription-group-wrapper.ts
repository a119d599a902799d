/**
 * GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201) response body and config/subscriptionGroup.json; a single
 * SubscriptionGroupConfig is the UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200) request body.
 *
 * @see org.apache.rocketmq.common.protocol.body.SubscriptionGroupWrapper
 * @see org.apache.rocketmq.common.subscription.SubscriptionGroupConfig
 */
import { type JsonObject, asObject, bool, int, long, mapValues, parseBody, reqStr, stringMap } from './body-util';
import { type DataVersion, dataVersionFromJson, dataVersionToJson, newDataVersion } from './data-version';
import { encodeFastjson } from './fastjson';

export interface SubscriptionGroupConfig {
  groupName: string;
  consumeEnable: boolean;
  consumeFromMinEnable: boolean;
  consumeBroadcastEnable: boolean;
  retryQueueNums: number;
  retryMaxTimes: number;
  brokerId: number;
  whichBrokerWhenConsumeSlowly: number;
  notifyConsumerIdsChangedEnable: boolean;
  /** 5.x fields (groupSysFlag, consumeTimeoutMinute, groupRetryPolicy, attributes...) kept as parsed. */
  extra?: JsonObject;
}

export interface SubscriptionGroupWrapper {
  subscriptionGroupTable: Map<string, SubscriptionGroupConfig>;
  dataVersion: DataVersion;
}

const KNOWN = new Set(['groupName', 'consumeEnable', 'consumeFromMinEnable', 'consumeBroadcastEnable',
  'retryQueueNums', 'retryMaxTimes', 'brokerId', 'whichBrokerWhenConsumeSlowly', 'notifyConsumerIdsChangedEnable']);

/** Java's `new SubscriptionGroupConfig()` defaults. */
export function newSubscriptionGroupConfig(groupName: string, fields: Partial<SubscriptionGroupConfig> = {}): SubscriptionGroupConfig {
  return {
    groupName,
    consumeEnable: true,
    consumeFromMinEnable: true,
    consumeBroadcastEnable: true,
    retryQueueNums: 1,
    retryMaxTimes: 16,
    brokerId: 0,
    whichBrokerWhenConsumeSlowly: 1,
    notifyConsumerIdsChangedEnable: true,
    ...fields,
  };
}

export function subscriptionGroupConfigFromJson(v: unknown): SubscriptionGroupConfig {
  const o = asObject(v, 'SubscriptionGroupConfig');
  const c: SubscriptionGroupConfig = {
    groupName: reqStr(o, 'groupName'),
    consumeEnable: bool(o, 'consumeEnable', true),
    consumeFromMinEnable: bool(o, 'consumeFromMinEnable', true),
    consumeBroadcastEnable: bool(o, 'consumeBroadcastEnable', true),
    retryQueueNums: int(o, 'retryQueueNums', 1),
    retryMaxTimes: int(o, 'retryMaxTimes', 16),
    brokerId: long(o, 'brokerId', 0),
    whichBrokerWhenConsumeSlowly: long(o, 'whichBrokerWhenConsumeSlowly', 1),
    notifyConsumerIdsChangedEnable: bool(o, 'notifyConsumerIdsChangedEnable', true),
  };
  const extra = Object.keys(o).filter((k) => !KNOWN.has(k));
  if (extra.length > 0) c.extra = Object.fromEntries(extra.map((k) => [k, o[k]]));
  return c;
}

export function subscriptionGroupConfigToJson(c: SubscriptionGroupConfig): JsonObject {
  return {
    ...c.extra,
    brokerId: c.brokerId,
    consumeBroadcastEnable: c.consumeBroadcastEnable,
    consumeEnable: c.consumeEnable,
    consumeFromMinEnable: c.consumeFromMinEnable,
    groupName: c.groupName,
    notifyConsumerIdsChangedEnable: c.notifyConsumerIdsChangedEnable,
    retryMaxTimes: c.retryMaxTimes,
    retryQueueNums: c.retryQueueNums,
    whichBrokerWhenConsumeSlowly: c.whichBrokerWhenConsumeSlowly,
  };
}

export function decodeSubscriptionGroupConfig(buf: Buffer): SubscriptionGroupConfig {
  return subscriptionGroupConfigFromJson(parseBody(buf, 'SubscriptionGroupConfig'));
}

export function encodeSubscriptionGroupConfig(c: SubscriptionGroupConfig): Buffer {
  return encodeFastjson(subscriptionGroupConfigToJson(c));
}

export function decodeSubscriptionGroupWrapper(buf: Buffer): SubscriptionGroupWrapper {
  const o = parseBody(buf, 'SubscriptionGroupWrapper');
  return {
    subscriptionGroupTable: stringMap(o, 'subscriptionGroupTable', subscriptionGroupConfigFromJson),
    dataVersion: o.dataVersion ? dataVersionFromJson(o.dataVersion) : newDataVersion(),
  };
}

export function encodeSubscriptionGroupWrapper(w: SubscriptionGroupWrapper): Buffer {
  return encodeFastjson({
    dataVersion: dataVersionToJson(w.dataVersion),
    subscriptionGroupTable: mapValues(w.subscriptionGroupTable, subscriptionGroupConfigToJson),
  });
}
