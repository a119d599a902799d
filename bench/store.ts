/**
 * Store benchmark: appends of 1 KiB messages under ASYNC_FLUSH and SYNC_FLUSH next to a plain sequential write
 * of the same bytes to the same disk (and that write with each record's body CRC computed, the floor of the format),
 * and read throughput of one queue (right after writing, and after reopening the store, when nothing is left in the
 * store's memory; the OS page cache may still hold the data). The store writes its default way (through memory maps
 * when the binding loads); one row writes through write segments (transientStorePoolEnable=true) for comparison.
 * Beside ours, the Java 4.9.8 store (DefaultMessageStore, ../shared/javaref) appends the same messages the same ways
 * (bench/java/JavaStoreBench.java, a JVM per row, JIT warmed first); without Java those rows are left out with a line
 * saying why. Last, SYNC_FLUSH x1 and x16 in child processes (test/helpers/store-crash-child.ts): fresh stores and, in
 * turn with them, the same stores restarted after kill -9 of their process, each restart with its share of the fresh
 * stores' rate beside it.
 * Beside the raw writes, the minimal put loop of this format (minimalPutRun): the ceiling of any store of it here.
 * Run: `node dist/bench/store.js [--json] [--no-java] [--crash-only]`.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DefaultMessageStore } from '../lib/store/message-store';
import { crc32 } from '../protocol/message/compression';
import { javaSkipReason, makeRunDir, runJavaSource } from '../test/helpers/javaref';
import { type CrashChildRow, runStoreCrashChild } from '../test/helpers/store-crash-run';
import { benchUsage, readBenchOptions, runBenchScript } from './bench-util';

export interface StoreBenchRow {
  scenario: string;
  messages: number;
  megabytes: number;
  seconds: number;
  mbPerSec: number;
  msgPerSec: number;
  /** Kill -9 rows: bytes the store process wrote to the disk per put (/proc/self/io), when known. */
  writeBytesPerPut?: number | null;
  /** Kill -9 rows: CPU time of the store process per put, µs. */
  cpuMicrosPerPut?: number;
  /** Kill -9 rows: of that, system time, µs. */
  systemMicrosPerPut?: number;
  /** Kill -9 rows: milliseconds the store took to start (its recovery after a crash included). */
  startMs?: number;
}

const MSG_SIZE = 1024;

/** The message every append of this bench puts (the Java store's are alike: bench/java/JavaStoreBench.java). */
function benchMessage(i: number, body: Buffer) {
  return {
    topic: 'BenchTopic', queueId: i % 4, flag: 0, body, propertiesString: 'TAGS\u0001a\u0002', bornTimestamp: Date.now(),
    bornHost: { host: '127.0.0.1', port: 1 }, sysFlag: 0, reconsumeTimes: 0, preparedTransactionOffset: 0,
  };
}

function row(scenario: string, messages: number, bytes: number, ms: number): StoreBenchRow {
  const seconds = ms / 1000;
  return { scenario, messages, megabytes: bytes / 1048576, seconds, mbPerSec: bytes / 1048576 / seconds, msgPerSec: messages / seconds };
}

/**
 * The same bytes written in 4 MiB chunks; with `crcPerRecord`, each chunk first gets the CRC of every 1 KiB record's
 * 874-byte body computed, as the store must (its BODYCRC field): the least work any store of this format does.
 */
async function rawWrite(dir: string, bytes: number, label = 'plain sequential write (no fsync)', crcPerRecord = false): Promise<StoreBenchRow> {
  const fh = await fs.open(path.join(dir, 'raw.bin'), 'w');
  const chunk = Buffer.alloc(4 * 1024 * 1024, 1);
  const t0 = performance.now();
  let pos = 0;
  while (pos < bytes) {
    const n = Math.min(chunk.length, bytes - pos);
    if (crcPerRecord) for (let r = 0; r + MSG_SIZE <= n; r += MSG_SIZE) crc32(chunk, r + 150, r + MSG_SIZE);
    await fh.write(chunk, 0, n, pos);
    pos += n;
  }
  const ms = performance.now() - t0;
  await fh.close();
  await fs.rm(path.join(dir, 'raw.bin'));
  return row(label, Math.floor(bytes / MSG_SIZE), bytes, ms);
}

