/**
 * `npm run test:stress`: runs the test suite several times in a row while busy-loop processes keep every core
 * occupied, and prints each run's totals and failures. A test that passes on a quiet machine and fails here depends
 * on wall-clock speed. Not part of `npm test`.
 *
 *   npm run test:stress                                   5 runs of the whole suite, 2 busy loops at nice 0
 *   npm run test:stress -- --runs 20 dist/test/unit/producer/default-mq-producer.test.js
 *   npm run test:stress -- --nice 10 --test-nice 10      the same contention, yielding to others' work on a shared machine
 *
 * Options: --runs N (default 5), --busy N (busy-loop processes, default 2), --nice N (their niceness, default 0),
 * --test-nice N (mocha's niceness, default 0; above --nice it starves the tests harder), --verbose (pass mocha's
 * output through), --help. Anything else goes to mocha (default: dist/test/**\/*.test.js).
 * Each run's full output goes to a log file, whose path is printed for a failed run (and kept). The loops end with
 * the script, on Ctrl-C too, and each loop also exits by itself if this script dies without cleaning up. Exit code 0
 * only if every run passed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { constants, setPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface StressOptions {
  runs: number;
  busy: number;
  nice: number;
  testNice: number;
  verbose: boolean;
  mochaArgs: string[];
}

/** What test/helpers/summary-reporter.ts writes to RMQ_TEST_RESULT_FILE. */
interface RunResult {
  passes: number;
  failures: number;
  pending: number;
  failed: { title: string; file?: string; message: string }[];
}

interface RunSummary {
  run: number;
  seconds: number;
  exitCode: number | null;
  result: RunResult | null;
}

const USAGE = 'usage: npm run test:stress -- [--runs N] [--busy N] [--nice N] [--test-nice N] [--verbose] [mocha args or files...]';

