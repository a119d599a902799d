/**
 * Controller mode in the store alone: truncation of a running store (commit log, consume queues, index) to a record
 * boundary, the cut-off of a partial record, and dispatch held at the confirm offset.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DefaultMessageStore } from '../../../../lib/store/message-store';
import { BrokerRole } from '../../../../lib/store/message-store-config';
import { PutMessageStatus } from '../../../../lib/store/store-status';
import { SMALL, makeMessage, tempDir } from '../store-test-util';
import { encodeBatchBody } from '../../../../protocol/message/batch';
import { rmDir, silent } from '../../ha/ha-test-util';
import { waitFor } from '../../../helpers/wait-for';

describe('store/autoswitch: truncation of a running store and dispatch held at the confirm offset', function () {
  this.timeout(30_000);
  const stores: { store: DefaultMessageStore; dir: string }[] = [];

  afterEach(async () => {
    for (const s of stores.splice(0)) {
      await s.store.shutdown();
      await rmDir(s.dir);
    }
  });

  const open = async (dir?: string): Promise<DefaultMessageStore> => {
    const d = dir ?? await tempDir('rmq-truncate-');
    // index files of 40 entries: the truncation crosses files
    const store = new DefaultMessageStore({ ...SMALL, maxIndexNum: 40, storePathRootDir: d }, { logger: silent });
    await store.start();
    stores.push({ store, dir: d });
    return store;
  };

  const put = async (store: DefaultMessageStore, from: number, count: number): Promise<number[]> => {
    const ends: number[] = [];
    for (let i = from; i < from + count; i++) {
      const r = await store.putMessage(makeMessage('TrT', i % 2, `m-${i}-${'x'.repeat(100)}`, { KEYS: `k${i}` }));
      expect(r.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
      ends.push(r.appendMessageResult!.wroteOffset + r.appendMessageResult!.wroteBytes);
    }
    await store.waitReput();
    return ends;
  };

  const keyFound = async (store: DefaultMessageStore, i: number): Promise<boolean> =>
    (await store.queryMessage('TrT', `k${i}`, 32, 0, Number.MAX_SAFE_INTEGER)).messages.length > 0;

  it('truncateFiles cuts commit log, consume queues and index back to a record boundary; the queues go on from there', async () => {
    const store = await open();
    const ends = await put(store, 0, 100);
    const at = ends[59];
    // not the start of a record: refused, nothing cut
    expect(await store.truncateFiles(at + 3)).to.equal(false);
    expect(store.getMaxPhyOffset()).to.equal(ends[99]);
    expect(await store.truncateFiles(at)).to.equal(true);
    expect(store.getMaxPhyOffset()).to.equal(at);
    // the entries kept reach the file, also those not written yet when it was cut (no hole of zeros)
    await store.flushConsumeQueues();
    const cqFile = await fs.readFile(path.join(stores[0].dir, 'consumequeue', 'TrT', '0', '00000000000000000000'));
    for (let i = 0; i < 30; i++) expect(cqFile.readInt32BE(i * 20 + 8), `entry ${i}`).to.be.above(0);
    expect(cqFile.readInt32BE(30 * 20 + 8)).to.equal(0);
    expect(store.getMaxOffsetInQueue('TrT', 0)).to.equal(30);
    expect(store.getMaxOffsetInQueue('TrT', 1)).to.equal(30);
    expect(await keyFound(store, 59)).to.equal(true);
    expect(await keyFound(store, 60)).to.equal(false);
    expect(await keyFound(store, 99)).to.equal(false);
    // the queue offsets and the index go on from the cut (as a master after its HA client truncated)
    const again = await put(store, 200, 10);
    expect(again[0]).to.be.above(at);
    expect(store.getMaxOffsetInQueue('TrT', 0)).to.equal(35);
    expect(await keyFound(store, 205)).to.equal(true);
    const r = await store.getMessage('g', 'TrT', 0, 30, 1);
    expect(r.status).to.equal('FOUND');
    expect(r.messages[0].toString('latin1')).to.contain('m-200-');
  });

  it('truncateInvalidMsg cuts a partial record off a slave\'s log', async () => {
    const master = await open();
    const ends = await put(master, 0, 10);
    const slave = await open();
    slave.config.brokerRole = BrokerRole.SLAVE;
    const data = (await master.getCommitLogData(0))!.data;
    // all of it but the last record's second half
    const cut = ends[8] + 40;
    expect(await slave.appendToCommitLog(0, data.subarray(0, cut))).to.equal(true);
    await slave.waitReput();
    expect(slave.getMaxPhyOffset()).to.equal(cut);
    expect(await slave.truncateInvalidMsg()).to.equal(ends[8]);
    expect(slave.getMaxPhyOffset()).to.equal(ends[8]);
    expect(await slave.truncateInvalidMsg()).to.equal(-1);
    expect(await slave.appendToCommitLog(ends[8], data.subarray(ends[8], ends[9]))).to.equal(true);
    await slave.waitReput();
    expect(slave.getMaxOffsetInQueue('TrT', 0) + slave.getMaxOffsetInQueue('TrT', 1)).to.equal(10);
  });

  it('with a confirm offset source, dispatch stops at the confirm offset on a master and a slave, and goes on when it moves', async () => {
    const master = await open();
    master.setReplicaWaiter({ isSlaveOK: () => true, waitTransfer: () => Promise.resolve(true) });
    master.config.brokerRole = BrokerRole.SYNC_MASTER;
    let confirm = 0;
    master.setConfirmOffsetSource(() => confirm);
    const ends = await put(master, 0, 10);
    expect(master.getMaxOffsetInQueue('TrT', 0) + master.getMaxOffsetInQueue('TrT', 1)).to.equal(0);
    expect(master.dispatchBehindBytes()).to.equal(0);
    confirm = ends[3];
    master.notifyConfirmOffsetChanged();
    await waitFor(() => master.getMaxOffsetInQueue('TrT', 0) + master.getMaxOffsetInQueue('TrT', 1) === 4, 5000, 'four dispatched');
    // not beyond, even when the bound falls inside a record
    confirm = ends[6] + 10;
    master.notifyConfirmOffsetChanged();
    await waitFor(() => master.getMaxOffsetInQueue('TrT', 0) + master.getMaxOffsetInQueue('TrT', 1) === 7, 5000, 'seven dispatched');
    await new Promise((r) => setTimeout(r, 50));
    expect(master.getMaxOffsetInQueue('TrT', 0) + master.getMaxOffsetInQueue('TrT', 1)).to.equal(7);
    expect(master.reputFromOffset).to.equal(ends[6]);

    const slave = await open();
    slave.config.brokerRole = BrokerRole.SLAVE;
    let slaveConfirm = -1;
    slave.setConfirmOffsetSource(() => slaveConfirm);
    expect(await slave.appendToCommitLog(0, (await master.getCommitLogData(0))!.data)).to.equal(true);
    await slave.waitReput();
    expect(slave.getMaxOffsetInQueue('TrT', 0) + slave.getMaxOffsetInQueue('TrT', 1)).to.equal(0);
    slaveConfirm = ends[9];
    slave.notifyConfirmOffsetChanged();
    await waitFor(() => slave.getMaxOffsetInQueue('TrT', 0) + slave.getMaxOffsetInQueue('TrT', 1) === 10, 5000, 'all dispatched on the slave');
    // a slave turned master: the queue offsets go on from its consume queues
    await slave.recoverTopicQueueTable();
    expect(slave.getNextQueueOffset('TrT', 0)).to.equal(5);
  });

  /** A controller-mode store (the confirm offset as set, as a fenced replica's) on `dir`, started. */
  const openConfirmed = async (dir: string, keep = true): Promise<DefaultMessageStore> => {
    const store = new DefaultMessageStore({ ...SMALL, storePathRootDir: dir }, { logger: silent });
    store.setConfirmOffsetSource(() => store.getConfirmOffsetDirectly());
    await store.start();
    if (keep) stores.push({ store, dir });
    return store;
  };
  const dispatched = (store: DefaultMessageStore): number => store.getMaxOffsetInQueue('TrT', 0) + store.getMaxOffsetInQueue('TrT', 1);
  const checkpointConfirm = async (dir: string): Promise<number> => Number((await fs.readFile(path.join(dir, 'checkpoint'))).readBigInt64BE(32));

  it('a restarted store dispatches no further than the confirm offset of its checkpoint, after a clean exit and after a crash', async () => {
    const dir = await tempDir('rmq-confirm-restart-');
    let store = await openConfirmed(dir, false);
    const ends = await put(store, 0, 10);
    expect(dispatched(store)).to.equal(0);
    store.setConfirmOffset(ends[5]);
    await waitFor(() => dispatched(store) === 6, 5000, 'six dispatched');
    await store.shutdown();
    // Java's StoreCheckpoint: confirmPhyOffset at byte 32
    expect(await checkpointConfirm(dir)).to.equal(ends[5]);

    // a clean restart: the consume queues as they were, nothing beyond the confirm offset dispatched
    store = await openConfirmed(dir, false);
    expect(store.getConfirmOffsetDirectly()).to.equal(ends[5]);
    expect(store.getMaxPhyOffset()).to.equal(ends[9]);
    expect(dispatched(store)).to.equal(6);
    expect(store.reputFromOffset).to.equal(ends[5]);
    expect((await store.getMessage('g', 'TrT', 0, 3, 32)).status).to.not.equal('FOUND');
    await store.shutdown();

    // a crash (abort file left) with the consume queues lost: recovery re-dispatches what was confirmed only
    await fs.writeFile(path.join(dir, 'abort'), '');
    await fs.rm(path.join(dir, 'consumequeue'), { recursive: true, force: true });
    store = await openConfirmed(dir);
    expect(store.lastExitOK).to.equal(false);
    expect(store.getMaxPhyOffset()).to.equal(ends[9]);
    expect(dispatched(store)).to.equal(6);
    expect(store.reputFromOffset).to.equal(ends[5]);
    // the offset moves (a master's frame, or this replica elected): the rest follows
    store.setConfirmOffset(ends[9]);
    await waitFor(() => dispatched(store) === 10, 5000, 'all dispatched');
    // a truncation below it takes the confirm offset back with it (Java's truncateDirtyFiles)
    expect(await store.truncateFiles(ends[7])).to.equal(true);
    expect(store.getConfirmOffsetDirectly()).to.equal(ends[7]);
    await store.flushConsumeQueues();
    expect(await checkpointConfirm(dir)).to.equal(ends[7]);
  });

  it('a replica restarted with records beyond its confirm offset gives new messages queue offsets past them (Java\'s compensateForHA)', async () => {
    const dir = await tempDir('rmq-confirm-compensate-');
    let store = await openConfirmed(dir, false);
    const ends = await put(store, 0, 10);
    store.setConfirmOffset(ends[3]);
    await waitFor(() => dispatched(store) === 4, 5000, 'four dispatched');
    await store.shutdown();
    // restarted: records 4..9 are held but not dispatched; their queue offsets are taken all the same
    store = await openConfirmed(dir);
    expect(dispatched(store)).to.equal(4);
    expect(store.getNextQueueOffset('TrT', 0)).to.equal(5);
    expect(store.getNextQueueOffset('TrT', 1)).to.equal(5);
    // turned master (the replica's table as a master rebuilds it after its dispatch): the same
    await store.recoverTopicQueueTable();
    expect(store.getNextQueueOffset('TrT', 0)).to.equal(5);
    // new messages after them, and once the confirm offset covers all, every queue offset holds its own message
    const more = await put(store, 10, 4);
    store.setConfirmOffset(more[3]);
    await waitFor(() => dispatched(store) === 14, 5000, 'all fourteen dispatched');
    for (const queueId of [0, 1]) {
      const r = await store.getMessage('g', 'TrT', queueId, 0, 32);
      const bodies = r.messages.map((m) => /m-(\d+)-/.exec(m.toString('latin1'))![1]);
      expect(bodies).to.deep.equal([0, 2, 4, 6, 8, 10, 12].map((i) => String(i + queueId)));
    }
  });

  it('after a crash that lost one queue\'s tail but not another\'s, the queues are cut at the confirm offset and refilled in order', async () => {
    const dir = await tempDir('rmq-confirm-uneven-');
    let store = await openConfirmed(dir, false);
    const ends = await put(store, 0, 10);
    store.setConfirmOffset(ends[9]);
    await waitFor(() => dispatched(store) === 10, 5000, 'all dispatched');
    await store.shutdown();
    // as a kill -9 leaves it: the checkpoint's confirm offset older than the dispatch, queue 1's last three entries
    // never written (its write segment lost), queue 0's all there
    const cp = await fs.readFile(path.join(dir, 'checkpoint'));
    cp.writeBigInt64BE(BigInt(ends[3]), 32);
    await fs.writeFile(path.join(dir, 'checkpoint'), cp);
    await fs.writeFile(path.join(dir, 'abort'), '');
    const q1 = path.join(dir, 'consumequeue', 'TrT', '1', '00000000000000000000');
    const cq = await fs.readFile(q1);
    cq.fill(0, 2 * 20);
    await fs.writeFile(q1, cq);

    store = await openConfirmed(dir);
    expect(store.lastExitOK).to.equal(false);
    expect(dispatched(store)).to.equal(4);
    store.setConfirmOffset(ends[9]);
    await waitFor(() => dispatched(store) === 10, 5000, 'all dispatched again');
    for (const queueId of [0, 1]) {
      const r = await store.getMessage('g', 'TrT', queueId, 0, 32);
      const bodies = r.messages.map((m) => /m-(\d+)-/.exec(m.toString('latin1'))![1]);
      expect(bodies, `queue ${queueId}`).to.deep.equal([0, 2, 4, 6, 8].map((i) => String(i + queueId)));
    }
  });

  it('a damaged queue rebuilt up to the confirm offset gets the rest once it moves, though another queue went further', async () => {
    const dir = await tempDir('rmq-confirm-rebuild-');
    let store = await openConfirmed(dir, false);
    const ends = await put(store, 0, 10);
    store.setConfirmOffset(ends[9]);
    await waitFor(() => dispatched(store) === 10, 5000, 'all dispatched');
    await store.shutdown();
    // a clean exit, but queue 0 has a hole (its entry 1 zeroed) and the checkpoint's confirm offset is older
    const cp = await fs.readFile(path.join(dir, 'checkpoint'));
    cp.writeBigInt64BE(BigInt(ends[3]), 32);
    await fs.writeFile(path.join(dir, 'checkpoint'), cp);
    const q0 = path.join(dir, 'consumequeue', 'TrT', '0', '00000000000000000000');
    const cq = await fs.readFile(q0);
    cq.fill(0, 20, 40);
    await fs.writeFile(q0, cq);

    store = await openConfirmed(dir);
    expect(store.lastExitOK).to.equal(true);
    store.setConfirmOffset(ends[9]);
    await waitFor(() => dispatched(store) === 10, 5000, 'all dispatched again');
    for (const queueId of [0, 1]) {
      expect(store.getMinOffsetInQueue('TrT', queueId), `queue ${queueId}`).to.equal(0);
      const r = await store.getMessage('g', 'TrT', queueId, 0, 32);
      const bodies = r.messages.map((m) => /m-(\d+)-/.exec(m.toString('latin1'))![1]);
      expect(bodies, `queue ${queueId}`).to.deep.equal([0, 2, 4, 6, 8].map((i) => String(i + queueId)));
    }
  });

  it('a queue emptied for its rebuild at start, nothing below the confirm offset to rebuild, gets every record again after a handshake truncation', async () => {
    // the kill -9 loop's first restart: a master killed about a second after its first sends (its consume-queue
    // entries never reached the file), the checkpoint's confirm offset 0, and the log beyond the new master's
    const dir = await tempDir('rmq-confirm-emptied-');
    let store = await openConfirmed(dir, false);
    const ends = await put(store, 0, 10);
    store.setConfirmOffset(ends[9]);
    await waitFor(() => dispatched(store) === 10, 5000, 'all dispatched');
    await store.shutdown();
    const cp = await fs.readFile(path.join(dir, 'checkpoint'));
    cp.writeBigInt64BE(0n, 32);
    await fs.writeFile(path.join(dir, 'checkpoint'), cp);
    await fs.writeFile(path.join(dir, 'abort'), '');
    for (const queueId of [0, 1]) {
      const file = path.join(dir, 'consumequeue', 'TrT', String(queueId), '00000000000000000000');
      await fs.writeFile(file, Buffer.alloc((await fs.stat(file)).size));
    }

    store = await openConfirmed(dir);
    expect(store.lastExitOK).to.equal(false);
    expect(dispatched(store)).to.equal(0);
    expect(store.reputFromOffset).to.equal(0);
    // the handshake: the new master's log ends after record 7
    expect(await store.truncateFiles(ends[7])).to.equal(true);
    expect(store.findConsumeQueue('TrT', 0)!.maxPhysicOffset).to.equal(-1);
    // as a slave turned master would, before its first put
    store.setConfirmOffset(ends[7]);
    await store.waitDispatchCaughtUp();
    await store.recoverTopicQueueTable();
    for (const queueId of [0, 1]) {
      expect(store.getMinOffsetInQueue('TrT', queueId), `queue ${queueId}`).to.equal(0);
      const r = await store.getMessage('g', 'TrT', queueId, 0, 32);
      const bodies = r.messages.map((m) => /m-(\d+)-/.exec(m.toString('latin1'))![1]);
      expect(bodies, `queue ${queueId}`).to.deep.equal([0, 2, 4, 6].map((i) => String(i + queueId)));
      expect(store.getNextQueueOffset('TrT', queueId)).to.equal(4);
    }
  });

  it('a confirm offset in the checkpoint beyond the recovered log is brought back to its end', async () => {
    const dir = await tempDir('rmq-confirm-beyond-');
    let store = await openConfirmed(dir, false);
    const ends = await put(store, 0, 4);
    store.setConfirmOffset(ends[3] + 1000);
    await store.shutdown();
    store = await openConfirmed(dir);
    expect(store.getConfirmOffsetDirectly()).to.equal(ends[3]);
    expect(dispatched(store)).to.equal(4);
  });

  it('a SYNC_MASTER that becomes a slave while its puts wait for their replicas answers them not PUT_OK (single and batch)', async () => {
    const master = await open();
    const waits: Array<(ok: boolean) => void> = [];
    master.setReplicaWaiter({ isSlaveOK: () => true, waitTransfer: () => new Promise<boolean>((r) => { waits.push(r); }) });
    master.config.brokerRole = BrokerRole.SYNC_MASTER;
    // The files exist: the next appends happen at once and their waits start at once.
    const first = master.putMessage(makeMessage('TrT', 0, 'first'));
    await waitFor(() => waits.length === 1, 5000, 'the first put waiting');
    waits.shift()!(true);
    expect((await first).putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    const single = master.putMessage(makeMessage('TrT', 0, 'unconfirmed'));
    const batch = master.putMessages({
      topic: 'TrT', queueId: 1, body: encodeBatchBody([{ body: Buffer.from('b1') }, { body: Buffer.from('b2') }]),
      bornTimestamp: 1, bornHost: { host: '127.0.0.1', port: 2 }, sysFlag: 0,
    });
    // An election made another replica master while both were appended but not yet handed to the OS: this one is a
    // slave now, and their waits end unconfirmed.
    // The single put waits for its replicas already; the batch's wait starts once its append is done.
    expect(waits.length, 'the single put waiting for its replicas').to.equal(1);
    master.config.brokerRole = BrokerRole.SLAVE;
    setTimeout(() => { for (const w of waits) w(false); }, 50).unref();
    expect((await single).putMessageStatus).to.equal(PutMessageStatus.FLUSH_SLAVE_TIMEOUT);
    expect((await batch).putMessageStatus).to.equal(PutMessageStatus.FLUSH_SLAVE_TIMEOUT);
  });

  it('a SYNC_MASTER whose replicas in sync are fewer than minInSyncReplicas refuses a put that waits for the store (IN_SYNC_REPLICAS_NOT_ENOUGH)', async () => {
    const master = await open();
    let inSync = 1;
    master.setReplicaWaiter({ isSlaveOK: () => true, waitTransfer: () => Promise.resolve(true), inSyncReplicasNums: () => inSync });
    master.config.brokerRole = BrokerRole.SYNC_MASTER;
    master.config.minInSyncReplicas = 2;
    const before = master.getMaxPhyOffset();
    const r = await master.putMessage(makeMessage('TrT', 0, 'refused'));
    expect(r.putMessageStatus).to.equal(PutMessageStatus.IN_SYNC_REPLICAS_NOT_ENOUGH);
    expect(r.appendMessageResult).to.equal(null);
    expect(master.getMaxPhyOffset()).to.equal(before);
    // WAIT=false does not wait for the store: appended (Java's needHandleHA)
    expect((await master.putMessage(makeMessage('TrT', 0, 'nowait', { WAIT: 'false' }))).putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    inSync = 2;
    expect((await master.putMessage(makeMessage('TrT', 0, 'ok'))).putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
  });
});
