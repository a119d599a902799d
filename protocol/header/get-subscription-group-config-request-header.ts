/**
 * GetSubscriptionGroupConfigRequestHeader: one subscription group's config.
 *
 * Used by: GET_SUBSCRIPTIONGROUP_CONFIG (352, 5.x) request; the answer's body is the group's SubscriptionGroupConfig
 * as JSON (5.x fields: consumeMessageOrderly, groupRetryPolicy, ...), or SUBSCRIPTION_GROUP_NOT_EXIST.
 *
 * Wire grammar (extFields key, value type, presence, meaning).
 *   group  string   required  the consumer group
 *   bname  string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns     string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd    boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway   boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *
 * @see org.apache.rocketmq.remoting.protocol.header.GetSubscriptionGroupConfigRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetSubscriptionGroupConfigRequestHeader = defineHeader('GetSubscriptionGroupConfigRequestHeader', {
  group: { type: 'string', required: true },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
} as const);
export type GetSubscriptionGroupConfigRequestHeader = HeaderValues<typeof GetSubscriptionGroupConfigRequestHeader.schema>;
