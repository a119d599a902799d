/**
 * The POP checkpoint string a popped message carries in its POP_CK property ("extraInfo"), and the per-queue
 * offset lists of a POP response header, as Java's ExtraInfoUtil writes and reads them; with the pop retry topic
 * names of KeyBuilder.
 *
 * extraInfo = ckQueueOffset SP popTime SP invisibleTime SP reviveQid SP retry SP brokerName SP queueId SP queueOffset
 *   retry: "0" normal topic, "1" pop retry topic v1 (%RETRY%group_topic), "2" v2 (%RETRY%group+topic)
 * startOffsetInfo = retry SP queueId SP startOffset [; ...]
 * msgOffsetInfo   = retry SP queueId SP o1,o2,... [; ...]
 *
 * @see org.apache.rocketmq.remoting.protocol.header.ExtraInfoUtil (5.3.3)
 * @see org.apache.rocketmq.common.KeyBuilder (5.3.3)
 */
import { ProtocolError } from '../errors';

const RETRY_GROUP_TOPIC_PREFIX = '%RETRY%';
/** KeyBuilder.POP_ORDER_REVIVE_QUEUE: the reviveQid of orderly pops. */
export const POP_ORDER_REVIVE_QUEUE = 999;

export const KeyBuilder = {
  buildPopRetryTopicV1: (topic: string, group: string): string => `${RETRY_GROUP_TOPIC_PREFIX}${group}_${topic}`,
  buildPopRetryTopicV2: (topic: string, group: string): string => `${RETRY_GROUP_TOPIC_PREFIX}${group}+${topic}`,
  buildPopRetryTopic(topic: string, group: string, enableRetryV2 = false): string {
    return enableRetryV2 ? KeyBuilder.buildPopRetryTopicV2(topic, group) : KeyBuilder.buildPopRetryTopicV1(topic, group);
  },
  isPopRetryTopicV2: (topic: string): boolean => topic.startsWith(RETRY_GROUP_TOPIC_PREFIX) && topic.includes('+'),
  /** The subscribed topic of a pop retry topic of `group` (the topic itself when it is none). */
  parseNormalTopic(topic: string, group: string): string {
    if (!topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) return topic;
    const v2 = `${RETRY_GROUP_TOPIC_PREFIX}${group}+`;
    if (topic.startsWith(v2)) return topic.slice(v2.length);
    return topic.slice(`${RETRY_GROUP_TOPIC_PREFIX}${group}_`.length);
  },
} as const;

/** The retry mark of a topic: "0" normal, "1" retry v1, "2" retry v2. */
export function retryMark(topic: string): '0' | '1' | '2' {
  if (KeyBuilder.isPopRetryTopicV2(topic)) return '2';
  if (topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) return '1';
  return '0';
}

/** A parsed extraInfo (POP_CK). */
export interface ExtraInfo {
  ckQueueOffset: number;
  popTime: number;
  invisibleTime: number;
  reviveQid: number;
  retry: string;
  brokerName: string;
  queueId: number;
  /** The message's own queue offset (absent in the 7-field form). */
  queueOffset: number | undefined;
}

function num(s: string, what: string, info: string): number {
  if (!/^-?\d+$/.test(s)) throw new ProtocolError(`extraInfo ${what} is not a number: ${JSON.stringify(info)}`);
  return Number(s);
}

export function parseExtraInfo(extraInfo: string): ExtraInfo {
  const f = extraInfo.split(' ');
  if (f.length < 7) throw new ProtocolError(`extraInfo has ${f.length} fields, at least 7 expected: ${JSON.stringify(extraInfo)}`);
  return {
    ckQueueOffset: num(f[0], 'ckQueueOffset', extraInfo),
    popTime: num(f[1], 'popTime', extraInfo),
    invisibleTime: num(f[2], 'invisibleTime', extraInfo),
    reviveQid: num(f[3], 'reviveQid', extraInfo),
    retry: f[4],
    brokerName: f[5],
    queueId: num(f[6], 'queueId', extraInfo),
    queueOffset: f.length > 7 ? num(f[7], 'queueOffset', extraInfo) : undefined,
  };
}

/** ExtraInfoUtil.buildExtraInfo (with the message's queue offset when given: the 8-field form). */
export function buildExtraInfo(ckQueueOffset: number, popTime: number, invisibleTime: number, reviveQid: number, topic: string,
  brokerName: string, queueId: number, msgQueueOffset?: number): string {
  const base = `${ckQueueOffset} ${popTime} ${invisibleTime} ${reviveQid} ${retryMark(topic)} ${brokerName} ${queueId}`;
  return msgQueueOffset === undefined ? base : `${base} ${msgQueueOffset}`;
}

/** ExtraInfoUtil.getRealTopic: the topic to ack on (the pop retry topic for a redelivered message). */
export function realTopicOf(info: Pick<ExtraInfo, 'retry'>, topic: string, group: string): string {
  if (info.retry === '1') return KeyBuilder.buildPopRetryTopicV1(topic, group);
  if (info.retry === '2') return KeyBuilder.buildPopRetryTopicV2(topic, group);
  return topic;
}