/**
 * The least work a put of this format does in this runtime, with no store around it: `inFlight` callers in turn each
 * hand over a message object like the store's and await one promise per put; each record is encoded in full (its
 * fixed fields, the body's CRC, the body, topic and properties) into one of reused 4 MiB buffers, a 20-byte
 * consume-queue entry beside it, and a full buffer is written at its offset, its puts answered when the write
 * completes. No locks, maps, dispatch, index or memory map: what is left is the format's work and the API's shape,
 * the ceiling of any store of this format on one JavaScript thread.
 */
export async function minimalPutRun(dir: string, count: number, inFlight: number): Promise<StoreBenchRow> {
  const CHUNK = 4 * 1024 * 1024;
  const fh = await fs.open(path.join(dir, 'minimal.bin'), 'w');
  const pool = [Buffer.alloc(CHUNK), Buffer.alloc(CHUNK), Buffer.alloc(CHUNK)];
  const views = pool.map((b) => new DataView(b.buffer, b.byteOffset, b.length));
  const busy = pool.map(() => false);
  const cq = Buffer.alloc(20 * 65536);
  const cqView = new DataView(cq.buffer, cq.byteOffset, cq.length);
  const topic = Buffer.from('BenchTopic');
  const props = Buffer.from('TAGS\u0001a\u0002');
  const body = Buffer.alloc(MSG_SIZE - 150, 7);
  let current = 0;
  let pos = 0;
  let fileOffset = 0;
  let cqPos = 0;
  let queueOffset = 0;
  let waiting: Array<() => void> = [];
  let writes: Promise<void> = Promise.resolve();
  let flushScheduled: NodeJS.Immediate | null = null;
  const flush = (): void => {
    const buf = pool[current];
    const n = pos;
    const at = fileOffset;
    const answer = waiting;
    waiting = [];
    const i = current;
    busy[i] = true;
    fileOffset += n;
    current = busy.indexOf(false);
    if (current < 0) { // every buffer still waits for its write: one more (a buffer is never reused before written)
      pool.push(Buffer.alloc(CHUNK));
      views.push(new DataView(pool[pool.length - 1].buffer, pool[pool.length - 1].byteOffset, CHUNK));
      busy.push(false);
      current = pool.length - 1;
    }
    pos = 0;
    writes = writes.then(async () => {
      await fh.write(buf, 0, n, at);
      busy[i] = false;
      for (const done of answer) done();
    });
  };
  const encode = (m: { queueId: number; body: Buffer; bornTimestamp: number }): number => {
    const len = 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + 8 + 8 + 8 + 4 + 8 + 4 + m.body.length + 1 + topic.length + 2 + props.length;
    if (pos + len > CHUNK) flush();
    const b = pool[current];
    const v = views[current];
    const p = pos;
    const phy = fileOffset + p;
    v.setInt32(p, len); v.setInt32(p + 4, -626843481); v.setInt32(p + 8, crc32(m.body) & 0x7fffffff);
    v.setInt32(p + 12, m.queueId); v.setInt32(p + 16, 0);
    v.setInt32(p + 20, Math.floor(queueOffset / 4294967296)); v.setUint32(p + 24, queueOffset >>> 0);
    v.setInt32(p + 28, Math.floor(phy / 4294967296)); v.setUint32(p + 32, phy >>> 0); v.setInt32(p + 36, 0);
    v.setInt32(p + 40, Math.floor(m.bornTimestamp / 4294967296)); v.setUint32(p + 44, m.bornTimestamp >>> 0);
    v.setUint32(p + 48, 0x7f000001); v.setInt32(p + 52, 1);
    const now = Date.now();
    v.setInt32(p + 56, Math.floor(now / 4294967296)); v.setUint32(p + 60, now >>> 0);
    v.setUint32(p + 64, 0x7f000001); v.setInt32(p + 68, 10911); v.setInt32(p + 72, 0);
    v.setInt32(p + 76, 0); v.setInt32(p + 80, 0); v.setInt32(p + 84, m.body.length);
    m.body.copy(b, p + 88);
    let q = p + 88 + m.body.length;
    b[q++] = topic.length;
    topic.copy(b, q);
    q += topic.length;
    v.setInt16(q, props.length);
    props.copy(b, q + 2);
    pos += len;
    if (cqPos === cq.length) cqPos = 0;
    cqView.setInt32(cqPos, Math.floor(phy / 4294967296)); cqView.setUint32(cqPos + 4, phy >>> 0);
    cqView.setInt32(cqPos + 8, len); cqView.setInt32(cqPos + 12, 0); cqView.setInt32(cqPos + 16, 0);
    cqPos += 20;
    queueOffset++;
    return len;
  };
  const put = (m: { queueId: number; body: Buffer; bornTimestamp: number }): Promise<number> => {
    const len = encode(m);
    return new Promise((resolve) => {
      waiting.push(() => resolve(len));
      flushScheduled ??= setImmediate(() => {
        flushScheduled = null;
        flush();
      });
    });
  };
  let next = 0;
  let bytes = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < count) {
      const n = await put(benchMessage(next++, body));
      bytes += n;
    }
  }));
  await writes;
  const ms = performance.now() - t0;
  await fh.close();
  await fs.rm(path.join(dir, 'minimal.bin'));
  return row(`minimal put loop x${inFlight} (no store)`, count, bytes, ms);
}

