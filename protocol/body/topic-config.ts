/**
 * A topic's configuration as brokers register it and store it in config/topics.json.
 * 5.x adds `attributes` (a Map<String,String>), kept when present.
 *
 * @see org.apache.rocketmq.common.TopicConfig
 */
import { type JsonObject, asObject, bool, int, reqStr, stringMap, asString } from './body-util';
import { PermName } from './perm-name';
import { TopicFilterType } from './topic-filter-type';
import { ProtocolError } from '../errors';

export interface TopicConfig {
  topicName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicFilterType: TopicFilterType;
  topicSysFlag: number;
  order: boolean;
  /** 5.x only. */
  attributes?: Map<string, string>;
}

export const DEFAULT_READ_QUEUE_NUMS = 16;
export const DEFAULT_WRITE_QUEUE_NUMS = 16;

/** Java's `new TopicConfig(name)` defaults, overridden by `fields`. */
export function newTopicConfig(topicName: string, fields: Partial<TopicConfig> = {}): TopicConfig {
  return {
    topicName,
    readQueueNums: DEFAULT_READ_QUEUE_NUMS,
    writeQueueNums: DEFAULT_WRITE_QUEUE_NUMS,
    perm: PermName.PERM_READ | PermName.PERM_WRITE,
    topicFilterType: TopicFilterType.SINGLE_TAG,
    topicSysFlag: 0,
    order: false,
    ...fields,
  };
}

function filterType(v: unknown): TopicFilterType {
  if (v === undefined || v === null) return TopicFilterType.SINGLE_TAG;
  if (v !== TopicFilterType.SINGLE_TAG && v !== TopicFilterType.MULTI_TAG) {
    throw new ProtocolError(`topicFilterType: unknown value ${String(v)}`);
  }
  return v;
}

export function topicConfigFromJson(v: unknown): TopicConfig {
  const o = asObject(v, 'TopicConfig');
  const t: TopicConfig = {
    topicName: reqStr(o, 'topicName'),
    readQueueNums: int(o, 'readQueueNums', DEFAULT_READ_QUEUE_NUMS),
    writeQueueNums: int(o, 'writeQueueNums', DEFAULT_WRITE_QUEUE_NUMS),
    perm: int(o, 'perm', PermName.PERM_READ | PermName.PERM_WRITE),
    topicFilterType: filterType(o.topicFilterType),
    topicSysFlag: int(o, 'topicSysFlag'),
    order: bool(o, 'order'),
  };
  if (o.attributes !== undefined && o.attributes !== null) {
    t.attributes = stringMap(o, 'attributes', (x) => asString(x, 'attributes'));
  }
  return t;
}

export function topicConfigToJson(t: TopicConfig): JsonObject {
  return {
    attributes: t.attributes,
    order: t.order,
    perm: t.perm,
    readQueueNums: t.readQueueNums,
    topicFilterType: t.topicFilterType,
    topicName: t.topicName,
    topicSysFlag: t.topicSysFlag,
    writeQueueNums: t.writeQueueNums,
  };
}

/** Java's TopicConfig.encode(): `name read write perm filterType`, used by the compressed register body. */
export function topicConfigToLine(t: TopicConfig): string {
  return `${t.topicName} ${t.readQueueNums} ${t.writeQueueNums} ${t.perm} ${t.topicFilterType}`;
}

/** Java's TopicConfig.decode(line): other fields keep their defaults. */
export function topicConfigFromLine(line: string): TopicConfig {
  const parts = line.split(' ');
  if (parts.length !== 5) throw new ProtocolError(`bad topic config line: ${JSON.stringify(line)}`);
  const n = (s: string): number => {
    if (!/^-?\d+$/.test(s)) throw new ProtocolError(`bad topic config line: ${JSON.stringify(line)}`);
    return Number(s);
  };
  return newTopicConfig(parts[0], {
    readQueueNums: n(parts[1]),
    writeQueueNums: n(parts[2]),
    perm: n(parts[3]),
    topicFilterType: filterType(parts[4]),
  });
}
