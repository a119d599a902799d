/**
 * ElectMasterResponseHeader: The master after the election (also with CONTROLLER_MASTER_STILL_EXIST).
 *
 * Used by: CONTROLLER_ELECT_MASTER (1002) response (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   masterBrokerId     long     optional  master broker id
 *   masterAddress      string   optional  master address
 *   masterEpoch        int      optional  master epoch
 *   syncStateSetEpoch  int      optional  SyncStateSet epoch
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.ElectMasterResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ElectMasterResponseHeader = defineHeader('ElectMasterResponseHeader', {
  masterBrokerId: { type: 'long' },
  masterAddress: { type: 'string' },
  masterEpoch: { type: 'int' },
  syncStateSetEpoch: { type: 'int' },
} as const);
export type ElectMasterResponseHeader = HeaderValues<typeof ElectMasterResponseHeader.schema>;
