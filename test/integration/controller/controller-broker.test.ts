/**
 * Our broker in controller mode (enableControllerMode=true, in process, port 0) under our controller (lib/controller)
 * and under Java 5.3.3's controller: it finds the leading controller, gets broker id 1 (the `brokerIdentity` file,
 * Java's bytes), is elected master and registers with the name server as broker id 0 once it has that role; a
 * producer sends to it. A second broker of ours in the set gets id 2 and registers as a slave with it. The master
 * is shut down: the controller elects the other, which becomes master at run time (no restart: its role, broker id
 * and master-only services change), registers as broker id 0 and takes sends. The old master comes back on its
 * store: it keeps its id (the `brokerIdentity` file) and follows the new master as a slave.
 *
 * Not tested here (the AutoSwitch HA stream is not built yet): the messages of the old master on the new one. Without
 * replication the slave never joins the SyncStateSet, so the controllers run with enableElectUncleanMaster=true.
 *
 * The Java half skips with a clear line when java or ../shared/javaref/5.3.3 is absent.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ControllerManager } from '../../../lib/controller';
import { freePort } from '../../../lib/cluster';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { DefaultMQProducer } from '../../../lib/index';
import { SendStatus } from '../../../lib/client/send-result';
import { ConfigError } from '../../../lib/errors';
import { decodeEpochCheckpoint } from '../../../lib/store/autoswitch/epoch-file-cache';
import { createMessage } from '../../../protocol/message/message';
import { RemotingClient } from '../../../lib/transport';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { GetReplicaInfoRequestHeader, GetReplicaInfoResponseHeader } from '../../../protocol/header';
import { EPOCH_ENTRY_OPEN_END, decodeEpochEntryCache } from '../../../protocol/body';
import { type JavaController, javaSkipReason, startJavaController } from '../../helpers/javaref';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';

interface ControllerUnderTest {
  address: string;
  /** master broker id of the set, as the controller holds it */
  masterOf(brokerName: string): Promise<number | null>;
  stop(): Promise<void>;
}

