import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { ALLOCATE_AHEAD, MappedFile, ZERO_WRITE } from '../../../lib/store/mapped-file';
import { mmapUnavailable } from '../../../lib/store/mmap';
import { PutMessageStatus } from '../../../lib/store/store-status';
import { decodeRecord, makeMessage, storePerTest, tempDir } from './store-test-util';

/** Resident bytes of this process's maps of `file` (/proc/self/smaps), or -1 where that file is not readable. */
function residentBytesOf(file: string): number {
  let smaps: string;
  try {
    smaps = fs.readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return -1;
  }
  let total = 0;
  let inFile = false;
  for (const line of smaps.split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inFile = line.endsWith(` ${file}`);
    else if (inFile && line.startsWith('Rss:')) total += Number(line.split(/\s+/)[1]) * 1024;
  }
  return total;
}

describe('store: the commit log written through memory maps (transientStorePoolEnable=false, Java\'s default)', function () {
  this.timeout(60000);
  const { open } = storePerTest();
  // 32 MiB of pages read stay mapped at most, not READ_RESIDENT_MAX: the reads of 72 MiB below release them.
  const READ_MAX = 32 * 1024 * 1024;
  const defaultReadMax = MappedFile.readResidentMax;
  before(function () {
    const why = mmapUnavailable();
    if (why) {
      process.stderr.write(`    skipped: ${why}\n`);
      this.skip();
    }
    MappedFile.readResidentMax = READ_MAX;
  });
  after(() => {
    MappedFile.readResidentMax = defaultReadMax;
  });

  it('maps the tail file by default and acknowledges ASYNC_FLUSH puts with their bytes already in the file', async () => {
    const s = await open();
    expect(s.commitLog.writeMode).to.equal('mapped');
    const r = await s.putMessage(makeMessage('M', 0, 'through the map', { TAGS: 't' }));
    expect(r.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    const mf = s.commitLog.mappedFileQueue.getLastMappedFile()!;
    expect(mf.mapped).to.equal(true);
    expect(mf.pendingBytes()).to.equal(0);
    // What another process reads from the file now: the record, without a write, a flush or a shutdown.
    const a = r.appendMessageResult!;
    const fd = fs.openSync(mf.fileName, 'r');
    try {
      const rec = Buffer.alloc(a.wroteBytes);
      fs.readSync(fd, rec, 0, rec.length, a.wroteOffset - mf.fileFromOffset);
      expect(decodeRecord(rec).body.toString()).to.equal('through the map');
      expect(decodeRecord(rec).properties.TAGS).to.equal('t');
    } finally {
      fs.closeSync(fd);
    }
  });

  it('copies a lone put into the map on the event loop and hands many puts to the OS with one write; reads see both', async () => {
    const s = await open();
    const lone = await s.putMessage(makeMessage('C', 0, 'a lone put'));
    expect(lone.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    const mf = s.commitLog.mappedFileQueue.getLastMappedFile()!;
    expect(mf.mapped).to.equal(true);
    expect([mf.copiesIntoMap, mf.commitWrites]).to.deep.equal([1, 0]);
    // Another lone put while nothing is in flight: copied again.
    await s.putMessage(makeMessage('C', 0, 'another lone put'));
    expect([mf.copiesIntoMap, mf.commitWrites]).to.deep.equal([2, 0]);
    // 64 puts of 1 KiB in one turn: more than commitCommitLogLeastPages (4 pages) wait, so a write takes them.
    const body = Buffer.alloc(1024, 3);
    const rs = await Promise.all(Array.from({ length: 64 }, (_, i) => s.putMessage(makeMessage('C', i % 2, body))));
    expect(rs.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
    expect(mf.commitWrites).to.be.greaterThan(0);
    expect(mf.copiesIntoMap).to.be.lessThan(2 + 64 / 4);
    expect(mf.pendingBytes()).to.equal(0);
    // Both ways the bytes are in the file (another process reads them) and in the queues.
    const fd = fs.openSync(mf.fileName, 'r');
    try {
      for (const r of [lone, rs[0], rs[63]]) {
        const a = r.appendMessageResult!;
        const rec = Buffer.alloc(a.wroteBytes);
        fs.readSync(fd, rec, 0, rec.length, a.wroteOffset - mf.fileFromOffset);
        expect(decodeRecord(rec).body.equals(r === lone ? Buffer.from('a lone put') : body)).to.equal(true);
      }
    } finally {
      fs.closeSync(fd);
    }
    // (32: maxTransferCountOnMessageInMemory)
    const got = await s.getMessage('G', 'C', 0, 0, 64);
    expect(got.messages.length).to.equal(32);
    expect(decodeRecord(got.messages[1]).body.toString()).to.equal('another lone put');
  });

  it('writes records as the write segments do: a store written one way reads back whole the other way, across files', async () => {
    const bodies = Array.from({ length: 600 }, (_, i) => Buffer.alloc(3000 + (i % 7), i % 251));
    for (const [first, second] of [[false, true], [true, false]]) {
      let s = await open({ transientStorePoolEnable: first });
      expect(s.commitLog.writeMode.startsWith(first ? 'write segments' : 'mapped')).to.equal(true);
      const rs = await Promise.all(bodies.map((b, i) => s.putMessage(makeMessage('X', i % 2, b, { KEYS: `k${i}` }))));
      expect(rs.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
      // 1 MiB files (SMALL): the records span several, each ended by a blank filler
      expect(s.commitLog.mappedFileQueue.files.length).to.be.greaterThan(1);
      await s.shutdown();
      s = await open({ storePathRootDir: s.config.storePathRootDir, transientStorePoolEnable: second });
      for (let q = 0; q < 2; q++) {
        const messages: Buffer[] = [];
        while (messages.length < 300) {
          const got = await s.getMessage('G', 'X', q, messages.length, 32);
          if (got.messages.length === 0) break;
          messages.push(...got.messages);
        }
        expect(messages.length).to.equal(300);
        messages.forEach((m, k) => {
          const i = k * 2 + q;
          expect(decodeRecord(m).body.equals(bodies[i]), `message ${i}`).to.equal(true);
          expect(decodeRecord(m).properties.KEYS).to.equal(`k${i}`);
        });
      }
      // and appends go on after the reopened tail, the other way
      const more = await s.putMessage(makeMessage('X', 0, 'after reopening'));
      expect(more.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
      expect(decodeRecord((await s.lookMessageByOffset(more.appendMessageResult!.wroteOffset))!).body.toString()).to.equal('after reopening');
      await s.shutdown();
      await fs.promises.rm(s.config.storePathRootDir, { recursive: true, force: true });
    }
  });

  it('keeps only the pages near the write position in the process (RSS), the rest in the page cache', async function () {
    const s = await open({ mappedFileSizeCommitLog: 96 * 1024 * 1024 });
    const body = Buffer.alloc(8000, 7);
    for (let round = 0; round < 9; round++) {
      // 8 MiB per round
      const rs = await s.putMessageList(Array.from({ length: 1024 }, (_, i) => makeMessage('R', i % 4, body)));
      expect(rs.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
    }
    const mf = s.commitLog.mappedFileQueue.getLastMappedFile()!;
    expect(mf.wrotePosition).to.be.greaterThan(64 * 1024 * 1024);
    const rss = residentBytesOf(mf.fileName);
    if (rss < 0) this.skip();
    // at most the 2 MiB kept behind plus one 4 MiB release step (and a page or two around them); lists of 8 MiB go
    // to the file by writes, which map nothing
    expect(rss).to.be.at.most(6.5 * 1024 * 1024);
    // old bytes (their pages left the page tables) are read through the map while the page cache holds them, and
    // leave the page tables again: reading the whole file keeps the RSS where it was
    const old = mf.readFromMemory(0, 8000);
    expect(old, 'the first bytes of the file, resident in the page cache').to.not.equal(null);
    expect(old!.equals(mf.readFromMemory(0, 8000)!)).to.equal(true);
    // The queues are read in turn, as a consumer's pulls come: each record sits among the other queues' records, and
    // a fault maps the pages around it too (fault-around), pages other reads had released already.
    const offsets = [0, 0, 0, 0];
    const releasesBefore = mf.readReleases;
    const checksBefore = mf.residencyChecks;
    let records = 0;
    for (let more = true; more;) {
      more = false;
      for (let q = 0; q < 4; q++) {
        const r = await s.getMessage('G', 'R', q, offsets[q], 32);
        if (r.messages.length === 0) continue;
        more = true;
        for (const m of r.messages) expect(decodeRecord(m).body.equals(body)).to.equal(true);
        records += r.messages.length;
        offsets[q] = r.nextBeginOffset;
      }
    }
    expect(offsets).to.deep.equal([2304, 2304, 2304, 2304]);
    // The pages read leave the page tables a READ_MAX at a time, not once per record (each pull's records
    // lie 4 records apart, and the next queue's pull reads the same pages).
    const windows = (72 * 1024 * 1024) / (64 * 1024);
    expect(mf.readReleases - releasesBefore).to.be.greaterThan(0).and.at.most(Math.ceil(72 * 1024 * 1024 / READ_MAX) + 1);
    // The page cache is asked about each 64 KiB window once between releases, not once per record: a window read
    // again after a release (the pulls in flight then) is asked again.
    expect(records).to.equal(9216);
    expect(mf.residencyChecks - checksBefore).to.be.greaterThan(0).and.at.most(windows + 2 * 16 * (mf.readReleases - releasesBefore));
    // 72 MiB read: what stays mapped is what was before, plus at most what the reads may keep
    expect(residentBytesOf(mf.fileName)).to.be.at.most(rss + READ_MAX + 64 * 1024);
  });

  it('answers reads for a pull with views of the map (no copy), which stay readable after their pages leave the page tables', async function () {
    const s = await open({ mappedFileSizeCommitLog: 64 * 1024 * 1024 });
    const bodies = Array.from({ length: 2048 }, (_, i) => Buffer.alloc(4000, i % 251));
    // 8 MiB, on 8 queues: past what stays mapped behind the write position, so the first records are older bytes
    const rs = await s.putMessageList(bodies.map((b, i) => makeMessage('V', i % 8, b)));
    expect(rs.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
    const mf = s.commitLog.mappedFileQueue.getLastMappedFile()!;
    const old = await s.getMessage('G', 'V', 3, 0, 32);
    const recent = await s.getMessage('G', 'V', 5, 240, 16);
    expect(old.messages).to.have.length(32);
    expect(recent.messages).to.have.length(16);
    for (const m of [...old.messages, ...recent.messages]) {
      // a view: its memory is the file's map, the whole file
      expect(m.buffer.byteLength).to.equal(mf.fileSize);
    }
    // a copy for anyone else (lookMessageByOffset), equal to the view
    const a = old.messages[5];
    const looked = (await s.lookMessageByOffset(decodeRecord(a).physicalOffset))!;
    expect(looked.buffer.byteLength).to.not.equal(mf.fileSize);
    expect(looked.equals(a)).to.equal(true);
    // Reads of more than READ_MAX elsewhere release the pages read before; the views read the same bytes.
    const releases = mf.readReleases;
    const big = await s.putMessageList(Array.from({ length: 12000 }, (_, i) => makeMessage('W', i % 2, bodies[0])));
    expect(big.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
    for (let off = 0; off < 6000 && mf.readReleases === releases; off += 32) await s.getMessage('G', 'W', 1, off, 32);
    expect(mf.readReleases).to.be.greaterThan(releases);
    old.messages.forEach((m, k) => {
      expect(decodeRecord(m).queueOffset).to.equal(k);
      expect(decodeRecord(m).body.equals(bodies[k * 8 + 3]), `record ${k}`).to.equal(true);
    });
    recent.messages.forEach((m, k) => expect(decodeRecord(m).body.equals(bodies[(240 + k) * 8 + 5])).to.equal(true));
  });

  it('answers reads with copies when the commit log is written through segments (their buffers are reused)', async () => {
    const s = await open({ transientStorePoolEnable: true });
    expect(s.commitLog.writeMode.startsWith('write segments')).to.equal(true);
    await s.putMessageList(Array.from({ length: 40 }, (_, i) => makeMessage('C', 0, `copy ${i}`)));
    const r = await s.getMessage('G', 'C', 0, 0, 32);
    expect(r.messages).to.have.length(32);
    // 3 MiB more, over several 1 MiB files: the segment buffers are written, dropped and reused meanwhile
    const more = await s.putMessageList(Array.from({ length: 3000 }, (_, i) => makeMessage('D', 0, Buffer.alloc(1024, i % 251))));
    expect(more.every((x) => x.putMessageStatus === PutMessageStatus.PUT_OK)).to.equal(true);
    expect(s.commitLog.mappedFileQueue.files.length).to.be.greaterThan(2);
    r.messages.forEach((m, k) => expect(decodeRecord(m).body.toString()).to.equal(`copy ${k}`));
  });
});

type WriteFn = (...a: unknown[]) => Promise<unknown>;

/** A mapped file at `file`, and the FileHandle prototype whose `write` the reservation of blocks goes through. */
/** Polls `check` until it holds (no timing asserted: the test's timeout is the limit). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 2000) throw new Error(`${what}: not within 10 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function mappedWithWriteHook(file: string, size: number): Promise<{ mf: MappedFile; proto: { write: WriteFn }; realWrite: WriteFn }> {
  const mf = await MappedFile.create(file, size, 64 * 1024);
  mf.wantMap = true;
  const probe = await fs.promises.open(file, 'r');
  const proto = Object.getPrototypeOf(probe) as { write: WriteFn };
  await probe.close();
  return { mf, proto, realWrite: proto.write };
}

describe('lib/store MappedFile through a map', () => {
  let dir = '';
  before(async function () {
    if (mmapUnavailable()) this.skip();
    dir = await tempDir('rmq-mapped-');
  });
  after(async () => {
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  });

  it('copies into the map only within blocks written ahead (a store into a sparse page could kill the process on a full disk); past them the bytes go by a write', async () => {
    const file = path.join(dir, '00000000000000000000');
    const mf = await MappedFile.create(file, 32 * 1024 * 1024, 64 * 1024);
    mf.wantMap = true;
    // reservations right after a write (the quiet period after writes has a test of its own)
    mf.reserveQuietMillis = 0;
    try {
      // not mapped yet: nothing is appendable synchronously, and appending anyway is refused
      expect(mf.writableBytes()).to.equal(0);
      expect(() => mf.reserveOffset(10)).to.throw(RangeError, /not mapped yet/);
      await mf.ensureWritable(1000);
      expect(mf.mapped).to.equal(true);
      expect(mf.ensureWritable(1000)).to.equal(null);
      const first = mf.reservedAhead();
      expect(first).to.be.at.least(1000);
      // the reserved blocks are on disk (allocated), not a hole
      expect(fs.statSync(file).blocks * 512).to.be.at.least(first);
      // a lone append within them is copied into the map
      mf.appendBuffer(Buffer.alloc(1000, 1));
      await mf.commit();
      expect([mf.copiesIntoMap, mf.commitWrites]).to.deep.equal([1, 0]);
      // a commit of more than a few pages is a write, wherever the reserved blocks end
      await until(() => mf.reservedAhead() >= ALLOCATE_AHEAD - 1000, 'the reservation ahead');
      mf.appendBuffer(Buffer.alloc(ALLOCATE_AHEAD + 1024 * 1024, 2));
      expect(mf.wrotePosition).to.be.greaterThan(1000 + mf.reservedAhead());
      await mf.commit();
      expect([mf.copiesIntoMap, mf.commitWrites]).to.deep.equal([1, 1]);
      // and a lone append after it, past the reserved blocks, too: then the next blocks are reserved again
      mf.appendBuffer(Buffer.alloc(100, 3));
      await mf.commit();
      expect([mf.copiesIntoMap, mf.commitWrites]).to.deep.equal([1, 2]);
      await until(() => mf.reservedAhead() > 0, 'the reservation after the write');
      mf.appendBuffer(Buffer.alloc(100, 4));
      await mf.commit();
      expect([mf.copiesIntoMap, mf.commitWrites]).to.deep.equal([2, 2]);
      const want = Buffer.concat([Buffer.alloc(1000, 1), Buffer.alloc(ALLOCATE_AHEAD + 1024 * 1024, 2), Buffer.alloc(100, 3), Buffer.alloc(100, 4)]);
      expect(fs.readFileSync(file).subarray(0, mf.wrotePosition).equals(want)).to.equal(true);
    } finally {
      await mf.close();
    }
  });

  it('writes each byte once under load: no zeros ahead of commits that are writes, and a run of zeros under way never lands on their bytes', async () => {
    const { mf, proto, realWrite } = await mappedWithWriteHook(path.join(dir, '00000000000000100000'), 128 * 1024 * 1024);
    let zeroBytes = 0;
    let slowZeros = true;
    proto.write = function (this: unknown, ...a: unknown[]) {
      const [buf, off, len] = a as [Buffer, number, number];
      if (!buf.subarray(off, off + len).some((b) => b !== 0)) {
        zeroBytes += len;
        // zeros slower than the data: a commit meets a run of them under way
        if (slowZeros) return new Promise((r) => setTimeout(r, 2)).then(() => realWrite.apply(this, a));
      }
      return realWrite.apply(this, a);
    };
    try {
      await mf.ensureWritable(1000);
      // the reservation ahead is running (slowly); 96 MiB arrive in 1 MiB commits, 4 in flight, as a loaded broker's
      const chunk = (i: number) => Buffer.alloc(1024 * 1024, (i % 250) + 1);
      const inFlight: Promise<void>[] = [];
      for (let i = 0; i < 96; i++) {
        mf.appendBuffer(chunk(i));
        inFlight.push(mf.commit());
        if (inFlight.length >= 4) await inFlight.shift();
      }
      await Promise.all(inFlight);
      slowZeros = false;
      // the zeros written are the first reservation's at most, not one per byte of data
      expect(zeroBytes).to.be.at.most(ALLOCATE_AHEAD + ZERO_WRITE);
      expect(mf.commitWrites).to.be.at.least(24);
      // every byte of data is in the file (no zero write overtook a commit)
      const fd = fs.openSync(mf.fileName, 'r');
      try {
        const got = Buffer.alloc(1024 * 1024);
        for (let i = 0; i < 96; i++) {
          fs.readSync(fd, got, 0, got.length, i * 1024 * 1024);
          expect(got.equals(chunk(i)), `MiB ${i}`).to.equal(true);
        }
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      proto.write = realWrite;
      await mf.close();
    }
  });

  it('reserves no blocks ahead while commits are writes: the tail of each tick copied into the map does not start a run of zeros under the writes', async () => {
    const { mf, proto, realWrite } = await mappedWithWriteHook(path.join(dir, '00000000000000200000'), 64 * 1024 * 1024);
    let zeroBytes = 0;
    proto.write = function (this: unknown, ...a: unknown[]) {
      const [buf, off, len] = a as [Buffer, number, number];
      if (!buf.subarray(off, off + len).some((b) => b !== 0)) zeroBytes += len;
      return realWrite.apply(this, a);
    };
    try {
      mf.reserveQuietMillis = 60_000;
      await mf.ensureWritable(1000);
      await until(() => mf.reservedAhead() >= ALLOCATE_AHEAD - 1000, 'the first reservation');
      const first = zeroBytes;
      // 12 MiB in ticks of a write (20 KiB, more than copyIntoMapMax) and a tail of 4 KiB: past the first reservation
      let k = 0;
      while (mf.wrotePosition < 12 * 1024 * 1024) {
        mf.appendBuffer(Buffer.alloc(20 * 1024, (k++ % 250) + 1));
        await mf.commit();
        mf.appendBuffer(Buffer.alloc(4 * 1024, (k++ % 250) + 1));
        await mf.commit();
      }
      // tails were copied while reserved blocks lasted, then written; no zeros beyond the first reservation
      expect(mf.copiesIntoMap).to.be.greaterThan(0);
      expect(zeroBytes).to.equal(first);
      expect(mf.reservedAhead()).to.equal(0);
      // quiet again (no write for the period): a lone put is written, and the blocks after it reserved
      mf.reserveQuietMillis = 20;
      await new Promise((r) => setTimeout(r, 30));
      const copies = mf.copiesIntoMap;
      mf.appendBuffer(Buffer.alloc(100, 7));
      await mf.commit();
      await until(() => mf.reservedAhead() > 0, 'the reservation once quiet');
      expect(zeroBytes).to.be.greaterThan(first);
      mf.appendBuffer(Buffer.alloc(100, 8));
      await mf.commit();
      expect(mf.copiesIntoMap).to.equal(copies + 1);
      // every byte as appended
      const fd = fs.openSync(mf.fileName, 'r');
      try {
        const got = Buffer.alloc(mf.wrotePosition);
        fs.readSync(fd, got, 0, got.length, 0);
        let p = 0;
        for (let i = 0; i < k; i++) {
          const len = i % 2 === 0 ? 20 * 1024 : 4 * 1024;
          expect(got.subarray(p, p + len).every((b) => b === (i % 250) + 1), `append ${i}`).to.equal(true);
          p += len;
        }
        expect(got.subarray(p, p + 100).every((b) => b === 7)).to.equal(true);
        expect(got.subarray(p + 100, p + 200).every((b) => b === 8)).to.equal(true);
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      proto.write = realWrite;
      await mf.close();
    }
  });

  it('reserves blocks in writes of ZERO_WRITE (64 KiB): a larger write makes larger page-cache folios, and each fdatasync writes a whole dirty folio', async () => {
    const { mf, proto, realWrite } = await mappedWithWriteHook(path.join(dir, '00000000000000200000'), 32 * 1024 * 1024);
    const sizes: number[] = [];
    proto.write = function (this: unknown, ...a: unknown[]) {
      const [buf, off, len] = a as [Buffer, number, number];
      if (!buf.subarray(off, off + len).some((b) => b !== 0)) sizes.push(len);
      return realWrite.apply(this, a);
    };
    try {
      await mf.ensureWritable(1000);
      // lone puts, each copied into the map, keep the reservation going ahead of them
      for (let i = 0; i < 3 * 1024; i++) {
        mf.appendBuffer(Buffer.alloc(4096, 1));
        await mf.commit();
        if (mf.reservedAhead() === 0) await until(() => mf.reservedAhead() > 0, 'the reservation ahead');
      }
      expect(mf.copiesIntoMap).to.be.greaterThan(0);
      expect(sizes.reduce((a, b) => a + b, 0)).to.be.at.least(12 * 1024 * 1024);
      expect(Math.max(...sizes)).to.equal(ZERO_WRITE);
      expect(ZERO_WRITE).to.be.at.most(64 * 1024);
    } finally {
      proto.write = realWrite;
      await mf.close();
    }
  });

  it('a full disk: a copy into the map stays within reserved blocks, the commit past them is refused; nothing crashes or is lost; commits resume once there is room', async () => {
    const { mf, proto, realWrite } = await mappedWithWriteHook(path.join(dir, '00000000000000300000'), 64 * 1024 * 1024);
    let refused = 0;
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown): void => { unhandled.push(e); };
    process.on('unhandledRejection', onUnhandled);
    const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const realWritev = (proto as unknown as { writev: WriteFn }).writev;
    try {
      await mf.ensureWritable(1);
      await until(() => mf.reservedAhead() >= ALLOCATE_AHEAD - 1, 'the reservation ahead');
      const first = mf.reservedAhead();
      // the disk is full from now on: every write fails as the kernel says so
      proto.write = function () {
        refused++;
        return Promise.reject(enospc());
      };
      (proto as unknown as { writev: WriteFn }).writev = proto.write;
      // a lone append within the reserved blocks is copied (and starts a background reservation that fails)
      mf.appendBuffer(Buffer.alloc(first - 100, 2));
      mf.copyIntoMapMax = first;
      await mf.commit();
      expect(mf.copiesIntoMap).to.equal(1);
      await until(() => refused >= 1, 'the failed reservation');
      // past them: refused by the write, the bytes stay pending
      mf.appendBuffer(Buffer.alloc(4096, 3));
      const err = await mf.commit().then(() => null, (e: Error) => e);
      expect(err?.message).to.match(/ENOSPC/);
      expect(mf.copiesIntoMap).to.equal(1);
      expect(mf.committedPosition).to.equal(first - 100);
      expect(mf.pendingBytes()).to.equal(4096);
      // room again
      proto.write = realWrite;
      (proto as unknown as { writev: WriteFn }).writev = realWritev;
      await mf.commit();
      expect(mf.pendingBytes()).to.equal(0);
      const got = Buffer.alloc(4096);
      const fd = fs.openSync(mf.fileName, 'r');
      try {
        fs.readSync(fd, got, 0, 4096, first - 100);
      } finally {
        fs.closeSync(fd);
      }
      expect(got.equals(Buffer.alloc(4096, 3))).to.equal(true);
      await new Promise((r) => setImmediate(r));
      expect(unhandled).to.deep.equal([]);
    } finally {
      proto.write = realWrite;
      (proto as unknown as { writev: WriteFn }).writev = realWritev;
      process.off('unhandledRejection', onUnhandled);
      await mf.close();
    }
  });

  it('truncateTo zeroes the cut bytes through the map and keeps the file at its size', async () => {
    const file = path.join(dir, '00000000000000100000');
    const mf = await MappedFile.create(file, 1024 * 1024, 64 * 1024);
    mf.wantMap = true;
    try {
      await mf.ensureWritable(9000);
      mf.appendBuffer(Buffer.alloc(9000, 9));
      await mf.truncateTo(4000);
      expect(mf.wrotePosition).to.equal(4000);
      expect(fs.statSync(file).size).to.equal(1024 * 1024);
      const bytes = fs.readFileSync(file);
      expect(bytes.subarray(0, 4000).equals(Buffer.alloc(4000, 9))).to.equal(true);
      expect(bytes.subarray(4000, 9000).equals(Buffer.alloc(5000))).to.equal(true);
      expect((await mf.read(3000, 1000))!.equals(Buffer.alloc(1000, 9))).to.equal(true);
      expect(await mf.read(3000, 2000)).to.equal(null);
    } finally {
      await mf.close();
    }
  });
});