/**
 * `inFlight` puts at once, each awaited on its own (`single`, putMessage), or `lists` of `inFlight` messages handed
 * to putMessageList (the batch-level put: one promise and one wait for the OS per list), two lists in flight, or
 * `coalesced`: `inFlight` puts at once through putMessageCoalesced (the broker's send path).
 */
async function appendRun(dir: string, flush: 'ASYNC_FLUSH' | 'SYNC_FLUSH', count: number, inFlight: number, mode: 'single' | 'list' | 'coalesced' = 'single',
  transientStorePoolEnable = false): Promise<{ row: StoreBenchRow; store: DefaultMessageStore }> {
  const store = new DefaultMessageStore({
    storePathRootDir: dir, flushDiskType: flush, mappedFileSizeCommitLog: 256 * 1024 * 1024, maxHashSlotNum: 100000, maxIndexNum: 400000,
    messageIndexEnable: false, transientStorePoolEnable,
  });
  await store.start();
  const body = Buffer.alloc(MSG_SIZE - 150, 7); // ~1 KiB per stored record with header, topic and properties
  let next = 0;
  let bytes = 0;
  const t0 = performance.now();
  const put = mode === 'coalesced' ? store.putMessageCoalesced.bind(store) : store.putMessage.bind(store);
  const worker = async (): Promise<void> => {
    while (next < count) {
      const r = await put(benchMessage(next++, body));
      bytes += r.appendMessageResult?.wroteBytes ?? 0;
    }
  };
  const listWorker = async (): Promise<void> => {
    while (next < count) {
      const n = Math.min(inFlight, count - next);
      const msgs = Array.from({ length: n }, () => benchMessage(next++, body));
      for (const r of await store.putMessageList(msgs)) bytes += r.appendMessageResult?.wroteBytes ?? 0;
    }
  };
  if (mode === 'list') await Promise.all([listWorker(), listWorker()]);
  else await Promise.all(Array.from({ length: inFlight }, worker));
  const ms = performance.now() - t0;
  const label = (mode === 'list' ? `store append ${flush} lists of ${inFlight}` : `store append ${flush} x${inFlight}${mode === 'coalesced' ? ' coalesced' : ''}`) +
    (transientStorePoolEnable ? ' (write segments)' : store.commitLog.writeMode === 'mapped' ? '' : ` (${store.commitLog.writeMode})`);
  return { row: row(label, count, bytes, ms), store };
}

const JAVA_STORE_BENCH = path.resolve(__dirname, '..', '..', 'bench', 'java', 'JavaStoreBench.java');

/**
 * The Java 4.9.8 store fed the same messages (bench/java/JavaStoreBench.java): its rows, the put's answer and, for
 * ASYNC_FLUSH, the moment its consume queues hold every message (Java builds them on a thread of its own).
 */
