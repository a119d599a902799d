/**
 * Our controller over real sockets, with brokers played by a RemotingClient (their requests) and a RemotingServer
 * each (the controller's NOTIFY_BROKER_ROLE_CHANGED reaches them on their own address): the Java broker's
 * ReplicasManager flow (metadata, next id, apply id, register, heartbeat, elect, alter SyncStateSet), epoch fencing,
 * election when the master's connection closes, role-change notifications, GET_SYNC_STATE_DATA, and the state
 * rebuilt from the DLedger log after a restart.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ControllerManager } from '../../../lib/controller';
import { freePort } from '../../../lib/cluster';
import { RemotingClient, RemotingServer } from '../../../lib/transport';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import {
  AlterSyncStateSetRequestHeader, AlterSyncStateSetResponseHeader, ApplyBrokerIdRequestHeader, BrokerHeartbeatRequestHeader,
  CleanControllerBrokerDataRequestHeader, ElectMasterRequestHeader, ElectMasterResponseHeader, GetMetaDataResponseHeader,
  GetNextBrokerIdRequestHeader, GetNextBrokerIdResponseHeader, GetReplicaInfoRequestHeader, GetReplicaInfoResponseHeader,
  NotifyBrokerRoleChangedRequestHeader, RegisterBrokerToControllerRequestHeader, RegisterBrokerToControllerResponseHeader,
} from '../../../protocol/header';
import { decodeBrokerReplicasInfo, decodeElectMasterResponseBody, decodeSyncStateSet, encodeBrokerNameList, encodeSyncStateSet } from '../../../protocol/body';
import { waitFor } from '../../helpers/wait-for';

const FAST = {
  controllerDLegerHeartBeatTimeIntervalMs: 100, controllerDLegerMinVoteIntervalMs: 20, controllerDLegerMaxVoteIntervalMs: 60,
  mappedFileSize: 1024 * 1024, scanNotActiveBrokerInterval: 200, scanInactiveMasterInterval: 200,
};

interface FakeBroker {
  id: number;
  addr: string;
  client: RemotingClient;
  server: RemotingServer;
  notifications: Array<{ header: NotifyBrokerRoleChangedRequestHeader; set: number[]; epoch: number }>;
}

describe('controller: ControllerManager on a 1-node DLedger group, brokers over sockets', function () {
  this.timeout(60_000);
  let dir: string;
  let cm: ControllerManager | null = null;
  let port = 0;
  const brokers: FakeBroker[] = [];

  const start = async (): Promise<ControllerManager> => {
    const c = new ControllerManager({
      controllerDLegerGroup: 'cg', controllerDLegerPeers: `n0-127.0.0.1:${port}`, controllerDLegerSelfId: 'n0', controllerStorePath: dir, configStorePath: path.join(dir, 'controller.properties'), ...FAST,
    });
    await c.start();
    await waitFor(() => c.isLeaderState, 10_000, 'the controller to lead');
    return c;
  };

  const newBroker = async (): Promise<FakeBroker> => {
    const server = new RemotingServer({ listenPort: 0, bindAddress: '127.0.0.1' });
    const b: FakeBroker = { id: 0, addr: '', client: new RemotingClient(), server, notifications: [] };
    server.registerProcessor(RequestCode.NOTIFY_BROKER_ROLE_CHANGED, (req) => {
      const s = decodeSyncStateSet(req.body);
      b.notifications.push({ header: NotifyBrokerRoleChangedRequestHeader.decode(req.extFields), set: s.syncStateSet, epoch: s.syncStateSetEpoch });
      return null;
    });
    b.addr = `127.0.0.1:${await server.listen()}`;
    brokers.push(b);
    return b;
  };

  const call = (b: FakeBroker, code: number, ext: Record<string, string> | null, body: Buffer | null = null) =>
    b.client.invoke(cm!.address, RemotingCommand.createRequest(code, ext, body), 5000);

  const heartbeat = (b: FakeBroker, extra: Partial<BrokerHeartbeatRequestHeader> = {}) => b.client.invokeOneway(cm!.address, RemotingCommand.createRequest(RequestCode.BROKER_HEARTBEAT,
    BrokerHeartbeatRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', brokerAddr: b.addr, brokerId: b.id, epoch: 0, maxOffset: 0, heartbeatTimeoutMills: 60_000, ...extra })), 3000);

  /** The Java ReplicasManager's registration: next id, apply it with a check code, register. */
  const register = async (b: FakeBroker): Promise<RemotingCommand> => {
    const next = await call(b, RequestCode.CONTROLLER_GET_NEXT_BROKER_ID, GetNextBrokerIdRequestHeader.encode({ clusterName: 'C', brokerName: 'bs' }));
    expect(next.code).to.equal(ResponseCode.SUCCESS);
    b.id = GetNextBrokerIdResponseHeader.decode(next.extFields).nextBrokerId!;
    const applied = await call(b, RequestCode.CONTROLLER_APPLY_BROKER_ID, ApplyBrokerIdRequestHeader.encode({
      clusterName: 'C', brokerName: 'bs', appliedBrokerId: b.id, registerCheckCode: `${b.addr};${Date.now()}`,
    }));
    expect(applied.code, applied.remark ?? '').to.equal(ResponseCode.SUCCESS);
    const reg = await call(b, RequestCode.CONTROLLER_REGISTER_BROKER, RegisterBrokerToControllerRequestHeader.encode({
      clusterName: 'C', brokerName: 'bs', brokerId: b.id, brokerAddress: b.addr, invokeTime: Date.now(),
    }));
    expect(reg.code, reg.remark ?? '').to.equal(ResponseCode.SUCCESS);
    return reg;
  };

  beforeEach(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'controller-'));
    port = await freePort();
    cm = await start();
  });

  afterEach(async () => {
    for (const b of brokers.splice(0)) {
      await b.client.shutdown();
      await b.server.shutdown();
    }
    await cm?.shutdown();
    cm = null;
    await fs.promises.rm(dir, { recursive: true, force: true });
  });

  it('answers metadata as the leader, registers two replicas, elects the first, fences stale epochs, and grows the SyncStateSet', async () => {
    const b1 = await newBroker();
    const meta = await call(b1, RequestCode.CONTROLLER_GET_METADATA_INFO, null);
    const mh = GetMetaDataResponseHeader.decode(meta.extFields);
    expect(mh).to.deep.include({ group: 'cg', controllerLeaderId: 'n0', controllerLeaderAddress: cm!.address, isLeader: true, peers: `n0:${cm!.address};` });

    const reg1 = await register(b1);
    expect(b1.id).to.equal(1);
    expect(RegisterBrokerToControllerResponseHeader.decode(reg1.extFields).masterBrokerId).to.equal(undefined);
    expect(decodeSyncStateSet(reg1.body)).to.deep.equal({ syncStateSet: [], syncStateSetEpoch: 0 });
    await heartbeat(b1);
    await waitFor(() => cm!.heartbeatManager.isBrokerActive('C', 'bs', 1), 5000, 'broker 1 alive');

    const elect = await call(b1, RequestCode.CONTROLLER_ELECT_MASTER, ElectMasterRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', brokerId: 1, designateElect: false, invokeTime: Date.now() }));
    expect(elect.code, elect.remark ?? '').to.equal(ResponseCode.SUCCESS);
    expect(ElectMasterResponseHeader.decode(elect.extFields)).to.deep.equal({ masterBrokerId: 1, masterAddress: b1.addr, masterEpoch: 1, syncStateSetEpoch: 1 });
    const eb = decodeElectMasterResponseBody(elect.body!);
    expect(eb.syncStateSet).to.deep.equal([1]);
    expect([...eb.brokerMemberGroup!.brokerAddrs]).to.deep.equal([[1, b1.addr]]);
    // the alive replica (the master itself) hears of it
    await waitFor(() => b1.notifications.length === 1, 5000, 'a role-change notification');
    expect(b1.notifications[0].header).to.deep.equal({ masterAddress: b1.addr, masterBrokerId: 1, masterEpoch: 1, syncStateSetEpoch: 1 });

    // electing again keeps the alive master
    const again = await call(b1, RequestCode.CONTROLLER_ELECT_MASTER, ElectMasterRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', brokerId: 1, designateElect: false }));
    expect(again.code).to.equal(ResponseCode.CONTROLLER_MASTER_STILL_EXIST);

    const b2 = await newBroker();
    const reg2 = await register(b2);
    expect(b2.id).to.equal(2);
    expect(RegisterBrokerToControllerResponseHeader.decode(reg2.extFields)).to.deep.include({ masterBrokerId: 1, masterAddress: b1.addr, masterEpoch: 1, syncStateSetEpoch: 1 });
    await heartbeat(b2);
    await waitFor(() => cm!.heartbeatManager.isBrokerActive('C', 'bs', 2), 5000, 'broker 2 alive');

    const alter = (masterBrokerId: number, masterEpoch: number, ids: number[], ssEpoch: number) => call(b1, RequestCode.CONTROLLER_ALTER_SYNC_STATE_SET,
      AlterSyncStateSetRequestHeader.encode({ brokerName: 'bs', masterBrokerId, masterEpoch, invokeTime: Date.now() }), encodeSyncStateSet({ syncStateSet: ids, syncStateSetEpoch: ssEpoch }));
    expect((await alter(1, 0, [1, 2], 1)).code).to.equal(ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH);
    expect((await alter(1, 1, [1, 2], 0)).code).to.equal(ResponseCode.CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH);
    expect((await alter(2, 1, [1, 2], 1)).code).to.equal(ResponseCode.CONTROLLER_INVALID_MASTER);
    expect((await alter(1, 1, [1, 3], 1)).code).to.equal(ResponseCode.CONTROLLER_INVALID_REPLICAS);
    expect((await alter(1, 1, [2], 1)).code).to.equal(ResponseCode.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED);
    const ok = await alter(1, 1, [1, 2], 1);
    expect(ok.code, ok.remark ?? '').to.equal(ResponseCode.SUCCESS);
    expect(AlterSyncStateSetResponseHeader.decode(ok.extFields).newSyncStateSetEpoch).to.equal(2);
    expect(decodeSyncStateSet(ok.body)).to.deep.equal({ syncStateSet: [1, 2], syncStateSetEpoch: 2 });

    const info = await call(b2, RequestCode.CONTROLLER_GET_REPLICA_INFO, GetReplicaInfoRequestHeader.encode({ brokerName: 'bs' }));
    expect(GetReplicaInfoResponseHeader.decode(info.extFields)).to.deep.equal({ masterBrokerId: 1, masterAddress: b1.addr, masterEpoch: 1 });
    expect(decodeSyncStateSet(info.body)).to.deep.equal({ syncStateSet: [1, 2], syncStateSetEpoch: 2 });
    const missing = await call(b2, RequestCode.CONTROLLER_GET_REPLICA_INFO, GetReplicaInfoRequestHeader.encode({ brokerName: 'nope' }));
    expect(missing.code).to.equal(ResponseCode.CONTROLLER_BROKER_METADATA_NOT_EXIST);

    // a taken id with another check code is refused; the same check code again is accepted (a restarted broker)
    const steal = await call(b2, RequestCode.CONTROLLER_APPLY_BROKER_ID, ApplyBrokerIdRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', appliedBrokerId: 1, registerCheckCode: `${b2.addr};1` }));
    expect(steal.code).to.equal(ResponseCode.CONTROLLER_BROKER_ID_INVALID);
  });

  it("elects the in-sync replica as soon as the master's connection closes, notifies it, and rebuilds the state from its log after a restart", async () => {
    const b1 = await newBroker();
    const b2 = await newBroker();
    await register(b1);
    await heartbeat(b1, { epoch: 0, maxOffset: 100 });
    await waitFor(() => cm!.heartbeatManager.isBrokerActive('C', 'bs', 1), 5000, 'broker 1 alive');
    expect((await call(b1, RequestCode.CONTROLLER_ELECT_MASTER, ElectMasterRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', brokerId: 1, designateElect: false }))).code).to.equal(ResponseCode.SUCCESS);
    await register(b2);
    await heartbeat(b2, { epoch: 1, maxOffset: 100 });
    await waitFor(() => cm!.heartbeatManager.isBrokerActive('C', 'bs', 2), 5000, 'broker 2 alive');
    const alter = await call(b1, RequestCode.CONTROLLER_ALTER_SYNC_STATE_SET, AlterSyncStateSetRequestHeader.encode({ brokerName: 'bs', masterBrokerId: 1, masterEpoch: 1 }),
      encodeSyncStateSet({ syncStateSet: [1, 2], syncStateSetEpoch: 1 }));
    expect(alter.code).to.equal(ResponseCode.SUCCESS);

    // the master goes away: its connection closes
    await b1.client.shutdown();
    await waitFor(() => cm!.controller.replicasInfoManager.syncStateSetInfoTable.get('bs')?.masterBrokerId === 2, 10_000, 'broker 2 elected');
    await waitFor(() => b2.notifications.length > 0, 5000, 'broker 2 notified');
    expect(b2.notifications.at(-1)!.header).to.deep.equal({ masterAddress: b2.addr, masterBrokerId: 2, masterEpoch: 2, syncStateSetEpoch: 3 });
    expect(b2.notifications.at(-1)!.set).to.deep.equal([2]);

    const data = await call(b2, RequestCode.CONTROLLER_GET_SYNC_STATE_DATA, null, encodeBrokerNameList(['bs', 'unknown']));
    expect(data.code).to.equal(ResponseCode.SUCCESS);
    const ri = decodeBrokerReplicasInfo(data.body!).replicasInfoTable;
    expect([...ri.keys()]).to.deep.equal(['bs']);
    expect(ri.get('bs')).to.deep.equal({
      masterBrokerId: 2, masterAddress: b2.addr, masterEpoch: 2, syncStateSetEpoch: 3,
      inSyncReplicas: [{ brokerName: 'bs', brokerId: 2, brokerAddress: b2.addr, alive: true }],
      notInSyncReplicas: [{ brokerName: 'bs', brokerId: 1, brokerAddress: b1.addr, alive: false }],
    });

    // restart: the state comes back from the DLedger log
    const before = cm!.controller.replicasInfoManager;
    const snapshot = JSON.stringify([[...before.replicaInfoTable.get('bs')!.brokerIdInfo], before.syncStateSetInfoTable.get('bs')!.masterEpoch,
      before.syncStateSetInfoTable.get('bs')!.syncStateSetEpoch, [...before.syncStateSetInfoTable.get('bs')!.syncStateSet], before.replicaInfoTable.get('bs')!.nextAssignBrokerId]);
    await cm!.shutdown();
    cm = await start();
    const after = cm.controller.replicasInfoManager;
    expect(JSON.stringify([[...after.replicaInfoTable.get('bs')!.brokerIdInfo], after.syncStateSetInfoTable.get('bs')!.masterEpoch,
      after.syncStateSetInfoTable.get('bs')!.syncStateSetEpoch, [...after.syncStateSetInfoTable.get('bs')!.syncStateSet], after.replicaInfoTable.get('bs')!.nextAssignBrokerId])).to.equal(snapshot);
    // brokers are not alive in a fresh controller until they beat again; cleaning the dead id 1 works
    const clean = await call(b2, RequestCode.CLEAN_BROKER_DATA, CleanControllerBrokerDataRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', brokerControllerIdsToClean: '1' }));
    expect(clean.code, clean.remark ?? '').to.equal(ResponseCode.SUCCESS);
    expect([...cm.controller.replicasInfoManager.replicaInfoTable.get('bs')!.brokerIdInfo.keys()]).to.deep.equal([2]);
  });

  it('elects nobody outside the SyncStateSet unless enableElectUncleanMaster (set by UPDATE_CONTROLLER_CONFIG)', async () => {
    const b1 = await newBroker();
    const b2 = await newBroker();
    await register(b1);
    await heartbeat(b1);
    await waitFor(() => cm!.heartbeatManager.isBrokerActive('C', 'bs', 1), 5000, 'broker 1 alive');
    expect((await call(b1, RequestCode.CONTROLLER_ELECT_MASTER, ElectMasterRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', brokerId: 1, designateElect: false }))).code).to.equal(ResponseCode.SUCCESS);
    await register(b2);
    await heartbeat(b2);
    await waitFor(() => cm!.heartbeatManager.isBrokerActive('C', 'bs', 2), 5000, 'broker 2 alive');
    // broker 2 never joined the SyncStateSet: when the master goes, nobody may take over
    await b1.client.shutdown();
    await waitFor(() => cm!.controller.replicasInfoManager.syncStateSetInfoTable.get('bs')?.masterBrokerId === null, 10_000, 'the master cleared');
    const info = cm!.controller.replicasInfoManager.syncStateSetInfoTable.get('bs')!;
    // as Java: each of the electMasterMaxRetryCount (3) tries records "no master" and bumps the master epoch
    await waitFor(() => info.masterEpoch === 4, 5000, 'three election tries');
    expect([...info.syncStateSet]).to.deep.equal([1]);
    const elect = await call(b2, RequestCode.CONTROLLER_ELECT_MASTER, ElectMasterRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', brokerId: 2, designateElect: false }));
    expect(elect.code).to.equal(ResponseCode.CONTROLLER_ELECT_MASTER_FAILED);
    // allowed to elect unclean (UPDATE_CONTROLLER_CONFIG, as mqadmin updateControllerConfig does), broker 2 becomes master
    const upd = await call(b2, RequestCode.UPDATE_CONTROLLER_CONFIG, null, Buffer.from('enableElectUncleanMaster=true\n'));
    expect(upd.code).to.equal(ResponseCode.SUCCESS);
    const unclean = await call(b2, RequestCode.CONTROLLER_ELECT_MASTER, ElectMasterRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', brokerId: 2, designateElect: false }));
    expect(unclean.code, unclean.remark ?? '').to.equal(ResponseCode.SUCCESS);
    expect(ElectMasterResponseHeader.decode(unclean.extFields)).to.deep.include({ masterBrokerId: 2, masterEpoch: 5 });
    const cfg = await call(b2, RequestCode.GET_CONTROLLER_CONFIG, null);
    expect(cfg.body!.toString()).to.contain('enableElectUncleanMaster=true\n');
    expect(fs.readFileSync(path.join(dir, 'controller.properties'), 'utf8')).to.contain('enableElectUncleanMaster=true\n');
    const refused = await call(b2, RequestCode.UPDATE_CONTROLLER_CONFIG, null, Buffer.from('configStorePath=/x\n'));
    expect(refused.code).to.equal(ResponseCode.NO_PERMISSION);

    // a heartbeat without brokerId is refused
    const bad = await call(b2, RequestCode.BROKER_HEARTBEAT, { clusterName: 'C', brokerName: 'bs', brokerAddr: b2.addr });
    expect(bad.code).to.equal(ResponseCode.CONTROLLER_INVALID_REQUEST);

  });

  it('a controller without a quorum answers metadata (no leader) and refuses the rest with CONTROLLER_NOT_LEADER', async () => {
    const [self, other] = [await freePort(), await freePort()];
    const lone = new ControllerManager({
      controllerDLegerGroup: 'cg2', controllerDLegerPeers: `n0-127.0.0.1:${self};n1-127.0.0.1:${other}`, controllerDLegerSelfId: 'n0',
      controllerStorePath: path.join(dir, 'lone'), ...FAST,
    });
    await lone.start();
    try {
      const b = await newBroker();
      const meta = await b.client.invoke(lone.address, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_METADATA_INFO, null), 3000);
      expect(meta.code).to.equal(ResponseCode.SUCCESS);
      const mh = GetMetaDataResponseHeader.decode(meta.extFields);
      expect(mh.isLeader).to.equal(false);
      expect(mh.controllerLeaderAddress).to.equal(undefined);
      expect(mh.peers).to.equal(`n0:${lone.address};n1:127.0.0.1:${other};`);
      const r = await b.client.invoke(lone.address, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_NEXT_BROKER_ID,
        GetNextBrokerIdRequestHeader.encode({ clusterName: 'C', brokerName: 'bs' })), 3000);
      expect(r.code).to.equal(ResponseCode.CONTROLLER_NOT_LEADER);
      expect(r.remark).to.equal('The controller is not in leader state');
    } finally {
      await lone.shutdown();
    }
  });
});
