/**
 * ElectMasterResponseBody: the CONTROLLER_ELECT_MASTER answer's body: the new SyncStateSet (the new master alone
 * after an election) and, when a master was elected, the broker set's members (whom the controller notifies).
 * `{"brokerMemberGroup":{"brokerAddrs":{1:"..",2:".."},"brokerName":"b","cluster":"c"},"syncStateSet":[2]}`
 *
 * @see org.apache.rocketmq.remoting.protocol.body.ElectMasterResponseBody
 */
import { asObject, parseBody } from './body-util';
import { type BrokerMemberGroup, brokerMemberGroupFromJson, brokerMemberGroupToJson } from './broker-member-group';
import { encodeFastjson } from './fastjson';
import { longSetOf, sortedIds } from './sync-state-set';

export interface ElectMasterResponseBody {
  brokerMemberGroup: BrokerMemberGroup | null;
  syncStateSet: number[];
}

export function decodeElectMasterResponseBody(buf: Buffer): ElectMasterResponseBody {
  const o = parseBody(buf, 'ElectMasterResponseBody');
  const g = o.brokerMemberGroup;
  return {
    brokerMemberGroup: g === undefined || g === null ? null : brokerMemberGroupFromJson(asObject(g, 'brokerMemberGroup')),
    syncStateSet: longSetOf(o, 'syncStateSet'),
  };
}

export function encodeElectMasterResponseBody(b: ElectMasterResponseBody): Buffer {
  return encodeFastjson({
    brokerMemberGroup: b.brokerMemberGroup ? brokerMemberGroupToJson(b.brokerMemberGroup) : null,
    syncStateSet: sortedIds(b.syncStateSet),
  });
}