async function javaAppendRun(dir: string, flush: 'ASYNC_FLUSH' | 'SYNC_FLUSH', count: number, inFlight: number, warmup: number): Promise<StoreBenchRow[]> {
  const runDir = makeRunDir('rmq-bench-jstore-');
  try {
    const r = await runJavaSource('4.9.8', JAVA_STORE_BENCH, [dir, flush, String(count), String(inFlight), String(warmup)], { runDir, timeoutMs: 300_000 });
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as StoreBenchRow);
    if (rows.length === 0) throw new Error(`the Java store bench printed no row (exit ${r.code}): ${(r.stderr || r.stdout).slice(-400)}`);
    return flush === 'ASYNC_FLUSH' ? rows : rows.slice(0, 1);
  } finally {
    await fs.rm(runDir, { recursive: true, force: true });
  }
}


/**
 * SYNC_FLUSH x1 and x16 in child processes, fresh stores and stores restarted after kill -9 in turn: fresh store 1,
 * kill -9, the same store again (restart 1), fresh store 2 in a directory of its own, kill -9, store 2 again
 * (restart 2), ..., and a last fresh store, so that a drift of the machine's load counts alike for both kinds. Each
 * process warms up alike first. A restart's row says its share of the mean of the fresh stores measured just before
 * and just after it (the target: at least 0.9). A window of 3,000 lone puts (under half a second) moved by 0.76-1.24x
 * against its neighbours with the same bytes written and the same CPU per put, so the windows are twice that and the
 * figure is the median of five restarts.
 */
/** Restarts after kill -9 per run of crashRestartRuns: the target is their median. */
export const CRASH_RESTARTS = 5;

export async function crashRestartRuns(dir: string, restarts = CRASH_RESTARTS, fileSize = 1024 * 1024 * 1024,
  counts = { warmup: 5000, x1: 6000, x16: 60000 }): Promise<StoreBenchRow[]> {
  const rows: StoreBenchRow[] = [];
  const add = (got: CrashChildRow[], what: string) => {
    for (const r of got) {
      const b = row(`store SYNC_FLUSH x${r.inFlight} ${what}`, r.puts, r.puts * MSG_SIZE, r.seconds * 1000);
      b.writeBytesPerPut = r.writeBytesPerPut;
      b.cpuMicrosPerPut = r.cpuMicrosPerPut;
      b.systemMicrosPerPut = r.systemMicrosPerPut;
      b.startMs = r.startMs;
      rows.push(b);
    }
  };
  for (let i = 1; i <= restarts + 1; i++) {
    const storeDir = path.join(dir, `s${i}`);
    add(await runStoreCrashChild(storeDir, fileSize, counts.warmup, counts.x1, counts.x16), `fresh store (${i})`);
    if (i <= restarts) add(await runStoreCrashChild(storeDir, fileSize, counts.warmup, counts.x1, counts.x16), `after kill -9 (${i})`);
    await fs.rm(path.join(dir, `s${i - 1}`), { recursive: true, force: true });
  }
  return rows;
}

/**
 * SYNC_FLUSH x1: rounds of ours and the Java store in turn. A run of 5,000 lone puts lasts about a second, within one
 * phase of the disk's speed (a round moves by up to 2x against the next on this project's machines), so each side's
 * figure is pooled over rounds that alternate with the other side's.
 */
const SYNC_X1_ROUNDS = 3;

/** One round: its row. More: each round's row (`... (round k)`), then their pooled row under the plain name. */
function pooledRounds(rounds: StoreBenchRow[]): StoreBenchRow[] {
  if (rounds.length <= 1) return rounds;
  const sum = (f: (r: StoreBenchRow) => number) => rounds.reduce((acc, r) => acc + f(r), 0);
  return [...rounds.map((r, k) => ({ ...r, scenario: `${r.scenario} (round ${k + 1})` })),
    row(rounds[0].scenario, sum((r) => r.messages), sum((r) => r.megabytes * 1048576), sum((r) => r.seconds * 1000))];
}

async function readQueue(store: DefaultMessageStore, label: string): Promise<StoreBenchRow> {
  const t0 = performance.now();
  let n = 0;
  let bytes = 0;
  for (let q = 0; q < 4; q++) {
    let off = 0;
    for (;;) {
      const r = await store.getMessage('G', 'BenchTopic', q, off, 32);
      if (r.messages.length === 0) break;
      n += r.messages.length;
      bytes += r.bufferTotalSize;
      off = r.nextBeginOffset;
    }
  }
  return row(label, n, bytes, performance.now() - t0);
}

