/**
 * UpdateConsumerOffsetRequestHeader: Commits a group's offset of a queue.
 *
 * Used by: UPDATE_CONSUMER_OFFSET (15) request (oneway from the Java client).
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   consumerGroup  string   required  consumer group
 *   topic          string   required  topic
 *   queueId        int      required  queue
 *   commitOffset   long     required  offset to commit
 *   bname          string   optional  broker name the request is meant for (RpcRequestHeader)
 *   ns             string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd            boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway           boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo             boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.UpdateConsumerOffsetRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.UpdateConsumerOffsetRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const UpdateConsumerOffsetRequestHeader = defineHeader('UpdateConsumerOffsetRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  topic: { type: 'string', required: true },
  queueId: { type: 'int', required: true },
  commitOffset: { type: 'long', required: true },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type UpdateConsumerOffsetRequestHeader = HeaderValues<typeof UpdateConsumerOffsetRequestHeader.schema>;
