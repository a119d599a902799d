/**
 * GetMetaDataResponseHeader: Who leads the controller group (any controller answers, leader or not).
 *
 * Used by: CONTROLLER_GET_METADATA_INFO (1005) response (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   group                    string   optional  controllerDLegerGroup
 *   controllerLeaderId       string   optional  DLedger id of the leader
 *   controllerLeaderAddress  string   optional  leader's address (its DLedger peer address)
 *   isLeader                 boolean  optional  whether the answering controller leads
 *   peers                    string   optional  "id:addr;" per peer
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.GetMetaDataResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetMetaDataResponseHeader = defineHeader('GetMetaDataResponseHeader', {
  group: { type: 'string' },
  controllerLeaderId: { type: 'string' },
  controllerLeaderAddress: { type: 'string' },
  isLeader: { type: 'boolean' },
  peers: { type: 'string' },
} as const);
export type GetMetaDataResponseHeader = HeaderValues<typeof GetMetaDataResponseHeader.schema>;
