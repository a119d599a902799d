/**
 * Our controller against Java 5.3.3's (ControllerStartup through test/java/run-controller-533.sh):
 *   - the same request sequence (a broker's registration, heartbeats, elections, fenced and refused SyncStateSet
 *     changes, replica info, sync state data, cleaning, an unknown code) gets the same answers from both: codes,
 *     remarks, header fields and bodies, and the same NOTIFY_BROKER_ROLE_CHANGED;
 *   - a controller group of two of ours and one Java controller: events written by the Java leader are applied by
 *     ours, ours lead on the same log when the Java controller is gone, and a restarted Java controller catches up
 *     from our leader and, leading again, answers with what ours wrote.
 *
 * Skips with a clear line when java or ../shared/javaref/5.3.3 is absent.
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
import { GetMetaDataResponseHeader } from '../../../protocol/header';
import { decodeBrokerReplicasInfo, encodeBrokerNameList } from '../../../protocol/body';
import { type JavaController, javaSkipReason, startJavaController } from '../../helpers/javaref';
import { waitFor } from '../../helpers/wait-for';

/** The request sequence; each answer as one normalized line (addresses replaced by names). */
async function probe(addr: string): Promise<string[]> {
  const c = new RemotingClient();
  const srv = new RemotingServer({ listenPort: 0, bindAddress: '127.0.0.1' });
  const notes: string[] = [];
  srv.registerProcessor(RequestCode.NOTIFY_BROKER_ROLE_CHANGED, (req) => {
    notes.push(`notify ${JSON.stringify(Object.fromEntries(Object.entries(req.extFields ?? {}).sort()))} ${req.body?.toString()}`);
    return null;
  });
  const baddr = `127.0.0.1:${await srv.listen()}`;
  const norm = (s: string) => s.split(baddr).join('BROKER').split(addr).join('CONTROLLER').replace(/n0:127\.0\.0\.1:\d+;/, 'n0:PEER;');
  const lines: string[] = [];
  const ask = async (name: string, code: number, ext: Record<string, string> | null, body?: string) => {
    const r = await c.invoke(addr, RemotingCommand.createRequest(code, ext, body === undefined ? null : Buffer.from(body)), 5000);
    const fields = JSON.stringify(Object.fromEntries(Object.entries(r.extFields ?? {}).sort()));
    lines.push(norm(`${name} ${r.code} ${JSON.stringify(r.remark ?? null)} ${fields} ${r.body ? r.body.toString() : '-'}`));
  };
  try {
    const id = (n: number) => String(n);
    await ask('metadata', RequestCode.CONTROLLER_GET_METADATA_INFO, null);
    await ask('nextBrokerId', RequestCode.CONTROLLER_GET_NEXT_BROKER_ID, { clusterName: 'C', brokerName: 'bs' });
    await ask('applyBrokerId 2 first', RequestCode.CONTROLLER_APPLY_BROKER_ID, { clusterName: 'C', brokerName: 'bs', appliedBrokerId: id(2), registerCheckCode: `${baddr};1` });
    await ask('applyBrokerId 1', RequestCode.CONTROLLER_APPLY_BROKER_ID, { clusterName: 'C', brokerName: 'bs', appliedBrokerId: id(1), registerCheckCode: `${baddr};1` });
    await ask('nextBrokerId again', RequestCode.CONTROLLER_GET_NEXT_BROKER_ID, { clusterName: 'C', brokerName: 'bs' });
    await ask('register', RequestCode.CONTROLLER_REGISTER_BROKER, { clusterName: 'C', brokerName: 'bs', brokerId: id(1), brokerAddress: baddr, invokeTime: '1' });
    await ask('register unknown id', RequestCode.CONTROLLER_REGISTER_BROKER, { clusterName: 'C', brokerName: 'bs', brokerId: id(7), brokerAddress: baddr, invokeTime: '1' });
    await ask('heartbeat without id', RequestCode.BROKER_HEARTBEAT, { clusterName: 'C', brokerName: 'bs', brokerAddr: baddr });
    await ask('heartbeat', RequestCode.BROKER_HEARTBEAT, { clusterName: 'C', brokerName: 'bs', brokerAddr: baddr, brokerId: id(1), epoch: '0', maxOffset: '0', heartbeatTimeoutMills: '10000' });
    await ask('replicaInfo', RequestCode.CONTROLLER_GET_REPLICA_INFO, { brokerName: 'bs' });
    await ask('replicaInfo unknown', RequestCode.CONTROLLER_GET_REPLICA_INFO, { brokerName: 'nope' });
    await ask('electMaster', RequestCode.CONTROLLER_ELECT_MASTER, { clusterName: 'C', brokerName: 'bs', brokerId: id(1), designateElect: 'false', invokeTime: '1' });
    await ask('electMaster again', RequestCode.CONTROLLER_ELECT_MASTER, { clusterName: 'C', brokerName: 'bs', brokerId: id(1), designateElect: 'false', invokeTime: '1' });
    await ask('electMaster unknown set', RequestCode.CONTROLLER_ELECT_MASTER, { clusterName: 'C', brokerName: 'zz', brokerId: id(1), designateElect: 'false', invokeTime: '1' });
    const alter = (name: string, masterEpoch: string, body: string) =>
      ask(name, RequestCode.CONTROLLER_ALTER_SYNC_STATE_SET, { brokerName: 'bs', masterBrokerId: id(1), masterEpoch, invokeTime: '1' }, body);
    await alter('alter same set', '1', '{"syncStateSet":[1],"syncStateSetEpoch":1}');
    await alter('alter old master epoch', '0', '{"syncStateSet":[1,2],"syncStateSetEpoch":1}');
    await alter('alter old set epoch', '1', '{"syncStateSet":[1,2],"syncStateSetEpoch":0}');
    await alter('alter unknown replica', '1', '{"syncStateSet":[1,3],"syncStateSetEpoch":1}');
    await ask('replicaInfo after', RequestCode.CONTROLLER_GET_REPLICA_INFO, { brokerName: 'bs' });
    await ask('syncStateData', RequestCode.CONTROLLER_GET_SYNC_STATE_DATA, null, '["bs","nope"]');
    await ask('syncStateData empty', RequestCode.CONTROLLER_GET_SYNC_STATE_DATA, null, '[]');
    await ask('cleanBrokerData alive', RequestCode.CLEAN_BROKER_DATA, { clusterName: 'C', brokerName: 'bs', invokeTime: '1' });
    await ask('unknown code', RequestCode.GET_BROKER_EPOCH_CACHE, null);
    await waitFor(() => notes.length >= 1, 5000, 'the role-change notification');
    return [...lines, ...notes.map(norm)];
  } finally {
    await c.shutdown();
    await srv.shutdown();
  }
}

