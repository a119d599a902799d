/**
 * RegisterBrokerToControllerResponseHeader: The master, when one is alive (body: SyncStateSet).
 *
 * Used by: CONTROLLER_REGISTER_BROKER (1003) response (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   clusterName        string   optional  cluster
 *   brokerName         string   optional  broker set
 *   masterBrokerId     long     optional  master broker id (absent: no live master)
 *   masterAddress      string   optional  master address
 *   masterEpoch        int      optional  master epoch
 *   syncStateSetEpoch  int      optional  SyncStateSet epoch
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.register.RegisterBrokerToControllerResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const RegisterBrokerToControllerResponseHeader = defineHeader('RegisterBrokerToControllerResponseHeader', {
  clusterName: { type: 'string' },
  brokerName: { type: 'string' },
  masterBrokerId: { type: 'long' },
  masterAddress: { type: 'string' },
  masterEpoch: { type: 'int' },
  syncStateSetEpoch: { type: 'int' },
} as const);
export type RegisterBrokerToControllerResponseHeader = HeaderValues<typeof RegisterBrokerToControllerResponseHeader.schema>;
