/**
 * NotifyBrokerRoleChangedRequestHeader: The controller tells a replica who the master is now (body: SyncStateSet).
 *
 * Used by: NOTIFY_BROKER_ROLE_CHANGED (1008) request, controller to broker (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   masterAddress      string   optional  master address
 *   masterEpoch        int      optional  master epoch
 *   syncStateSetEpoch  int      optional  SyncStateSet epoch
 *   masterBrokerId     long     optional  master broker id
 *
 * @see org.apache.rocketmq.remoting.protocol.header.NotifyBrokerRoleChangedRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const NotifyBrokerRoleChangedRequestHeader = defineHeader('NotifyBrokerRoleChangedRequestHeader', {
  masterAddress: { type: 'string' },
  masterEpoch: { type: 'int' },
  syncStateSetEpoch: { type: 'int' },
  masterBrokerId: { type: 'long' },
} as const);
export type NotifyBrokerRoleChangedRequestHeader = HeaderValues<typeof NotifyBrokerRoleChangedRequestHeader.schema>;