describe('controller: ours against Java 5.3.3 controllers', function () {
  this.timeout(300_000);
  let dir: string;
  const ours: ControllerManager[] = [];
  const javas: JavaController[] = [];

  before(function () {
    const skip = javaSkipReason('5.3.3');
    if (skip) {
      console.log(`    ${skip}`);
      this.skip();
    }
  });
  beforeEach(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'controller-vs-java-'));
  });
  afterEach(async () => {
    await Promise.all(javas.splice(0).map((j) => j.stop()));
    await Promise.all(ours.splice(0).map((c) => c.shutdown()));
    await fs.promises.rm(dir, { recursive: true, force: true });
  });

  const leads = async (addr: string): Promise<boolean> => {
    const c = new RemotingClient();
    try {
      const r = await c.invoke(addr, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_NEXT_BROKER_ID, { clusterName: 'C', brokerName: 'probe' }), 2000);
      return r.code === ResponseCode.SUCCESS;
    } catch {
      return false;
    } finally {
      await c.shutdown();
    }
  };

  it('answers the same request sequence with the same codes, remarks, headers, bodies and notification as Java', async () => {
    const jport = await freePort();
    const java = await startJavaController({
      controllerDLegerGroup: 'g', controllerDLegerPeers: `n0-127.0.0.1:${jport}`, controllerDLegerSelfId: 'n0',
      controllerStorePath: path.join(dir, 'java'), mappedFileSize: 1024 * 1024,
    });
    javas.push(java);
    await waitFor(() => leads(java.addr), 30_000, 'the Java controller to lead', 200);
    const fromJava = await probe(java.addr);
    await java.stop();

    const port = await freePort();
    const cm = new ControllerManager({
      controllerDLegerGroup: 'g', controllerDLegerPeers: `n0-127.0.0.1:${port}`, controllerDLegerSelfId: 'n0', controllerStorePath: path.join(dir, 'ours'), mappedFileSize: 1024 * 1024,
    });
    ours.push(cm);
    await cm.start();
    await waitFor(() => cm.isLeaderState, 20_000, 'our controller to lead');
    const fromOurs = await probe(cm.address);
    expect(fromOurs).to.deep.equal(fromJava);
    expect(fromOurs.length).to.equal(24);
  });

  it('a group of two of ours and one Java controller shares one log both ways', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    const peers = ports.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
    const javaConf = {
      controllerDLegerGroup: 'mg', controllerDLegerPeers: peers, controllerDLegerSelfId: 'n2', controllerStorePath: path.join(dir, 'java'), mappedFileSize: 1024 * 1024,
    };
    const javaRun = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqcontroller-'));
    let java = await startJavaController(javaConf, { runDir: javaRun });
    javas.push(java);
    // ours vote slowly, so the Java controller (DLedger's 300-1000 ms) becomes the first leader
    for (const i of [0, 1]) {
      const c = new ControllerManager({
        controllerDLegerGroup: 'mg', controllerDLegerPeers: peers, controllerDLegerSelfId: `n${i}`, controllerStorePath: path.join(dir, `ours${i}`), mappedFileSize: 1024 * 1024,
        controllerDLegerMinVoteIntervalMs: 2500, controllerDLegerMaxVoteIntervalMs: 4000,
      });
      ours.push(c);
      await c.start();
    }
    await waitFor(() => leads(java.addr), 60_000, 'the Java controller to lead', 200);
    const client = new RemotingClient();
    try {
      const write = async (leader: string, id: number) => {
        const r = await client.invoke(leader, RemotingCommand.createRequest(RequestCode.CONTROLLER_APPLY_BROKER_ID,
          { clusterName: 'C', brokerName: 'bs', appliedBrokerId: String(id), registerCheckCode: `127.0.0.1:${30000 + id};1` }), 5000);
        expect(r.code, r.remark ?? '').to.equal(ResponseCode.SUCCESS);
      };
      // Java writes; ours apply its entries
      await write(java.addr, 1);
      await waitFor(() => ours.every((c) => c.controller.replicasInfoManager.replicaInfoTable.get('bs')?.brokerAddress(1) === '127.0.0.1:30001'), 10_000, 'ours to apply the Java leader\'s event');
      const meta = GetMetaDataResponseHeader.decode((await client.invoke(ours[0].address, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_METADATA_INFO, null), 3000)).extFields);
      expect(meta.controllerLeaderId).to.equal('n2');
      expect(meta.controllerLeaderAddress).to.equal(java.addr);

      // the Java controller goes away: one of ours leads on the same log and writes
      await java.stop();
      await waitFor(() => ours.some((c) => c.isLeaderState), 60_000, 'one of ours to lead');
      const oursLeader = ours.find((c) => c.isLeaderState)!;
      await write(oursLeader.address, 2);

      // the Java controller comes back, catches up from our leader; our leader goes away; the Java controller leads
      java = await startJavaController(javaConf, { runDir: javaRun });
      javas.push(java);
      const otherOurs = ours.find((c) => c !== oursLeader)!;
      await waitFor(() => otherOurs.controller.dledger.ledgerEndIndex === oursLeader.controller.dledger.ledgerEndIndex, 30_000, 'the other of ours to hold the whole log');
      await new Promise((r) => setTimeout(r, 3000)); // our leader's heartbeats and pushes reach the Java follower
      await oursLeader.shutdown();
      await waitFor(async () => (await leads(java.addr)) || (await leads(otherOurs.address)), 60_000, 'a new leader', 200);
      const leader = (await leads(java.addr)) ? java.addr : otherOurs.address;
      const r = await client.invoke(leader, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_SYNC_STATE_DATA, null, encodeBrokerNameList(['bs'])), 5000);
      expect(r.code).to.equal(ResponseCode.SUCCESS);
      const ids = decodeBrokerReplicasInfo(r.body!).replicasInfoTable.get('bs')!.notInSyncReplicas.map((x) => [x.brokerId, x.brokerAddress]);
      expect(ids).to.deep.equal([[1, '127.0.0.1:30001'], [2, '127.0.0.1:30002']]);
      console.log(`      the new leader after ours left: ${leader === java.addr ? 'the Java controller (it applied what ours wrote)' : 'ours'}`);
    } finally {
      await client.shutdown();
      fs.rmSync(javaRun, { recursive: true, force: true });
    }
  });
});
