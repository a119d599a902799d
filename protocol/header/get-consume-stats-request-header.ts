/**
 * GetConsumeStatsRequestHeader: Asks a group's consume stats (answer in a JSON body).
 *
 * Used by: GET_CONSUME_STATS (208) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   consumerGroup  string   required  consumer group
 *   topic          string   optional  only this topic
 *   topicList      string   5.x opt.  only these topics, comma-separated (5.x)
 *   bname          string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns             string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd            boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway           boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo             boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.GetConsumeStatsRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetConsumeStatsRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetConsumeStatsRequestHeader = defineHeader('GetConsumeStatsRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  topic: { type: 'string' },
  topicList: { type: 'string' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type GetConsumeStatsRequestHeader = HeaderValues<typeof GetConsumeStatsRequestHeader.schema>;
