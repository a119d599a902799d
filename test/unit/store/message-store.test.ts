import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DefaultMessageStore } from '../../../lib/store/message-store';
import { GetMessageStatus, PutMessageStatus } from '../../../lib/store/store-status';
import { javaStringHashCode } from '../../../protocol/message/java-hash';
import { SMALL, decodeRecord, makeMessage, tempDir } from './store-test-util';

function batchBody(bodies: string[], props: string[]): Buffer {
  const parts: Buffer[] = [];
  bodies.forEach((b, i) => {
    const body = Buffer.from(b);
    const p = Buffer.from(props[i] ?? '');
    const total = 4 + 4 + 4 + 4 + 4 + body.length + 2 + p.length;
    const buf = Buffer.alloc(total);
    let o = buf.writeInt32BE(total, 0);
    o = buf.writeInt32BE(0, o);
    o = buf.writeInt32BE(0, o);
    o = buf.writeInt32BE(0, o);
    o = buf.writeInt32BE(body.length, o);
    o += body.copy(buf, o);
    o = buf.writeInt16BE(p.length, o);
    p.copy(buf, o);
    parts.push(buf);
  });
  return Buffer.concat(parts);
}

describe('store: DefaultMessageStore', function () {
  this.timeout(30000);
  let dir: string;
  let store: DefaultMessageStore;
  const open = async (extra: Record<string, unknown> = {}, opts = {}) => {
    store = new DefaultMessageStore({ ...SMALL, mappedFileSizeCommitLog: 64 * 1024, mappedFileSizeConsumeQueue: 200, storePathRootDir: dir, ...extra }, opts);
    await store.start();
    return store;
  };

  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await store?.shutdown();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('appends across commit-log and consume-queue file boundaries and reads everything back after reopen', async () => {
    await open();
    const offsets: number[] = [];
    const puts = [];
    for (let i = 0; i < 300; i++) {
      puts.push(store.putMessage(makeMessage('T', i % 2, Buffer.alloc(700, i % 256), { TAGS: `t${i % 3}`, KEYS: `k${i}` })));
    }
    for (const r of await Promise.all(puts)) {
      expect(r.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
      offsets.push(r.appendMessageResult!.wroteOffset);
    }
    expect(store.commitLog.mappedFileQueue.files.length).to.be.greaterThan(3);
    expect(store.getMaxOffsetInQueue('T', 0)).to.equal(150);
    await store.shutdown();
    const names = await fs.readdir(path.join(dir, 'commitlog'));
    expect(names[1]).to.equal('00000000000000065536');
    expect(await fs.readdir(path.join(dir, 'consumequeue', 'T', '0'))).to.include('00000000000000000200');
    await open();
    expect(store.lastExitOK).to.equal(true);
    for (let q = 0; q < 2; q++) {
      let off = 0;
      while (off < 150) {
        const r = await store.getMessage('G', 'T', q, off, 32);
        expect(r.status).to.equal(GetMessageStatus.FOUND);
        for (const m of r.messages) {
          const d = decodeRecord(m);
          expect(d.queueOffset).to.equal(off);
          expect(d.physicalOffset).to.equal(offsets[off * 2 + q]);
          expect(d.properties.KEYS).to.equal(`k${off * 2 + q}`);
          off++;
        }
        expect(r.nextBeginOffset).to.equal(off);
      }
    }
    const q = await store.queryMessage('T', 'k77', 10, 0, Date.now() + 1000);
    expect(q.messages).to.have.length(1);
    expect(decodeRecord(q.messages[0]).physicalOffset).to.equal(offsets[77]);
    // A record that would not fit ends the file with the blank filler.
    const first = await store.commitLog.getMessage(0, 65536);
    expect(first).to.not.equal(null);
  });

  it('stores a batch as one record per message with consecutive queue offsets', async () => {
    await open();
    await store.putMessage(makeMessage('B', 0, 'first'));
    const r = await store.putMessages({
      topic: 'B', queueId: 0, body: batchBody(['a', 'bb', 'ccc'], ['KEYS\u0001x\u0002', '', 'TAGS\u0001z\u0002']),
      propertiesString: 'CLUSTER\u0001c1\u0002', bornTimestamp: 1, bornHost: { host: '127.0.0.1', port: 2 }, sysFlag: 0,
    });
    expect(r.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    expect(r.appendMessageResult!.msgNum).to.equal(3);
    expect(r.appendMessageResult!.logicsOffset).to.equal(1);
    expect(r.appendMessageResult!.msgId.split(',')).to.have.length(3);
    const g = await store.getMessage('G', 'B', 0, 1, 10);
    const d = g.messages.map(decodeRecord);
    expect(d.map((x) => x.body.toString())).to.deep.equal(['a', 'bb', 'ccc']);
    expect(d.map((x) => x.queueOffset)).to.deep.equal([1, 2, 3]);
    expect(d[0].properties).to.deep.equal({ KEYS: 'x', CLUSTER: 'c1' });
    expect(d[1].properties).to.deep.equal({ CLUSTER: 'c1' });
    expect((await store.queryMessage('B', 'x', 5, 0, Date.now() + 1000)).messages).to.have.length(1);
    const bad = await store.putMessages({ topic: 'B', queueId: 0, body: Buffer.from([0, 0, 0, 1]), bornTimestamp: 1, bornHost: { host: '127.0.0.1', port: 2 }, sysFlag: 0 });
    expect(bad.putMessageStatus).to.equal(PutMessageStatus.MESSAGE_ILLEGAL);
  });

  it('filters by tags code, honours count and byte budgets, and answers every pull status', async () => {
    await open();
    expect((await store.getMessage('G', 'F', 0, 0, 32)).status).to.equal(GetMessageStatus.NO_MESSAGE_IN_QUEUE);
    for (let i = 0; i < 10; i++) await store.putMessage(makeMessage('F', 0, Buffer.alloc(100), { TAGS: i % 2 ? 'odd' : 'even' }));
    const odd = javaStringHashCode('odd');
    const filter = { isMatchedByConsumeQueue: (t: number | null) => t === odd };
    const f = await store.getMessage('G', 'F', 0, 0, 32, undefined, filter);
    expect(f.status).to.equal(GetMessageStatus.FOUND);
    expect(f.messages.map((m) => decodeRecord(m).queueOffset)).to.deep.equal([1, 3, 5, 7, 9]);
    expect(f.nextBeginOffset).to.equal(10);
    const none = await store.getMessage('G', 'F', 0, 0, 32, undefined, { isMatchedByConsumeQueue: () => false });
    expect(none.status).to.equal(GetMessageStatus.NO_MATCHED_MESSAGE);
    expect(none.nextBeginOffset).to.equal(10);
    const three = await store.getMessage('G', 'F', 0, 2, 3);
    expect(three.messages).to.have.length(3);
    expect(three.nextBeginOffset).to.equal(5);
    const all = await store.getMessage('G', 'F', 0, 0, 32);
    const two = all.messages[0].length + all.messages[1].length;
    const budget = await store.getMessage('G', 'F', 0, 0, 32, two + 1);
    expect(budget.messages).to.have.length(2);
    expect(budget.bufferTotalSize).to.equal(two);
    expect(budget.nextBeginOffset).to.equal(2);
    const one = await store.getMessage('G', 'F', 0, 10, 32);
    expect(one.status).to.equal(GetMessageStatus.OFFSET_OVERFLOW_ONE);
    expect(one.nextBeginOffset).to.equal(10);
    const badly = await store.getMessage('G', 'F', 0, 15, 32);
    expect(badly.status).to.equal(GetMessageStatus.OFFSET_OVERFLOW_BADLY);
    expect(badly.nextBeginOffset).to.equal(0);
    expect(badly.maxOffset).to.equal(10);
  });

  it('reports OFFSET_TOO_SMALL, OFFSET_FOUND_NULL and MESSAGE_WAS_REMOVING once files are cleaned', async () => {
    let clock = Date.now();
    await open({ fileReservedTime: 1, deleteWhen: '', mappedFileSizeConsumeQueue: 100 }, { now: () => clock, diskUsageRatio: async () => 0.1 });
    const puts = [];
    for (let i = 0; i < 200; i++) puts.push(store.putMessage(makeMessage('C', 0, Buffer.alloc(900), { KEYS: `k${i}` })));
    await Promise.all(puts);
    const files = store.commitLog.mappedFileQueue.files.length;
    expect(files).to.be.greaterThan(2);
    await store.flushConsumeQueues();
    // Not expired yet: nothing deleted even when asked manually.
    store.executeDeleteFilesManually();
    await store.cleanFilesPeriodically();
    expect(store.commitLog.mappedFileQueue.files.length).to.equal(files);
    // Two hours later the manual deletion removes every file but the last.
    clock += 2 * 3600 * 1000;
    await store.cleanFilesPeriodically();
    expect(store.commitLog.mappedFileQueue.files.length).to.equal(1);
    const minPhy = store.getMinPhyOffset();
    expect(minPhy).to.be.greaterThan(0);
    const min = store.getMinOffsetInQueue('C', 0);
    expect(min).to.be.greaterThan(0);
    expect(await store.getCommitLogOffsetInQueue('C', 0, min)).to.be.at.least(minPhy);
    const small = await store.getMessage('G', 'C', 0, 0, 32);
    expect(small.status).to.equal(GetMessageStatus.OFFSET_TOO_SMALL);
    expect(small.nextBeginOffset).to.equal(min);
    // Consume-queue files wholly below the commit log are gone.
    const cqFiles = await fs.readdir(path.join(dir, 'consumequeue', 'C', '0'));
    expect(Number(cqFiles.sort()[0]) / 20).to.be.at.most(min);
    expect(cqFiles.length).to.be.lessThan(40);
    // An entry still listed whose record is gone: MESSAGE_WAS_REMOVING.
    const cq = store.findConsumeQueue('C', 0)!;
    cq.minLogicOffset = 0;
    const first = Number(cqFiles.sort()[0]) / 20;
    const removing = await store.getMessage('G', 'C', 0, first, 1);
    if (first < min) expect(removing.status).to.equal(GetMessageStatus.MESSAGE_WAS_REMOVING);
    // Below the first consume-queue file: OFFSET_FOUND_NULL with the next file's start.
    if (first > 0) {
      const nul = await store.getMessage('G', 'C', 0, first - 1, 1);
      expect(nul.status).to.equal(GetMessageStatus.OFFSET_FOUND_NULL);
      expect(nul.nextBeginOffset).to.equal(first);
    }
    expect((await store.queryMessage('C', 'k199', 5, 0, clock)).messages).to.have.length(1);
  });

  it('refuses writes above 90 % disk use and deletes at once above 85 %', async () => {
    let ratio = 0.95;
    await open({ deleteWhen: '' }, { diskUsageRatio: async () => ratio });
    for (let i = 0; i < 100; i++) await store.putMessage(makeMessage('D', 0, Buffer.alloc(900)));
    const files = store.commitLog.mappedFileQueue.files.length;
    await store.cleanFilesPeriodically();
    expect(store.isDiskFull()).to.equal(true);
    expect(store.commitLog.mappedFileQueue.files.length).to.be.lessThan(files);
    expect((await store.putMessage(makeMessage('D', 0, 'x'))).putMessageStatus).to.equal(PutMessageStatus.SERVICE_NOT_AVAILABLE);
    ratio = 0.5;
    await store.cleanFilesPeriodically();
    expect(store.isDiskFull()).to.equal(false);
    expect((await store.putMessage(makeMessage('D', 0, 'x'))).putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
  });

  it('rejects illegal messages and calls the arrival listener after dispatch', async () => {
    await open({ maxMessageSize: 2048 });
    expect((await store.putMessage(makeMessage('x'.repeat(128), 0, 'a'))).putMessageStatus).to.equal(PutMessageStatus.MESSAGE_ILLEGAL);
    expect((await store.putMessage(makeMessage('L', 0, Buffer.alloc(4096)))).putMessageStatus).to.equal(PutMessageStatus.MESSAGE_ILLEGAL);
    expect((await store.putMessage(makeMessage('L', 0, 'a', { p: 'v'.repeat(40000) }))).putMessageStatus).to.equal(PutMessageStatus.PROPERTIES_SIZE_EXCEEDED);
    const seen: [string, number, number][] = [];
    const off = store.onMessageArriving((t, q, o) => seen.push([t, q, o]));
    await store.putMessage(makeMessage('L', 3, 'a', { TAGS: 'x' }));
    await new Promise((r) => setImmediate(r));
    off();
    expect(seen).to.deep.equal([['L', 3, 1]]);
    expect(await store.getOffsetInQueueByTime('L', 3, Date.now() + 1000)).to.equal(0);
    expect(await store.getEarliestMessageTime('L', 3)).to.be.greaterThan(0);
    await store.deleteTopics(['L']);
    expect(store.getMaxOffsetInQueue('L', 3)).to.equal(0);
    expect(store.getRuntimeInfo().putMessageTimesTotal).to.equal('1');
  });

  it('syncs a consume queue once flushConsumeQueueLeastPages pages of it wait, every queue every flushConsumeQueueThoroughInterval; its entries are written every time', async () => {
    let clock = Date.now();
    await open({ mappedFileSizeConsumeQueue: 6000 * 20, flushIntervalConsumeQueue: 20, flushConsumeQueueLeastPages: 2, flushConsumeQueueThoroughInterval: 60_000 },
      { now: () => clock });
    const put = async (topic: string, n: number) => {
      for (let i = 0; i < n; i++) expect((await store.putMessage(makeMessage(topic, 0, Buffer.alloc(10)))).putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    };
    const file = (topic: string) => store.findConsumeQueue(topic, 0)!.mappedFileQueue.files[0];
    const poll = async (check: () => boolean) => {
      while (!check()) await new Promise((r) => setTimeout(r, 10));
    };
    // the first run syncs every queue (Java's lastFlushTimestamp starts at 0): wait until it is done
    let runs = 0;
    const flush = store.flushConsumeQueues.bind(store);
    store.flushConsumeQueues = async (leastPages?: number) => {
      await flush(leastPages);
      runs++;
    };
    await poll(() => runs >= 1);
    // the index: written every run, synced only at the full ones
    const indexSyncs: boolean[] = [];
    const indexFlush = store.indexService.flush.bind(store.indexService);
    store.indexService.flush = (sync?: boolean) => {
      indexSyncs.push(sync ?? true);
      return indexFlush(sync);
    };
    await put('Few', 10); // 200 bytes of entries: under 2 pages
    await put('Many', 500); // 10,000 bytes
    // Many's entries are synced once 2 pages of them wait (the rest, under 2 pages, wait for the next full flush)
    await poll(() => file('Few').committedPosition === 200 && file('Many').flushedPosition >= 2 * 4096);
    await new Promise((r) => setTimeout(r, 100)); // a few more runs
    // written (readable from the file), not synced
    expect(file('Few').flushedPosition).to.equal(0);
    const onDisk = await fs.readFile(file('Few').fileName);
    expect(onDisk.readInt32BE(9 * 20 + 8), 'the 10th entry in the file').to.be.above(0);
    expect(indexSyncs.length, 'index flushes').to.be.above(1);
    expect(indexSyncs.every((sync) => !sync), 'periodic index flushes write only').to.equal(true);
    // a minute later every queue is synced
    clock += 60_000;
    await poll(() => file('Few').flushedPosition === 200);
    expect(indexSyncs, 'the full flush syncs the index').to.include(true);
    // and an explicit flush syncs everything at once
    await put('Few', 1);
    await store.flushConsumeQueues();
    expect(file('Few').flushedPosition).to.equal(220);
  });

  it('ASYNC_FLUSH syncs the commit log once flushCommitLogLeastPages pages wait or a file is full', async () => {
    const clock = Date.now();
    // no cleanup run (its deletion hour could flush the log) and no thorough flush after the first
    await open({ flushIntervalCommitLog: 10, flushCommitLogLeastPages: 100, flushCommitLogThoroughInterval: 3_600_000, deleteWhen: '' },
      { now: () => clock });
    const queue = store.commitLog.mappedFileQueue;
    const files = () => queue.files;
    // each run of the flush service asks the queue once
    let runs = 0;
    const able = queue.isAbleToFlush.bind(queue);
    queue.isAbleToFlush = (leastPages: number) => {
      runs++;
      return able(leastPages);
    };
    const runsMore = async (n: number) => {
      const until = runs + n;
      while (runs < until) await new Promise((r) => setTimeout(r, 5));
    };
    await runsMore(1);
    // 4 KiB wait (under 100 pages, the file not full): written, not synced
    for (let i = 0; i < 4; i++) await store.putMessage(makeMessage('F', 0, Buffer.alloc(1000)));
    await runsMore(5);
    expect(files()[0].flushedPosition).to.equal(0);
    // a full file is synced however few pages wait in all (the 64 KiB file, then a few bytes in the next)
    while (files().length < 2) await store.putMessage(makeMessage('F', 0, Buffer.alloc(1000)));
    await runsMore(2);
    expect(files()[0].flushedPosition).to.equal(files()[0].fileSize);
  });

  it('SYNC_FLUSH acknowledges after a shared fdatasync', async () => {
    await open({ flushDiskType: 'SYNC_FLUSH' });
    const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => store.putMessage(makeMessage('S', 0, `m${i}`))));
    expect(rs.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
    expect(store.commitLog.mappedFileQueue.getFlushedWhere()).to.equal(store.getMaxPhyOffset());
  });

  it('reads records of one queue in contiguous ranges across commit-log file boundaries, same bytes as one by one', async () => {
    await open({ mappedFileSizeConsumeQueue: 6000 });
    const puts = [];
    // Three queues interleaved, varied sizes, so a queue's records are close but not adjacent and runs cross files.
    for (let i = 0; i < 240; i++) {
      puts.push(store.putMessage(makeMessage('R', i % 3, Buffer.alloc(200 + ((i * 37) % 900), i % 251), { TAGS: `t${i % 2}` })));
    }
    const results = await Promise.all(puts);
    expect(results.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
    expect(store.commitLog.mappedFileQueue.files.length).to.be.greaterThan(2);
    const check = async (label: string) => {
      for (let q = 0; q < 3; q++) {
        let off = 0;
        let seen = 0;
        while (off < 80) {
          const r = await store.getMessage('G', 'R', q, off, 7);
          expect(r.status, label).to.equal(GetMessageStatus.FOUND);
          for (let k = 0; k < r.messages.length; k++) {
            const m = r.messages[k];
            const d = decodeRecord(m);
            const idx = r.messageQueueOffsets[k] * 3 + q;
            expect(d.queueOffset, label).to.equal(r.messageQueueOffsets[k]);
            expect(d.physicalOffset, label).to.equal(results[idx].appendMessageResult!.wroteOffset);
            expect(m.equals((await store.lookMessageByOffset(d.physicalOffset))!), label).to.equal(true);
            expect(d.body.equals(Buffer.alloc(200 + ((idx * 37) % 900), idx % 251)), label).to.equal(true);
            seen++;
          }
          off = r.nextBeginOffset;
        }
        expect(seen, label).to.equal(80);
      }
      // A tags filter leaves gaps inside the range; each returned record is still the right one.
      const r = await store.getMessage('G', 'R', 0, 0, 10, undefined, {
        isMatchedByConsumeQueue: (code) => code === javaStringHashCode('t1'),
      });
      expect(r.messages.length, label).to.equal(10);
      for (const m of r.messages) expect(decodeRecord(m).properties.TAGS, label).to.equal('t1');
    };
    await check('in memory');
    await store.shutdown();
    await open({ mappedFileSizeConsumeQueue: 6000 });
    await check('reopened');
  });
});
