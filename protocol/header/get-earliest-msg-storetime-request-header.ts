/**
 * GetEarliestMsgStoretimeRequestHeader: Asks the store time of a queue's first message.
 *
 * Used by: GET_EARLIEST_MSG_STORETIME (32) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   topic    string   required  topic
 *   queueId  int      required  queue
 *   bname    string   optional  broker name the request is meant for (RpcRequestHeader)
 *   ns       string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd      boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway     boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo       boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.GetEarliestMsgStoretimeRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetEarliestMsgStoretimeRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetEarliestMsgStoretimeRequestHeader = defineHeader('GetEarliestMsgStoretimeRequestHeader', {
  topic: { type: 'string', required: true },
  queueId: { type: 'int', required: true },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type GetEarliestMsgStoretimeRequestHeader = HeaderValues<typeof GetEarliestMsgStoretimeRequestHeader.schema>;
