/**
 * A DLedger broker deletes its expired DLedger data and index files (DLedger's CleanSpaceService, run on the store's
 * cleanup period) and then the consume-queue files below the log's new first offset: on every peer, with the group
 * still appending, committing and serving pulls of what remains, and loading with the new begin index after a restart.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { startCluster, type Cluster } from '../../../lib/cluster';
import type { BrokerController } from '../../../lib/broker/broker-controller';
import { DefaultMQProducer, DefaultLitePullConsumer } from '../../../lib/index';
import type { SendResult } from '../../../lib/client/send-result';
import { dataStorePath, indexStorePath, INDEX_UNIT_SIZE } from '../../../lib/dledger';
import { StorePath } from '../../../lib/store/message-store-config';
import { randomName, sendUntilAccepted, waitFor } from '../../helpers/cluster';
import { dledgerMaster, settleDLedgerGroup } from './dledger-group';

/** Every hour: the cleanup's deleteWhen test passes whenever the test runs. */
const EVERY_HOUR = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')).join(';');
const INDEX_FILE_SIZE = INDEX_UNIT_SIZE * 32;
const DATA_FILE_SIZE = 64 * 1024;
const FAST = {
  heartBeatTimeIntervalMs: 100, maxHeartBeatLeak: 3, minVoteIntervalMs: 50, maxVoteIntervalMs: 200, maxWaitAckTimeMs: 2000,
  mappedFileSizeForEntryIndex: INDEX_FILE_SIZE,
};

const sendOk = (p: DefaultMQProducer, topic: string, body: string): Promise<SendResult> => sendUntilAccepted(p, topic, body, 60_000);

const names = (dir: string): Promise<string[]> => fs.readdir(dir).then((n) => n.filter((x) => /^\d{20}$/.test(x)).sort(), () => []);

/** Consume-queue files of `topic` on broker `b`, all queues. */
async function cqFiles(b: BrokerController, topic: string): Promise<number> {
  const dir = path.join(StorePath.consumeQueue(b.messageStore.config.storePathRootDir), topic);
  let n = 0;
  for (const q of await fs.readdir(dir).catch(() => [] as string[])) n += (await names(path.join(dir, q))).length;
  return n;
}

