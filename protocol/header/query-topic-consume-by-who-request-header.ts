/**
 * QueryTopicConsumeByWhoRequestHeader: Lists the groups consuming a topic.
 *
 * Used by: QUERY_TOPIC_CONSUME_BY_WHO (300) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   topic  string   required  topic
 *   bname  string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns     string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd    boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway   boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo     boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.QueryTopicConsumeByWhoRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.QueryTopicConsumeByWhoRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const QueryTopicConsumeByWhoRequestHeader = defineHeader('QueryTopicConsumeByWhoRequestHeader', {
  topic: { type: 'string', required: true },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type QueryTopicConsumeByWhoRequestHeader = HeaderValues<typeof QueryTopicConsumeByWhoRequestHeader.schema>;
