import { expect } from 'chai';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { DLedgerMmapFileStore, resolveDLedgerConfig, type DLedgerConfig } from '../../../lib/dledger';

describe('dledger: DLedgerMmapFileStore writes (at once, or batched behind the write chain)', () => {
  let root: string;
  let config: DLedgerConfig;
  const log = pino({ level: 'silent' });
  const open = async () => {
    const s = new DLedgerMmapFileStore(config, log);
    await s.load();
    return s;
  };
  /** Counts the positional writes of `s`'s data files through the chain. */
  const countChainWrites = (s: DLedgerMmapFileStore) => {
    const counter = { writes: 0 };
    const orig = s.dataFileList.write.bind(s.dataFileList);
    s.dataFileList.write = (offset: number, data: Buffer) => {
      counter.writes++;
      return orig(offset, data);
    };
    return counter;
  };

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'dledger-store-'));
    config = resolveDLedgerConfig({ group: 'g', selfId: 'n0', peers: 'n0-127.0.0.1:1', storeBaseDir: root, mappedFileSizeForEntryData: 64 * 1024, mappedFileSizeForEntryIndex: 32 * 1024 });
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  it('an append with nothing queued is written at once; a reopened store reads every entry back', async () => {
    const s = await open();
    await s.appendAsLeader(Buffer.from('first'), 1).written; // creates the files (through the chain)
    const before = s.writesNow;
    for (let i = 1; i < 20; i++) await s.appendAsLeader(Buffer.from(`m${i}`), 1).written;
    expect(s.writesNow - before).to.equal(19);
    await s.shutdown();
    const again = await open();
    expect(again.ledgerEndIndex).to.equal(19);
    for (let i = 1; i < 20; i++) expect((await again.get(i)).body.toString()).to.equal(`m${i}`);
    await again.shutdown();
  });

  it('appends made while the chain is busy go out in one write per run of adjacent bytes (across a blank filler into the next file)', async () => {
    const s = await open();
    const w = countChainWrites(s);
    // 100 entries of ~1 KiB in one tick: the first creates the file, all wait behind it and are written together;
    // 64 KiB files: a blank filler ends each file and the next file's first entry follows it, so all is one run.
    const written = Array.from({ length: 100 }, (_, i) => s.appendAsLeader(Buffer.alloc(1000, i), 1).written);
    await Promise.all(written);
    expect(s.writesNow).to.equal(0);
    expect(Math.ceil(s.writePos / config.mappedFileSizeForEntryData)).to.be.at.least(2);
    expect(w.writes).to.equal(1);
    await s.shutdown();
    const again = await open();
    expect(again.ledgerEndIndex).to.equal(99);
    for (let i = 0; i < 100; i++) expect((await again.get(i)).body.equals(Buffer.alloc(1000, i))).to.equal(true);
    await again.shutdown();
  });

  it('a write that fails (ENOSPC) is made again until it succeeds: no hole, every entry in its place after a reopen', async () => {
    const s = await open();
    await s.appendAsLeader(Buffer.from('first'), 1).written; // creates the files
    const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    // At once: the positional write fails once; the entry goes through the chain instead.
    const origNow = s.dataFileList.writeNow.bind(s.dataFileList);
    let nowFailures = 1;
    s.dataFileList.writeNow = (offset: number, data: Buffer) => {
      if (nowFailures-- > 0) throw enospc();
      return origNow(offset, data);
    };
    // Through the chain: the first two attempts fail.
    const origWrite = s.dataFileList.write.bind(s.dataFileList);
    let chainFailures = 2;
    let chainAttempts = 0;
    s.dataFileList.write = (offset: number, data: Buffer) => {
      chainAttempts++;
      if (chainFailures-- > 0) return Promise.reject(enospc());
      return origWrite(offset, data);
    };
    await s.appendAsLeader(Buffer.from('second'), 1).written;
    expect(chainAttempts).to.equal(3);
    // The next appends follow it, at once again.
    const before = s.writesNow;
    for (let i = 2; i < 5; i++) await s.appendAsLeader(Buffer.from(`m${i}`), 1).written;
    expect(s.writesNow - before).to.equal(3);
    await s.shutdown();
    const again = await open();
    expect(again.ledgerEndIndex).to.equal(4);
    expect((await again.get(1)).body.toString()).to.equal('second');
    for (let i = 2; i < 5; i++) expect((await again.get(i)).body.toString()).to.equal(`m${i}`);
    await again.shutdown();
  });

  it('a short write (a nearly full disk writes the pages that fit and returns their count) is finished, not taken for the whole', async () => {
    const s = await open();
    await s.appendAsLeader(Buffer.from('first'), 1).written; // creates the files
    // Every positional write of a file handle, and every synchronous one, writes at most 100 bytes and says so.
    const probe = await fs.open(path.join(root, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (this: unknown, buf: unknown, offset: number, length: number, position: number) => Promise<{ bytesWritten: number }> };
    await probe.close();
    const origWrite = proto.write;
    const origSync = fsSync.writeSync;
    let short = 0;
    proto.write = function (this: unknown, buf: unknown, offset: number, length: number, position: number) {
      if (Buffer.isBuffer(buf) && typeof length === 'number' && length > 100) {
        short++;
        return origWrite.call(this, buf, offset, 100, position);
      }
      return origWrite.call(this, buf, offset, length, position);
    };
    (fsSync as { writeSync: unknown }).writeSync = (fd: number, buf: Buffer, offset: number, length: number, position: number) => {
      if (length > 100) short++;
      return origSync(fd, buf, offset, Math.min(length, 100), position);
    };
    try {
      // 60 at once (synchronous writes) fill most of the first 64 KiB file; then 20 in one tick: the one that needs
      // the next file goes through the chain (which creates it), those after it wait behind it and go out together.
      for (let i = 1; i <= 60; i++) await s.appendAsLeader(Buffer.alloc(1000, i), 1).written;
      const chain = countChainWrites(s);
      await Promise.all(Array.from({ length: 20 }, (_, i) => s.appendAsLeader(Buffer.alloc(1000, 61 + i), 1).written));
      expect(chain.writes, 'writes through the chain').to.be.greaterThan(0);
    } finally {
      proto.write = origWrite;
      (fsSync as { writeSync: unknown }).writeSync = origSync;
    }
    expect(short, 'writes cut short').to.be.greaterThan(2);
    await s.shutdown();
    const again = await open();
    expect(again.ledgerEndIndex).to.equal(80);
    for (let i = 1; i <= 80; i++) expect((await again.get(i)).body.equals(Buffer.alloc(1000, i)), `entry ${i}`).to.equal(true);
    await again.shutdown();
  });

  it('a truncation between batched appends: the appends after it are written after it, not before', async () => {
    const s = await open();
    for (let i = 0; i < 10; i++) await s.appendAsLeader(Buffer.from(`a${i}`), 1).written;
    // one tick: more appends (a batch), a truncation back to index 4, then appends of a new term
    const a = Array.from({ length: 5 }, (_, i) => s.appendAsLeader(Buffer.from(`b${i}`), 1).written);
    const keep = s.slot(4)!;
    const t = s.truncateAfter(4, keep.pos + keep.size);
    const c = Array.from({ length: 3 }, (_, i) => s.appendAsLeader(Buffer.from(`c${i}`), 2).written);
    await Promise.all([...a, t, ...c]);
    await s.shutdown();
    const again = await open();
    expect(again.ledgerEndIndex).to.equal(7);
    const bodies = [];
    for (let i = 0; i <= 7; i++) bodies.push((await again.get(i)).body.toString());
    expect(bodies).to.deep.equal(['a0', 'a1', 'a2', 'a3', 'a4', 'c0', 'c1', 'c2']);
    expect(again.ledgerEndTerm).to.equal(2);
    await again.shutdown();
  });

  it('deletes expired data files only up to what was applied, never the last, and index files below the new begin', async () => {
    config = { ...config, mappedFileSizeForEntryIndex: 32 * 16 };
    const s = await open();
    // ~1 KiB entries, 64 KiB files: about 60 entries a file, 5 files.
    for (let i = 0; i < 300; i++) await s.appendAsLeader(Buffer.alloc(1000, i % 256), 1).written;
    const files = () => s.dataFileList.files.map((f) => f.from);
    const all = files();
    expect(all.length).to.equal(5);
    const dataDir = path.join(root, 'dledger-n0', 'data');
    const old = new Date(Date.now() - 100 * 3600 * 1000);
    for (const f of all) await fs.utimes(path.join(dataDir, String(f).padStart(20, '0')), old, old);
    const hour = 3600 * 1000;
    // Nothing committed: nothing goes, however old.
    expect(await s.deleteExpiredFileByTime(72 * hour, Date.now(), false, -1)).to.equal(0);
    // Applied up to an entry of the third file: the first two go.
    const third = s.lastIndexEndingBy(all[2]) + 5;
    expect(await s.deleteExpiredFileByTime(72 * hour, Date.now(), false, third)).to.equal(2);
    expect(files()).to.deep.equal(all.slice(2));
    expect(s.ledgerBeginIndex).to.equal(s.lastIndexEndingBy(all[2]) + 1);
    expect(s.slot(s.ledgerBeginIndex)!.pos).to.equal(all[2]);
    expect((await s.get(s.ledgerBeginIndex)).index).to.equal(s.ledgerBeginIndex);
    await s.get(s.ledgerBeginIndex - 1).then(() => expect.fail('an entry below the begin index'), () => undefined);
    const idx = s.indexFileList.files.map((f) => f.from);
    expect(idx[0]).to.equal(s.ledgerBeginIndex * 32 - ((s.ledgerBeginIndex * 32) % (32 * 16)));
    // Not expired yet (reserved longer than their age): kept, unless cleaned at once.
    expect(await s.deleteExpiredFileByTime(200 * hour, Date.now(), false, 299)).to.equal(0);
    // Everything applied and cleaned at once: all but the last file.
    expect(await s.deleteExpiredFileByTime(200 * hour, Date.now(), true, 299)).to.equal(2);
    expect(files()).to.deep.equal(all.slice(4));
    const begin = s.ledgerBeginIndex;
    // Appends go on after the deletion; a reopened store starts at the new begin index.
    await s.appendAsLeader(Buffer.from('after'), 1).written;
    await s.shutdown();
    const again = await open();
    expect(again.ledgerBeginIndex).to.equal(begin);
    expect(again.ledgerEndIndex).to.equal(300);
    expect(again.minOffset).to.equal(all[4]);
    expect((await again.get(300)).body.toString()).to.equal('after');
    await again.shutdown();
  });

  it('cleanSpace deletes at a deleteWhen hour or above diskSpaceRatioToCheckExpired, all but the last above diskSpaceRatioToForceClean, full above it + 0.05', async () => {
    const now = Date.now();
    const otherHour = String((new Date(now).getHours() + 1) % 24).padStart(2, '0');
    config = { ...config, deleteWhen: otherHour, fileReservedHours: 72 };
    const s = await open();
    for (let i = 0; i < 200; i++) await s.appendAsLeader(Buffer.alloc(1000, 1), 1).written;
    s.updateCommittedIndex(199);
    const n = s.dataFileList.files.length;
    expect(n).to.be.greaterThan(2);
    const first = s.dataFileList.files[0];
    const old = new Date(now - 100 * 3600 * 1000);
    await fs.utimes(first.file, old, old);
    // Not the hour, disk not full: nothing.
    expect((await s.cleanSpace(now, 199, async () => 0.5)).count).to.equal(0);
    // Disk above 0.70: the expired first file goes, the fresh ones stay.
    const r = await s.cleanSpace(now, 199, async () => 0.75);
    expect(r).to.include({ count: 1, timeUp: false, checkExpired: true, forceClean: false });
    // Above 0.85: the fresh ones go too, but the last.
    expect((await s.cleanSpace(now, 199, async () => 0.88)).count).to.equal(n - 2);
    expect(s.dataFileList.files.length).to.equal(1);
    expect(s.isDiskFull).to.equal(false);
    // Above 0.90 (force-clean ratio + 0.05) the disk is full; below it again, not.
    await s.cleanSpace(now, 199, async () => 0.91);
    expect(s.isDiskFull).to.equal(true);
    await s.cleanSpace(now, 199, async () => 0.5);
    expect(s.isDiskFull).to.equal(false);
    await s.shutdown();
  });
});
