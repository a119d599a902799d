/**
 * AlterSyncStateSetRequestHeader: The master asks to change its broker set's SyncStateSet (body: SyncStateSet with the epoch it knows).
 *
 * Used by: CONTROLLER_ALTER_SYNC_STATE_SET (1001) request (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   brokerName      string   optional  broker set
 *   masterBrokerId  long     optional  the master's broker id
 *   masterEpoch     int      optional  the master epoch it holds
 *   invokeTime      long     optional  ms, when the request was made
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.AlterSyncStateSetRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const AlterSyncStateSetRequestHeader = defineHeader('AlterSyncStateSetRequestHeader', {
  brokerName: { type: 'string' },
  masterBrokerId: { type: 'long' },
  masterEpoch: { type: 'int' },
  invokeTime: { type: 'long' },
} as const);
export type AlterSyncStateSetRequestHeader = HeaderValues<typeof AlterSyncStateSetRequestHeader.schema>;
