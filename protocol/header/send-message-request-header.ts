/**
 * SendMessageRequestHeader: A message sent to a broker queue, long field names (the V2 header carries the same fields under one-letter keys).
 *
 * Used by: SEND_MESSAGE (10), SEND_REPLY_MESSAGE (324) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   producerGroup          string   required  producer group
 *   topic                  string   required  topic
 *   defaultTopic           string   required  topic whose config an auto-created topic copies (TBW102)
 *   defaultTopicQueueNums  int      required  queue count of an auto-created topic
 *   queueId                int      required  target queue
 *   sysFlag                int      required  MessageSysFlag bits
 *   bornTimestamp          long     required  producer timestamp, ms
 *   flag                   int      required  the message's user flag
 *   properties             string   optional  properties, name \u0001 value \u0002 ...
 *   reconsumeTimes         int      optional  times the message was consumed again (retry messages)
 *   unitMode               boolean  optional  unit mode
 *   batch                  boolean  optional  body is a batch (SEND_BATCH_MESSAGE)
 *   maxReconsumeTimes      int      optional  max reconsume times of a retry message
 *   bname                  string   optional  broker name the request is meant for (RpcRequestHeader)
 *   ns                     string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd                    boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway                   boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo                     boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.SendMessageRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.SendMessageRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const SendMessageRequestHeader = defineHeader('SendMessageRequestHeader', {
  producerGroup: { type: 'string', required: true },
  topic: { type: 'string', required: true },
  defaultTopic: { type: 'string', required: true },
  defaultTopicQueueNums: { type: 'int', required: true },
  queueId: { type: 'int', required: true },
  sysFlag: { type: 'int', required: true },
  bornTimestamp: { type: 'long', required: true },
  flag: { type: 'int', required: true },
  properties: { type: 'string' },
  reconsumeTimes: { type: 'int' },
  unitMode: { type: 'boolean' },
  batch: { type: 'boolean' },
  maxReconsumeTimes: { type: 'int' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type SendMessageRequestHeader = HeaderValues<typeof SendMessageRequestHeader.schema>;
