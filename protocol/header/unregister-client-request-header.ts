/**
 * UnregisterClientRequestHeader: A client leaving a producer or consumer group.
 *
 * Used by: UNREGISTER_CLIENT (35) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   clientID       string   required  client id
 *   producerGroup  string   optional  producer group
 *   consumerGroup  string   optional  consumer group
 *   bname          string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns             string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd            boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway           boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.UnregisterClientRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.UnregisterClientRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const UnregisterClientRequestHeader = defineHeader('UnregisterClientRequestHeader', {
  clientID: { type: 'string', required: true },
  producerGroup: { type: 'string' },
  consumerGroup: { type: 'string' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
} as const);
export type UnregisterClientRequestHeader = HeaderValues<typeof UnregisterClientRequestHeader.schema>;
