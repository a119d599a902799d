/**
 * lib/store/index-file.ts: the flush writes the dirty header and slot pages in runs, one write per run (counted,
 * not timed), and what it wrote reads back after the file is loaded again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { INDEX_HEADER_SIZE, IndexFile, indexKeyHash, pageRuns, topicKeyHash } from '../../../lib/store/index-file';
import { MappedFile, OS_PAGE_SIZE } from '../../../lib/store/mapped-file';
import { waitFor } from '../../helpers/wait-for';

const SLOTS = 100_000; // 98 pages of slots
const ENTRIES = 50_000;

/** The page of the slot `key` hashes to. */
function pageOf(key: string): number {
  return Math.floor((INDEX_HEADER_SIZE + (indexKeyHash(key) % SLOTS) * 4) / OS_PAGE_SIZE);
}

/** Counts fdatasyncs of every MappedFile (a flush() that has committed bytes to sync counts as one) until restored. */
function countSyncs(): { readonly syncs: number; restore(): void } {
  const datasync = MappedFile.prototype.datasync;
  const flush = MappedFile.prototype.flush;
  let syncs = 0;
  MappedFile.prototype.datasync = function (this: MappedFile) {
    syncs++;
    return datasync.call(this);
  };
  MappedFile.prototype.flush = function (this: MappedFile) {
    if (this.committedPosition > this.flushedPosition) syncs++;
    return flush.call(this);
  };
  return {
    get syncs() {
      return syncs;
    },
    restore() {
      MappedFile.prototype.datasync = datasync;
      MappedFile.prototype.flush = flush;
    },
  };
}

