/**
 * ReplyMessageRequestHeader: A request-reply answer pushed to the requesting producer.
 *
 * Used by: PUSH_REPLY_MESSAGE_TO_CLIENT (326) broker to client.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   producerGroup          string   required  producer group
 *   topic                  string   required  topic
 *   defaultTopic           string   required  default topic
 *   defaultTopicQueueNums  int      required  default topic queue count
 *   queueId                int      required  queue
 *   sysFlag                int      required  sys flag
 *   bornTimestamp          long     required  born time, ms
 *   flag                   int      required  user flag
 *   properties             string   optional  properties
 *   reconsumeTimes         int      optional  reconsume times
 *   unitMode               boolean  optional  unit mode
 *   bornHost               string   required  born host ip:port
 *   storeHost              string   required  store host ip:port
 *   storeTimestamp         long     required  store time, ms
 *   bname                  string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns                     string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd                    boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway                   boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo                     boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.ReplyMessageRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.ReplyMessageRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ReplyMessageRequestHeader = defineHeader('ReplyMessageRequestHeader', {
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
  bornHost: { type: 'string', required: true },
  storeHost: { type: 'string', required: true },
  storeTimestamp: { type: 'long', required: true },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type ReplyMessageRequestHeader = HeaderValues<typeof ReplyMessageRequestHeader.schema>;
