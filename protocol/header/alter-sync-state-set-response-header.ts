/**
 * AlterSyncStateSetResponseHeader: The SyncStateSet epoch after the change.
 *
 * Used by: CONTROLLER_ALTER_SYNC_STATE_SET (1001) response (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   newSyncStateSetEpoch  int      optional  new SyncStateSet epoch (Java int: 0 when refused)
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.AlterSyncStateSetResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const AlterSyncStateSetResponseHeader = defineHeader('AlterSyncStateSetResponseHeader', {
  newSyncStateSetEpoch: { type: 'int' },
} as const);
export type AlterSyncStateSetResponseHeader = HeaderValues<typeof AlterSyncStateSetResponseHeader.schema>;