describe('IndexFile flush: dirty pages in runs', () => {
  let dir: string;
  let writes: Array<{ pos: number; length: number }>;
  const writeAt = MappedFile.prototype.writeAt;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'index-file-'));
    writes = [];
    MappedFile.prototype.writeAt = function (this: MappedFile, data: Buffer, pos: number) {
      writes.push({ pos, length: data.length });
      return writeAt.call(this, data, pos);
    };
  });

  afterEach(() => {
    MappedFile.prototype.writeAt = writeAt;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('topicKeyHash(topic, key) is indexKeyHash(`${topic}#${key}`), the hash Java stores for the key', () => {
    const words = ['', 'T', 'TopicTest', '%RETRY%group', 'AC110001000018B4AAC2395A2F4F0000', 'héllo wörld', '主题', 'x'.repeat(300)];
    for (const topic of words) for (const key of words) expect(topicKeyHash(topic, key), `${topic}#${key}`).to.equal(indexKeyHash(`${topic}#${key}`));
    // Java 17: "TopicTest#KEY1".hashCode() == -1656969516 and "主题#héllo".hashCode() == -363739256, made positive
    expect(topicKeyHash('TopicTest', 'KEY1')).to.equal(1656969516);
    expect(topicKeyHash('主题', 'héllo')).to.equal(363739256);
  });

  it('pageRuns joins pages up to maxGap clean pages apart', () => {
    expect(pageRuns([], 2)).to.deep.equal([]);
    expect(pageRuns([5], 2)).to.deep.equal([[5, 6]]);
    expect(pageRuns([0, 1, 2], 0)).to.deep.equal([[0, 3]]);
    expect(pageRuns([0, 2, 5, 9], 2)).to.deep.equal([[0, 6], [9, 10]]);
    expect(pageRuns([0, 3], 2)).to.deep.equal([[0, 4]]);
    expect(pageRuns([0, 4], 2)).to.deep.equal([[0, 1], [4, 5]]);
  });

  it('a flush after keys in every slot page is one write of the slots and one of the header, and every key reads back', async () => {
    const name = path.join(dir, '20261207000000000');
    const f = await IndexFile.create(name, SLOTS, ENTRIES, 0, 0);
    const keys = Array.from({ length: 3000 }, (_, i) => `T#${((i * 2654435761) >>> 0).toString(16).toUpperCase()}`);
    const pages = new Set(keys.map(pageOf));
    expect(pages.size, 'pages the keys dirty').to.be.greaterThan(90);
    keys.forEach((k, i) => expect(f.putKey(k, 1000 + i * 100, Date.now())).to.equal(true));
    await f.flush();
    // a write per page before, 98 of them; now the slot pages in one run, then the header's page (as it was when the
    // flush began)
    expect(writes, 'writes of the flush').to.deep.equal([
      { pos: OS_PAGE_SIZE, length: INDEX_HEADER_SIZE + SLOTS * 4 - OS_PAGE_SIZE },
      { pos: 0, length: OS_PAGE_SIZE },
    ]);
    await f.close();

    const again = await IndexFile.load(name, SLOTS, ENTRIES);
    expect(again.indexCount).to.equal(keys.length + 1);
    for (const [i, k] of keys.entries()) {
      const out: number[] = [];
      await again.selectPhyOffset(out, k, 10, 0, Date.now() + 1000);
      expect(out, k).to.include(1000 + i * 100);
    }
    await again.close();
  });

  it('writes the header as it was when flush() was called: keys put during the flush stay out of its count and end time until the next one', async () => {
    const name = path.join(dir, '20261207000000002');
    const f = await IndexFile.create(name, SLOTS, ENTRIES, 0, 0);
    const t0 = 1_796_000_000_000;
    const before = Array.from({ length: 1000 }, (_, i) => `T#B${((i * 2654435761) >>> 0).toString(16)}`);
    const during = Array.from({ length: 1000 }, (_, i) => `T#D${((i * 2246822519) >>> 0).toString(16)}`);
    before.forEach((k, i) => f.putKey(k, 1000 + i * 100, t0 + i));
    const endTimestamp = f.endTimestamp;
    const indexCount = f.indexCount;
    const flushed = f.flush();
    // the broker goes on putting while the flush awaits its writes
    during.forEach((k, i) => f.putKey(k, 500_000 + i * 100, t0 + 60_000 + i));
    await flushed;
    const header = Buffer.alloc(INDEX_HEADER_SIZE);
    const fd = fs.openSync(name, 'r');
    fs.readSync(fd, header, 0, INDEX_HEADER_SIZE, 0);
    fs.closeSync(fd);
    // (the previous build wrote the header as it was when its writes ran: the keys put during the flush counted)
    expect(Number(header.readBigInt64BE(8)), 'end time on disk').to.equal(endTimestamp);
    expect(header.readInt32BE(36), 'entries on disk').to.equal(indexCount);
    await f.close();
    // what a restart after a crash finds: the keys of the flush, but for those whose slot a later key took (its slot
    // on disk points past the header's count: empty), and none of the later keys
    const again = await IndexFile.load(name, SLOTS, ENTRIES);
    const taken = new Set(during.map((k) => indexKeyHash(k) % SLOTS));
    let found = 0;
    for (const [i, k] of before.entries()) {
      const out: number[] = [];
      await again.selectPhyOffset(out, k, 10, 0, t0 + 120_000);
      if (taken.has(indexKeyHash(k) % SLOTS)) continue;
      expect(out, k).to.deep.equal([1000 + i * 100]);
      found++;
    }
    expect(found).to.be.greaterThan(950);
    for (const k of during) {
      const out: number[] = [];
      await again.selectPhyOffset(out, k, 10, 0, t0 + 120_000);
      expect(out, k).to.deep.equal([]);
    }
    await again.close();
  });

  it('flush(false) writes the pages without an fdatasync; the next flush(true) syncs them, even with no new key', async () => {
    const name = path.join(dir, '20261207000000003');
    const f = await IndexFile.create(name, SLOTS, ENTRIES, 0, 0);
    const counted = countSyncs();
    try {
      const keys = Array.from({ length: 200 }, (_, i) => `T#S${i}`);
      keys.forEach((k, i) => f.putKey(k, 1000 + i * 100, Date.now()));
      await f.flush(false);
      expect(counted.syncs, 'syncs of flush(false)').to.equal(0);
      expect(writes.length, 'pages written').to.be.greaterThan(0);
      // what flush(false) wrote is in the file (read through a descriptor of its own)
      const again = await IndexFile.load(name, SLOTS, ENTRIES);
      const out: number[] = [];
      await again.selectPhyOffset(out, keys[150], 10, 0, Date.now() + 1000);
      expect(out).to.deep.equal([1000 + 150 * 100]);
      await again.close();
      writes = [];
      await f.flush(true);
      expect(writes, 'nothing new to write').to.have.length(0);
      expect(counted.syncs, 'the pages written by flush(false) synced').to.equal(1);
      await f.flush(true);
      expect(counted.syncs, 'nothing left to sync').to.equal(1);
    } finally {
      counted.restore();
    }
    await f.close();
  });

  it('a sync called while a flush(false) is still writing runs after it and covers its pages (a full file is synced once)', async () => {
    const name = path.join(dir, '20261207000000004');
    const f = await IndexFile.create(name, SLOTS, ENTRIES, 0, 0);
    const counted = countSyncs();
    // the first flush's first page write is held until the second flush synced or many turns passed: without the
    // order between flushes, the second flush's fdatasync runs while the first one's pages are not written yet
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    let holding = true;
    let firstHeld = false;
    const recording = MappedFile.prototype.writeAt;
    MappedFile.prototype.writeAt = async function (this: MappedFile, data: Buffer, pos: number) {
      if (holding) {
        holding = false;
        firstHeld = true;
        await held;
      }
      return recording.call(this, data, pos);
    };
    try {
      Array.from({ length: 100 }, (_, i) => `T#A${i}`).forEach((k, i) => f.putKey(k, 1000 + i * 100, Date.now()));
      const periodic = f.flush(false);
      await waitFor(() => firstHeld, 5000, 'the periodic flush writing its first page', 2);
      Array.from({ length: 100 }, (_, i) => `T#B${i}`).forEach((k, i) => f.putKey(k, 50_000 + i * 100, Date.now()));
      const full = f.flush(true);
      // (with the order, the sync cannot come before the release: the wait runs out)
      for (let ms = 0; ms < 300 && counted.syncs === 0; ms += 2) await new Promise<void>((r) => setTimeout(r, 2));
      release();
      await Promise.all([periodic, full]);
      expect(counted.syncs, 'the full flush synced').to.equal(1);
      // nothing either flush wrote is left unsynced: a further sync has nothing to do
      await f.flush(true);
      expect(counted.syncs, 'pages left unsynced after the full flush').to.equal(1);
    } finally {
      release(); // a failure above must not leave the write held: close() waits for the file's flushes
      counted.restore();
      MappedFile.prototype.writeAt = recording;
    }
    await f.close();
  });

  it('keys in pages far apart are written as pages of their own, the clean pages between them left alone', async () => {
    const f = await IndexFile.create(path.join(dir, '20261207000000001'), SLOTS, ENTRIES, 0, 0);
    // two keys whose slots lie far from each other and from the header's page
    const byPage = new Map<number, string>();
    for (let i = 0; byPage.size < 98 && i < 100_000; i++) byPage.set(pageOf(`K${i}`), `K${i}`);
    const a = byPage.get(30)!;
    const b = byPage.get(70)!;
    f.putKey(a, 100, Date.now());
    f.putKey(b, 200, Date.now());
    await f.flush();
    expect(writes.map((w) => [w.pos / OS_PAGE_SIZE, w.length])).to.deep.equal([[30, OS_PAGE_SIZE], [70, OS_PAGE_SIZE], [0, OS_PAGE_SIZE]]);
    // nothing changed since: nothing written
    writes = [];
    await f.flush();
    expect(writes).to.have.length(0);
    await f.close();
  });
});
