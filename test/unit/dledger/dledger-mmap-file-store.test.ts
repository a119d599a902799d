import { expect } from 'chai';
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
});
