/**
 * DeleteSubscriptionGroupRequestHeader: Deletes a subscription group.
 *
 * Used by: DELETE_SUBSCRIPTIONGROUP (207) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   groupName     string   required  group
 *   removeOffset  boolean  optional  also remove its offsets (4.9.8 name; not read by 4.9.8's broker)
 *   cleanOffset   boolean  5.x opt.  also remove its offsets (5.x name)
 *   bname         string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns            string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd           boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway          boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.DeleteSubscriptionGroupRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.DeleteSubscriptionGroupRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const DeleteSubscriptionGroupRequestHeader = defineHeader('DeleteSubscriptionGroupRequestHeader', {
  groupName: { type: 'string', required: true },
  removeOffset: { type: 'boolean' },
  cleanOffset: { type: 'boolean' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
} as const);
export type DeleteSubscriptionGroupRequestHeader = HeaderValues<typeof DeleteSubscriptionGroupRequestHeader.schema>;
