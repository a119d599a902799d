/**
 * GetNextBrokerIdResponseHeader: The next broker id (1 for a broker set never seen).
 *
 * Used by: CONTROLLER_GET_NEXT_BROKER_ID (1012) response (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   clusterName   string   optional  cluster
 *   brokerName    string   optional  broker set
 *   nextBrokerId  long     optional  next broker id
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.register.GetNextBrokerIdResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetNextBrokerIdResponseHeader = defineHeader('GetNextBrokerIdResponseHeader', {
  clusterName: { type: 'string' },
  brokerName: { type: 'string' },
  nextBrokerId: { type: 'long' },
} as const);
export type GetNextBrokerIdResponseHeader = HeaderValues<typeof GetNextBrokerIdResponseHeader.schema>;
