/**
 * Runs test/helpers/store-crash-child.js on a store until it printed DONE, then kills it with SIGKILL (the store is
 * left as a crash leaves it): its measurement rows. Shared by the store benchmark's kill -9 rows (bench/store.ts) and
 * their test (test/unit/store/crash.test.ts).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { CrashChildRow } from './store-crash-child';

export type { CrashChildRow } from './store-crash-child';

const CRASH_CHILD = path.join(__dirname, 'store-crash-child.js');

export function runStoreCrashChild(dir: string, fileSize: number, warmup: number, count1: number, count16: number): Promise<CrashChildRow[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CRASH_CHILD, dir, String(fileSize), String(warmup), String(count1), String(count16)],
      // the recovery after each kill -9 logs a warning by design: errors only, unless a level is asked for
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ROCKETMQ_LOG_LEVEL: process.env.ROCKETMQ_LOG_LEVEL ?? 'error' } });
    const rows: CrashChildRow[] = [];
    let out = '';
    let done = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        if (line.startsWith('{')) rows.push(JSON.parse(line) as CrashChildRow);
        if (line === 'DONE' && !done) {
          done = true;
          child.kill('SIGKILL');
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => (done ? resolve(rows) : reject(new Error(`store-crash-child exited ${code ?? signal} before DONE`))));
  });
}
