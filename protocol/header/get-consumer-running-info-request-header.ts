/**
 * GetConsumerRunningInfoRequestHeader: Asks a consumer's running info (answer in a JSON body).
 *
 * Used by: GET_CONSUMER_RUNNING_INFO (307) request, also broker to client.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   consumerGroup  string   required  consumer group
 *   clientId       string   required  client id
 *   jstackEnable   boolean  optional  include a thread dump
 *   bname          string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns             string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd            boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway           boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.GetConsumerRunningInfoRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetConsumerRunningInfoRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetConsumerRunningInfoRequestHeader = defineHeader('GetConsumerRunningInfoRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  clientId: { type: 'string', required: true },
  jstackEnable: { type: 'boolean' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
} as const);
export type GetConsumerRunningInfoRequestHeader = HeaderValues<typeof GetConsumerRunningInfoRequestHeader.schema>;
