/**
 * A tiny micro-benchmark harness: warm up, then run an operation in batches for a fixed time and report operations
 * per second. No assertions: numbers for humans and for comparing branches on one machine.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Message, createMessage } from '../protocol/message/message';

export interface BenchResult {
  /** Scenario name, e.g. `codec.send-v2.encode.json`. */
  name: string;
  /** Operations per second. */
  opsPerSec: number;
  /** Mean time of one operation in microseconds. */
  meanMicros: number;
  /** Operations measured (after warm-up). */
  ops: number;
  /** Optional detail (bytes per op, messages per op, ...). */
  note?: string;
}

export interface MeasureOptions {
  warmupMillis?: number;
  durationMillis?: number;
  note?: string;
}

const DEFAULT_MEASURE_OPTIONS: Readonly<Required<Omit<MeasureOptions, 'note'>>> = Object.freeze({
  warmupMillis: 500,
  durationMillis: 2000,
});

/** Keeps results alive so the JIT cannot drop the measured work. */
export let blackhole: unknown;

function runFor(fn: () => unknown, millis: number): { ops: number; elapsed: number } {
  let batch = 16;
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  for (;;) {
    for (let i = 0; i < batch; i++) blackhole = fn();
    ops += batch;
    elapsed = performance.now() - start;
    if (elapsed >= millis) break;
    if (elapsed < millis / 20) batch *= 2;
  }
  return { ops, elapsed };
}

/** Runs `fn` for `warmupMillis`, then for `durationMillis`, and reports its rate. */
export function measure(name: string, fn: () => unknown, options: MeasureOptions = {}): BenchResult {
  const o = { ...DEFAULT_MEASURE_OPTIONS, ...options };
  runFor(fn, o.warmupMillis);
  const { ops, elapsed } = runFor(fn, o.durationMillis);
  return { name, opsPerSec: (ops * 1000) / elapsed, meanMicros: (elapsed * 1000) / ops, ops, note: options.note };
}

