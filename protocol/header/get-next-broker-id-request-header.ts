/**
 * GetNextBrokerIdRequestHeader: The next broker id the controller would assign in a broker set.
 *
 * Used by: CONTROLLER_GET_NEXT_BROKER_ID (1012) request (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   clusterName  string   optional  cluster
 *   brokerName   string   optional  broker set
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.register.GetNextBrokerIdRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetNextBrokerIdRequestHeader = defineHeader('GetNextBrokerIdRequestHeader', {
  clusterName: { type: 'string' },
  brokerName: { type: 'string' },
} as const);
export type GetNextBrokerIdRequestHeader = HeaderValues<typeof GetNextBrokerIdRequestHeader.schema>;
