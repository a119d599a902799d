/**
 * ResetOffsetRequestHeader: Resets a group's offsets to a time (the broker tells the client the offsets in the body).
 *
 * Used by: RESET_CONSUMER_CLIENT_OFFSET (220) broker to client, INVOKE_BROKER_TO_RESET_OFFSET (222) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   topic      string   required  topic
 *   group      string   required  consumer group
 *   timestamp  long     required  time to reset to, ms
 *   isForce    boolean  required  reset even forward
 *   queueId    int      5.x opt.  queue (5.x, -1 all)
 *   offset     long     5.x opt.  offset (5.x)
 *   bname      string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns         string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd        boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway       boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo         boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.ResetOffsetRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.ResetOffsetRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ResetOffsetRequestHeader = defineHeader('ResetOffsetRequestHeader', {
  topic: { type: 'string', required: true },
  group: { type: 'string', required: true },
  timestamp: { type: 'long', required: true },
  isForce: { type: 'boolean', required: true },
  queueId: { type: 'int' },
  offset: { type: 'long' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type ResetOffsetRequestHeader = HeaderValues<typeof ResetOffsetRequestHeader.schema>;
