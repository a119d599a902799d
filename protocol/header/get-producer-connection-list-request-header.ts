/**
 * GetProducerConnectionListRequestHeader: Lists a producer group's connections.
 *
 * Used by: GET_PRODUCER_CONNECTION_LIST (204) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   producerGroup  string   required  producer group
 *   bname          string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns             string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd            boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway           boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.GetProducerConnectionListRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetProducerConnectionListRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetProducerConnectionListRequestHeader = defineHeader('GetProducerConnectionListRequestHeader', {
  producerGroup: { type: 'string', required: true },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
} as const);
export type GetProducerConnectionListRequestHeader = HeaderValues<typeof GetProducerConnectionListRequestHeader.schema>;
