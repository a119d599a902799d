/**
 * GetConsumerConnectionListRequestHeader: Lists a consumer group's connections.
 *
 * Used by: GET_CONSUMER_CONNECTION_LIST (203) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   consumerGroup  string   required  consumer group
 *   bname          string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns             string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd            boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway           boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.GetConsumerConnectionListRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetConsumerConnectionListRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetConsumerConnectionListRequestHeader = defineHeader('GetConsumerConnectionListRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
} as const);
export type GetConsumerConnectionListRequestHeader = HeaderValues<typeof GetConsumerConnectionListRequestHeader.schema>;
