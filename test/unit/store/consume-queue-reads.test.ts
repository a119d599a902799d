/**
 * lib/store/consume-queue.ts getIndexBuffer: a pull's read of up to 800 entries serves the next pulls of the queue
 * (counted reads, not timings), and no read outlives a cut of the queue.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pino from 'pino';
import { ConsumeQueue, CQ_STORE_UNIT_SIZE } from '../../../lib/store/consume-queue';
import { MappedFile } from '../../../lib/store/mapped-file';
import { readI64 } from '../../../lib/store/stored-record';

const silent = pino({ level: 'silent' });
const FILE_SIZE = 2000 * CQ_STORE_UNIT_SIZE;
const SCAN = 16000; // what a pull asks for (800 entries)
const PULL = 32 * CQ_STORE_UNIT_SIZE; // what a pull of 32 needs

describe('ConsumeQueue reads: the last read serves the next pulls', () => {
  let dir: string;
  let cq: ConsumeQueue;
  let reads: number;
  const read = MappedFile.prototype.read;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cq-reads-'));
    cq = new ConsumeQueue('T', 0, dir, FILE_SIZE, silent);
    // entry i points at commit-log offset 1000 + i * 100
    for (let i = 0; i < 1000; i++) await cq.putMessagePositionInfo(1000 + i * 100, 100, i, i);
    await cq.flush(); // on the disk: reads go through the threadpool
    reads = 0;
    MappedFile.prototype.read = function (this: MappedFile, pos: number, len: number, view?: boolean) {
      reads++;
      return read.call(this, pos, len, view);
    };
  });

  afterEach(async () => {
    MappedFile.prototype.read = read;
    await cq.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const offsets = (buf: Buffer | null): number[] => {
    const out: number[] = [];
    for (let p = 0; buf && p < buf.length; p += CQ_STORE_UNIT_SIZE) out.push(readI64(buf, p));
    return out;
  };
  const expected = (from: number, n: number): number[] => Array.from({ length: n }, (_, i) => 1000 + (from + i) * 100);

  it('a drain of the queue, 32 at a time, reads it about once per 800 entries', async () => {
    for (let index = 0; index < 1000; index += 32) {
      const buf = await cq.getIndexBuffer(index, SCAN, PULL);
      const got = offsets(buf);
      expect(got.length, `entries from ${index}`).to.be.at.least(Math.min(32, 1000 - index));
      expect(got.slice(0, 32), `entries from ${index}`).to.deep.equal(expected(index, Math.min(32, 1000 - index)));
    }
    // one read at 0 (800 entries), one where fewer than 32 of them were left (768: the last 232), against 32 before
    expect(reads).to.equal(2);
  });

  it('without minBytes the whole range asked for is read (an admin query gets every entry it asks for)', async () => {
    await cq.getIndexBuffer(0, SCAN, PULL);
    const buf = await cq.getIndexBuffer(100, SCAN);
    expect(offsets(buf)).to.deep.equal(expected(100, 800));
    expect(reads).to.equal(2);
  });

  it('entries appended after the last read are read, not missed', async () => {
    await cq.getIndexBuffer(990, SCAN, PULL); // the last 10 entries
    for (let i = 1000; i < 1100; i++) await cq.putMessagePositionInfo(1000 + i * 100, 100, i, i);
    expect(offsets(await cq.getIndexBuffer(995, SCAN, PULL))).to.deep.equal(expected(995, 105));
    expect(reads).to.equal(2);
  });

  it('after a cut, the entries written again at the same queue offsets are read, not the old ones', async () => {
    await cq.getIndexBuffer(0, SCAN, PULL);
    await cq.truncateDirtyLogicFiles(1000 + 500 * 100); // keeps entries 0..499
    // queue offsets 500.. again, now pointing elsewhere
    for (let i = 500; i < 600; i++) await cq.putMessagePositionInfo(900_000 + i * 100, 100, i, i);
    const buf = await cq.getIndexBuffer(480, SCAN, PULL);
    expect(offsets(buf).slice(0, 40)).to.deep.equal([...expected(480, 20), ...Array.from({ length: 20 }, (_, i) => 900_000 + (500 + i) * 100)]);
  });

  it('at most lastReadsMax queues keep a last read, the least recently read dropping theirs', async () => {
    const max = ConsumeQueue.lastReadsMax;
    ConsumeQueue.lastReadsMax = 2;
    const others = [1, 2].map((q) => new ConsumeQueue('T', q, dir, FILE_SIZE, silent));
    try {
      for (const o of others) {
        for (let i = 0; i < 100; i++) await o.putMessagePositionInfo(1000 + i * 100, 100, i, i);
        await o.flush();
      }
      await cq.getIndexBuffer(0, SCAN, PULL);
      await others[0].getIndexBuffer(0, SCAN, PULL);
      expect(reads).to.equal(2);
      await cq.getIndexBuffer(32, SCAN, PULL); // kept, and now the most recent
      expect(reads).to.equal(2);
      await others[1].getIndexBuffer(0, SCAN, PULL); // a third queue: others[0] drops its read
      expect(reads).to.equal(3);
      await cq.getIndexBuffer(64, SCAN, PULL);
      expect(reads, 'the queue read most recently keeps its read').to.equal(3);
      await others[0].getIndexBuffer(32, SCAN, PULL);
      expect(reads, 'the least recently read one reads again').to.equal(4);
    } finally {
      ConsumeQueue.lastReadsMax = max;
      for (const o of others) await o.close();
    }
  });

  it('a read under way while the queue is cut is not kept for later pulls', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = MappedFile.prototype.read;
    MappedFile.prototype.read = async function (this: MappedFile, pos: number, len: number, view?: boolean) {
      const out = await held.call(this, pos, len, view);
      await gate;
      return out;
    };
    const pending = cq.getIndexBuffer(0, SCAN, PULL);
    MappedFile.prototype.read = held;
    await cq.truncateDirtyLogicFiles(1000 + 500 * 100);
    for (let i = 500; i < 600; i++) await cq.putMessagePositionInfo(900_000 + i * 100, 100, i, i);
    release();
    expect(offsets(await pending).slice(0, 1)).to.deep.equal([1000]);
    // the old bytes of that read are not served for offset 500
    expect(offsets(await cq.getIndexBuffer(500, SCAN, PULL)).slice(0, 1)).to.deep.equal([900_000 + 500 * 100]);
  });
});
