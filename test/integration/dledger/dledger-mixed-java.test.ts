/**
 * A mixed DLedger group: two Java 4.9.8 broker peers (DLedger 0.3.1.2) and one of ours, talking VOTE, HEART_BEAT
 * and PUSH with fastjson bodies over the remoting protocol.
 */
import { expect } from 'chai';
import { createMessage } from '../../../protocol/message/message';
import fs from 'node:fs/promises';
import path from 'node:path';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { DefaultMQProducer, DefaultLitePullConsumer } from '../../../lib/index';
import { randomName, sendUntilAccepted, waitFor } from '../../helpers/cluster';
import { freePort, holdPort, type JavaBroker, makeRunDir, skipWithoutJava, startJavaBroker } from '../../helpers/javaref';

const FILE = 16 * 1024 * 1024;

/**
 * The consume-queue units of `topic` in a store's files, `queueId:offset:size:tagsCode` in queue order (the units a
 * broker has handed to the OS; Java's are mapped).
 */
async function cqUnits(storeDir: string, topic: string): Promise<string[]> {
  const out: string[] = [];
  const dir = path.join(storeDir, 'consumequeue', topic);
  for (const q of (await fs.readdir(dir).catch(() => [] as string[])).sort()) {
    for (const f of (await fs.readdir(path.join(dir, q))).sort()) {
      const buf = await fs.readFile(path.join(dir, q, f));
      for (let at = 0; at + 20 <= buf.length; at += 20) {
        if (buf.readInt32BE(at + 8) > 0) out.push(`${q}:${buf.readBigInt64BE(at)}:${buf.readInt32BE(at + 8)}:${buf.readBigInt64BE(at + 12)}`);
      }
    }
  }
  return out;
}

/** Waits until our store's consume queues of `topic` hold `n` entries and equal those of each Java peer's store. */
async function sameConsumeQueues(ours: string, javas: string[], topic: string, n: number): Promise<void> {
  let last = '';
  await waitFor(async () => {
    const mine = await cqUnits(ours, topic);
    const theirs = await Promise.all(javas.map((d) => cqUnits(d, topic)));
    last = `ours ${mine.length}, Java ${theirs.map((t) => t.length).join('/')}`;
    return mine.length === n && theirs.every((t) => t.join() === mine.join());
  }, 30_000, 'the same consume queues on our peer and the Java peers', 200).catch((err: Error) => {
    throw new Error(`${err.message} (${last})`);
  });
}

