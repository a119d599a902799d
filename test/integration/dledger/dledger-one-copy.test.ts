/**
 * A DLedger broker keeps one copy of each record: its DLedger data files are the commit log. The consume queues
 * and the index point at the record inside each committed entry (entry pos + 48, as Java 4.9.8's DLedgerCommitLog),
 * the same on every peer; nothing is written to `commitlog/`; uncommitted entries never reach a consume queue and go
 * when a follower truncates to its leader; after a kill -9 the queues are dispatched again from the log.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startCluster, type Cluster } from '../../../lib/cluster';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { DefaultMQProducer, DefaultLitePullConsumer } from '../../../lib/index';
import { createMessage, setKeys, type Message } from '../../../protocol/message/message';
import { SendStatus, type SendResult } from '../../../lib/client/send-result';
import { BODY_OFFSET } from '../../../lib/dledger';
import { randomName, sendMessageUntilAccepted, sendUntilAccepted, waitFor } from '../../helpers/cluster';
import { decodeMessage } from '../../../protocol/message/message-decoder';
import { allApplied, dledgerMaster } from './dledger-group';
import { freePort } from '../../helpers/javaref';
import { spawnBrokerChild, stopBrokerChild } from '../../helpers/broker-child-process';

const FAST = { heartBeatTimeIntervalMs: 100, maxHeartBeatLeak: 3, minVoteIntervalMs: 50, maxVoteIntervalMs: 200, maxWaitAckTimeMs: 2000 };

interface Entry { queueId: number; offset: number; size: number; tagsCode: number }

/** Every consume-queue entry of `topic` on broker `b`, queue by queue. */
async function cqEntries(b: BrokerController, topic: string): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const [queueId, cq] of b.messageStore.consumeQueueTable.get(topic) ?? new Map()) {
    await cq.settled();
    for (let i = cq.getMinOffsetInQueue(); i < cq.getMaxOffsetInQueue(); i++) {
      const e = await cq.getEntry(i);
      if (e) out.push({ queueId, ...e });
    }
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/** Record position (entry pos + 48) → record, for every committed entry of b's DLedger log. */
async function committedRecords(b: BrokerController): Promise<Map<number, Buffer>> {
  const s = b.dledgerCommitLog!.server.store;
  const out = new Map<number, Buffer>();
  for (let i = Math.max(0, s.ledgerBeginIndex); i <= s.committedIndex; i++) {
    const e = await s.get(i);
    out.set(e.pos + BODY_OFFSET, e.body);
  }
  return out;
}

/** The files in `dir` (none, or the directory absent, for a store that keeps one copy). */
function filesIn(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch(() => [] as string[]);
}

const sendOk = (p: DefaultMQProducer, msg: Message): Promise<SendResult> => sendMessageUntilAccepted(p, msg, 30_000);

/** A record's body. */
const bodyOf = (record: Buffer): string => decodeMessage(record, 0, { decompressBody: false }).body.toString();

describe('dledger: one copy of each record (consume queues dispatched from the DLedger log)', function () {
  this.timeout(240_000);
  const cleanups: (() => Promise<unknown>)[] = [];
  let cluster: Cluster | null = null;
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
    await cluster?.stop();
    cluster = null;
  });

  const master = dledgerMaster;

  it('points every consume queue and index entry into the DLedger files, the same on every peer, with nothing in commitlog/', async () => {
    cluster = await startCluster({ dledger: 3, dledgerConfig: FAST });
    const c = cluster;
    await waitFor(() => !!master(c), 20_000, 'a master');
    const topic = randomName('DL1');
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: c.namesrvAddr, instanceName: randomName('p'), pollNameServerInterval: 100 });
    await p.start();
    cleanups.push(() => p.shutdown());
    const n = 40;
    const offsetMsgIds: string[] = [];
    for (let i = 0; i < n; i++) {
      const msg = createMessage(topic, `one-${i}`);
      setKeys(msg, `key-${i}`);
      const r = await sendOk(p, msg);
      offsetMsgIds.push(r.offsetMsgId);
    }
    const leader = master(c)!;
    const committed = leader.dledgerCommitLog!.server.committedIndex;
    await waitFor(() => allApplied(c.brokers, committed), 10_000, 'every peer applied what the leader committed');

    const lists: Entry[][] = [];
    for (const b of c.brokers) {
      expect(await filesIn(b.messageStore.config.storePathCommitLog), 'files in commitlog/').to.deep.equal([]);
      const entries = await cqEntries(b, topic);
      expect(entries.length).to.equal(n);
      const records = await committedRecords(b);
      const bodies = new Set<string>();
      for (const e of entries) {
        // The consume queue's commit-log offset is the record's position inside its DLedger entry.
        const rec = records.get(e.offset);
        expect(rec, `a DLedger entry with its record at ${e.offset}`).to.not.equal(undefined);
        expect(rec!.length).to.equal(e.size);
        // The record itself says so (PHYSICALOFFSET), and the store reads it from the DLedger files.
        expect(Number(rec!.readBigInt64BE(28))).to.equal(e.offset);
        const read = await b.messageStore.lookMessageByOffset(e.offset);
        expect(read && read.equals(rec!)).to.equal(true);
        bodies.add(bodyOf(rec!));
      }
      expect(bodies.size).to.equal(n);
      expect(b.messageStore.getMaxPhyOffset()).to.equal(b.dledgerCommitLog!.server.store.committedPos);
      lists.push(entries);
    }
    expect(lists[1]).to.deep.equal(lists[0]);
    expect(lists[2]).to.deep.equal(lists[0]);
    // The offset message ids the leader answered name the same positions.
    const positions = new Set(lists[0].map((e) => e.offset));
    for (const id of offsetMsgIds) expect(positions.has(Number.parseInt(id.slice(-16), 16)), id).to.equal(true);

    // The index points there too: a query by key returns the record.
    const q = await leader.messageStore.queryMessage(topic, 'key-7', 32, 0, Date.now() + 1000);
    expect(q.messages.map(bodyOf)).to.deep.equal(['one-7']);
    // A pull reads them back from the DLedger files.
    const got = await leader.messageStore.getMessage('G', topic, lists[0][0].queueId, 0, 32);
    expect(got.status).to.equal('FOUND');
    for (const r of got.messages) expect(lists[0].some((e) => e.offset === Number(r.readBigInt64BE(28)))).to.equal(true);
  });

  it('never dispatches an uncommitted entry; the old leader truncates it and ends with the same consume queues', async () => {
    // A leader that keeps its role for 5 s without a quorum appends entries no one else holds.
    cluster = await startCluster({ dledger: 3, dledgerConfig: { ...FAST, maxHeartBeatLeak: 50 } });
    const c = cluster;
    await waitFor(() => !!master(c), 30_000, 'a master');
    const topic = randomName('DL2');
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: c.namesrvAddr, instanceName: randomName('p'), pollNameServerInterval: 100, sendMsgTimeout: 3000 });
    await p.start();
    cleanups.push(() => p.shutdown());
    for (let i = 0; i < 5; i++) await sendUntilAccepted(p, topic, `before-${i}`, 30_000);
    let leader = master(c)!;
    const li = c.brokers.indexOf(leader);
    const others = [0, 1, 2].filter((i) => i !== li);
    await waitFor(() => allApplied(c.brokers, leader.dledgerCommitLog!.server.committedIndex), 10_000, 'every peer applied');
    const cqBefore = (await cqEntries(leader, topic)).length;
    expect(cqBefore).to.equal(5);
    for (const i of others) await c.stopBroker(i);

    const s = leader.dledgerCommitLog!.server;
    const put = (body: string) => leader.messageStore.putMessage({
      topic, queueId: 0, flag: 0, body: Buffer.from(body), propertiesString: '', bornTimestamp: Date.now(), bornHost: { host: '127.0.0.1', port: 1 },
      sysFlag: 0, reconsumeTimes: 0, preparedTransactionOffset: 0,
    });
    const results = await Promise.all([put('lost-0'), put('lost-1'), put('lost-2')]);
    for (const r of results) expect(r.putMessageStatus).to.not.equal('PUT_OK');
    expect(s.ledgerEndIndex).to.be.greaterThan(s.committedIndex);
    const uncommitted = s.ledgerEndIndex - s.committedIndex;
    // In the log, not in the consume queues.
    expect((await cqEntries(leader, topic)).length).to.equal(cqBefore);

    await c.stopBroker(li);
    for (const i of others) await c.startBroker(i);
    await waitFor(() => !!master(c), 30_000, 'a master among the other two');
    for (let i = 0; i < 5; i++) await sendUntilAccepted(p, topic, `after-${i}`, 30_000);
    const back = await c.startBroker(li);
    leader = master(c)!;
    expect(leader).to.not.equal(back);
    const committed = leader.dledgerCommitLog!.server.committedIndex;
    await waitFor(() => allApplied(c.brokers, committed) && back.dledgerCommitLog!.server.ledgerEndIndex === leader.dledgerCommitLog!.server.ledgerEndIndex,
      30_000, 'the old leader caught up');
    const lists: Entry[][] = [];
    for (const b of c.brokers) {
      const entries = await cqEntries(b, topic);
      const bodies = [];
      for (const e of entries) bodies.push(bodyOf((await b.messageStore.lookMessageByOffset(e.offset))!));
      expect(bodies.filter((x) => x.startsWith('lost-'))).to.deep.equal([]);
      expect(bodies.length).to.equal(10);
      lists.push(entries);
    }
    expect(lists[1]).to.deep.equal(lists[0]);
    expect(lists[2]).to.deep.equal(lists[0]);
    // The old leader's log no longer holds what it alone had.
    const records = await committedRecords(back);
    expect([...records.values()].map(bodyOf).filter((x) => x.startsWith('lost-'))).to.deep.equal([]);
    expect(uncommitted).to.be.at.least(1);
  });

  it('after a kill -9 the store opens from the DLedger files and dispatches what the consume queues lost', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dlone-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const ns = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(root, 'kv.json'), configStorePath: path.join(root, 'ns.properties') });
    await ns.start();
    cleanups.push(() => ns.shutdown());
    const peer = await freePort();
    const opts = {
      brokerConfig: { brokerName: 'one-a', brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr: ns.address, storePathRootDir: path.join(root, 'n0') },
      messageStoreConfig: {
        storePathRootDir: path.join(root, 'n0'), mappedFileSizeCommitLog: 1024 * 1024, enableDLegerCommitLog: true,
        dLegerGroup: 'one-a', dLegerPeers: `n0-127.0.0.1:${peer}`, dLegerSelfId: 'n0',
        // The consume queues reach the OS only once a minute: the kill loses their tail.
        flushIntervalConsumeQueue: 60_000,
      },
      dledger: FAST,
    };
    const { child } = await spawnBrokerChild(opts);
    cleanups.push(() => stopBrokerChild(child, 'SIGKILL'));
    const topic = randomName('DL3');
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: ns.address, instanceName: randomName('p'), pollNameServerInterval: 100, sendMsgTimeout: 3000 });
    await p.start();
    cleanups.push(() => p.shutdown());
    const n = 4000;
    const bodies = Array.from({ length: n }, (_, i) => `k-${i}-${'x'.repeat(200)}`);
    // Enough to fill more than one 1 MiB data file.
    for (let i = 0; i < 20; i++) await sendUntilAccepted(p, topic, bodies[i], 30_000);
    const rest = bodies.slice(20);
    for (let i = 0; i < rest.length; i += 100) {
      const rs = await Promise.all(rest.slice(i, i + 100).map((b) => p.send(createMessage(topic, b))));
      for (const r of rs) expect(r.sendStatus).to.equal(SendStatus.SEND_OK);
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    await p.shutdown();
    await fs.access(path.join(root, 'n0', 'abort'));
    // What the consume queues hold on disk after the kill: less than was acknowledged.
    let onDisk = 0;
    const cqDir = path.join(root, 'n0', 'consumequeue', topic);
    for (const q of await fs.readdir(cqDir).catch(() => [] as string[])) {
      for (const f of await fs.readdir(path.join(cqDir, q))) {
        const buf = await fs.readFile(path.join(cqDir, q, f));
        for (let at = 0; at + 20 <= buf.length; at += 20) if (buf.readInt32BE(at + 8) > 0) onDisk++;
      }
    }
    expect(onDisk).to.be.lessThan(n);

    const b = new BrokerController({ ...opts, remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 } });
    await b.start();
    cleanups.push(() => b.shutdown());
    const s = b.dledgerCommitLog!.server;
    await waitFor(() => b.messageStoreConfig.brokerRole !== 'SLAVE', 30_000, 'serving as master again').catch((err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify({ role: s.role, end: s.ledgerEndIndex, committed: s.committedIndex, applied: s.appliedIndex })}`);
    });
    expect(s.committedIndex).to.equal(s.ledgerEndIndex);
    expect(s.appliedIndex).to.equal(s.committedIndex);
    expect(s.store.dataFileList.files.length).to.be.greaterThan(1);
    // Dispatched again from the log after the kill (the queues had lost entries; those they kept are skipped).
    expect(b.messageStore.replicatedDispatched).to.be.greaterThan(0);
    expect(await filesIn(b.messageStore.config.storePathCommitLog)).to.deep.equal([]);
    const entries = await cqEntries(b, topic);
    expect(entries.length).to.equal(n);
    const records = await committedRecords(b);
    for (const e of entries) expect(records.get(e.offset)?.length).to.equal(e.size);

    const cons = new DefaultLitePullConsumer({ consumerGroup: randomName('CG'), namesrvAddr: ns.address, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c'), pollNameServerInterval: 100 });
    cons.subscribe(topic, '*');
    await cons.start();
    cleanups.push(() => cons.shutdown());
    const seen = new Map<string, number>();
    const deadline = Date.now() + 60_000;
    while (seen.size < n && Date.now() < deadline) {
      for (const m of await cons.poll(500)) {
        const k = m.body!.toString();
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
    }
    expect(seen.size).to.equal(n);
    expect([...seen.values()].every((x) => x === 1)).to.equal(true);
  });
  it('rebuilds a damaged consume queue from the DLedger log with the same entries', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dlone-cq-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const ns = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(root, 'kv.json'), configStorePath: path.join(root, 'ns.properties') });
    await ns.start();
    cleanups.push(() => ns.shutdown());
    const peer = await freePort();
    const opts = {
      brokerConfig: { brokerName: 'one-b', brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr: ns.address, storePathRootDir: path.join(root, 'n0') },
      messageStoreConfig: {
        storePathRootDir: path.join(root, 'n0'), mappedFileSizeCommitLog: 1024 * 1024, enableDLegerCommitLog: true,
        dLegerGroup: 'one-b', dLegerPeers: `n0-127.0.0.1:${peer}`, dLegerSelfId: 'n0',
      },
      dledger: FAST,
      remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 },
    };
    let b = new BrokerController(opts);
    await b.start();
    cleanups.push(() => b.shutdown());
    await waitFor(() => b.messageStoreConfig.brokerRole !== 'SLAVE', 30_000, 'serving as master');
    const topic = randomName('DL4');
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: ns.address, instanceName: randomName('p'), pollNameServerInterval: 100 });
    await p.start();
    for (let i = 0; i < 40; i++) await sendOk(p, createMessage(topic, `d-${i}`));
    await p.shutdown();
    const before = await cqEntries(b, topic);
    expect(before.length).to.equal(40);
    await b.shutdown();
    // Break the fourth entry of queue 0: what follows it is lost to the queue's own recovery.
    const qdir = path.join(root, 'n0', 'consumequeue', topic, '0');
    const file = path.join(qdir, (await fs.readdir(qdir))[0]);
    const fh = await fs.open(file, 'r+');
    const broken = Buffer.alloc(4);
    broken.writeInt32BE(-5, 0);
    await fh.write(broken, 0, 4, 3 * 20 + 8);
    await fh.close();

    b = new BrokerController(opts);
    await b.start();
    await waitFor(() => b.messageStoreConfig.brokerRole !== 'SLAVE', 30_000, 'serving as master again');
    expect(b.messageStore.damagedConsumeQueues.size).to.equal(1);
    const s = b.dledgerCommitLog!.server;
    await waitFor(() => s.appliedIndex === s.committedIndex, 10_000, 'applied');
    expect(await cqEntries(b, topic)).to.deep.equal(before);
  });
  it('drops the second copy an earlier version kept (dledger-<id>/applied, commitlog/) and dispatches again from the log', async () => {
    const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dlone-old-'));
    cleanups.push(() => fs.rm(root, { recursive: true, force: true }));
    const ns = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(root, 'kv.json'), configStorePath: path.join(root, 'ns.properties') });
    await ns.start();
    cleanups.push(() => ns.shutdown());
    const peer = await freePort();
    const store = path.join(root, 'n0');
    const opts = {
      brokerConfig: { brokerName: 'one-c', brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr: ns.address, storePathRootDir: store },
      messageStoreConfig: {
        storePathRootDir: store, mappedFileSizeCommitLog: 1024 * 1024, enableDLegerCommitLog: true,
        dLegerGroup: 'one-c', dLegerPeers: `n0-127.0.0.1:${peer}`, dLegerSelfId: 'n0',
      },
      dledger: FAST,
      remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 },
    };
    let b = new BrokerController(opts);
    await b.start();
    cleanups.push(() => b.shutdown());
    await waitFor(() => b.messageStoreConfig.brokerRole !== 'SLAVE', 30_000, 'serving as master');
    const topic = randomName('DL5');
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: ns.address, instanceName: randomName('p'), pollNameServerInterval: 100 });
    await p.start();
    for (let i = 0; i < 30; i++) await sendOk(p, createMessage(topic, `o-${i}`));
    await p.shutdown();
    const before = await cqEntries(b, topic);
    await b.shutdown();
    // The earlier layout: the applied marker, a commit log copy, and consume queues pointing into that copy.
    await fs.writeFile(path.join(store, 'dledger-n0', 'applied'), 'appliedIndex=29\nphyOffset=1000\n');
    await fs.mkdir(path.join(store, 'commitlog'), { recursive: true });
    await fs.writeFile(path.join(store, 'commitlog', '00000000000000000000'), Buffer.alloc(1024 * 1024));
    const qdir = path.join(store, 'consumequeue', topic, '0');
    const file = path.join(qdir, (await fs.readdir(qdir))[0]);
    const fh = await fs.open(file, 'r+');
    const local = Buffer.alloc(8);
    local.writeBigInt64BE(0n, 0); // a local commit-log offset, not a DLedger position
    await fh.write(local, 0, 8, 0);
    await fh.close();

    b = new BrokerController(opts);
    await b.start();
    const s = b.dledgerCommitLog!.server;
    await waitFor(() => b.messageStoreConfig.brokerRole !== 'SLAVE' && s.appliedIndex === s.committedIndex, 30_000, 'serving as master again');
    expect(b.messageStore.replicatedDispatched).to.equal(30);
    expect(await filesIn(path.join(store, 'commitlog'))).to.deep.equal([]);
    expect(await fs.stat(path.join(store, 'dledger-n0', 'applied')).then(() => true, () => false)).to.equal(false);
    expect(await cqEntries(b, topic)).to.deep.equal(before);
  });
});
