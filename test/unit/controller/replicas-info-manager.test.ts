import { expect } from 'chai';
import { DefaultElectPolicy } from '../../../lib/controller/elect-policy';
import { ReplicasInfoManager, type ControllerResult } from '../../../lib/controller/replicas-info-manager';
import { ResponseCode } from '../../../protocol/code/response-code';
import { decodeBrokerReplicasInfo, decodeElectMasterResponseBody, decodeSyncStateSet } from '../../../protocol/body';
import { ElectMasterResponseHeader, GetNextBrokerIdResponseHeader, RegisterBrokerToControllerResponseHeader } from '../../../protocol/header';

describe('controller: ReplicasInfoManager (Java impl/manager/ReplicasInfoManager)', () => {
  let alive: Set<number>;
  let m: ReplicasInfoManager;
  const isAlive = (_c: string, _b: string, id: number) => alive.has(id);
  const policy = new DefaultElectPolicy(isAlive);
  /** Decide, then apply the events as the commit would. */
  const commit = (r: ControllerResult): ControllerResult => {
    for (const e of r.events) m.applyEvent(e);
    return r;
  };
  const apply = (id: number, code = `127.0.0.1:${id};1`) => commit(m.applyBrokerId({ clusterName: 'c', brokerName: 'b', appliedBrokerId: id, registerCheckCode: code }));
  const elect = (brokerId: number, designateElect = false) => commit(m.electMaster({ clusterName: 'c', brokerName: 'b', brokerId, designateElect }, policy));
  const alter = (masterBrokerId: number, masterEpoch: number, set: number[], ssEpoch: number) =>
    commit(m.alterSyncStateSet({ brokerName: 'b', masterBrokerId, masterEpoch }, { syncStateSet: set, syncStateSetEpoch: ssEpoch }, isAlive));

  beforeEach(() => {
    alive = new Set([1, 2, 3]);
    m = new ReplicasInfoManager({ enableElectUncleanMaster: false });
  });

  it('assigns ids from 1, accepts a first apply only for id 1, refuses a taken id unless the check code matches', () => {
    expect(GetNextBrokerIdResponseHeader.decode(m.getNextBrokerId({ clusterName: 'c', brokerName: 'b' }).header).nextBrokerId).to.equal(1);
    expect(m.applyBrokerId({ clusterName: 'c', brokerName: 'b', appliedBrokerId: 2, registerCheckCode: 'x;1' }).responseCode).to.equal(ResponseCode.CONTROLLER_BROKER_ID_INVALID);
    expect(apply(1).responseCode).to.equal(ResponseCode.SUCCESS);
    expect(GetNextBrokerIdResponseHeader.decode(m.getNextBrokerId({ clusterName: 'c', brokerName: 'b' }).header).nextBrokerId).to.equal(2);
    expect(apply(1, '127.0.0.1:9;2').responseCode).to.equal(ResponseCode.CONTROLLER_BROKER_ID_INVALID);
    expect(apply(1).responseCode).to.equal(ResponseCode.SUCCESS);
    expect(apply(2).responseCode).to.equal(ResponseCode.SUCCESS);
    expect(m.replicaInfoTable.get('b')!.brokerAddress(2)).to.equal('127.0.0.1:2');
  });

  it('registers only known ids, reports the alive master, and records a changed address', () => {
    expect(m.registerBroker({ clusterName: 'c', brokerName: 'b', brokerId: 1, brokerAddress: 'a' }, isAlive).responseCode).to.equal(ResponseCode.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED);
    apply(1);
    expect(m.registerBroker({ clusterName: 'c', brokerName: 'b', brokerId: 5, brokerAddress: 'a' }, isAlive).responseCode).to.equal(ResponseCode.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED);
    elect(1);
    const r = commit(m.registerBroker({ clusterName: 'c', brokerName: 'b', brokerId: 1, brokerAddress: '127.0.0.1:99' }, isAlive));
    expect(r.responseCode).to.equal(ResponseCode.SUCCESS);
    expect(RegisterBrokerToControllerResponseHeader.decode(r.header)).to.deep.equal({ clusterName: 'c', brokerName: 'b', masterBrokerId: 1, masterAddress: '127.0.0.1:1', masterEpoch: 1, syncStateSetEpoch: 1 });
    expect(r.events).to.deep.equal([{ eventType: 'UPDATE_BROKER_ADDRESS', clusterName: 'c', brokerName: 'b', brokerAddress: '127.0.0.1:99', brokerId: 1 }]);
    expect(m.replicaInfoTable.get('b')!.brokerAddress(1)).to.equal('127.0.0.1:99');
    alive.delete(1);
    const dead = m.registerBroker({ clusterName: 'c', brokerName: 'b', brokerId: 1, brokerAddress: '127.0.0.1:99' }, isAlive);
    expect(RegisterBrokerToControllerResponseHeader.decode(dead.header).masterBrokerId).to.equal(undefined);
    expect(decodeSyncStateSet(dead.body)).to.deep.equal({ syncStateSet: [1], syncStateSetEpoch: 1 });
  });

  it('elects the asking broker the first time, keeps an alive master, and moves to an in-sync replica after the master dies', () => {
    expect(elect(1).responseCode).to.equal(ResponseCode.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED);
    apply(1);
    apply(2);
    const first = elect(2);
    expect(first.responseCode).to.equal(ResponseCode.SUCCESS);
    expect(ElectMasterResponseHeader.decode(first.header)).to.deep.equal({ masterBrokerId: 2, masterAddress: '127.0.0.1:2', masterEpoch: 1, syncStateSetEpoch: 1 });
    const body = decodeElectMasterResponseBody(first.body!);
    expect(body.syncStateSet).to.deep.equal([2]);
    expect(body.brokerMemberGroup).to.deep.equal({ cluster: 'c', brokerName: 'b', brokerAddrs: new Map([[1, '127.0.0.1:1'], [2, '127.0.0.1:2']]) });
    const still = elect(1);
    expect(still.responseCode).to.equal(ResponseCode.CONTROLLER_MASTER_STILL_EXIST);
    expect(still.events).to.deep.equal([]);
    expect(ElectMasterResponseHeader.decode(still.header).masterBrokerId).to.equal(2);
    expect(alter(2, 1, [1, 2], 1).responseCode).to.equal(ResponseCode.SUCCESS);
    alive.delete(2);
    expect(m.scanNeedReelectBrokerSets(isAlive)).to.deep.equal(['b']);
    const re = elect(-1);
    expect(ElectMasterResponseHeader.decode(re.header)).to.deep.equal({ masterBrokerId: 1, masterAddress: '127.0.0.1:1', masterEpoch: 2, syncStateSetEpoch: 3 });
    const info = m.syncStateSetInfoTable.get('b')!;
    expect([info.masterBrokerId, info.masterEpoch, info.syncStateSetEpoch, [...info.syncStateSet]]).to.deep.equal([1, 2, 3, [1]]);
    expect(m.scanNeedReelectBrokerSets(isAlive)).to.deep.equal([]);
  });

  it('records "no master" when the controller triggers an election nobody can win; a broker-triggered one just fails', () => {
    apply(1);
    apply(2);
    elect(1);
    alive = new Set([2]);
    expect(elect(2).responseCode).to.equal(ResponseCode.CONTROLLER_ELECT_MASTER_FAILED);
    expect(m.syncStateSetInfoTable.get('b')!.masterBrokerId).to.equal(1);
    const r = elect(-1);
    expect(r.responseCode).to.equal(ResponseCode.CONTROLLER_MASTER_NOT_AVAILABLE);
    const info = m.syncStateSetInfoTable.get('b')!;
    expect([info.masterBrokerId, info.masterEpoch, [...info.syncStateSet]]).to.deep.equal([null, 2, [1]]);
    // unclean: a replica outside the SyncStateSet may take over
    const unclean = new ReplicasInfoManager({ enableElectUncleanMaster: true });
    m = unclean;
    apply(1);
    apply(2);
    alive = new Set([1, 2]);
    elect(1);
    alive = new Set([2]);
    expect(elect(-1).responseCode).to.equal(ResponseCode.SUCCESS);
    expect(unclean.syncStateSetInfoTable.get('b')!.masterBrokerId).to.equal(2);
  });

  it('fences stale master and SyncStateSet epochs and checks the new set', () => {
    apply(1);
    apply(2);
    apply(3);
    elect(1);
    expect(alter(1, 1, [1], 1).responseCode).to.equal(ResponseCode.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED);
    expect(alter(2, 1, [1, 2], 1).responseCode).to.equal(ResponseCode.CONTROLLER_INVALID_MASTER);
    expect(alter(1, 0, [1, 2], 1).responseCode).to.equal(ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH);
    expect(alter(1, 1, [1, 2], 7).responseCode).to.equal(ResponseCode.CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH);
    expect(alter(1, 1, [1, 9], 1).responseCode).to.equal(ResponseCode.CONTROLLER_INVALID_REPLICAS);
    alive.delete(3);
    expect(alter(1, 1, [1, 3], 1).responseCode).to.equal(ResponseCode.CONTROLLER_BROKER_NOT_ALIVE);
    expect(alter(1, 1, [2], 1).responseCode).to.equal(ResponseCode.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED);
    const ok = alter(1, 1, [1, 2], 1);
    expect(ok.responseCode).to.equal(ResponseCode.SUCCESS);
    expect(decodeSyncStateSet(ok.body)).to.deep.equal({ syncStateSet: [1, 2], syncStateSetEpoch: 2 });
    // the old epoch is stale now
    expect(alter(1, 1, [1], 1).responseCode).to.equal(ResponseCode.CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH);
    expect(alter(1, 1, [1], 2).responseCode).to.equal(ResponseCode.SUCCESS);
  });

  it('describes broker sets for getSyncStateSet and cleans ids or whole sets as Java does', () => {
    apply(1);
    apply(2);
    elect(1);
    alive.delete(2);
    const d = decodeBrokerReplicasInfo(m.getSyncStateData(['b', 'x'], isAlive).body!).replicasInfoTable;
    expect([...d.keys()]).to.deep.equal(['b']);
    expect(d.get('b')!.notInSyncReplicas).to.deep.equal([{ brokerName: 'b', brokerId: 2, brokerAddress: '127.0.0.1:2', alive: false }]);
    expect(m.cleanBrokerData({ clusterName: 'c', brokerName: 'b' }, isAlive).responseCode).to.equal(ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA);
    expect(m.cleanBrokerData({ clusterName: 'c', brokerName: 'b', brokerControllerIdsToClean: '1' }, isAlive).responseCode).to.equal(ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA);
    expect(m.cleanBrokerData({ clusterName: 'c', brokerName: 'b', brokerControllerIdsToClean: 'x' }, isAlive).responseCode).to.equal(ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA);
    expect(commit(m.cleanBrokerData({ clusterName: 'c', brokerName: 'b', brokerControllerIdsToClean: '2' }, isAlive)).responseCode).to.equal(ResponseCode.SUCCESS);
    expect([...m.replicaInfoTable.get('b')!.brokerIdInfo.keys()]).to.deep.equal([1]);
    expect(commit(m.cleanBrokerData({ clusterName: 'c', brokerName: 'b', isCleanLivingBroker: true }, isAlive)).responseCode).to.equal(ResponseCode.SUCCESS);
    expect(m.isContainsBroker('b')).to.equal(false);
    expect(m.cleanBrokerData({ clusterName: 'c', brokerName: 'b', isCleanLivingBroker: true }, isAlive).responseCode).to.equal(ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA);
  });
});