describe('dledger: a mixed group of 2 Java 4.9.8 peers and 1 of ours', function () {
  this.timeout(300_000);
  const cleanups: (() => Promise<void>)[] = [];
  skipWithoutJava('4.9.8');
  after(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it('elects a leader, replicates sends to our peer, and our peer stores and serves them', async () => {
    const dir = makeRunDir('dlmix-');
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    const n = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties') });
    await n.start();
    cleanups.push(() => n.shutdown());
    const ours = await holdPort();
    cleanups.push(() => ours.release());
    const ports = [await freePort(), await freePort(), ours.port];
    const dLegerPeers = ports.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
    const javas: JavaBroker[] = [];
    for (const i of [0, 1]) {
      const runDir = path.join(dir, `j${i}`);
      await fs.mkdir(runDir, { recursive: true });
      const j = await startJavaBroker('4.9.8', {
        namesrvAddr: n.address, runDir, storeDir: path.join(runDir, 'store'), brokerName: 'mix-a', brokerId: i + 1,
        conf: { enableDLegerCommitLog: true, dLegerGroup: 'mix-a', dLegerPeers, dLegerSelfId: `n${i}`, mappedFileSizeCommitLog: FILE },
      });
      javas.push(j);
      cleanups.push(() => j.stop());
    }
    const storeDir = path.join(dir, 'ours');
    const b = new BrokerController({
      brokerConfig: { brokerName: 'mix-a', brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr: n.address, storePathRootDir: storeDir },
      messageStoreConfig: { storePathRootDir: storeDir, mappedFileSizeCommitLog: FILE, enableDLegerCommitLog: true, dLegerGroup: 'mix-a', dLegerPeers, dLegerSelfId: 'n2' },
      remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 },
    });
    await ours.release();
    await b.start();
    cleanups.push(() => b.shutdown());
    const server = b.dledgerCommitLog!.server;
    await waitFor(() => server.leaderId !== null, 60_000, 'a leader known to our peer');
    console.log(`      leader ${server.leaderId} (term ${server.currTerm}); our peer is ${server.role}`);

    const topic = randomName('MIX');
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: n.address, instanceName: randomName('p'), pollNameServerInterval: 200, sendMsgTimeout: 5000 });
    await p.start();
    cleanups.push(() => p.shutdown());
    const bodies = Array.from({ length: 20 }, (_, i) => `mix-${i}`);
    // each body sent until one send succeeds (the group may be between leaders)
    const sendAll = async (list: string[]): Promise<void> => {
      for (const body of list) await sendUntilAccepted(p, topic, body, 60_000);
    };
    await sendAll(bodies);
    await waitFor(() => server.appliedIndex >= bodies.length - 1, 30_000, 'our peer applied the entries');
    // Our peer's own store serves them (read through it directly, whatever its role).
    const c = new DefaultLitePullConsumer({ consumerGroup: randomName('CG'), namesrvAddr: n.address, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c'), pollNameServerInterval: 200 });
    c.subscribe(topic, '*');
    await c.start();
    cleanups.push(() => c.shutdown());
    const got: string[] = [];
    const deadline = Date.now() + 60_000;
    while (got.length < bodies.length && Date.now() < deadline) for (const m of await c.poll(500)) got.push(m.body!.toString());
    expect(got.sort()).to.deep.equal([...bodies].sort());
    const max = b.messageStore.getMaxOffsetInQueue(topic, 0) + b.messageStore.getMaxOffsetInQueue(topic, 1)
      + b.messageStore.getMaxOffsetInQueue(topic, 2) + b.messageStore.getMaxOffsetInQueue(topic, 3);
    expect(max).to.equal(bodies.length);
    // Our consume queues are the Java peers' byte for byte: the same DLedger positions, sizes and tag codes.
    await sameConsumeQueues(storeDir, javas.map((j, i) => path.join(dir, `j${i}`, 'store')), topic, bodies.length);

    // The Java leader dies (SIGKILL): the other Java peer and ours elect a new leader between them.
    const leaderIdx = Number(server.leaderId!.slice(1));
    if (leaderIdx < 2) {
      const oldTerm = server.currTerm;
      await javas[leaderIdx].stop('SIGKILL');
      await waitFor(() => server.leaderId !== null && server.currTerm > oldTerm, 60_000, 'a new leader after the Java leader died');
      console.log(`      after SIGKILL of n${leaderIdx}: leader ${server.leaderId} (term ${server.currTerm}); our peer is ${server.role}`);
      const more = Array.from({ length: 10 }, (_, i) => `mix2-${i}`);
      await sendAll(more);
      await waitFor(() => server.committedIndex >= bodies.length + more.length - 1 && server.appliedIndex === server.committedIndex, 30_000, 'the new entries committed on our peer');
    }
  });

  it('our peer leads 2 Java followers (preferredLeaderId): pipelined and batch pushes of a burst commit on both', async () => {
    const dir = makeRunDir('dlmix2-');
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    const n = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties') });
    await n.start();
    cleanups.push(() => n.shutdown());
    const ours = await holdPort();
    cleanups.push(() => ours.release());
    const ports = [await freePort(), await freePort(), ours.port];
    const dLegerPeers = ports.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
    for (const i of [0, 1]) {
      const runDir = path.join(dir, `j${i}`);
      await fs.mkdir(runDir, { recursive: true });
      const j = await startJavaBroker('4.9.8', {
        namesrvAddr: n.address, runDir, storeDir: path.join(runDir, 'store'), brokerName: 'mix-b', brokerId: i + 1,
        conf: { enableDLegerCommitLog: true, dLegerGroup: 'mix-b', dLegerPeers, dLegerSelfId: `n${i}`, mappedFileSizeCommitLog: FILE, preferredLeaderId: 'n2' },
      });
      cleanups.push(() => j.stop());
    }
    const storeDir = path.join(dir, 'ours');
    const b = new BrokerController({
      brokerConfig: { brokerName: 'mix-b', brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr: n.address, storePathRootDir: storeDir },
      messageStoreConfig: { storePathRootDir: storeDir, mappedFileSizeCommitLog: FILE, enableDLegerCommitLog: true, dLegerGroup: 'mix-b', dLegerPeers, dLegerSelfId: 'n2', preferredLeaderId: 'n2' },
      remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 },
    });
    await ours.release();
    await b.start();
    cleanups.push(() => b.shutdown());
    const server = b.dledgerCommitLog!.server;
    await waitFor(() => server.isLeader && b.messageStoreConfig.brokerRole !== 'SLAVE', 120_000, 'our peer leading (preferredLeaderId n2)');
    const topic = randomName('MIXB');
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: n.address, instanceName: randomName('p'), pollNameServerInterval: 200, sendMsgTimeout: 10_000 });
    await p.start();
    cleanups.push(() => p.shutdown());
    await sendUntilAccepted(p, topic, 'first', 60_000);
    const before = server.pusherStats();
    // 300 sends at once: the Java 0.3.1.2 followers get pipelined pushes, most of them batches (batchEntry); each
    // entry commits only once one of them wrote it.
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => p.send(createMessage(topic, Buffer.from(`mixb-${i}`)))));
    expect(results.filter((r) => r.sendStatus === 'SEND_OK')).to.have.length(300);
    // every Java follower acknowledges every entry
    await waitFor(() => [...server.pusherStats().values()].every((s) => s.matchIndex === server.ledgerEndIndex), 30_000, 'both Java followers holding all entries');
    for (const [id, st] of server.pusherStats()) {
      const was = before.get(id)!;
      console.log(`      to the Java follower ${id}: ${st.entriesPushed - was.entriesPushed} entries in ${st.appendPushes - was.appendPushes} APPEND pushes, most ${st.maxInflight} in flight`);
      expect(st.entriesPushed - was.entriesPushed, `${id}: entries pushed`).to.be.at.least(300);
      expect(st.appendPushes - was.appendPushes, `${id}: APPEND pushes`).to.be.below(300);
    }
    // The Java followers dispatch the entries our peer led to the same consume-queue units as ours.
    await sameConsumeQueues(storeDir, [0, 1].map((i) => path.join(dir, `j${i}`, 'store')), topic, 301);
  });
});
