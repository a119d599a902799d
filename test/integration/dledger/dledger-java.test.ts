/**
 * DLedger stores across implementations: the Java 4.9.8 broker (DLedger 0.3.1.2 built in) and ours open each other's
 * whole store: `dledger-n0/` (data, index, checkpoint, currterm) and the consume queues, whose commit-log offsets
 * are positions in the DLedger data files on both sides (each record at its entry's pos + 48).
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { BODY_OFFSET } from '../../../lib/dledger';
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

  async function ours(namesrvAddr: string, storeDir: string, fileSize = FILE, deleteWhen = '04'): Promise<BrokerController> {
    const peer = await freePort();
    const b = new BrokerController({
      brokerConfig: { brokerName: 'dl-a', brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr, storePathRootDir: storeDir },
      messageStoreConfig: {
        storePathRootDir: storeDir, mappedFileSizeCommitLog: fileSize, enableDLegerCommitLog: true, dLegerGroup: 'dl-a',
        dLegerPeers: `n0-127.0.0.1:${peer}`, dLegerSelfId: 'n0', deleteWhen,
      },
      remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 },
    });
    await b.start();
    cleanups.push(() => b.shutdown());
    await waitFor(() => b.messageStoreConfig.brokerRole !== 'SLAVE', 30_000, 'our peer serving as master');
    return b;
  }

  async function java(namesrvAddr: string, runDir: string, storeDir: string, fileSize = FILE): Promise<JavaBroker> {
    const peer = await freePort();
    const j = await startJavaBroker('4.9.8', {
      namesrvAddr, runDir, storeDir, brokerName: 'dl-a',
      conf: { enableDLegerCommitLog: true, dLegerGroup: 'dl-a', dLegerPeers: `n0-127.0.0.1:${peer}`, dLegerSelfId: 'n0', mappedFileSizeCommitLog: fileSize },
    });
    cleanups.push(() => j.stop());
    return j;
  }

  /** The commit-log offsets of every consume-queue entry of `topic` in the store's files, ascending. */
  async function cqOffsets(storeDir: string, topic: string): Promise<number[]> {
    const out: number[] = [];
    const dir = path.join(storeDir, 'consumequeue', topic);
    for (const q of await fs.readdir(dir).catch(() => [] as string[])) {
      for (const f of await fs.readdir(path.join(dir, q))) {
        const buf = await fs.readFile(path.join(dir, q, f));
        for (let at = 0; at + 20 <= buf.length; at += 20) if (buf.readInt32BE(at + 8) > 0) out.push(Number(buf.readBigInt64BE(at)));
      }
    }
    return out.sort((a, b) => a - b);
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
    const javaCq = await cqOffsets(storeDir, topic);
    expect(javaCq.length).to.equal(bodies.length);
    const b = await ours(ns, storeDir);
    // Java's consume queues are read as they are: nothing dispatched again, each entry at a record of the log.
    expect(b.messageStore.replicatedDispatched).to.equal(0);
    const s = b.dledgerCommitLog!.server.store;
    const positions = new Set<number>();
    for (let i = Math.max(0, s.ledgerBeginIndex); i <= s.ledgerEndIndex; i++) positions.add((await s.get(i)).pos + BODY_OFFSET);
    for (const o of javaCq) expect(positions.has(o), `a DLedger record at ${o}`).to.equal(true);
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
    // Our consume queues point into dledger-n0/data as Java's do: the Java broker serves from them as they are.
    const ourCq = await cqOffsets(storeDir, topic);
    expect(ourCq.length).to.equal(bodies.length);
    expect(await fs.readdir(path.join(storeDir, 'commitlog')).catch(() => [])).to.deep.equal([]);
    await java(ns, runDir, storeDir);
    expect(await consumeAll(ns, topic, bodies.length)).to.deep.equal([...bodies].sort());
    expect(await cqOffsets(storeDir, topic)).to.deep.equal(ourCq);
  });

  it('a Java broker opens a DLedger log ours cleaned (first data files deleted) and serves what remains', async () => {
    const ns = await namesrv();
    const runDir = makeRunDir('dlclean-');
    cleanups.push(() => fs.rm(runDir, { recursive: true, force: true }));
    const storeDir = path.join(runDir, 'store');
    const topic = randomName('DLK');
    const small = 64 * 1024;
    const everyHour = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')).join(';');
    const b = await ours(ns, storeDir, small, everyHour);
    const pad = 'y'.repeat(2000);
    const many = Array.from({ length: 120 }, (_, i) => `k-${i}-${pad}`);
    await sendAll(ns, topic, many);
    const dataDir = path.join(storeDir, 'dledger-n0', 'data');
    const files = (await fs.readdir(dataDir)).sort();
    expect(files.length).to.be.greaterThanOrEqual(4);
    const old = new Date(Date.now() - 100 * 3600 * 1000);
    for (const f of files.slice(0, -2)) await fs.utimes(path.join(dataDir, f), old, old);
    await b.messageStore.cleanFilesPeriodically();
    expect((await fs.readdir(dataDir)).sort()).to.deep.equal(files.slice(-2));
    const begin = b.dledgerCommitLog!.server.store.ledgerBeginIndex;
    expect(begin).to.be.greaterThan(0);
    await b.shutdown();
    const ourCq = await cqOffsets(storeDir, topic);
    const minOffset = Number(files[files.length - 2]);
    // The records in the remaining files (consume-queue files still holding entries below them stay until they hold
    // only such entries).
    const want = ourCq.filter((o) => o >= minOffset).length;
    expect(want).to.be.greaterThan(0);
    expect(want).to.be.lessThan(many.length);
    await java(ns, runDir, storeDir, small);
    // What Java serves is what remains in the log, each once.
    const all = await consumeAll(ns, topic, want);
    expect(all.length).to.equal(want);
    expect(new Set(all).size).to.equal(want);
    expect(all.every((x) => many.includes(x))).to.equal(true);
  });
});
