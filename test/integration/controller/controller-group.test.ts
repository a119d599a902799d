/**
 * A group of three of our controllers (in process, real sockets): one leads and serves, the followers apply the same
 * events from the DLedger log and refuse with CONTROLLER_NOT_LEADER while pointing at the leader; when the leading
 * controller goes away another takes over with the same state and still elects a new master when the broker
 * master's connection closes. Brokers (RemotingClients) heartbeat every controller, as Java brokers do.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ControllerManager } from '../../../lib/controller';
import { freePort } from '../../../lib/cluster';
import { RemotingClient } from '../../../lib/transport';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import {
  AlterSyncStateSetRequestHeader, ApplyBrokerIdRequestHeader, BrokerHeartbeatRequestHeader, ElectMasterRequestHeader, GetMetaDataResponseHeader,
  GetNextBrokerIdRequestHeader, RegisterBrokerToControllerRequestHeader,
} from '../../../protocol/header';
import { encodeSyncStateSet } from '../../../protocol/body';
import { waitFor } from '../../helpers/wait-for';

describe('controller: a group of three controllers losing its leader', function () {
  this.timeout(120_000);
  let dir: string;
  let group: ControllerManager[] = [];
  const clients: RemotingClient[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.shutdown();
    await Promise.all(group.map((c) => c.shutdown()));
    group = [];
    await fs.promises.rm(dir, { recursive: true, force: true });
  });

  const stateOf = (c: ControllerManager) => {
    const m = c.controller.replicasInfoManager;
    const info = m.syncStateSetInfoTable.get('bs');
    return JSON.stringify([[...(m.replicaInfoTable.get('bs')?.brokerIdInfo ?? [])], info?.masterBrokerId, info?.masterEpoch, info?.syncStateSetEpoch, [...(info?.syncStateSet ?? [])]]);
  };

  it('replicates the state to every controller and fails over to a new leader that keeps electing', async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'controller-group-'));
    const ports = [await freePort(), await freePort(), await freePort()];
    const peers = ports.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
    group = ports.map((_p, i) => new ControllerManager({
      controllerDLegerGroup: 'cg', controllerDLegerPeers: peers, controllerDLegerSelfId: `n${i}`, controllerStorePath: path.join(dir, `c${i}`),
      mappedFileSize: 1024 * 1024, controllerDLegerHeartBeatTimeIntervalMs: 100, controllerDLegerMaxHeartBeatLeak: 3,
      controllerDLegerMinVoteIntervalMs: 50, controllerDLegerMaxVoteIntervalMs: 200, scanNotActiveBrokerInterval: 500, scanInactiveMasterInterval: 500,
    }));
    await Promise.all(group.map((c) => c.start()));
    await waitFor(() => group.filter((c) => c.isLeaderState).length === 1, 20_000, 'one leading controller');
    const leader = group.find((c) => c.isLeaderState)!;
    const follower = group.find((c) => c !== leader)!;
    const addrs = group.map((c) => c.address);

    // any controller points at the leader
    const client = new RemotingClient();
    clients.push(client);
    const meta = GetMetaDataResponseHeader.decode((await client.invoke(follower.address, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_METADATA_INFO, null), 3000)).extFields);
    expect(meta.isLeader).to.equal(false);
    expect(meta.controllerLeaderAddress).to.equal(leader.address);
    const refused = await client.invoke(follower.address, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_NEXT_BROKER_ID, GetNextBrokerIdRequestHeader.encode({ clusterName: 'C', brokerName: 'bs' })), 3000);
    expect(refused.code).to.equal(ResponseCode.CONTROLLER_NOT_LEADER);

    // two brokers: each its own connections, heartbeating every controller
    const brokers = [1, 2].map((id) => ({ id, addr: `127.0.0.1:${40000 + id}`, client: new RemotingClient() }));
    clients.push(...brokers.map((b) => b.client));
    const leaderAddr = () => group.find((c) => c.isRunning && c.isLeaderState)?.address;
    const call = (b: typeof brokers[0], code: number, ext: Record<string, string>, body: Buffer | null = null) =>
      b.client.invoke(leaderAddr()!, RemotingCommand.createRequest(code, ext, body), 5000);
    const beat = (b: typeof brokers[0]) => Promise.all(group.filter((c) => c.isRunning).map((c) => b.client.invokeOneway(c.address, RemotingCommand.createRequest(RequestCode.BROKER_HEARTBEAT,
      BrokerHeartbeatRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', brokerAddr: b.addr, brokerId: b.id, epoch: 1, maxOffset: 0, heartbeatTimeoutMills: 60_000 })), 3000)));
    for (const b of brokers) {
      expect((await call(b, RequestCode.CONTROLLER_APPLY_BROKER_ID, ApplyBrokerIdRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', appliedBrokerId: b.id, registerCheckCode: `${b.addr};1` }))).code).to.equal(ResponseCode.SUCCESS);
      expect((await call(b, RequestCode.CONTROLLER_REGISTER_BROKER, RegisterBrokerToControllerRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', brokerId: b.id, brokerAddress: b.addr }))).code).to.equal(ResponseCode.SUCCESS);
      await beat(b);
    }
    await waitFor(() => group.every((c) => c.heartbeatManager.isBrokerActive('C', 'bs', 1) && c.heartbeatManager.isBrokerActive('C', 'bs', 2)), 5000, 'both brokers alive on every controller');
    expect((await call(brokers[0], RequestCode.CONTROLLER_ELECT_MASTER, ElectMasterRequestHeader.encode({ clusterName: 'C', brokerName: 'bs', brokerId: 1, designateElect: false }))).code).to.equal(ResponseCode.SUCCESS);
    expect((await call(brokers[0], RequestCode.CONTROLLER_ALTER_SYNC_STATE_SET, AlterSyncStateSetRequestHeader.encode({ brokerName: 'bs', masterBrokerId: 1, masterEpoch: 1 }),
      encodeSyncStateSet({ syncStateSet: [1, 2], syncStateSetEpoch: 1 }))).code).to.equal(ResponseCode.SUCCESS);
    await waitFor(() => new Set(group.map(stateOf)).size === 1, 10_000, 'every controller to apply the same events');
    const before = stateOf(leader);

    // the leading controller goes away
    await leader.shutdown();
    const rest = group.filter((c) => c !== leader);
    await waitFor(() => rest.some((c) => c.isLeaderState), 20_000, 'a new leading controller');
    const newLeader = rest.find((c) => c.isLeaderState)!;
    expect(stateOf(newLeader)).to.equal(before);
    expect(addrs).to.include(newLeader.address);

    // the broker master goes away: the new leader elects the in-sync replica
    await brokers[0].client.shutdown();
    await beat(brokers[1]);
    await waitFor(() => newLeader.controller.replicasInfoManager.syncStateSetInfoTable.get('bs')!.masterBrokerId === 2, 20_000, 'broker 2 elected by the new leader');
    await waitFor(() => new Set(rest.map(stateOf)).size === 1, 10_000, 'both remaining controllers to agree');
    const info = newLeader.controller.replicasInfoManager.syncStateSetInfoTable.get('bs')!;
    expect([info.masterEpoch, info.syncStateSetEpoch, [...info.syncStateSet]]).to.deep.equal([2, 3, [2]]);
  });
});