describe('controller: our brokers in controller mode', function () {
  this.timeout(300_000);
  let dir: string;
  let namesrv: NamesrvController | null = null;
  let controller: ControllerUnderTest | null = null;
  let producer: DefaultMQProducer | null = null;
  const brokers: BrokerController[] = [];

  beforeEach(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'controller-broker-'));
    namesrv = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties') });
    await namesrv.start();
  });

  afterEach(async () => {
    await producer?.shutdown();
    producer = null;
    for (const b of brokers.splice(0)) await b.shutdown();
    await controller?.stop();
    controller = null;
    await namesrv?.shutdown();
    namesrv = null;
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  });

  const newBroker = (name: string, brokerName: string, extra: Record<string, unknown> = {}): BrokerController => {
    const b = new BrokerController({
      brokerConfig: {
        brokerClusterName: 'CC', brokerName, namesrvAddr: namesrv!.address, brokerIP1: '127.0.0.1', brokerIP2: '127.0.0.1',
        enableControllerMode: true, controllerAddr: controller!.address, syncBrokerMetadataPeriod: 500, checkSyncStateSetPeriod: 500,
        syncControllerMetadataPeriod: 1000, controllerHeartBeatTimeoutMills: 4000, brokerHeartbeatInterval: 300,
        // ignored in controller mode, as Java ignores them
        brokerId: 7, ...extra,
      },
      messageStoreConfig: {
        storePathRootDir: path.join(dir, name), haSendHeartbeatInterval: 1000, haMaxTimeSlaveNotCatchup: 6000, mappedFileSizeCommitLog: 4 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000, brokerRole: 'ASYNC_MASTER',
      },
      remotingServerConfig: { listenPort: 0, bindAddress: '127.0.0.1' },
      replicasManager: { retryIntervalMillis: 500, initialDelayMillis: 300 },
    });
    brokers.push(b);
    return b;
  };

  const routeAddrs = (brokerName: string): Map<number, string> => namesrv!.routeInfoManager.brokerAddrTable.get(brokerName)?.brokerAddrs ?? new Map();

  const sendUntilOk = async (topic: string, n: number, label: string): Promise<number> => {
    let ok = 0;
    await waitFor(async () => {
      try {
        const r = await producer!.send(createMessage(topic, `${label}-${ok}`));
        if (r.sendStatus === SendStatus.SEND_OK) ok++;
      } catch { /* topic being created, or the route still names the old master */ }
      return ok >= n;
    }, 60_000, `${n} sends (${label})`, 100);
    return ok;
  };

  /** The whole vertical slice against whichever controller `controller` is. */
  const failoverScenario = async (): Promise<void> => {
    const brokerName = randomName('cbs');
    const b1 = newBroker('b1', brokerName);
    await b1.start();
    const rm1 = b1.replicasManager!;
    await waitFor(() => rm1.state === 'RUNNING', 30_000, 'the first broker running under the controller');
    expect(rm1.brokerControllerId).to.equal(1);
    expect(b1.brokerConfig.brokerId).to.equal(0);
    expect(b1.messageStoreConfig.brokerRole).to.equal('SYNC_MASTER');
    expect(await controller!.masterOf(brokerName)).to.equal(1);
    // Java's BrokerMetadata bytes; the temp file is gone once the id was applied
    expect(await fs.promises.readFile(path.join(dir, 'b1', 'brokerIdentity'), 'utf8')).to.equal(`CC#${brokerName}#1`);
    expect(fs.existsSync(path.join(dir, 'b1', 'brokerIdentity-temp'))).to.equal(false);
    // its term in the epoch file (Java's CheckpointFile: count, CRC, `<epoch>-<startOffset>` lines)
    const epoch1 = rm1.masterEpoch;
    expect(decodeEpochCheckpoint(await fs.promises.readFile(path.join(dir, 'b1', 'epochFileCheckpoint'), 'utf8'))).to.deep.equal([{ epoch: epoch1, startOffset: 0 }]);
    expect(rm1.lastEpoch).to.equal(epoch1);
    // GET_BROKER_EPOCH_CACHE as a Java master answers it (broker id 0, the epoch file, the max offset)
    const probe = new RemotingClient();
    try {
      const res = await probe.invoke(b1.brokerAddr, RemotingCommand.createRequest(RequestCode.GET_BROKER_EPOCH_CACHE, null), 3000);
      expect(res.code).to.equal(0);
      expect(decodeEpochEntryCache(res.body!)).to.deep.equal({
        clusterName: 'CC', brokerName, brokerId: 0, epochList: [{ epoch: epoch1, startOffset: 0, endOffset: EPOCH_ENTRY_OPEN_END }], maxOffset: b1.messageStore.getMaxPhyOffset(),
      });
    } finally {
      await probe.shutdown();
    }
    await waitFor(() => routeAddrs(brokerName).get(0) === b1.brokerAddr, 30_000, 'the master registered with the name server as broker id 0');
    // master-only services run on the master
    expect(b1.transactionalMessageCheckService).to.have.property('isRunning', true);

    const topic = randomName('CT');
    producer = new DefaultMQProducer({
      producerGroup: randomName('PG'), namesrvAddr: namesrv!.address, instanceName: randomName('p'), sendMsgTimeout: 3000, pollNameServerInterval: 200, retryTimesWhenSendFailed: 2,
    });
    await producer.start();
    expect(await sendUntilOk(topic, 10, 'first-master')).to.equal(10);

    const b2 = newBroker('b2', brokerName);
    await b2.start();
    const rm2 = b2.replicasManager!;
    await waitFor(() => rm2.state === 'RUNNING', 30_000, 'the second broker running under the controller');
    expect(rm2.brokerControllerId).to.equal(2);
    expect(b2.brokerConfig.brokerId).to.equal(2);
    expect(b2.messageStoreConfig.brokerRole).to.equal('SLAVE');
    expect(rm2.masterAddress).to.equal(b1.brokerAddr);
    expect(await fs.promises.readFile(path.join(dir, 'b2', 'brokerIdentity'), 'utf8')).to.equal(`CC#${brokerName}#2`);
    await waitFor(() => routeAddrs(brokerName).get(2) === b2.brokerAddr, 30_000, 'the slave registered with the name server as broker id 2');
    expect(b2.transactionalMessageCheckService).to.have.property('isRunning', false);
    // it replicates the master over the AutoSwitch HA stream and the master adds it to the SyncStateSet
    const firstMasterEnd = b1.messageStore.getMaxPhyOffset();
    await waitFor(() => b2.messageStore.getMaxPhyOffset() === firstMasterEnd, 30_000, 'the slave holding what the master held');
    await waitFor(() => rm1.syncStateSet.syncStateSet.length === 2, 30_000, 'the slave in the SyncStateSet');
    expect(rm1.syncStateSet.syncStateSet).to.deep.equal([1, 2]);

    // the master goes away: its connection to the controller closes and the controller elects the other
    const epochBefore = rm2.masterEpoch;
    const idx = brokers.indexOf(b1);
    brokers.splice(idx, 1);
    await b1.shutdown();
    await waitFor(() => b2.messageStoreConfig.brokerRole === 'SYNC_MASTER', 30_000, 'the second broker becoming master at run time');
    expect(b2.isRunning).to.equal(true);
    expect(b2.brokerConfig.brokerId).to.equal(0);
    expect(rm2.masterEpoch).to.be.greaterThan(epochBefore);
    expect(rm2.masterBrokerId).to.equal(2);
    expect(rm2.roleChanges).to.equal(2);
    expect(await controller!.masterOf(brokerName)).to.equal(2);
    expect(b2.transactionalMessageCheckService).to.have.property('isRunning', true);
    await waitFor(() => routeAddrs(brokerName).get(0) === b2.brokerAddr, 30_000, 'the new master registered with the name server as broker id 0');
    expect([...routeAddrs(brokerName).values()]).to.not.include(b1.brokerAddr);
    // the data version carries the master epoch (Java DataVersion.nextVersion(epoch))
    expect(b2.topicConfigManager.dataVersion.stateVersion).to.equal(rm2.masterEpoch);
    // the first master's term (replicated) and its own, from where the log ended
    expect(decodeEpochCheckpoint(await fs.promises.readFile(path.join(dir, 'b2', 'epochFileCheckpoint'), 'utf8'))).to.deep.equal([
      { epoch: epoch1, startOffset: 0 }, { epoch: rm2.masterEpoch, startOffset: firstMasterEnd }]);
    // the messages written on the first master are here
    expect(b2.messageStore.getMaxPhyOffset()).to.equal(firstMasterEnd);
    const log2 = (await fs.promises.readFile(path.join(dir, 'b2', 'commitlog', '00000000000000000000'))).subarray(0, firstMasterEnd).toString('latin1');
    for (let i = 0; i < 10; i++) expect(log2).to.include(`first-master-${i}`);
    expect(await sendUntilOk(topic, 10, 'second-master')).to.equal(10);
    expect(b2.messageStore.getMaxPhyOffset()).to.be.greaterThan(firstMasterEnd);

    // the old master comes back (same store, a new port): it keeps id 1 from its brokerIdentity file and follows the
    // new master as a slave, registered with the name server as broker id 1
    const b1again = newBroker('b1', brokerName);
    await b1again.start();
    const rm1again = b1again.replicasManager!;
    await waitFor(() => rm1again.state === 'RUNNING', 30_000, 'the old master running again');
    expect(rm1again.brokerControllerId).to.equal(1);
    expect(b1again.messageStoreConfig.brokerRole).to.equal('SLAVE');
    expect(b1again.brokerConfig.brokerId).to.equal(1);
    expect(rm1again.masterAddress).to.equal(b2.brokerAddr);
    expect(rm1again.masterEpoch).to.equal(rm2.masterEpoch);
    expect(await fs.promises.readFile(path.join(dir, 'b1', 'brokerIdentity'), 'utf8')).to.equal(`CC#${brokerName}#1`);
    await waitFor(() => routeAddrs(brokerName).get(1) === b1again.brokerAddr, 30_000, 'the old master registered with the name server as broker id 1');
    expect(routeAddrs(brokerName).get(0)).to.equal(b2.brokerAddr);
    expect(await controller!.masterOf(brokerName)).to.equal(2);
    // its log ends at the consistent point (it was in the SyncStateSet): it replicates the new master's term and
    // rejoins the SyncStateSet
    await waitFor(() => b1again.messageStore.getMaxPhyOffset() === b2.messageStore.getMaxPhyOffset(), 30_000, 'the old master catching up');
    expect(rm1again.lastEpoch).to.equal(rm2.masterEpoch);
    await waitFor(() => rm2.syncStateSet.syncStateSet.length === 2, 30_000, 'the old master back in the SyncStateSet');
  };

  it('refuses enableControllerMode with enableDLegerCommitLog, and without controllerAddr', () => {
    expect(() => new BrokerController({ brokerConfig: { enableControllerMode: true, controllerAddr: '127.0.0.1:1' }, messageStoreConfig: { storePathRootDir: path.join(dir, 'x'), enableDLegerCommitLog: true, dLegerSelfId: 'n0', dLegerPeers: 'n0-127.0.0.1:1' } }))
      .to.throw(ConfigError, /enableControllerMode and enableDLegerCommitLog/);
    expect(() => new BrokerController({ brokerConfig: { enableControllerMode: true }, messageStoreConfig: { storePathRootDir: path.join(dir, 'y') } }))
      .to.throw(ConfigError, /controllerAddr/);
  });

  it('under our controller: id, master, name server, sends; a slave with its id; failover at run time to the slave', async () => {
    const port = await freePort();
    const cm = new ControllerManager({
      controllerDLegerGroup: 'cg', controllerDLegerPeers: `n0-127.0.0.1:${port}`, controllerDLegerSelfId: 'n0', controllerStorePath: path.join(dir, 'controller'),
      configStorePath: path.join(dir, 'controller.properties'), mappedFileSize: 1024 * 1024, controllerDLegerHeartBeatTimeIntervalMs: 200,
      controllerDLegerMinVoteIntervalMs: 20, controllerDLegerMaxVoteIntervalMs: 60, scanNotActiveBrokerInterval: 500, scanInactiveMasterInterval: 500,
    });
    await cm.start();
    await waitFor(() => cm.isLeaderState, 10_000, 'the controller to lead');
    controller = {
      address: cm.address,
      masterOf: async (brokerName) => cm.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName)?.masterBrokerId ?? null,
      stop: () => cm.shutdown(),
    };
    await failoverScenario();
  });

  it('fetchControllerAddrByDnsLookup: controllerAddr localhost:<port> resolves to its A record; the name is looked up again on its period', async () => {
    const port = await freePort();
    const cm = new ControllerManager({
      controllerDLegerGroup: 'cg', controllerDLegerPeers: `n0-127.0.0.1:${port}`, controllerDLegerSelfId: 'n0', controllerStorePath: path.join(dir, 'controller'),
      configStorePath: path.join(dir, 'controller.properties'), mappedFileSize: 1024 * 1024, controllerDLegerHeartBeatTimeIntervalMs: 200,
      controllerDLegerMinVoteIntervalMs: 20, controllerDLegerMaxVoteIntervalMs: 60, scanNotActiveBrokerInterval: 500, scanInactiveMasterInterval: 500,
    });
    await cm.start();
    await waitFor(() => cm.isLeaderState, 10_000, 'the controller to lead');
    controller = { address: `localhost:${port}`, masterOf: async () => null, stop: () => cm.shutdown() };
    const brokerName = randomName('cdn');
    // the system resolver: localhost is 127.0.0.1
    const b1 = newBroker('b1', brokerName, { fetchControllerAddrByDnsLookup: true });
    await b1.start();
    const rm1 = b1.replicasManager!;
    expect(rm1.controllerAddresses).to.deep.equal([`127.0.0.1:${port}`]);
    await waitFor(() => rm1.state === 'RUNNING' && b1.messageStoreConfig.brokerRole === 'SYNC_MASTER', 30_000, 'the broker elected through the resolved address');
    expect(cm.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName)?.masterBrokerId).to.equal(1);

    // without the flag the name is used as written
    const b2 = newBroker('b2', randomName('cdn'));
    await b2.start();
    expect(b2.replicasManager!.controllerAddresses).to.deep.equal([`localhost:${port}`]);

    // an injected resolver: the addresses follow the name on the period; a failed or empty lookup keeps them
    const answers: Array<string[] | Error> = [['127.0.0.1'], ['127.0.0.1', '127.0.0.2'], new Error('ENOTFOUND'), []];
    let lookups = 0;
    const b3 = new BrokerController({
      brokerConfig: {
        brokerClusterName: 'CC', brokerName: randomName('cdn'), namesrvAddr: namesrv!.address, brokerIP1: '127.0.0.1', enableControllerMode: true,
        controllerAddr: `controllers.example.test:${port}`, fetchControllerAddrByDnsLookup: true, brokerHeartbeatInterval: 300,
      },
      messageStoreConfig: { storePathRootDir: path.join(dir, 'b3'), mappedFileSizeCommitLog: 4 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000 },
      remotingServerConfig: { listenPort: 0, bindAddress: '127.0.0.1' },
      replicasManager: {
        retryIntervalMillis: 500, initialDelayMillis: 300, updateControllerAddrIntervalMillis: 200,
        lookupAddresses: async (host) => {
          expect(host).to.equal('controllers.example.test');
          const a = answers[Math.min(lookups++, answers.length - 1)];
          if (a instanceof Error) throw a;
          return a;
        },
      },
    });
    brokers.push(b3);
    await b3.start();
    const rm3 = b3.replicasManager!;
    await waitFor(() => lookups >= 4, 30_000, 'four lookups');
    expect(rm3.controllerAddresses).to.deep.equal([`127.0.0.1:${port}`, `127.0.0.2:${port}`]);
    await waitFor(() => rm3.state === 'RUNNING', 30_000, 'the third broker running');
  });

  it('under the Java 5.3.3 controller: the same', async function () {
    const skip = javaSkipReason('5.3.3');
    if (skip) {
      console.log(`    ${skip}`);
      this.skip();
    }
    const port = await freePort();
    const jc: JavaController = await startJavaController({
      controllerDLegerGroup: 'cg', controllerDLegerPeers: `n0-127.0.0.1:${port}`, controllerDLegerSelfId: 'n0',
      controllerStorePath: path.join(dir, 'jcontroller'), scanNotActiveBrokerInterval: 500,
    });
    const query = new RemotingClient();
    controller = {
      address: jc.addr,
      // what the Java controller holds, through CONTROLLER_GET_REPLICA_INFO
      masterOf: async (brokerName) => {
        const res = await query.invoke(jc.addr, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_REPLICA_INFO,
          GetReplicaInfoRequestHeader.encode({ brokerName })), 3000);
        return GetReplicaInfoResponseHeader.decode(res.extFields).masterBrokerId ?? null;
      },
      stop: async () => {
        await query.shutdown();
        await jc.stop();
      },
    };
    await failoverScenario();
  });
});