export async function runStoreBench(opts: { asyncMessages?: number; syncMessages?: number; java?: boolean } = {}): Promise<StoreBenchRow[]> {
  const asyncCount = opts.asyncMessages ?? 200_000;
  const syncCount = opts.syncMessages ?? 50_000;
  const javaSkip = opts.java === false ? 'left out (--no-java)' : javaSkipReason('4.9.8');
  if (javaSkip) process.stderr.write(`store bench: the Java store is ${javaSkip.startsWith('left out') ? javaSkip : `left out: ${javaSkip}`}\n`);
  const rows: StoreBenchRow[] = [];
  const base = await fs.mkdtemp(path.join(os.tmpdir(), 'rmq-bench-store-'));
  try {
    const a = await appendRun(path.join(base, 'async'), 'ASYNC_FLUSH', asyncCount, 512);
    rows.push(await rawWrite(base, a.row.megabytes * 1048576));
    rows.push(a.row);
    rows.push(await readQueue(a.store, 'read queue (just written)'));
    await a.store.shutdown();
    const reopened = new DefaultMessageStore({ storePathRootDir: path.join(base, 'async'), mappedFileSizeCommitLog: 256 * 1024 * 1024, messageIndexEnable: false });
    await reopened.start();
    rows.push(await readQueue(reopened, 'read queue (reopened store)'));
    rows.push(await readQueue(reopened, 'read queue (warm, second pass)'));
    await reopened.shutdown();
    // The rows compared with the Java store and the minimal loop get the warm-up the Java store gets (half the count
    // into a store of its own, the same way, first): both sides measured warm, not one side's JIT at work.
    const asyncWarmup = Math.round(asyncCount / 2);
    for (const [mode, segments] of [['list', false], ['coalesced', false], ['coalesced', true]] as const) {
      for (const [sub, n] of [['warmup', asyncWarmup], ['run', asyncCount]] as const) {
        const runDir = path.join(base, `async-${mode}${segments ? '-segments' : ''}-${sub}`);
        const other = await appendRun(runDir, 'ASYNC_FLUSH', n, 512, mode, segments);
        if (sub === 'run') rows.push(other.row);
        await other.store.shutdown();
        await fs.rm(runDir, { recursive: true, force: true });
      }
    }
    // The raw write again, after the store runs, so a slower or faster disk phase shows.
    rows.push(await rawWrite(base, a.row.megabytes * 1048576, 'plain sequential write, again'));
    rows.push(await rawWrite(base, a.row.megabytes * 1048576, 'raw write with a body CRC per record', true));
    await minimalPutRun(base, asyncWarmup, 512);
    rows.push(await minimalPutRun(base, asyncCount, 512));
    if (!javaSkip) rows.push(...await javaAppendRun(path.join(base, 'java-async'), 'ASYNC_FLUSH', asyncCount, 512, asyncCount / 2));
    for (const inFlight of [1, 64, 512]) {
      const count = inFlight === 1 ? Math.min(syncCount, 5000) : syncCount;
      const rounds = inFlight === 1 ? SYNC_X1_ROUNDS : 1;
      const ours: StoreBenchRow[] = [];
      const java: StoreBenchRow[] = [];
      for (let k = 1; k <= rounds; k++) {
        // A warm-up into a store of its own first, as the Java store gets one.
        for (const [sub, n] of [['warmup', Math.round(count / 2)], ['run', count]] as const) {
          const runDir = path.join(base, `sync${inFlight}-${sub}`);
          const s = await appendRun(runDir, 'SYNC_FLUSH', n, inFlight);
          if (sub === 'run') ours.push(s.row);
          await s.store.shutdown();
          await fs.rm(runDir, { recursive: true, force: true });
        }
        if (!javaSkip) java.push(...await javaAppendRun(path.join(base, `java-sync${inFlight}`), 'SYNC_FLUSH', count, inFlight, Math.round(count / 2)));
      }
      rows.push(...pooledRounds(ours), ...pooledRounds(java));
    }
    // SYNC_FLUSH before and after kill -9 of the store's process (a child process), on the same store.
    rows.push(...await crashRestartRuns(path.join(base, 'crash')));
    await fs.rm(path.join(base, 'crash'), { recursive: true, force: true });
  } finally {
    await fs.rm(base, { recursive: true, force: true });
  }
  return rows;
}

