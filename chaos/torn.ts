/**
 * Torn writes, as a power cut leaves them, applied to a stopped broker's store (Java's file layout):
 *   - the commit log's last record half written (its first half after the last good record, the rest zeros);
 *   - a consume queue cut in the middle of an entry;
 *   - a checkpoint of zeros;
 *   - an index file cut short (inside its 40-byte header).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const MESSAGE_MAGIC_CODE = -626843481;
const MESSAGE_MAGIC_CODE_V2 = -626843477;
const CQ_UNIT = 20;

export interface TornReport {
  /** Commit-log position where the half record was written, and its length in full. */
  commitLogTornAt: number;
  tornRecordSize: number;
  consumeQueueCut: string | null;
  indexCut: string | null;
}

/** Where the good records of a commit-log file end, and where the last one starts. */
function scanCommitLog(buf: Buffer): { end: number; lastStart: number } {
  let pos = 0;
  let lastStart = -1;
  while (pos + 8 <= buf.length) {
    const size = buf.readInt32BE(pos);
    const magic = buf.readInt32BE(pos + 4);
    if (size <= 0 || pos + size > buf.length || (magic !== MESSAGE_MAGIC_CODE && magic !== MESSAGE_MAGIC_CODE_V2)) break;
    lastStart = pos;
    pos += size;
  }
  return { end: pos, lastStart };
}

export function tearStore(storeRoot: string): TornReport {
  // Commit log: the newest file holding records.
  const clDir = path.join(storeRoot, 'commitlog');
  const files = fs.readdirSync(clDir).filter((f) => /^\d{20}$/.test(f)).sort();
  let report: TornReport | null = null;
  for (const f of files.reverse()) {
    const file = path.join(clDir, f);
    const buf = fs.readFileSync(file);
    const { end, lastStart } = scanCommitLog(buf);
    if (lastStart < 0) continue;
    const size = end - lastStart;
    const half = buf.subarray(lastStart, lastStart + (size >> 1));
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, half, 0, half.length, end);
    fs.closeSync(fd);
    report = { commitLogTornAt: Number(f) + end, tornRecordSize: size, consumeQueueCut: null, indexCut: null };
    break;
  }
  if (!report) throw new Error(`no record found in ${clDir}`);
  // A consume queue: the first queue with entries, cut 7 bytes into its last entry.
  const cqRoot = path.join(storeRoot, 'consumequeue');
  outer: for (const topic of fs.existsSync(cqRoot) ? fs.readdirSync(cqRoot) : []) {
    for (const q of fs.readdirSync(path.join(cqRoot, topic))) {
      for (const f of fs.readdirSync(path.join(cqRoot, topic, q))) {
        const file = path.join(cqRoot, topic, q, f);
        const buf = fs.readFileSync(file);
        let n = 0;
        while ((n + 1) * CQ_UNIT <= buf.length && buf.readInt32BE(n * CQ_UNIT + 8) > 0) n++; // the entry's size field
        if (n < 2) continue;
        fs.truncateSync(file, (n - 1) * CQ_UNIT + 7);
        report.consumeQueueCut = `${topic}/${q}/${f} at ${(n - 1) * CQ_UNIT + 7} (${n} entries)`;
        break outer;
      }
    }
  }
  // Checkpoint: zeros over its whole length.
  const cp = path.join(storeRoot, 'checkpoint');
  if (fs.existsSync(cp)) fs.writeFileSync(cp, Buffer.alloc(fs.statSync(cp).size || 4096));
  // Index: the newest file cut inside its header.
  const ixDir = path.join(storeRoot, 'index');
  const ix = fs.existsSync(ixDir) ? fs.readdirSync(ixDir).sort().pop() : undefined;
  if (ix) {
    fs.truncateSync(path.join(ixDir, ix), 30);
    report.indexCut = ix;
  }
  return report;
}
