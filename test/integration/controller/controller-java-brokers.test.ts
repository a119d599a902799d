/**
 * Two Java 5.3.3 brokers in controller mode under OUR controller (in process), registered with our name server:
 * one becomes master (registers as broker id 0), the other replicates and joins the SyncStateSet; our producer
 * sends; the master is killed with SIGKILL; our controller elects the other as soon as the master's connection
 * closes and notifies it; it registers as master and sends succeed again. Java's `mqadmin getSyncStateSet`
 * against our controller prints the set before and after.
 *
 * Skips with a clear line when java or ../shared/javaref/5.3.3 is absent.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ControllerManager } from '../../../lib/controller';
import { freePort } from '../../../lib/cluster';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { DefaultMQProducer } from '../../../lib/index';
import { SendStatus } from '../../../lib/client/send-result';
import { createMessage } from '../../../protocol/message/message';
import { type JavaBroker, javaSkipReason, runMqadmin, startJavaBroker } from '../../helpers/javaref';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';

describe('controller: two Java 5.3.3 brokers in controller mode under our controller', function () {
  this.timeout(300_000);
  let dir: string;
  let cm: ControllerManager | null = null;
  let group: ControllerManager[] = [];
  let namesrv: NamesrvController | null = null;
  let producer: DefaultMQProducer | null = null;
  const javas: JavaBroker[] = [];

  before(function () {
    const skip = javaSkipReason('5.3.3');
    if (skip) {
      console.log(`    ${skip}`);
      this.skip();
    }
  });

  afterEach(async () => {
    await producer?.shutdown();
    producer = null;
    await Promise.all(javas.splice(0).map((j) => j.stop()));
    await cm?.shutdown();
    cm = null;
    await Promise.all(group.map((c) => c.shutdown()));
    group = [];
    await namesrv?.shutdown();
    namesrv = null;
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  });

  it('elects a master, fails over on kill -9 of the master, and mqadmin getSyncStateSet prints the set', async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'controller-java-'));
    namesrv = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties') });
    await namesrv.start();
    const port = await freePort();
    cm = new ControllerManager({
      controllerDLegerGroup: 'cg', controllerDLegerPeers: `n0-127.0.0.1:${port}`, controllerDLegerSelfId: 'n0', controllerStorePath: path.join(dir, 'controller'),
      mappedFileSize: 1024 * 1024, controllerDLegerHeartBeatTimeIntervalMs: 200, controllerDLegerMinVoteIntervalMs: 20, controllerDLegerMaxVoteIntervalMs: 60,
      scanNotActiveBrokerInterval: 1000, scanInactiveMasterInterval: 1000,
    });
    await cm.start();
    await waitFor(() => cm!.isLeaderState, 10_000, 'the controller to lead');
    const brokerName = randomName('cbs');
    const conf = {
      brokerClusterName: 'CC', brokerName, enableControllerMode: true, controllerAddr: cm.address, brokerIP2: '127.0.0.1',
      syncBrokerMetadataPeriod: 1000, checkSyncStateSetPeriod: 1000, syncControllerMetadataPeriod: 2000, controllerHeartBeatTimeoutMills: 6000,
      brokerHeartbeatInterval: 500, haMaxTimeSlaveNotCatchup: 6000, mappedFileSizeCommitLog: 16 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000,
    };
    const stores = [path.join(dir, 'j1'), path.join(dir, 'j2')];
    const [j1, j2] = await Promise.all(stores.map((storeDir) => startJavaBroker('5.3.3', { namesrvAddr: namesrv!.address, brokerName, conf, storeDir })));
    javas.push(j1, j2);
    const rim = cm.controller.replicasInfoManager;
    const masterAddrAtNamesrv = () => namesrv!.routeInfoManager.brokerAddrTable.get(brokerName)?.brokerAddrs.get(0);
    await waitFor(() => rim.syncStateSetInfoTable.get(brokerName)?.masterBrokerId != null, 60_000, 'a master elected by our controller');
    await waitFor(() => !!masterAddrAtNamesrv(), 60_000, 'the master registered with the name server');
    const firstMaster = masterAddrAtNamesrv()!;
    const replicas = rim.replicaInfoTable.get(brokerName)!;
    expect([...replicas.brokerIdInfo.keys()].sort()).to.deep.equal([1, 2]);
    expect(new Set([...replicas.brokerIdInfo.values()].map(([a]) => a))).to.deep.equal(new Set([j1.addr, j2.addr]));
    // the slave catches up and the master adds it to the SyncStateSet (CONTROLLER_ALTER_SYNC_STATE_SET)
    await waitFor(() => rim.syncStateSetInfoTable.get(brokerName)!.syncStateSet.size === 2, 60_000, 'the SyncStateSet to hold both replicas');

    const topic = randomName('CT');
    producer = new DefaultMQProducer({
      producerGroup: randomName('PG'), namesrvAddr: namesrv.address, instanceName: randomName('p'), sendMsgTimeout: 3000, pollNameServerInterval: 200, retryTimesWhenSendFailed: 2,
    });
    await producer.start();
    let before = 0;
    await waitFor(async () => {
      try {
        const r = await producer!.send(createMessage(topic, `before-${before}`));
        if (r.sendStatus === SendStatus.SEND_OK) before++;
      } catch { /* topic being created */ }
      return before >= 10;
    }, 60_000, '10 sends to the first master', 100);

    const printed = await runMqadmin('5.3.3', ['getSyncStateSet', '-a', cm.address, '-b', brokerName], { timeoutMs: 60_000 });
    expect(printed.stdout, printed.stdout + printed.stderr).to.match(new RegExp(`#brokerName\\s+${brokerName}`));
    expect(printed.stdout).to.match(/#SyncStateSetNums\s+2/);
    expect(printed.stdout.match(/InSyncReplica:/g)?.length).to.equal(2);
    const masterInfo = rim.syncStateSetInfoTable.get(brokerName)!;
    expect(printed.stdout).to.match(new RegExp(`#MasterBrokerId\\s+${masterInfo.masterBrokerId}`));
    expect(printed.stdout).to.match(new RegExp(`#MasterAddr\\s+${firstMaster.replace(/\./g, '\\.')}`));

    // kill -9 the master
    const masterJava = firstMaster === j1.addr ? j1 : j2;
    const other = masterJava === j1 ? j2 : j1;
    const epochBefore = masterInfo.masterEpoch;
    const notifiedBefore = cm.notificationsSent;
    const killedAt = Date.now();
    await masterJava.stop('SIGKILL');
    await waitFor(() => rim.syncStateSetInfoTable.get(brokerName)!.masterEpoch > epochBefore && rim.syncStateSetInfoTable.get(brokerName)!.masterBrokerId != null, 30_000, 'a new master elected');
    const electedMs = Date.now() - killedAt;
    const newMasterId = rim.syncStateSetInfoTable.get(brokerName)!.masterBrokerId!;
    expect(replicas.brokerAddress(newMasterId)).to.equal(other.addr);
    expect(cm.notificationsSent).to.be.greaterThan(notifiedBefore);
    await waitFor(() => masterAddrAtNamesrv() === other.addr, 60_000, 'the new master registered with the name server');
    const registeredMs = Date.now() - killedAt;

    let after = 0;
    let firstOkMs = -1;
    await waitFor(async () => {
      try {
        const r = await producer!.send(createMessage(topic, `after-${after}`));
        if (r.sendStatus === SendStatus.SEND_OK) after++;
      } catch { /* route being refreshed */ }
      if (after === 1 && firstOkMs < 0) firstOkMs = Date.now() - killedAt;
      return after >= 10;
    }, 60_000, '10 sends to the new master', 100);
    console.log(`      kill -9 of the master -> elected by our controller ${electedMs} ms, registered as master ${registeredMs} ms, first SEND_OK ${firstOkMs} ms`);

    const printed2 = await runMqadmin('5.3.3', ['getSyncStateSet', '-a', cm.address, '-b', brokerName], { timeoutMs: 60_000 });
    expect(printed2.stdout, printed2.stdout + printed2.stderr).to.match(new RegExp(`#MasterBrokerId\\s+${newMasterId}`));
    expect(printed2.stdout).to.match(new RegExp(`#MasterAddr\\s+${other.addr.replace(/\./g, '\\.')}`));
    expect(printed2.stdout).to.match(/#SyncStateSetNums\s+1/);
    expect(printed2.stdout).to.match(/NotInSyncReplica:.*alive=false/);

    // the old master comes back with its store and broker id: it registers as a slave and, once caught up, the
    // new master adds it to the SyncStateSet again
    const oldId = [...replicas.brokerIdInfo].find(([, [a]]) => a === masterJava.addr)![0];
    const back = await startJavaBroker('5.3.3', { namesrvAddr: namesrv.address, brokerName, conf, storeDir: stores[masterJava === j1 ? 0 : 1], listenPort: masterJava.port });
    javas.push(back);
    await waitFor(() => cm!.heartbeatManager.isBrokerActive('CC', brokerName, oldId), 60_000, 'the old master alive again');
    await waitFor(() => rim.syncStateSetInfoTable.get(brokerName)!.syncStateSet.size === 2, 60_000, 'the old master back in the SyncStateSet');
    expect(rim.syncStateSetInfoTable.get(brokerName)!.masterBrokerId).to.equal(newMasterId);
    expect([...rim.replicaInfoTable.get(brokerName)!.brokerIdInfo.keys()].sort()).to.deep.equal([1, 2]);
    await waitFor(() => namesrv!.routeInfoManager.brokerAddrTable.get(brokerName)?.brokerAddrs.get(oldId) === masterJava.addr, 60_000, 'the old master registered as a slave');
    expect(masterAddrAtNamesrv()).to.equal(other.addr);
  });

  it('with three of our controllers, the brokers follow a new controller leader and it fails the broker master over', async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'controller-java-group-'));
    namesrv = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties') });
    await namesrv.start();
    const ports = [await freePort(), await freePort(), await freePort()];
    const peers = ports.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
    group = ports.map((_p, i) => new ControllerManager({
      controllerDLegerGroup: 'cg', controllerDLegerPeers: peers, controllerDLegerSelfId: `n${i}`, controllerStorePath: path.join(dir, `c${i}`),
      mappedFileSize: 1024 * 1024, controllerDLegerHeartBeatTimeIntervalMs: 200, controllerDLegerMinVoteIntervalMs: 50, controllerDLegerMaxVoteIntervalMs: 300,
      scanNotActiveBrokerInterval: 1000, scanInactiveMasterInterval: 1000,
    }));
    await Promise.all(group.map((c) => c.start()));
    await waitFor(() => group.some((c) => c.isLeaderState), 20_000, 'a leading controller');
    const brokerName = randomName('cgs');
    const conf = {
      brokerClusterName: 'CC', brokerName, enableControllerMode: true, controllerAddr: group.map((c) => c.address).join(';'), brokerIP2: '127.0.0.1',
      syncBrokerMetadataPeriod: 1000, checkSyncStateSetPeriod: 1000, syncControllerMetadataPeriod: 1000, controllerHeartBeatTimeoutMills: 6000,
      brokerHeartbeatInterval: 500, haMaxTimeSlaveNotCatchup: 6000, mappedFileSizeCommitLog: 16 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000,
    };
    const [j1, j2] = await Promise.all([0, 1].map(() => startJavaBroker('5.3.3', { namesrvAddr: namesrv!.address, brokerName, conf })));
    javas.push(j1, j2);
    const leaderOf = () => group.find((c) => c.isRunning && c.isLeaderState);
    const masterAt = () => namesrv!.routeInfoManager.brokerAddrTable.get(brokerName)?.brokerAddrs.get(0);
    await waitFor(() => !!masterAt(), 60_000, 'the master registered with the name server');
    await waitFor(() => leaderOf()!.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName)?.syncStateSet.size === 2, 60_000, 'both replicas in sync');

    // the leading controller goes away; another leads with the same state
    const first = leaderOf()!;
    await first.shutdown();
    await waitFor(() => !!leaderOf(), 30_000, 'a new leading controller');
    const second = leaderOf()!;
    expect(second.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName)!.syncStateSet.size).to.equal(2);
    // the brokers beat the remaining controllers
    await waitFor(() => [1, 2].every((id) => second.heartbeatManager.isBrokerActive('CC', brokerName, id)), 30_000, 'both brokers alive at the new leader');

    // kill -9 the broker master: the new controller leader elects the other, which registers as master
    const masterJava = masterAt() === j1.addr ? j1 : j2;
    const other = masterJava === j1 ? j2 : j1;
    await masterJava.stop('SIGKILL');
    await waitFor(() => masterAt() === other.addr, 60_000, 'the other broker registered as master');
    const info = second.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName)!;
    expect(second.controller.replicasInfoManager.replicaInfoTable.get(brokerName)!.brokerAddress(info.masterBrokerId)).to.equal(other.addr);

    producer = new DefaultMQProducer({
      producerGroup: randomName('PG'), namesrvAddr: namesrv.address, instanceName: randomName('p'), sendMsgTimeout: 3000, pollNameServerInterval: 200, retryTimesWhenSendFailed: 2,
    });
    await producer.start();
    const topic = randomName('CGT');
    let ok = 0;
    await waitFor(async () => {
      try {
        if ((await producer!.send(createMessage(topic, `m${ok}`))).sendStatus === SendStatus.SEND_OK) ok++;
      } catch { /* topic being created */ }
      return ok >= 5;
    }, 60_000, '5 sends to the new master', 100);
  });
});