/** Appends one queue to a startOffsetInfo string (ExtraInfoUtil.buildStartOffsetInfo). */
export function appendStartOffsetInfo(acc: string, topic: string, queueId: number, startOffset: number): string {
  const one = `${retryMark(topic)} ${queueId} ${startOffset}`;
  return acc ? `${acc};${one}` : one;
}

/** Appends one queue to a msgOffsetInfo string (ExtraInfoUtil.buildMsgOffsetInfo). */
export function appendMsgOffsetInfo(acc: string, topic: string, queueId: number, offsets: readonly number[]): string {
  const one = `${retryMark(topic)} ${queueId} ${offsets.join(',')}`;
  return acc ? `${acc};${one}` : one;
}

function parseInfo<T>(info: string | undefined, value: (s: string) => T): Map<string, T> | null {
  if (!info) return null;
  const out = new Map<string, T>();
  for (const one of info.split(';')) {
    const f = one.split(' ');
    if (f.length !== 3) throw new ProtocolError(`bad offset info: ${JSON.stringify(info)}`);
    const key = `${f[0]}@${f[1]}`;
    if (out.has(key)) throw new ProtocolError(`duplicate queue in offset info: ${JSON.stringify(info)}`);
    out.set(key, value(f[2]));
  }
  return out;
}

/** startOffsetInfo → "retry@queueId" → start offset (ExtraInfoUtil.parseStartOffsetInfo). */
export function parseStartOffsetInfo(info: string | undefined): Map<string, number> | null {
  return parseInfo(info, (s) => num(s, 'startOffset', info!));
}

/** msgOffsetInfo → "retry@queueId" → queue offsets (ExtraInfoUtil.parseMsgOffsetInfo). */
export function parseMsgOffsetInfo(info: string | undefined): Map<string, number[]> | null {
  return parseInfo(info, (s) => s.split(',').map((x) => num(x, 'msgOffset', info!)));
}

/** The startOffsetInfo / msgOffsetInfo map key of a topic's queue. */
export function startOffsetInfoKey(topic: string, queueId: number): string {
  return `${retryMark(topic)}@${queueId}`;
}

/** An orderly pop's extraInfo (reviveQid POP_ORDER_REVIVE_QUEUE): acked and changed through the order info, no checkpoint. */
export function isOrderExtraInfo(info: Pick<ExtraInfo, 'reviveQid'>): boolean {
  return info.reviveQid === POP_ORDER_REVIVE_QUEUE;
}

/** ExtraInfoUtil.getQueueOffsetKeyValueKey: "qo<queueId>%<queueOffset>". */
export function queueOffsetKeyValueKey(queueId: number, queueOffset: number): string {
  return `qo${queueId}%${queueOffset}`;
}

/** The orderCountInfo map key of one message (ExtraInfoUtil.getQueueOffsetMapKey): "retry@qo<queueId>%<offset>". */
export function queueOffsetMapKey(topic: string, queueId: number, queueOffset: number): string {
  return `${retryMark(topic)}@${queueOffsetKeyValueKey(queueId, queueOffset)}`;
}

/** Appends one message's delivery count to an orderCountInfo string (ExtraInfoUtil.buildQueueOffsetOrderCountInfo). */
export function appendQueueOffsetOrderCountInfo(acc: string, topic: string, queueId: number, queueOffset: number, count: number): string {
  const one = `${retryMark(topic)} ${queueOffsetKeyValueKey(queueId, queueOffset)} ${count}`;
  return acc ? `${acc};${one}` : one;
}

/**
 * Appends a queue's smallest delivery count to an orderCountInfo string (ExtraInfoUtil.buildQueueIdOrderCountInfo;
 * what older pop clients read, keyed like startOffsetInfo).
 */
export function appendQueueIdOrderCountInfo(acc: string, topic: string, queueId: number, count: number): string {
  const one = `${retryMark(topic)} ${queueId} ${count}`;
  return acc ? `${acc};${one}` : one;
}

/**
 * orderCountInfo → "retry@qo<queueId>%<offset>" or "retry@queueId" → times delivered before
 * (ExtraInfoUtil.parseOrderCountInfo).
 */
export function parseOrderCountInfo(info: string | undefined): Map<string, number> | null {
  return parseInfo(info, (s) => num(s, 'orderCount', info!));
}

/**
 * The reconsume times of an orderly popped message from the answer's orderCountInfo: its own count, else its
 * queue's (MQClientAPIImpl.processPopResponse); undefined when neither is there or the count is 0.
 */
export function orderCountOf(counts: ReadonlyMap<string, number> | null, topic: string, queueId: number, queueOffset: number): number | undefined {
  if (!counts) return undefined;
  const n = counts.get(queueOffsetMapKey(topic, queueId, queueOffset)) ?? counts.get(startOffsetInfoKey(topic, queueId));
  return n !== undefined && n > 0 ? n : undefined;
}