/**
 * Each ASYNC_FLUSH append's MB/s as a share of the mean of the run's two plain writes (one before, one after the
 * store runs, so a slower or faster disk phase counts for both sides); null without a plain write.
 */
export function ratioOfPlainWrite(rows: readonly StoreBenchRow[], r: StoreBenchRow): number | null {
  const raws = rows.filter((x) => x.scenario.startsWith('plain'));
  if (raws.length === 0 || !/^(Java )?store append ASYNC/.test(r.scenario)) return null;
  const mean = raws.reduce((s, x) => s + x.mbPerSec, 0) / raws.length;
  return r.mbPerSec / mean;
}

/**
 * A row after a kill -9 restart: its msg/s as a share of the mean of the fresh stores' rows of the same x measured
 * just before and just after it (restart i lies between fresh stores i and i + 1); else null.
 */
export function ratioOfFresh(rows: readonly StoreBenchRow[], r: StoreBenchRow): number | null {
  const m = /^store SYNC_FLUSH (x\d+) after kill -9 \((\d+)\)$/.exec(r.scenario);
  if (!m) return null;
  const i = Number(m[2]);
  const fresh = [i, i + 1].map((k) => rows.find((x) => x.scenario === `store SYNC_FLUSH ${m[1]} fresh store (${k})`))
    .filter((x): x is StoreBenchRow => x !== undefined);
  return fresh.length ? r.msgPerSec / (fresh.reduce((sum, x) => sum + x.msgPerSec, 0) / fresh.length) : null;
}

export function printStoreBench(rows: StoreBenchRow[]): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  const raws = rows.filter((r) => r.scenario.startsWith('plain'));
  const mean = raws.length ? raws.reduce((s, x) => s + x.mbPerSec, 0) / raws.length : 0;
  console.log(pad('scenario', 48) + pad('messages', 10) + pad('MB', 10) + pad('MB/s', 10) + pad('msg/s', 10) +
    `of plain write (mean of ${raws.length}: ${mean.toFixed(1)} MB/s)`);
  for (const r of rows) {
    const ratio = ratioOfPlainWrite(rows, r);
    const fresh = ratioOfFresh(rows, r);
    const crash = r.startMs === undefined ? '' : `start ${r.startMs.toFixed(0)} ms` +
      (r.writeBytesPerPut == null ? '' : `, ${Math.round(r.writeBytesPerPut)} B written per put`) +
      (r.cpuMicrosPerPut === undefined ? '' : `, ${r.cpuMicrosPerPut.toFixed(1)} µs CPU per put (${(r.systemMicrosPerPut ?? 0).toFixed(1)} system)`) + (fresh === null ? '' : `, ${fresh.toFixed(2)}x the fresh stores beside it`);
    console.log(pad(r.scenario, 48) + pad(String(r.messages), 10) + pad(r.megabytes.toFixed(1), 10) + pad(r.mbPerSec.toFixed(1), 10) +
      pad(String(Math.round(r.msgPerSec)), 10) + (ratio === null ? '' : `${(ratio * 100).toFixed(0)} %`) + crash);
  }
}

const STORE_OPTIONS = { '--json': 'flag', '--no-java': 'flag', '--crash-only': 'flag' } as const;

if (require.main === module) {
  // --json: the rows as one JSON array (bench/matrix.ts runs this file in a process of its own); --crash-only: only the
  // kill -9 rows (in a temp dir of their own)
  runBenchScript(benchUsage(STORE_OPTIONS), async (argv) => {
    const o = readBenchOptions(argv, STORE_OPTIONS);
    let rows: StoreBenchRow[];
    if (o.has('--crash-only')) {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rmq-bench-store-crash-'));
      try {
        rows = await crashRestartRuns(dir);
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    } else {
      rows = await runStoreBench({ java: !o.has('--no-java') });
    }
    if (o.has('--json')) process.stdout.write(`${JSON.stringify(rows)}\n`);
    else printStoreBench(rows);
  });
}
