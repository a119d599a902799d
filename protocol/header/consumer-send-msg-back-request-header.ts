/**
 * ConsumerSendMsgBackRequestHeader: A consumer returning a message it failed to consume, for a retry.
 *
 * Used by: CONSUMER_SEND_MSG_BACK (36) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   offset             long     required  commit-log offset of the message
 *   group              string   required  consumer group
 *   delayLevel         int      required  delay level (0: broker decides; -1: straight to the DLQ)
 *   originMsgId        string   optional  message's original msgId
 *   originTopic        string   optional  message's original topic
 *   unitMode           boolean  optional  unit mode
 *   maxReconsumeTimes  int      optional  group's max reconsume times
 *   bname              string   optional  broker name the request is meant for (RpcRequestHeader)
 *   ns                 string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd                boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway               boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.ConsumerSendMsgBackRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.ConsumerSendMsgBackRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ConsumerSendMsgBackRequestHeader = defineHeader('ConsumerSendMsgBackRequestHeader', {
  offset: { type: 'long', required: true },
  group: { type: 'string', required: true },
  delayLevel: { type: 'int', required: true },
  originMsgId: { type: 'string' },
  originTopic: { type: 'string' },
  unitMode: { type: 'boolean' },
  maxReconsumeTimes: { type: 'int' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
} as const);
export type ConsumerSendMsgBackRequestHeader = HeaderValues<typeof ConsumerSendMsgBackRequestHeader.schema>;
