import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { ConsumeQueue, CQ_STORE_UNIT_SIZE } from '../../../lib/store/consume-queue';
import { DefaultMessageStore } from '../../../lib/store/message-store';
import { PutMessageStatus } from '../../../lib/store/store-status';
import { writeI64 } from '../../../lib/store/stored-record';
import { SMALL, decodeRecord, makeMessage, tempDir } from './store-test-util';

const silent = pino({ level: 'silent' });
const CQ_FILE_SIZE = 200; // 10 entries per file

describe('store: damaged consume queues are rebuilt from the commit log', function () {
  this.timeout(30000);
  let dir: string;
  let store: DefaultMessageStore | null = null;

  const open = async () => {
    store = new DefaultMessageStore({
      ...SMALL, mappedFileSizeCommitLog: 64 * 1024, mappedFileSizeConsumeQueue: CQ_FILE_SIZE, storePathRootDir: dir,
    });
    await store.start();
    return store;
  };
  const reopen = async (abnormal = false) => {
    await store!.shutdown();
    if (abnormal) await fs.writeFile(path.join(dir, 'abort'), '');
    store = null;
  };
  const cqPath = (topic: string, queueId: number, file = 0) =>
    path.join(dir, 'consumequeue', topic, String(queueId), String(file * CQ_FILE_SIZE).padStart(20, '0'));

  /** Puts `n` messages round-robin over queues 0..queues-1 of topic T; the last one goes to `lastQueue`. */
  const fill = async (n: number, queues: number, keyPrefix = 'k') => {
    const s = store!;
    for (let i = 0; i < n; i++) {
      const r = await s.putMessage(makeMessage('T', i % queues, `body-${i}`, { KEYS: `${keyPrefix}${i}` }));
      expect(r.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    }
  };

  /** Every queue of T holds exactly its records, in order, each entry pointing at its own record. */
  const expectQueuesMatchCommitLog = async (queues: number, perQueue: number) => {
    const s = store!;
    for (let q = 0; q < queues; q++) {
      expect(s.getMaxOffsetInQueue('T', q), `queue ${q} max`).to.equal(perQueue);
      const messages: Buffer[] = [];
      for (let next = 0; next < perQueue;) {
        const r = await s.getMessage('G', 'T', q, next, 1000);
        if (r.messages.length === 0) break;
        messages.push(...r.messages);
        next = r.nextBeginOffset;
      }
      expect(messages, `queue ${q} messages`).to.have.length(perQueue);
      messages.forEach((m, i) => {
        const d = decodeRecord(m);
        expect(d.queueId).to.equal(q);
        expect(d.queueOffset).to.equal(i);
        expect(d.body.toString()).to.equal(`body-${i * queues + q}`);
      });
    }
  };

  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await store?.shutdown();
    store = null;
    await fs.rm(dir, { recursive: true, force: true });
  });

  describe('detection in ConsumeQueue.recover', () => {
    let opened: ConsumeQueue[] = [];
    afterEach(async () => {
      for (const cq of opened) await cq.close();
      opened = [];
    });
    const recoverQueue = async (file: Buffer | null, size = CQ_FILE_SIZE) => {
      const qdir = path.join(dir, 'cq');
      await fs.mkdir(path.join(qdir, 'T', '0'), { recursive: true });
      if (file) await fs.writeFile(path.join(qdir, 'T', '0', '0'.repeat(20)), file.subarray(0, size));
      const cq = new ConsumeQueue('T', 0, qdir, CQ_FILE_SIZE, silent);
      await cq.load();
      opened.push(cq);
      await cq.recover();
      return cq;
    };
    const entries = (n: number) => {
      const b = Buffer.alloc(CQ_FILE_SIZE);
      for (let i = 0; i < n; i++) {
        writeI64(b, 1000 + i * 100, i * CQ_STORE_UNIT_SIZE);
        b.writeInt32BE(100, i * CQ_STORE_UNIT_SIZE + 8);
      }
      return b;
    };

    it('a full-size file with zeros after its last entry is intact', async () => {
      const cq = await recoverQueue(entries(4));
      expect(cq.lostEntries).to.equal(false);
      expect(cq.getMaxOffsetInQueue()).to.equal(4);
      expect(cq.maxPhysicOffset).to.equal(1400);
    });

    it('a file cut short (even at an entry boundary) lost entries', async () => {
      const cq = await recoverQueue(entries(4), 3 * CQ_STORE_UNIT_SIZE);
      expect(cq.lostEntries).to.equal(true);
      expect(cq.getMaxOffsetInQueue()).to.equal(3);
      expect(cq.maxPhysicOffset).to.equal(1300);
    });

    it('bytes after the first invalid entry mean lost entries', async () => {
      const b = entries(6);
      b.writeInt32BE(-5, 3 * CQ_STORE_UNIT_SIZE + 8); // entry 3 broken, 4 and 5 behind it
      const cq = await recoverQueue(b);
      expect(cq.lostEntries).to.equal(true);
      expect(cq.getMaxOffsetInQueue()).to.equal(3);
    });

    it('a file without a single valid entry lost entries', async () => {
      const cq = await recoverQueue(Buffer.alloc(CQ_FILE_SIZE));
      expect(cq.lostEntries).to.equal(true);
      expect(cq.getMaxOffsetInQueue()).to.equal(0);
      expect(cq.maxPhysicOffset).to.equal(-1);
    });

    it('blank head entries (a queue starting later) do not count as a commit-log position', async () => {
      const b = Buffer.alloc(CQ_FILE_SIZE);
      for (let i = 0; i < 3; i++) b.writeInt32BE(0x7fffffff, i * CQ_STORE_UNIT_SIZE + 8);
      writeI64(b, 5000, 3 * CQ_STORE_UNIT_SIZE);
      b.writeInt32BE(100, 3 * CQ_STORE_UNIT_SIZE + 8);
      const cq = await recoverQueue(b);
      expect(cq.lostEntries).to.equal(false);
      expect(cq.maxPhysicOffset).to.equal(5100);
      expect(cq.getMaxOffsetInQueue()).to.equal(4);
    });
  });

  describe('skip-duplicates and gap rules of putMessagePositionInfo', () => {
    const newQueue = () => new ConsumeQueue('T', 0, path.join(dir, 'cq'), CQ_FILE_SIZE, silent);

    it('cutting the last file writes the earlier files\' pending entries first (no later file on disk ahead of an earlier tail)', async () => {
      const cq = newQueue();
      // file 0 full (entries 0..9) and file 1 with 10..14, all still in memory
      for (let i = 0; i < 15; i++) await cq.putMessagePositionInfo(1000 + i * 100, 100, 0, i);
      await cq.truncateDirtyLogicFiles(1000 + 13 * 100);
      // as a kill -9 would leave it now: whatever reached the OS
      const f0 = await fs.readFile(path.join(dir, 'cq', 'T', '0', '0'.repeat(20)));
      for (let i = 0; i < 10; i++) expect(f0.readInt32BE(i * CQ_STORE_UNIT_SIZE + 8), `entry ${i} of file 0 on disk`).to.equal(100);
      const f1 = await fs.readFile(path.join(dir, 'cq', 'T', '0', String(CQ_FILE_SIZE).padStart(20, '0')));
      expect([0, 1, 2, 3].map((i) => f1.readInt32BE(i * CQ_STORE_UNIT_SIZE + 8))).to.deep.equal([100, 100, 100, 0]);
      await cq.close();
    });

    it('a cut that leaves no entry (no file, every entry beyond it, only blank head entries) leaves no commit-log end, so the records below it are taken again', async () => {
      // no file at all (a damaged queue destroyed for its rebuild, with nothing below the confirm offset to rebuild)
      const empty = newQueue();
      await empty.truncateDirtyLogicFiles(5000);
      expect(empty.maxPhysicOffset).to.equal(-1);
      await empty.putMessagePositionInfo(1000, 100, 0, 0);
      await empty.settled();
      expect(empty.getMaxOffsetInQueue()).to.equal(1);
      expect(await empty.getEntry(0)).to.deep.equal({ offset: 1000, size: 100, tagsCode: 0 });
      await empty.destroy();
      // every entry beyond the cut
      const beyond = newQueue();
      for (let i = 0; i < 3; i++) await beyond.putMessagePositionInfo(6000 + i * 100, 100, 0, i);
      await beyond.truncateDirtyLogicFiles(5000);
      expect(beyond.maxPhysicOffset).to.equal(-1);
      expect(beyond.getMaxOffsetInQueue()).to.equal(0);
      await beyond.destroy();
      // a queue that starts at offset 3 (blank head entries), its only entry beyond the cut
      const later = newQueue();
      await later.putMessagePositionInfo(6000, 100, 0, 3);
      await later.truncateDirtyLogicFiles(5000);
      expect(later.maxPhysicOffset).to.equal(-1);
      expect(later.getMaxOffsetInQueue()).to.equal(3);
      await later.destroy();
    });

    it('skips an entry whose commit-log end is not past the queue, and one whose queue offset is below its max', async () => {
      const cq = newQueue();
      for (let i = 0; i < 3; i++) await cq.putMessagePositionInfo(1000 + i * 100, 100, i, i);
      await cq.putMessagePositionInfo(1100, 100, 99, 1); // same record again
      await cq.putMessagePositionInfo(9000, 100, 99, 1); // queue offset 1 again, later record ("build repeatedly")
      await cq.settled();
      expect(cq.getMaxOffsetInQueue()).to.equal(3);
      expect(await cq.getEntry(1)).to.deep.equal({ offset: 1100, size: 100, tagsCode: 1 });
      await cq.destroy();
    });

    it('refuses an entry beyond the end while refuseGaps is set, and writes it (as Java does) otherwise', async () => {
      const cq = newQueue();
      for (let i = 0; i < 3; i++) await cq.putMessagePositionInfo(1000 + i * 100, 100, i, i);
      cq.refuseGaps = true;
      await cq.putMessagePositionInfo(2000, 100, 5, 5);
      await cq.settled();
      expect(cq.gapDetected).to.equal(true);
      expect(cq.getMaxOffsetInQueue()).to.equal(3);
      cq.refuseGaps = false;
      await cq.putMessagePositionInfo(2000, 100, 5, 5);
      await cq.settled();
      expect(cq.getMaxOffsetInQueue()).to.equal(4);
      await cq.destroy();
    });
  });

  describe('DefaultMessageStore', () => {
    it('finds nothing damaged and rebuilds nothing after clean and abnormal restarts of a healthy store', async () => {
      await open();
      await fill(40, 4);
      await reopen();
      await open();
      expect(store!.damagedConsumeQueues.size).to.equal(0);
      await expectQueuesMatchCommitLog(4, 10);
      await reopen(true);
      await open();
      expect(store!.lastExitOK).to.equal(false);
      expect(store!.damagedConsumeQueues.size).to.equal(0);
      await expectQueuesMatchCommitLog(4, 10);
    });

    it('rebuilds an emptied queue, one cut mid-entry and one full of garbage, without duplicating index entries', async () => {
      await open();
      await fill(40, 4);
      await reopen();
      await fs.truncate(cqPath('T', 0, 0), 0);
      await fs.truncate(cqPath('T', 1, 0), 3 * CQ_STORE_UNIT_SIZE + 7);
      const garbage = Buffer.alloc(CQ_FILE_SIZE);
      for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 131 + 17) & 0xff;
      await fs.writeFile(cqPath('T', 2, 0), garbage);
      await open();
      expect([...store!.damagedConsumeQueues].map((cq) => cq.queueId).sort()).to.deep.equal([0, 1, 2]);
      await expectQueuesMatchCommitLog(4, 10);
      const q = await store!.queryMessage('T', 'k5', 32, 0, Date.now() + 1000);
      expect(q.messages, 'one index hit for k5').to.have.length(1);
      // The rebuilt queues are healthy on the next start.
      await reopen();
      await open();
      expect(store!.damagedConsumeQueues.size).to.equal(0);
      await expectQueuesMatchCommitLog(4, 10);
    });

    it('rebuilds a queue whose tail was zeroed at an entry boundary when the commit log holds later records of it', async () => {
      await open();
      await fill(41, 4); // the last record goes to queue 0: the catch-up after restart sees its gap
      await reopen();
      // Files 0 and 1 of queue 0 hold entries 0..9 and 10; zero entries 4..10 (full-size files: nothing looks cut).
      const f0 = await fs.readFile(cqPath('T', 0, 0));
      f0.fill(0, 4 * CQ_STORE_UNIT_SIZE);
      await fs.writeFile(cqPath('T', 0, 0), f0);
      await fs.rm(cqPath('T', 0, 1));
      await open();
      expect(store!.getMaxOffsetInQueue('T', 0)).to.equal(11);
      const bodies: string[] = [];
      for (let next = 0; next < 11;) {
        const r = await store!.getMessage('G', 'T', 0, next, 100);
        expect(r.messages.length, `messages from ${next}`).to.be.greaterThan(0);
        bodies.push(...r.messages.map((m) => decodeRecord(m).body.toString()));
        next = r.nextBeginOffset;
      }
      expect(bodies).to.deep.equal(
        Array.from({ length: 11 }, (_, i) => `body-${i * 4}`));
    });

    it('rebuilds a queue whose earlier file lost its tail while a later file kept its entries (a hole)', async () => {
      await open();
      await fill(48, 4); // queue 0: entries 0..9 in file 0, 10 and 11 in file 1
      await reopen(true);
      const f0 = await fs.readFile(cqPath('T', 0, 0));
      f0.fill(0, 2 * CQ_STORE_UNIT_SIZE); // entries 2..9 never reached the disk; file 1 did
      await fs.writeFile(cqPath('T', 0, 0), f0);
      await open();
      expect([...store!.damagedConsumeQueues].map((cq) => cq.queueId)).to.deep.equal([0]);
      await expectQueuesMatchCommitLog(4, 12);
      await reopen();
      await open();
      expect(store!.damagedConsumeQueues.size).to.equal(0);
      await expectQueuesMatchCommitLog(4, 12);
    });

    it('rebuilds a queue whole when its last valid-looking entry points at another queue\'s record', async () => {
      await open();
      await fill(40, 4);
      // The newest record of all: no later record of queue 0 reveals a gap, only the check of the last entry can.
      const other = await store!.findConsumeQueue('T', 3)!.getEntry(9);
      await reopen();
      const f = await fs.readFile(cqPath('T', 0, 0));
      writeI64(f, other!.offset, 5 * CQ_STORE_UNIT_SIZE);
      f.writeInt32BE(other!.size, 5 * CQ_STORE_UNIT_SIZE + 8);
      f.fill(0xab, 6 * CQ_STORE_UNIT_SIZE, 6 * CQ_STORE_UNIT_SIZE + 3); // entry 6 broken: garbage after entry 5
      f.writeInt32BE(-1, 6 * CQ_STORE_UNIT_SIZE + 8);
      await fs.writeFile(cqPath('T', 0, 0), f);
      await open();
      expect([...store!.damagedConsumeQueues].map((cq) => cq.queueId)).to.deep.equal([0]);
      await expectQueuesMatchCommitLog(4, 10);
    });

    it('rebuilds a damaged queue after an abnormal exit too', async () => {
      await open();
      await fill(40, 4);
      await reopen(true);
      await fs.truncate(cqPath('T', 3, 0), 2 * CQ_STORE_UNIT_SIZE + 1);
      await open();
      expect(store!.lastExitOK).to.equal(false);
      await expectQueuesMatchCommitLog(4, 10);
    });
  });
});
