/**
 * GetReplicaInfoResponseHeader: The broker set's master (body: SyncStateSet).
 *
 * Used by: CONTROLLER_GET_REPLICA_INFO (1004) response (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   masterBrokerId  long     optional  master broker id (absent: none)
 *   masterAddress   string   optional  master address
 *   masterEpoch     int      optional  master epoch
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.GetReplicaInfoResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetReplicaInfoResponseHeader = defineHeader('GetReplicaInfoResponseHeader', {
  masterBrokerId: { type: 'long' },
  masterAddress: { type: 'string' },
  masterEpoch: { type: 'int' },
} as const);
export type GetReplicaInfoResponseHeader = HeaderValues<typeof GetReplicaInfoResponseHeader.schema>;
