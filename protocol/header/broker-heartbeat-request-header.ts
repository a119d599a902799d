/**
 * BrokerHeartbeatRequestHeader: A broker's liveness beat to the controller (oneway), with what the elect policy ranks replicas by.
 *
 * Used by: BROKER_HEARTBEAT (904) request (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   clusterName            string   required  cluster
 *   brokerAddr             string   required  broker address
 *   brokerName             string   required  broker set
 *   brokerId               long     optional  broker id (absent: refused)
 *   epoch                  int      optional  last epoch in its epoch file
 *   maxOffset              long     optional  commit log max offset
 *   confirmOffset          long     optional  confirm offset
 *   heartbeatTimeoutMills  long     optional  how long this beat keeps it alive (controllerHeartBeatTimeoutMills)
 *   electionPriority       int      optional  brokerElectionPriority (smaller first)
 *
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.BrokerHeartbeatRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const BrokerHeartbeatRequestHeader = defineHeader('BrokerHeartbeatRequestHeader', {
  clusterName: { type: 'string', required: true },
  brokerAddr: { type: 'string', required: true },
  brokerName: { type: 'string', required: true },
  brokerId: { type: 'long' },
  epoch: { type: 'int' },
  maxOffset: { type: 'long' },
  confirmOffset: { type: 'long' },
  heartbeatTimeoutMills: { type: 'long' },
  electionPriority: { type: 'int' },
} as const);
export type BrokerHeartbeatRequestHeader = HeaderValues<typeof BrokerHeartbeatRequestHeader.schema>;
