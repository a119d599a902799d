/**
 * A Java 5.3.3 broker and one of ours in the same broker set, under our controller, over the AutoSwitch HA stream.
 * Java master, our slave (our AutoSwitchHAClient against Java's AutoSwitchHAConnection): ours gets id 2, learns the
 * master's HA address from the name server, holds the master's commit log byte for byte and its term in the epoch
 * file, and the Java master adds it to the SyncStateSet. Our master, Java slave (Java's AutoSwitchHAClient against
 * our AutoSwitchHAService): the Java slave catches up, our master adds it to the set; our master shut down, the
 * controller elects the Java broker, which takes sends and holds every message.
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
import { RemotingClient, type RPCHook } from '../../../lib/transport';
import { createMessage, setDelayTimeMs } from '../../../protocol/message/message';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { decodeEpochEntryCache, decodeTimerMetrics } from '../../../protocol/body';
import { decodeEpochCheckpoint } from '../../../lib/store/autoswitch/epoch-file-cache';
import { type JavaBroker, freeBrokerPort, javaSkipReason, startJavaBroker } from '../../helpers/javaref';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';

describe('controller: a Java 5.3.3 broker and ours in one broker set (AutoSwitch HA both ways)', function () {
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

  afterEach(async () => {
    await producer?.shutdown();
    producer = null;
    await ours?.shutdown();
    ours = null;
    await java?.stop();
    java = null;
    await cm?.shutdown();
    cm = null;
    await namesrv?.shutdown();
    namesrv = null;
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  });

  after(async () => {
    await client.shutdown();
  });

  const periods = { syncBrokerMetadataPeriod: 1000, checkSyncStateSetPeriod: 1000, syncControllerMetadataPeriod: 2000, controllerHeartBeatTimeoutMills: 6000, brokerHeartbeatInterval: 500 };

  const setup = async (): Promise<void> => {
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
  };

  const startJava = (brokerName: string): Promise<JavaBroker> => startJavaBroker('5.3.3', {
    namesrvAddr: namesrv!.address, brokerName, storeDir: path.join(dir, 'j1'),
    conf: { brokerClusterName: 'CC', brokerName, enableControllerMode: true, controllerAddr: cm!.address, brokerIP2: '127.0.0.1', haMaxTimeSlaveNotCatchup: 6000,
      mappedFileSizeCommitLog: 16 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000, ...periods },
  });

  const startOurs = async (brokerName: string, hook?: RPCHook, listenPort = 0): Promise<BrokerController> => {
    const b = new BrokerController({
      brokerConfig: { brokerClusterName: 'CC', brokerName, namesrvAddr: namesrv!.address, brokerIP1: '127.0.0.1', brokerIP2: '127.0.0.1', enableControllerMode: true, controllerAddr: cm!.address, ...periods },
      messageStoreConfig: { storePathRootDir: path.join(dir, 'ours'), mappedFileSizeCommitLog: 16 * 1024 * 1024, mappedFileSizeConsumeQueue: 60000, haSendHeartbeatInterval: 1000, haMaxTimeSlaveNotCatchup: 6000 },
      remotingServerConfig: { listenPort, bindAddress: '127.0.0.1' },
      replicasManager: { retryIntervalMillis: 500, initialDelayMillis: 300 },
    });
    if (hook) b.remotingServer.registerRPCHook(hook);
    await b.start();
    return b;
  };

  const masterMax = async (addr: string): Promise<number> => {
    const res = await client.invoke(addr, RemotingCommand.createRequest(RequestCode.GET_BROKER_EPOCH_CACHE, null), 3000);
    return decodeEpochEntryCache(res.body!).maxOffset;
  };

  const sendSome = async (topic: string, label: string, n: number, bodies: string[]): Promise<void> => {
    let ok = 0;
    await waitFor(async () => {
      try {
        const b = `${label}-${ok}`;
        const r = await producer!.send(createMessage(topic, b));
        if (r.sendStatus === SendStatus.SEND_OK) {
          bodies.push(b);
          ok++;
        }
      } catch { /* topic being created, or the route moving */ }
      return ok >= n;
    }, 60_000, `${n} sends (${label})`, 100);
  };

  const routeAddrs = (brokerName: string) => namesrv!.routeInfoManager.brokerAddrTable.get(brokerName)?.brokerAddrs ?? new Map<number, string>();
  const sse = (brokerName: string) => cm!.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName)!;
  const newProducer = async (): Promise<DefaultMQProducer> => {
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: namesrv!.address, instanceName: randomName('p'), sendMsgTimeout: 3000, pollNameServerInterval: 200, retryTimesWhenSendFailed: 2 });
    await p.start();
    return p;
  };
  const commitLog = async (store: string, end: number): Promise<Buffer> => (await fs.promises.readFile(path.join(dir, store, 'commitlog', '00000000000000000000'))).subarray(0, end);

  it('our slave replicates from the Java master and joins its SyncStateSet', async () => {
    await setup();
    const brokerName = randomName('mix');
    java = await startJava(brokerName);
    await waitFor(() => routeAddrs(brokerName).get(0) === java!.addr, 60_000, 'the Java broker registered as master');
    const topic = randomName('MX');
    producer = await newProducer();
    const bodies: string[] = [];
    await sendSome(topic, 'before', 5, bodies);

    ours = await startOurs(brokerName);
    const rm = ours.replicasManager!;
    await waitFor(() => rm.state === 'RUNNING', 30_000, 'our broker running under the controller');
    expect(rm.brokerControllerId).to.equal(2);
    expect(ours.messageStoreConfig.brokerRole).to.equal('SLAVE');
    expect(rm.masterAddress).to.equal(java.addr);
    await waitFor(() => routeAddrs(brokerName).get(2) === ours!.brokerAddr, 30_000, 'our slave registered as broker id 2');
    await waitFor(() => rm.haClient?.haMasterAddress != null, 30_000, 'the master HA address learnt from the name server');
    const m1 = await masterMax(java.addr);
    await waitFor(() => ours!.messageStore.getMaxPhyOffset() === m1, 30_000, 'our slave holding what the master held');
    // the Java master saw it catch up and added it to the SyncStateSet
    await waitFor(() => sse(brokerName).syncStateSet.size === 2, 30_000, 'our slave in the SyncStateSet');
    expect([...sse(brokerName).syncStateSet].sort()).to.deep.equal([1, 2]);

    await sendSome(topic, 'after', 5, bodies);
    const m2 = await masterMax(java.addr);
    expect(m2).to.be.greaterThan(m1);
    await waitFor(() => ours!.messageStore.getMaxPhyOffset() === m2, 30_000, 'our slave holding the later sends');
    const log = await commitLog('ours', m2);
    for (const b of bodies) expect(log.toString('latin1')).to.include(b);
    // the same bytes as the master's commit log
    expect(log.equals(await commitLog('j1', m2))).to.equal(true);
    expect(decodeEpochCheckpoint(await fs.promises.readFile(path.join(dir, 'ours', 'epochFileCheckpoint'), 'utf8'))).to.deep.equal([{ epoch: sse(brokerName).masterEpoch, startOffset: 0 }]);
    expect(rm.haClient!.refusedHandshakes).to.equal(0);
  });

  it('a Java slave replicates from our master and joins its SyncStateSet; our master shut down, the Java slave takes over with every message', async () => {
    await setup();
    const brokerName = randomName('mix');
    // the Java slave asks our master for the timer checkpoint every 3 s (GET_TIMER_CHECK_POINT, 60) on its VIP
    // channel (listen port - 2, which our broker opens on a configured port): Java's 56 bytes
    let timerCheckpoints = 0;
    // and for the timer metrics every 10 s (GET_TIMER_METRICS, 61): Java's TimerMetrics JSON
    let timerMetrics = 0;
    ours = await startOurs(brokerName, {
      doBeforeRequest: () => undefined,
      doAfterResponse: (_addr, request, response) => {
        if (request.code === RequestCode.GET_TIMER_CHECK_POINT && response?.code === 0 && response.body?.length === 56) timerCheckpoints++;
        if (request.code === RequestCode.GET_TIMER_METRICS && response?.code === 0 && response.body && decodeTimerMetrics(response.body)) timerMetrics++;
      },
    }, await freeBrokerPort());
    const rm = ours.replicasManager!;
    await waitFor(() => rm.state === 'RUNNING', 30_000, 'our broker running under the controller');
    expect(rm.brokerControllerId).to.equal(1);
    await waitFor(() => routeAddrs(brokerName).get(0) === ours!.brokerAddr, 30_000, 'our master registered as broker id 0');
    const topic = randomName('MX');
    producer = await newProducer();
    const bodies: string[] = [];
    await sendSome(topic, 'before', 5, bodies);

    java = await startJava(brokerName);
    await waitFor(() => routeAddrs(brokerName).get(2) === java!.addr, 60_000, 'the Java slave registered as broker id 2');
    // Java's AutoSwitchHAClient against our AutoSwitchHAService: it catches up and our master adds it to the set
    await waitFor(() => rm.syncStateSet.syncStateSet.length === 2, 60_000, 'the Java slave in our master\'s SyncStateSet');
    expect([...sse(brokerName).syncStateSet].sort()).to.deep.equal([1, 2]);
    await sendSome(topic, 'after', 5, bodies);
    // a timer message due long after the test: counted in our master's timer metrics
    const timerTopic = randomName('MXT');
    await waitFor(async () => {
      const m = createMessage(timerTopic, 'timer');
      setDelayTimeMs(m, 600_000);
      return (await producer!.send(m).catch(() => null))?.sendStatus === SendStatus.SEND_OK;
    }, 60_000, 'a timer message sent', 100);
    await waitFor(() => ours!.timerMessageStore.timerMetrics.getTimingCount(timerTopic) === 1, 30_000, 'the timer message counted');
    const end = ours.messageStore.getMaxPhyOffset();
    await waitFor(async () => (await masterMax(java!.addr)) === end, 30_000, 'the Java slave holding everything');
    expect((await commitLog('j1', end)).equals(await commitLog('ours', end))).to.equal(true);
    await waitFor(() => timerCheckpoints > 0, 30_000, 'the Java slave\'s GET_TIMER_CHECK_POINT answered');
    await waitFor(() => timerMetrics > 0, 30_000, 'the Java slave\'s GET_TIMER_METRICS answered');
    // Java's SlaveSynchronize decoded our JSON and keeps our table and data version in its config/timermetrics
    await waitFor(async () => {
      let f: { dataVersion?: { counter?: number; timestamp?: number }; timingCount?: Record<string, { count?: number }> };
      try {
        f = JSON.parse(await fs.promises.readFile(path.join(dir, 'j1', 'config', 'timermetrics'), 'utf8'));
      } catch {
        return false;
      }
      const v = ours!.timerMessageStore.timerMetrics.dataVersion;
      return f.dataVersion?.counter === v.counter && f.dataVersion?.timestamp === v.timestamp && f.timingCount?.[timerTopic]?.count === 1;
    }, 40_000, 'the Java slave holding our timer metrics');

    // our master goes away: the controller elects the Java slave (clean: it is in the SyncStateSet)
    const epochBefore = sse(brokerName).masterEpoch;
    await ours.shutdown();
    ours = null;
    await waitFor(() => sse(brokerName).masterEpoch > epochBefore && sse(brokerName).masterBrokerId === 2, 30_000, 'the Java slave elected');
    await waitFor(() => routeAddrs(brokerName).get(0) === java!.addr, 60_000, 'the Java broker registered as master');
    await sendSome(topic, 'java-master', 3, bodies);
    const javaEnd = await masterMax(java.addr);
    expect(javaEnd).to.be.greaterThan(end);
    const jlog = (await commitLog('j1', javaEnd)).toString('latin1');
    for (const b of bodies) expect(jlog).to.include(b);
  });
});
