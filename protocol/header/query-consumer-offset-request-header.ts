/**
 * QueryConsumerOffsetRequestHeader: Reads a group's committed offset of a queue.
 *
 * Used by: QUERY_CONSUMER_OFFSET (14) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   consumerGroup      string   required  consumer group
 *   topic              string   required  topic
 *   queueId            int      required  queue
 *   setZeroIfNotFound  boolean  5.x opt.  answer 0 instead of QUERY_NOT_FOUND (5.x)
 *   bname              string   optional  broker name the request is meant for (RpcRequestHeader)
 *   ns                 string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd                boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway               boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo                 boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.QueryConsumerOffsetRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.QueryConsumerOffsetRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const QueryConsumerOffsetRequestHeader = defineHeader('QueryConsumerOffsetRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  topic: { type: 'string', required: true },
  queueId: { type: 'int', required: true },
  setZeroIfNotFound: { type: 'boolean' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type QueryConsumerOffsetRequestHeader = HeaderValues<typeof QueryConsumerOffsetRequestHeader.schema>;