/** Parses the command line; throws with the usage on a bad value. */
export function parseArgs(argv: string[]): StressOptions {
  const o: StressOptions = { runs: 5, busy: 2, nice: 0, testNice: 0, verbose: false, mochaArgs: [] };
  const int = (name: string, v: string | undefined, min: number, max: number): number => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < min || n > max) throw new Error(`${name} wants an integer in [${min}, ${max}], got ${v}\n${USAGE}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (flag === '--runs') o.runs = int('--runs', value(), 1, 10_000);
    else if (flag === '--busy') o.busy = int('--busy', value(), 0, 256);
    else if (flag === '--nice') o.nice = int('--nice', value(), -20, 19);
    else if (flag === '--test-nice') o.testNice = int('--test-nice', value(), -20, 19);
    else if (flag === '--verbose') o.verbose = true;
    else if (flag === '--help' || flag === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else o.mochaArgs.push(a);
  }
  if (!o.mochaArgs.some((a) => !a.startsWith('-'))) o.mochaArgs.push('dist/test/**/*.test.js');
  return o;
}

/** A CPU-bound loop that also exits when its parent (this script) is gone, so it can never be orphaned for long. */
const BUSY_LOOP = 'const p=process.ppid;let i=0;for(;;){if(((i=(i+1)|0)&0x3ffffff)===0&&process.ppid!==p)process.exit(0)}';

function startBusyLoops(count: number, nice: number): ChildProcess[] {
  const loops: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ['-e', BUSY_LOOP], { stdio: 'ignore' });
    child.on('error', (err) => process.stderr.write(`busy loop: ${err.message}\n`));
    if (nice !== 0 && child.pid !== undefined) {
      try {
        setPriority(child.pid, nice);
      } catch (err) {
        process.stderr.write(`could not set nice ${nice} on busy loop ${child.pid}: ${(err as Error).message}\n`);
      }
    }
    loops.push(child);
  }
  return loops;
}

function stopAll(children: Iterable<ChildProcess>): void {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
}

/** Kills the children and waits until each has exited (and been reaped). */
async function stopAndWait(children: ChildProcess[]): Promise<void> {
  const exited = children.map((c) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => c.once('exit', () => r()))));
  stopAll(children);
  await Promise.all(exited);
}

function runOnce(run: number, o: StressOptions, logDir: string, track: (c: ChildProcess | null) => void): Promise<RunSummary> {
  const resultFile = join(logDir, `run-${run}.json`);
  const logFile = join(logDir, `run-${run}.log`);
  const mocha = join(dirname(require.resolve('mocha/package.json')), 'bin', 'mocha.js');
  const begin = Date.now();
  return new Promise((resolve) => {
    const log = createWriteStream(logFile);
    const child = spawn(process.execPath, [mocha, ...o.mochaArgs], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, RMQ_TEST_RESULT_FILE: resultFile },
    });
    track(child);
    if (o.testNice !== 0 && child.pid !== undefined) setPriority(child.pid, o.testNice);
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        log.write(chunk);
        if (o.verbose) process.stdout.write(chunk);
      });
    }
    child.on('close', (exitCode) => {
      track(null);
      log.end();
      let result: RunResult | null = null;
      try {
        result = JSON.parse(readFileSync(resultFile, 'utf8')) as RunResult;
      } catch {
        // mocha died before the end of the run: no result file
      }
      resolve({ run, seconds: (Date.now() - begin) / 1000, exitCode, result });
    });
  });
}

function report(s: RunSummary, runs: number, logDir: string): void {
  const r = s.result;
  const totals = r ? `${r.passes} passed, ${r.failures} failed${r.pending ? `, ${r.pending} skipped` : ''}` : `no result (exit ${s.exitCode})`;
  const failed = !r || r.failures > 0 || s.exitCode !== 0;
  process.stdout.write(`run ${s.run}/${runs}: ${totals} in ${s.seconds.toFixed(0)} s${failed ? `   log: ${join(logDir, `run-${s.run}.log`)}` : ''}\n`);
  for (const f of r?.failed ?? []) process.stdout.write(`  FAILED ${f.title}\n         ${f.file ?? ''}\n         ${f.message}\n`);
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const logDir = mkdtempSync(join(tmpdir(), 'rocketmq-ts-stress-'));
  const loops = startBusyLoops(o.busy, o.nice);
  let current: ChildProcess | null = null;
  const summaries: RunSummary[] = [];

  const cleanUp = (): void => stopAll(current ? [...loops, current] : loops);
  process.on('exit', cleanUp);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      cleanUp();
      process.stdout.write(`\n${signal}: stopped after ${summaries.length} complete run(s); busy loops killed\n`);
      process.exit(128 + constants.signals[signal]);
    });
  }

  process.stdout.write(`test:stress: ${o.runs} run(s) of mocha ${o.mochaArgs.join(' ')} (nice ${o.testNice}) with ${o.busy} busy loop(s) at nice ${o.nice}` +
    ` (pids ${loops.map((l) => l.pid).join(', ') || 'none'})\n`);
  for (let run = 1; run <= o.runs; run++) {
    const s = await runOnce(run, o, logDir, (c) => (current = c));
    summaries.push(s);
    report(s, o.runs, logDir);
  }
  await stopAndWait(loops);

  const bad = summaries.filter((s) => !s.result || s.result.failures > 0 || s.exitCode !== 0);
  const flaky = new Map<string, number>();
  for (const s of summaries) for (const f of s.result?.failed ?? []) flaky.set(f.title, (flaky.get(f.title) ?? 0) + 1);
  process.stdout.write(`\n${summaries.length - bad.length} of ${summaries.length} run(s) passed\n`);
  for (const [title, n] of flaky) process.stdout.write(`  ${n}/${summaries.length}  ${title}\n`);
  if (bad.length === 0) rmSync(logDir, { recursive: true, force: true });
  else process.stdout.write(`logs kept in ${logDir}\n`);
  process.exitCode = bad.length === 0 ? 0 : 1;
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  });
}
