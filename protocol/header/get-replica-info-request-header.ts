/**
 * GetReplicaInfoRequestHeader: A broker set's replica info.
 *
 * Used by: CONTROLLER_GET_REPLICA_INFO (1004) request (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   brokerName  string   optional  broker set
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.GetReplicaInfoRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetReplicaInfoRequestHeader = defineHeader('GetReplicaInfoRequestHeader', {
  brokerName: { type: 'string' },
} as const);
export type GetReplicaInfoRequestHeader = HeaderValues<typeof GetReplicaInfoRequestHeader.schema>;
