/**
 * ApplyBrokerIdResponseHeader: Echoes the broker set.
 *
 * Used by: CONTROLLER_APPLY_BROKER_ID (1013) response (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   clusterName  string   optional  cluster
 *   brokerName   string   optional  broker set
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.register.ApplyBrokerIdResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ApplyBrokerIdResponseHeader = defineHeader('ApplyBrokerIdResponseHeader', {
  clusterName: { type: 'string' },
  brokerName: { type: 'string' },
} as const);
export type ApplyBrokerIdResponseHeader = HeaderValues<typeof ApplyBrokerIdResponseHeader.schema>;
