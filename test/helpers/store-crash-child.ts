/**
 * Child process of the store benchmark's kill -9 rows (bench/store.ts) and of their test (test/unit/store/crash.test.ts):
 * opens a SYNC_FLUSH store (recovering it after a crash when its abort file is there), appends `warmup` puts x16 that are not counted (the same JIT warm-up in a
 * fresh process and in a restarted one), then `count1` puts x1 and `count16` puts x16, printing one JSON line per
 * measurement (with the bytes this process wrote to the disk per put, from /proc/self/io where there is one), then
 * `DONE`, and waits to be killed.
 *
 *   node dist/test/helpers/store-crash-child.js <storeDir> <mappedFileSizeCommitLog> <warmup> <count1> <count16>
 */
import fs from 'node:fs';
import { DefaultMessageStore } from '../../lib/store/message-store';

export interface CrashChildRow {
  inFlight: number;
  puts: number;
  seconds: number;
  /** Bytes written to the disk per put (/proc/self/io write_bytes), null where that file is missing. */
  writeBytesPerPut: number | null;
  /** CPU time of this process (user + system) per put, in µs. */
  cpuMicrosPerPut: number;
  /** Of that, system time (the kernel: faults, writes, fdatasync), in µs. */
  systemMicrosPerPut: number;
  /** Milliseconds from the store's construction to start() resolved (the recovery after a crash included). */
  startMs: number;
}

function writeBytes(): number | null {
  try {
    const m = /^write_bytes: (\d+)$/m.exec(fs.readFileSync('/proc/self/io', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const [dir, fileSize, warmup, count1, count16] = process.argv.slice(2);
  const t0 = performance.now();
  const store = new DefaultMessageStore({
    storePathRootDir: dir, flushDiskType: 'SYNC_FLUSH', mappedFileSizeCommitLog: Number(fileSize), messageIndexEnable: false,
  });
  await store.start();
  const startMs = performance.now() - t0;
  const body = Buffer.alloc(1024 - 150, 7);
  const message = (i: number) => ({
    topic: 'CrashBench', queueId: i % 4, flag: 0, body, propertiesString: 'TAGS\u0001a\u0002', bornTimestamp: Date.now(),
    bornHost: { host: '127.0.0.1', port: 1 }, sysFlag: 0, reconsumeTimes: 0, preparedTransactionOffset: 0,
  });
  const run = async (inFlight: number, count: number): Promise<number> => {
    let next = 0;
    const t = performance.now();
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next < count) {
        const r = await store.putMessage(message(next++));
        if (r.putMessageStatus !== 'PUT_OK') throw new Error(`put: ${r.putMessageStatus}`);
      }
    }));
    return (performance.now() - t) / 1000;
  };
  await run(16, Number(warmup));
  for (const [inFlight, count] of [[1, Number(count1)], [16, Number(count16)]]) {
    const w0 = writeBytes();
    const c0 = process.cpuUsage();
    const seconds = await run(inFlight, count);
    const cpu = process.cpuUsage(c0);
    const w1 = writeBytes();
    const row: CrashChildRow = {
      inFlight, puts: count, seconds, writeBytesPerPut: w0 === null || w1 === null ? null : (w1 - w0) / count,
      cpuMicrosPerPut: (cpu.user + cpu.system) / count, systemMicrosPerPut: cpu.system / count, startMs,
    };
    process.stdout.write(`${JSON.stringify(row)}\n`);
  }
  process.stdout.write('DONE\n');
  // Killed by the parent (kill -9): the store is left as a crash leaves it.
  setInterval(() => undefined, 1 << 30);
}

// only as a child process: a test runner given this folder loads it too
if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${String((err as Error)?.stack ?? err)}\n`);
    process.exit(1);
  });
}
