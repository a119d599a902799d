/**
 * SendMessageRequestHeaderV2: SendMessageRequestHeader under one-letter keys, to keep every send frame small.
 *
 * Used by: SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320), SEND_REPLY_MESSAGE_V2 (325) requests. Java reads and
 * writes it through FastCodesHeader, which knows the keys a..n only: the RpcRequestHeader fields of V1 (bname, and
 * 5.x's ns, nsd, oway, lo) do not travel in V2; the broker name goes in `n`.
 *
 * Wire grammar (extFields key, value type, presence, meaning; the TypeScript field name in brackets):
 *   a  string   required  producer group                            [producerGroup]
 *   b  string   required  topic                                     [topic]
 *   c  string   required  default topic for auto-creation (TBW102)  [defaultTopic]
 *   d  int      required  queue count of an auto-created topic      [defaultTopicQueueNums]
 *   e  int      required  target queue                              [queueId]
 *   f  int      required  MessageSysFlag bits                       [sysFlag]
 *   g  long     required  producer timestamp, ms                    [bornTimestamp]
 *   h  int      required  the message's user flag                   [flag]
 *   i  string   optional  properties, name \u0001 value \u0002 ...  [properties]
 *   j  int      optional  reconsume times (retry messages)          [reconsumeTimes]
 *   k  boolean  optional  unit mode                                 [unitMode]
 *   l  int      optional  max reconsume times                       [maxReconsumeTimes]
 *   m  boolean  optional  body is a batch                           [batch]
 *   n  string   optional  broker name (V1's bname)                  [brokerName]
 *
 * @see org.apache.rocketmq.common.protocol.header.SendMessageRequestHeaderV2 (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeaderV2 (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';
import { SendMessageRequestHeader } from './send-message-request-header';

export const SendMessageRequestHeaderV2 = defineHeader('SendMessageRequestHeaderV2', {
  producerGroup: { type: 'string', required: true, key: 'a' },
  topic: { type: 'string', required: true, key: 'b' },
  defaultTopic: { type: 'string', required: true, key: 'c' },
  defaultTopicQueueNums: { type: 'int', required: true, key: 'd' },
  queueId: { type: 'int', required: true, key: 'e' },
  sysFlag: { type: 'int', required: true, key: 'f' },
  bornTimestamp: { type: 'long', required: true, key: 'g' },
  flag: { type: 'int', required: true, key: 'h' },
  properties: { type: 'string', key: 'i' },
  reconsumeTimes: { type: 'int', key: 'j' },
  unitMode: { type: 'boolean', key: 'k' },
  maxReconsumeTimes: { type: 'int', key: 'l' },
  batch: { type: 'boolean', key: 'm' },
  brokerName: { type: 'string', key: 'n' },
} as const);
export type SendMessageRequestHeaderV2 = HeaderValues<typeof SendMessageRequestHeaderV2.schema>;

/** V1 → V2 (Java `createSendMessageRequestHeaderV2`): same values, `bname` becomes `brokerName` (key `n`). */
export function toSendMessageRequestHeaderV2(v1: SendMessageRequestHeader): SendMessageRequestHeaderV2 {
  const v2: SendMessageRequestHeaderV2 = {
    producerGroup: v1.producerGroup,
    topic: v1.topic,
    defaultTopic: v1.defaultTopic,
    defaultTopicQueueNums: v1.defaultTopicQueueNums,
    queueId: v1.queueId,
    sysFlag: v1.sysFlag,
    bornTimestamp: v1.bornTimestamp,
    flag: v1.flag,
  };
  if (v1.properties !== undefined) v2.properties = v1.properties;
  if (v1.reconsumeTimes !== undefined) v2.reconsumeTimes = v1.reconsumeTimes;
  if (v1.unitMode !== undefined) v2.unitMode = v1.unitMode;
  if (v1.maxReconsumeTimes !== undefined) v2.maxReconsumeTimes = v1.maxReconsumeTimes;
  if (v1.batch !== undefined) v2.batch = v1.batch;
  if (v1.bname !== undefined) v2.brokerName = v1.bname;
  return v2;
}

/** V2 → V1 (Java `createSendMessageRequestHeaderV1`), what a broker works with: `brokerName` becomes `bname`. */
export function fromSendMessageRequestHeaderV2(v2: SendMessageRequestHeaderV2): SendMessageRequestHeader {
  const v1: SendMessageRequestHeader = {
    producerGroup: v2.producerGroup,
    topic: v2.topic,
    defaultTopic: v2.defaultTopic,
    defaultTopicQueueNums: v2.defaultTopicQueueNums,
    queueId: v2.queueId,
    sysFlag: v2.sysFlag,
    bornTimestamp: v2.bornTimestamp,
    flag: v2.flag,
  };
  if (v2.properties !== undefined) v1.properties = v2.properties;
  if (v2.reconsumeTimes !== undefined) v1.reconsumeTimes = v2.reconsumeTimes;
  if (v2.unitMode !== undefined) v1.unitMode = v2.unitMode;
  if (v2.maxReconsumeTimes !== undefined) v1.maxReconsumeTimes = v2.maxReconsumeTimes;
  if (v2.batch !== undefined) v1.batch = v2.batch;
  if (v2.brokerName !== undefined) v1.bname = v2.brokerName;
  return v1;
}
