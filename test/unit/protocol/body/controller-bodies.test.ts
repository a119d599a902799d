/**
 * The controller-mode bodies and headers. The expected texts are what Java 5.3.3's RemotingSerializable.encode
 * printed for the same values (SyncStateSet, ElectMasterResponseBody, BrokerReplicasInfo).
 */
import { expect } from 'chai';
import {
  decodeBrokerNameList, decodeBrokerReplicasInfo, decodeElectMasterResponseBody, decodeSyncStateSet, encodeBrokerNameList,
  encodeBrokerReplicasInfo, encodeElectMasterResponseBody, encodeSyncStateSet,
} from '../../../../protocol/body';
import {
  BrokerHeartbeatRequestHeader, CleanControllerBrokerDataRequestHeader, ElectMasterRequestHeader, GetMetaDataResponseHeader,
} from '../../../../protocol/header';
import { ProtocolError } from '../../../../protocol/errors';

describe('protocol: controller-mode bodies and headers', () => {
  it('SyncStateSet as Java writes it', () => {
    const json = '{"syncStateSet":[1,2],"syncStateSetEpoch":3}';
    expect(encodeSyncStateSet({ syncStateSet: [2, 1, 2], syncStateSetEpoch: 3 }).toString()).to.equal(json);
    expect(decodeSyncStateSet(Buffer.from(json))).to.deep.equal({ syncStateSet: [1, 2], syncStateSetEpoch: 3 });
    expect(() => decodeSyncStateSet(null)).to.throw(ProtocolError);
  });

  it('ElectMasterResponseBody with unquoted Long keys in brokerAddrs', () => {
    const json = '{"brokerMemberGroup":{"brokerAddrs":{1:"x:1",2:"x:2"},"brokerName":"b","cluster":"c"},"syncStateSet":[2]}';
    const body = { brokerMemberGroup: { cluster: 'c', brokerName: 'b', brokerAddrs: new Map([[2, 'x:2'], [1, 'x:1']]) }, syncStateSet: [2] };
    expect(encodeElectMasterResponseBody(body).toString()).to.equal(json);
    const back = decodeElectMasterResponseBody(Buffer.from(json));
    expect(back.syncStateSet).to.deep.equal([2]);
    expect([...back.brokerMemberGroup!.brokerAddrs]).to.deep.equal([[1, 'x:1'], [2, 'x:2']]);
    expect(encodeElectMasterResponseBody({ brokerMemberGroup: null, syncStateSet: [1] }).toString()).to.equal('{"syncStateSet":[1]}');
    expect(decodeElectMasterResponseBody(Buffer.from('{"syncStateSet":[1]}')).brokerMemberGroup).to.equal(null);
  });

  it('BrokerReplicasInfo (getSyncStateSet) and the broker name list', () => {
    const json = '{"replicasInfoTable":{"b":{"inSyncReplicas":[{"alive":true,"brokerAddress":"x:1","brokerId":1,"brokerName":"b"}],'
      + '"masterAddress":"x:1","masterBrokerId":1,"masterEpoch":1,"notInSyncReplicas":[],"syncStateSetEpoch":2}}}';
    const info = {
      replicasInfoTable: new Map([['b', {
        masterBrokerId: 1, masterAddress: 'x:1', masterEpoch: 1, syncStateSetEpoch: 2,
        inSyncReplicas: [{ brokerName: 'b', brokerId: 1, brokerAddress: 'x:1', alive: true }], notInSyncReplicas: [],
      }]]),
    };
    expect(encodeBrokerReplicasInfo(info).toString()).to.equal(json);
    expect(decodeBrokerReplicasInfo(Buffer.from(json))).to.deep.equal(info);
    // no master: the fields are left out, as fastjson leaves nulls out
    const none = encodeBrokerReplicasInfo({ replicasInfoTable: new Map([['b', { ...info.replicasInfoTable.get('b')!, masterBrokerId: null, masterAddress: null }]]) }).toString();
    expect(none).to.not.contain('masterBrokerId');
    expect(decodeBrokerReplicasInfo(Buffer.from(none)).replicasInfoTable.get('b')!.masterBrokerId).to.equal(null);
    expect(encodeBrokerNameList(['a', 'b']).toString()).to.equal('["a","b"]');
    expect(decodeBrokerNameList(Buffer.from('["a","b"]'))).to.deep.equal(['a', 'b']);
    expect(() => decodeBrokerNameList(Buffer.from('{"a":1}'))).to.throw(ProtocolError);
  });

  it("headers use Java's field names as keys (isLeader, isCleanLivingBroker) and refuse a missing @CFNotNull field", () => {
    expect(GetMetaDataResponseHeader.encode({ group: 'g', controllerLeaderId: 'n0', controllerLeaderAddress: 'h:1', isLeader: true, peers: 'n0:h:1;' }))
      .to.deep.equal({ group: 'g', controllerLeaderId: 'n0', controllerLeaderAddress: 'h:1', isLeader: 'true', peers: 'n0:h:1;' });
    expect(CleanControllerBrokerDataRequestHeader.decode({ brokerName: 'b', isCleanLivingBroker: 'true', invokeTime: '5' }))
      .to.deep.equal({ brokerName: 'b', isCleanLivingBroker: true, invokeTime: 5 });
    expect(() => ElectMasterRequestHeader.decode({ clusterName: 'c', brokerName: 'b', brokerId: '1' })).to.throw(ProtocolError);
    expect(BrokerHeartbeatRequestHeader.decode({ clusterName: 'c', brokerName: 'b', brokerAddr: 'a', brokerId: '2', epoch: '3', maxOffset: '99', heartbeatTimeoutMills: '1000', electionPriority: '2147483647' }))
      .to.deep.equal({ clusterName: 'c', brokerName: 'b', brokerAddr: 'a', brokerId: 2, epoch: 3, maxOffset: 99, heartbeatTimeoutMills: 1000, electionPriority: 2147483647 });
  });
});
