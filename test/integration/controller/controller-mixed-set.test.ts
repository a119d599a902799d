/**
 * A Java 5.3.3 broker and one of ours in the same broker set, under our controller: the Java broker is master;
 * ours gets id 2, becomes its slave, learns the master's HA address from the name server and replicates over the
 * AutoSwitch HA stream (our AutoSwitchHAClient against Java's AutoSwitchHAConnection): what was sent before it
 * joined and after is in its commit log, its epoch file holds the master's term, and the Java master adds it to
 * the SyncStateSet.
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
import { BrokerController } from '../../../lib/broker/broker-controller';
import { DefaultMQProducer } from '../../../lib/index';
import { SendStatus } from '../../../lib/client/send-result';
import { RemotingClient } from '../../../lib/transport';
import { createMessage } from '../../../protocol/message/message';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { decodeEpochEntryCache } from '../../../protocol/body';
import { decodeEpochCheckpoint } from '../../../lib/store/autoswitch/epoch-file-cache';
import { type JavaBroker, javaSkipReason, startJavaBroker } from '../../helpers/javaref';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';

describe('controller: a Java 5.3.3 master and our slave in one broker set (AutoSwitch HA)', function () {
  this.timeout(300_000);
  let dir: string;
  let namesrv: NamesrvController | null = null;
  let cm: ControllerManager | null = null;
  let producer: DefaultMQProducer | null = null;
  let ours: BrokerController | null = null;
  let java: JavaBroker | null = null;
  const client = new RemotingClient();

  before(function () {
    const skip = javaSkipReason('5.3.3');
    if (skip) {
      console.log(`    ${skip}`);
      this.skip();
    }
  });

  after(async () => {
    await producer?.shutdown();
    await ours?.shutdown();
    await java?.stop();
    await cm?.shutdown();
    await namesrv?.shutdown();
    await client.shutdown();
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  });

  it('our slave replicates from the Java master and joins its SyncStateSet', async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'controller-mixed-'));
    namesrv = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties') });
    await namesrv.start();
    const port = await freePort();
    cm = new ControllerManager({
      controllerDLegerGroup: 'cg', controllerDLegerPeers: `n0-127.0.0.1:${port}`, controllerDLegerSelfId: 'n0', controllerStorePath: path.join(dir, 'controller'),
      configStorePath: path.join(dir, 'controller.properties'), mappedFileSize: 1024 * 1024, scanNotActiveBrokerInterval: 1000, scanInactiveMasterInterval: 1000,
    });
    await cm.start();
    await waitFor(() => cm!.isLeaderState, 10_000, 'the controller to lead');
    const brokerName = randomName('mix');
    const periods = { syncBrokerMetadataPeriod: 1000, checkSyncStateSetPeriod: 1000, syncControllerMetadataPeriod: 2000, controllerHeartBeatTimeoutMills: 6000, brokerHeartbeatInterval: 500 };
    java = await startJavaBroker('5.3.3', {
      namesrvAddr: namesrv.address, brokerName, storeDir: path.join(dir, 'j1'),
      conf: { brokerClusterName: 'CC', brokerName, enableControllerMode: true, controllerAddr: cm.address, brokerIP2: '127.0.0.1', haMaxTimeSlaveNotCatchup: 6000,
        mappedFileSizeCommitLog: 16 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000, ...periods },
    });
    const routeAddrs = () => namesrv!.routeInfoManager.brokerAddrTable.get(brokerName)?.brokerAddrs ?? new Map<number, string>();
    await waitFor(() => routeAddrs().get(0) === java!.addr, 60_000, 'the Java broker registered as master');
    const topic = randomName('MX');
    producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: namesrv.address, instanceName: randomName('p'), sendMsgTimeout: 3000, pollNameServerInterval: 200 });
    await producer.start();
    const bodies: string[] = [];
    await waitFor(async () => {
      try {
        const b = `before-${bodies.length}`;
        const r = await producer!.send(createMessage(topic, b));
        if (r.sendStatus === SendStatus.SEND_OK) bodies.push(b);
      } catch { /* topic being created */ }
      return bodies.length >= 5;
    }, 60_000, '5 sends to the Java master', 100);

    ours = new BrokerController({
      brokerConfig: { brokerClusterName: 'CC', brokerName, namesrvAddr: namesrv.address, brokerIP1: '127.0.0.1', brokerIP2: '127.0.0.1', enableControllerMode: true, controllerAddr: cm.address, ...periods },
      messageStoreConfig: { storePathRootDir: path.join(dir, 'ours'), mappedFileSizeCommitLog: 16 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000, haSendHeartbeatInterval: 1000 },
      remotingServerConfig: { listenPort: 0, bindAddress: '127.0.0.1' },
      replicasManager: { retryIntervalMillis: 500, initialDelayMillis: 300 },
    });
    await ours.start();
    const rm = ours.replicasManager!;
    await waitFor(() => rm.state === 'RUNNING', 30_000, 'our broker running under the controller');
    expect(rm.brokerControllerId).to.equal(2);
    expect(ours.messageStoreConfig.brokerRole).to.equal('SLAVE');
    expect(rm.masterAddress).to.equal(java.addr);
    await waitFor(() => routeAddrs().get(2) === ours!.brokerAddr, 30_000, 'our slave registered as broker id 2');
    await waitFor(() => rm.haClient?.haMasterAddress != null, 30_000, 'the master HA address learnt from the name server');

    const masterMax = async (): Promise<number> => {
      const res = await client.invoke(java!.addr, RemotingCommand.createRequest(RequestCode.GET_BROKER_EPOCH_CACHE, null), 3000);
      return decodeEpochEntryCache(res.body!).maxOffset;
    };
    const m1 = await masterMax();
    await waitFor(() => ours!.messageStore.getMaxPhyOffset() === m1, 30_000, 'our slave holding what the master held');
    // the Java master saw it catch up and added it to the SyncStateSet
    const sse = () => cm!.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName)!;
    await waitFor(() => sse().syncStateSet.size === 2, 30_000, 'our slave in the SyncStateSet');
    expect([...sse().syncStateSet].sort()).to.deep.equal([1, 2]);

    for (let i = 0; i < 5; i++) {
      const r = await producer.send(createMessage(topic, `after-${i}`));
      expect(r.sendStatus).to.equal(SendStatus.SEND_OK);
      bodies.push(`after-${i}`);
    }
    const m2 = await masterMax();
    expect(m2).to.be.greaterThan(m1);
    await waitFor(() => ours!.messageStore.getMaxPhyOffset() === m2, 30_000, 'our slave holding the later sends');
    const log = (await fs.promises.readFile(path.join(dir, 'ours', 'commitlog', '00000000000000000000'))).subarray(0, m2).toString('latin1');
    for (const b of bodies) expect(log).to.include(b);
    // the same bytes as the master's commit log
    const javaLog = (await fs.promises.readFile(path.join(dir, 'j1', 'commitlog', '00000000000000000000'))).subarray(0, m2);
    expect(Buffer.from(log, 'latin1').equals(javaLog)).to.equal(true);
    const masterEpoch = sse().masterEpoch;
    expect(decodeEpochCheckpoint(await fs.promises.readFile(path.join(dir, 'ours', 'epochFileCheckpoint'), 'utf8'))).to.deep.equal([{ epoch: masterEpoch, startOffset: 0 }]);
    expect(rm.haClient!.refusedHandshakes).to.equal(0);
  });
});
