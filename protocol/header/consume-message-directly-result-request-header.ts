/**
 * ConsumeMessageDirectlyResultRequestHeader: Asks a consumer to consume one message (the body) now.
 *
 * Used by: CONSUME_MESSAGE_DIRECTLY (309) request, also broker to client.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   consumerGroup  string   required  consumer group
 *   clientId       string   optional  client id
 *   msgId          string   optional  message id
 *   brokerName     string   optional  broker name
 *   topic          string   5.x opt.  topic (5.x)
 *   topicSysFlag   int      5.x opt.  topic sys flag (5.x)
 *   groupSysFlag   int      5.x opt.  group sys flag (5.x)
 *   bname          string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns             string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd            boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway           boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo             boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.ConsumeMessageDirectlyResultRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.ConsumeMessageDirectlyResultRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ConsumeMessageDirectlyResultRequestHeader = defineHeader('ConsumeMessageDirectlyResultRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  clientId: { type: 'string' },
  msgId: { type: 'string' },
  brokerName: { type: 'string' },
  topic: { type: 'string' },
  topicSysFlag: { type: 'int' },
  groupSysFlag: { type: 'int' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type ConsumeMessageDirectlyResultRequestHeader = HeaderValues<typeof ConsumeMessageDirectlyResultRequestHeader.schema>;