/** Formats results as an aligned text table. */
export function formatResults(results: readonly BenchResult[]): string {
  const rows = [
    ['scenario', 'ops/s', 'mean µs', 'ops', 'note'],
    ...results.map((r) => [
      r.name,
      Math.round(r.opsPerSec).toLocaleString('en-US'),
      r.meanMicros.toFixed(2),
      String(r.ops),
      r.note ?? '',
    ]),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map((r) => r.map((cell, c) => (c === 0 || c === 4 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd())
    .join('\n');
}

/**
 * Target verdicts (`holds ...` / `misses ...`) of the scenarios that check the targets of docs/performance.md (the
 * matrix, the replicated groups): bench/index.ts prints them all together after the run.
 */
const targetVerdicts: string[] = [];

export function recordTargets(lines: readonly string[]): void {
  targetVerdicts.push(...lines);
}

/** The verdicts recorded so far, and the record emptied. */
export function takeTargets(): string[] {
  return targetVerdicts.splice(0);
}

/** The p-th percentile of ascending `sorted` (0 when empty). */
export function pct(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** What sendLoad measured: send latencies in ms (ascending), sends that failed or were not SEND_OK, seconds taken. */
export interface SendLoad {
  latencies: number[];
  failed: number;
  seconds: number;
}

/**
 * `messages` sends of `body` to `topic` by `concurrency` loops of awaited sends (sync x16, or async x256 as many
 * sends in flight); `onAck` sees each answered send (whatever its status) at the time it was answered.
 */
export async function sendLoad(
  producer: { send(msg: Message): Promise<{ sendStatus: string }> }, topic: string, body: Buffer, concurrency: number, messages: number,
  onAck?: (answeredAt: number) => void,
): Promise<SendLoad> {
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  const worker = async (): Promise<void> => {
    while (next < messages) {
      next++;
      const s = performance.now();
      try {
        const r = await producer.send(createMessage(topic, body));
        const at = performance.now();
        latencies.push(at - s);
        if (r.sendStatus !== 'SEND_OK') failed++;
        onAck?.(at);
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return { latencies, failed, seconds };
}

/** A command line a bench script cannot use (an unknown option): printed as one line with the usage, no stack. */
export class BenchUsageError extends Error {
  override name = 'BenchUsageError';
}

/** The options a bench script reads: `--name` to 'flag' (no value), 'value' (the next word) or 'values' (repeatable). */
export type BenchOptionSpec = Readonly<Record<string, 'flag' | 'value' | 'values'>>;

/** What readBenchOptions found: the values of each option given (a flag's is ''). */
export class BenchOptions {
  constructor(private readonly found: ReadonlyMap<string, readonly string[]>) {}

  has(name: string): boolean {
    return this.found.has(name);
  }

  /** Every value given for `name` (a repeatable option), in order. */
  all(name: string): string[] {
    return [...(this.found.get(name) ?? [])];
  }

  /** The last value given for `name`. */
  string(name: string): string | undefined {
    const v = this.found.get(name);
    return v?.[v.length - 1];
  }

  /** The last value of `name` as a number; a value that is not one is a BenchUsageError. */
  number(name: string): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n)) throw new BenchUsageError(`${name} takes a number, not ${JSON.stringify(v)}`);
    return n;
  }

  /** The last value of `name` split at commas; with `allowed`, a word outside it is a BenchUsageError. */
  list<T extends string = string>(name: string, allowed?: readonly T[]): T[] | undefined {
    const words = this.string(name)?.split(',').map((s) => s.trim()).filter(Boolean);
    const bad = allowed && words?.find((w) => !(allowed as readonly string[]).includes(w));
    if (bad !== undefined) throw new BenchUsageError(`${name}: ${JSON.stringify(bad)} is not one of ${allowed!.join(', ')}`);
    return words as T[] | undefined;
  }
}

/**
 * Reads `argv` by `spec`. An option not in `spec`, or a value option at the end of the line, is a BenchUsageError,
 * unless `ignoreUnknown` (bench/index.ts hands each scenario the whole command line, others' options included).
 */
export function readBenchOptions(argv: readonly string[], spec: BenchOptionSpec, how: { ignoreUnknown?: boolean } = {}): BenchOptions {
  const found = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const kind = Object.hasOwn(spec, a) ? spec[a] : undefined;
    if (kind === undefined) {
      if (!how.ignoreUnknown) throw new BenchUsageError(`unknown option ${a}`);
      continue;
    }
    let value = '';
    if (kind !== 'flag') {
      if (i + 1 >= argv.length) throw new BenchUsageError(`${a} needs a value`);
      value = argv[++i];
    }
    let values = found.get(a);
    if (!values) found.set(a, (values = []));
    values.push(value);
  }
  return new BenchOptions(found);
}

/** The usage line of `spec`: `[--flag] [--name VALUE] [--many VALUE]...`, VALUE named by `names` where given (else N). */
export function benchUsage(spec: BenchOptionSpec, names: Readonly<Record<string, string>> = {}): string {
  return Object.entries(spec).map(([k, kind]) => (kind === 'flag' ? `[${k}]` : `[${k} ${names[k] ?? 'N'}]${kind === 'values' ? '...' : ''}`)).join(' ');
}

/**
 * The main of a bench script run directly (`node dist/bench/<name>.js [options]`): `--help` or `-h` prints `usage`;
 * a BenchUsageError prints its message and the usage (exit code 2); any other failure its stack (exit code 1). The
 * process exits after the run: ali-ons leaves timers behind after close().
 */
export function runBenchScript(usage: string, run: (argv: string[]) => Promise<unknown>): void {
  const argv = process.argv.slice(2);
  const line = `usage: node ${path.relative(process.cwd(), process.argv[1]) || process.argv[1]} ${usage}\n`;
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(line);
    process.exit(0);
  }
  // parse errors thrown synchronously inside `run` reach the same handler
  Promise.resolve().then(() => run(argv)).then(
    () => process.exit(0),
    (err: unknown) => {
      if (err instanceof BenchUsageError) {
        process.stderr.write(`${err.message}\n${line}`);
        process.exit(2);
      }
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}

const TIMING_OPTIONS = { '--duration': 'value', '--warmup': 'value', '--rounds': 'value' } as const;

/** The main of a bench script whose only options are `--duration MS`, `--warmup MS` and `--rounds N`. */
export function runTimedBenchScript(run: (o: { durationMillis?: number; warmupMillis?: number; rounds?: number }) => Promise<unknown>): void {
  runBenchScript(benchUsage(TIMING_OPTIONS, { '--duration': 'MS', '--warmup': 'MS' }), (argv) => {
    const o = readBenchOptions(argv, TIMING_OPTIONS);
    return run({ durationMillis: o.number('--duration'), warmupMillis: o.number('--warmup'), rounds: o.number('--rounds') });
  });
}
