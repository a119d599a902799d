/**
 * DLedger stores across implementations: the Java 4.9.8 broker (DLedger 0.3.1.2 built in) and ours open each other's
 * `dledger-n0/` (data, index, checkpoint, currterm).
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { DefaultMQProducer, DefaultLitePullConsumer } from '../../../lib/index';
import { randomName, sendUntilAccepted, startTestNamesrv, waitFor } from '../../helpers/cluster';
import { freePort, type JavaBroker, makeRunDir, skipWithoutJava, startJavaBroker } from '../../helpers/javaref';

const FILE = 16 * 1024 * 1024;

describe('dledger: stores shared with the Java 4.9.8 DLedger broker', function () {
  this.timeout(300_000);
  const cleanups: (() => Promise<void>)[] = [];
  skipWithoutJava('4.9.8');
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  const namesrv = (): Promise<string> => startTestNamesrv(cleanups, 'dlns-');

  async function sendAll(namesrvAddr: string, topic: string, bodies: string[]): Promise<void> {
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr, instanceName: randomName('p'), pollNameServerInterval: 200, sendMsgTimeout: 5000 });
    await p.start();
    try {
      for (const b of bodies) await sendUntilAccepted(p, topic, b, 60_000);
    } finally {
      await p.shutdown();
    }
  }

  async function consumeAll(namesrvAddr: string, topic: string, n: number): Promise<string[]> {
    const c = new DefaultLitePullConsumer({ consumerGroup: randomName('CG'), namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c'), pollNameServerInterval: 200 });
    c.subscribe(topic, '*');
    await c.start();
    const got: string[] = [];
    try {
      const deadline = Date.now() + 60_000;
      while (got.length < n && Date.now() < deadline) for (const m of await c.poll(500)) got.push(m.body!.toString());
    } finally {
      await c.shutdown();
    }
    return got.sort();
  }

  async function ours(namesrvAddr: string, storeDir: string): Promise<BrokerController> {
    const peer = await freePort();
    const b = new BrokerController({
      brokerConfig: { brokerName: 'dl-a', brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr, storePathRootDir: storeDir },
      messageStoreConfig: {
        storePathRootDir: storeDir, mappedFileSizeCommitLog: FILE, enableDLegerCommitLog: true, dLegerGroup: 'dl-a',
        dLegerPeers: `n0-127.0.0.1:${peer}`, dLegerSelfId: 'n0',
      },
      remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 },
    });
    await b.start();
    cleanups.push(() => b.shutdown());
    await waitFor(() => b.messageStoreConfig.brokerRole !== 'SLAVE', 30_000, 'our peer serving as master');
    return b;
  }

  async function java(namesrvAddr: string, runDir: string, storeDir: string): Promise<JavaBroker> {
    const peer = await freePort();
    const j = await startJavaBroker('4.9.8', {
      namesrvAddr, runDir, storeDir, brokerName: 'dl-a',
      conf: { enableDLegerCommitLog: true, dLegerGroup: 'dl-a', dLegerPeers: `n0-127.0.0.1:${peer}`, dLegerSelfId: 'n0', mappedFileSizeCommitLog: FILE },
    });
    cleanups.push(() => j.stop());
    return j;
  }

  const bodies = Array.from({ length: 20 }, (_, i) => `dl-${i}`);

  it('ours opens the DLedger log a Java broker wrote and serves its messages', async () => {
    const ns = await namesrv();
    const runDir = makeRunDir('dljava-');
    cleanups.push(() => fs.rm(runDir, { recursive: true, force: true }));
    const storeDir = path.join(runDir, 'store');
    const topic = randomName('DLJ');
    const j = await java(ns, runDir, storeDir);
    await sendAll(ns, topic, bodies);
    await j.stop('SIGTERM');
    const entries = await fs.readdir(path.join(storeDir, 'dledger-n0', 'data'));
    expect(entries.length).to.be.greaterThan(0);
    await ours(ns, storeDir);
    expect(await consumeAll(ns, topic, bodies.length)).to.deep.equal([...bodies].sort());
  });

  it('a Java broker opens the DLedger log ours wrote and serves its messages', async () => {
    const ns = await namesrv();
    const runDir = makeRunDir('dlours-');
    cleanups.push(() => fs.rm(runDir, { recursive: true, force: true }));
    const storeDir = path.join(runDir, 'store');
    const topic = randomName('DLO');
    const b = await ours(ns, storeDir);
    await sendAll(ns, topic, bodies);
    await b.shutdown();
    // Our commit log and consume queues are derived from the DLedger log (Java's consume queues point into it): the
    // Java broker rebuilds them from dledger-n0/.
    for (const d of ['commitlog', 'consumequeue', 'index', 'checkpoint', 'abort']) await fs.rm(path.join(storeDir, d), { recursive: true, force: true });
    await java(ns, runDir, storeDir);
    expect(await consumeAll(ns, topic, bodies.length)).to.deep.equal([...bodies].sort());
  });
});