describe('dledger: expired DLedger data, index and consume-queue files are deleted', function () {
  this.timeout(240_000);
  const cleanups: (() => Promise<unknown>)[] = [];
  let cluster: Cluster | null = null;
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
    await cluster?.stop();
    cluster = null;
  });

  const master = dledgerMaster;
  const settle = (c: Cluster) => settleDLedgerGroup(c);

  it('deletes on every peer, keeps serving the rest, and restarts from the new begin index', async () => {
    cluster = await startCluster({
      dledger: 3,
      dledgerConfig: { ...FAST, deleteWhen: EVERY_HOUR },
      // 10 entries per consume-queue file; fileReservedTime 72 → DLedger keeps data files 73 hours.
      storeConfig: { mappedFileSizeCommitLog: DATA_FILE_SIZE, mappedFileSizeConsumeQueue: 10 * 20, deleteWhen: EVERY_HOUR },
    });
    const c = cluster;
    await waitFor(() => !!master(c), 30_000, 'a master');
    const topic = randomName('DLC');
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: c.namesrvAddr, instanceName: randomName('p'), pollNameServerInterval: 100 });
    await p.start();
    cleanups.push(() => p.shutdown());
    const n = 150;
    const pad = 'x'.repeat(2000);
    const position = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const r = await sendOk(p, topic, `old-${i}-${pad}`);
      position.set(`old-${i}`, Number.parseInt(r.offsetMsgId.slice(-16), 16));
    }
    await settle(c);

    const before: { data: string[]; index: string[]; cq: number }[] = [];
    for (const b of c.brokers) {
      const conf = b.dledgerCommitLog!.server.config;
      before.push({ data: await names(dataStorePath(conf)), index: await names(indexStorePath(conf)), cq: await cqFiles(b, topic) });
    }
    expect(before[0].data.length, 'data files').to.be.greaterThanOrEqual(4);
    for (const x of before) expect(x.data).to.deep.equal(before[0].data);
    // Not yet expired: a cleanup run deletes nothing.
    for (const b of c.brokers) await b.messageStore.cleanFilesPeriodically();
    for (const b of c.brokers) expect(await names(dataStorePath(b.dledgerCommitLog!.server.config))).to.deep.equal(before[0].data);

    // Every data file but the last two last written 100 hours ago (past fileReservedTime + 1 = 73).
    const aged = before[0].data.slice(0, -2);
    const old = new Date(Date.now() - 100 * 3600 * 1000);
    for (const b of c.brokers) {
      for (const f of aged) await fs.utimes(path.join(dataStorePath(b.dledgerCommitLog!.server.config), f), old, old);
    }
    for (const b of c.brokers) await b.messageStore.cleanFilesPeriodically();

    const minOffset = Number(before[0].data[aged.length]);
    let begin = -1;
    for (const [i, b] of c.brokers.entries()) {
      const s = b.dledgerCommitLog!.server.store;
      const conf = b.dledgerCommitLog!.server.config;
      expect(await names(dataStorePath(conf)), `data files of peer ${i}`).to.deep.equal(before[0].data.slice(aged.length));
      expect(s.minOffset).to.equal(minOffset);
      expect(b.messageStore.getMinPhyOffset()).to.equal(minOffset);
      // The begin index is the first entry of the first remaining file, on every peer the same.
      expect(s.ledgerBeginIndex).to.be.greaterThan(0);
      expect(s.slot(s.ledgerBeginIndex)!.pos).to.equal(minOffset);
      if (begin === -1) begin = s.ledgerBeginIndex;
      expect(s.ledgerBeginIndex).to.equal(begin);
      // Index files wholly below it are gone, the others stay.
      const index = await names(indexStorePath(conf));
      expect(index).to.deep.equal(before[i].index.filter((f) => Number(f) + INDEX_FILE_SIZE > begin * INDEX_UNIT_SIZE));
      expect(index.length).to.be.lessThan(before[i].index.length);
      // Consume-queue files holding only records below the new first offset are gone.
      expect(await cqFiles(b, topic), `consume-queue files of peer ${i}`).to.be.lessThan(before[i].cq);
      for (const cq of b.messageStore.consumeQueueTable.get(topic)!.values()) {
        const first = await cq.getEntry(cq.getMinOffsetInQueue());
        if (first) expect(first.offset).to.be.greaterThanOrEqual(minOffset);
      }
    }
    const kept = [...position].filter(([, pos]) => pos >= minOffset).map(([k]) => k);
    expect(kept.length).to.be.greaterThan(0);
    expect(kept.length).to.be.lessThan(n);

    // The group still appends and commits.
    for (let i = 0; i < 10; i++) await sendOk(p, topic, `new-${i}`);
    await settle(c);

    // A pull from the first offset serves what remains: the kept old messages and the new ones, once each.
    const cons = new DefaultLitePullConsumer({ consumerGroup: randomName('CG'), namesrvAddr: c.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c'), pollNameServerInterval: 100 });
    cons.subscribe(topic, '*');
    await cons.start();
    cleanups.push(() => cons.shutdown());
    const want = new Set([...kept, ...Array.from({ length: 10 }, (_, i) => `new-${i}`)]);
    const seen = new Map<string, number>();
    const deadline = Date.now() + 60_000;
    while (seen.size < want.size && Date.now() < deadline) {
      for (const m of await cons.poll(500)) {
        const k = m.body!.toString().split('-').slice(0, 2).join('-');
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
    }
    expect([...seen.keys()].sort()).to.deep.equal([...want].sort());
    expect([...seen.values()].every((x) => x === 1)).to.equal(true);
    await cons.shutdown();

    // A restart of the whole group loads from the new begin index.
    for (let i = 0; i < 3; i++) await c.stopBroker(i);
    for (let i = 0; i < 3; i++) await c.startBroker(i);
    await settle(c);
    for (const b of c.brokers) {
      const s = b.dledgerCommitLog!.server.store;
      expect(s.ledgerBeginIndex).to.equal(begin);
      expect(s.minOffset).to.equal(minOffset);
    }
    await sendOk(p, topic, 'after-restart');
    await settle(c);
    for (const b of c.brokers) {
      const s = b.dledgerCommitLog!.server;
      expect(s.store.ledgerBeginIndex).to.equal(begin);
      expect(s.committedIndex).to.equal(master(c)!.dledgerCommitLog!.server.committedIndex);
    }
  });

  it('a peer down while the others deleted what it lacks rebuilds its log at the leader\'s first entry and dispatches from there', async () => {
    cluster = await startCluster({
      dledger: 3,
      dledgerConfig: { ...FAST, deleteWhen: EVERY_HOUR },
      storeConfig: { mappedFileSizeCommitLog: DATA_FILE_SIZE, mappedFileSizeConsumeQueue: 10 * 20, deleteWhen: EVERY_HOUR },
    });
    const c = cluster;
    await waitFor(() => !!master(c), 30_000, 'a master');
    const topic = randomName('DLR');
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: c.namesrvAddr, instanceName: randomName('p'), pollNameServerInterval: 100 });
    await p.start();
    cleanups.push(() => p.shutdown());
    const pad = 'x'.repeat(2000);
    for (let i = 0; i < 10; i++) await sendOk(p, topic, `early-${i}-${pad}`);
    await settle(c);
    const down = c.brokers.findIndex((b) => b !== master(c));
    await c.stopBroker(down);
    for (let i = 0; i < 150; i++) await sendOk(p, topic, `mid-${i}-${pad}`);
    const up = c.brokers.filter((_, i) => i !== down);
    const old = new Date(Date.now() - 100 * 3600 * 1000);
    for (const b of up) {
      const dir = dataStorePath(b.dledgerCommitLog!.server.config);
      const files = await names(dir);
      for (const f of files.slice(0, -2)) await fs.utimes(path.join(dir, f), old, old);
      await b.messageStore.cleanFilesPeriodically();
    }
    const leader = master(c)!;
    const begin = leader.dledgerCommitLog!.server.store.ledgerBeginIndex;
    expect(begin).to.be.greaterThan(10);
    const back = await c.startBroker(down);
    for (let i = 0; i < 5; i++) await sendOk(p, topic, `late-${i}`);
    await settle(c);
    const s = back.dledgerCommitLog!.server;
    expect(s.store.ledgerBeginIndex).to.equal(begin);
    expect(s.ledgerEndIndex).to.equal(master(c)!.dledgerCommitLog!.server.ledgerEndIndex);
    // Its consume queues end where the leader's do, and their last entries read the same records.
    for (const [queueId, cq] of master(c)!.messageStore.consumeQueueTable.get(topic)!) {
      const mine = back.messageStore.consumeQueueTable.get(topic)?.get(queueId);
      expect(mine?.getMaxOffsetInQueue(), `queue ${queueId}`).to.equal(cq.getMaxOffsetInQueue());
      const e = await cq.getEntry(cq.getMaxOffsetInQueue() - 1);
      const m = await mine!.getEntry(cq.getMaxOffsetInQueue() - 1);
      expect(m).to.deep.equal(e);
      expect((await back.messageStore.lookMessageByOffset(m!.offset))!.equals((await master(c)!.messageStore.lookMessageByOffset(e!.offset))!)).to.equal(true);
    }
  });
});
