/**
 * The comparison matrix in one command: every client against every server, 1 KiB bodies, 8 queues.
 * - servers: the Java 4.9.8 name server + broker (../shared/javaref, started by test/helpers/javaref.ts) and ours
 *   (`rocketmq-ts start` in a child process);
 * - clients: ours, ali-ons (both in this process) and the Java 4.9.8 client (`harness.sh bench-produce` /
 *   `bench-consume`, a JVM per scenario);
 * - scenarios: sync with 1 and 16 in flight, async with 256 in flight (msg/s over a fixed time; the Java client runs
 *   a count sized to about the same time and reports its own rate), and a drain of 100,000 pre-loaded messages by a
 *   new group from the first offset (msg/s from start to the last message).
 *
 *   npm run bench -- matrix
 *   node dist/bench/matrix.js [--servers java,ours] [--clients ours,ali-ons,java] [--duration MS] [--rounds N]
 *     [--warmup MS] [--drain-count N] [--size BYTES] [--scenario 'sync x1'|'sync x16'|'async x256'|'drain' ...]
 *     [--pull-trace]   (what our first measured drain's pulls saw: answers, request->answer times, socket reads)
 *
 * The in-process clients send (and drain) in turns (rounds, default 3, sends of 2 s each, who goes first alternating)
 * and the median turn counts, so a change of the machine's load mid-run hits both about alike.
 *
 * Prints one table, msg/s per client and the ratios ours/ali-ons and ours/Java per server. Without Java (no `java`,
 * no javaref folder) the Java server and client are left out with a line saying why. No assertions.
 */
import './quiet-logs';
import { performance } from 'node:perf_hooks';
import { DefaultMQProducer } from '../lib/index';
import {
  type JavaBroker, type JavaNamesrv, javaSkipReason, runHarness, startJavaBroker, startJavaNamesrv,
} from '../test/helpers/javaref';
import type { BenchResult } from './bench-util';
import { drainAliOns, drainOurs, preload } from './consumer';
import {
  type BenchClient, type BrokerProcess, type Scenario, SCENARIOS, aliOnsClient, createTopic, ourClient, runScenario, startBrokerProcess,
} from './producer';

type ServerName = 'java' | 'ours';
type ClientName = 'ours' | 'ali-ons' | 'java';

export interface MatrixBenchOptions {
  servers: readonly ServerName[];
  clients: readonly ClientName[];
  /** Measured time of each send scenario per client, split into `rounds` turns. */
  durationMillis: number;
  /** Warm-up before each turn. */
  warmupMillis: number;
  rounds: number;
  /** Print the pull trace of our first measured drain per server (bench/consumer.ts PullTrace). */
  pullTrace?: boolean;
  drainCount: number;
  size: number;
  queues: number;
  /** Scenario names to run (all when empty): 'sync x1', 'sync x16', 'async x256', 'drain'. */
  scenarios: readonly string[];
}

export const DEFAULT_MATRIX_BENCH_OPTIONS: Readonly<MatrixBenchOptions> = Object.freeze({
  servers: Object.freeze(['java', 'ours'] as const),
  clients: Object.freeze(['ours', 'ali-ons', 'java'] as const),
  durationMillis: 6000,
  warmupMillis: 500,
  rounds: 3,
  drainCount: 100_000,
  size: 1024,
  queues: 8,
  scenarios: Object.freeze([]),
});

const SEND_SCENARIOS: readonly Scenario[] = SCENARIOS.filter((s) => s.batch === 1);
const ROW_NAMES: readonly string[] = [...SEND_SCENARIOS.map((s) => s.name), 'drain'];
const SERVER_TITLE: Record<ServerName, string> = { java: 'Java 4.9.8 broker', ours: 'our broker' };

interface Server {
  namesrvAddr: string;
  stop(): Promise<void>;
}

async function startServer(name: ServerName): Promise<Server> {
  if (name === 'ours') {
    const b: BrokerProcess = await startBrokerProcess();
    return { namesrvAddr: b.namesrvAddr, stop: () => b.stop() };
  }
  let ns: JavaNamesrv | undefined;
  let broker: JavaBroker | undefined;
  try {
    ns = await startJavaNamesrv('4.9.8');
    // the broker's ports (listenPort, -2, +1) were free when chosen; on a shared machine one can be taken before the
    // JVM binds it: try fresh ports a few times
    for (let attempt = 1; !broker; attempt++) {
      try {
        broker = await startJavaBroker('4.9.8', { namesrvAddr: ns.addr, heap: '-Xms1g -Xmx1g' });
      } catch (err) {
        if (attempt >= 3) throw err;
        process.stderr.write(`the Java broker did not start (attempt ${attempt}): ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}\n`);
      }
    }
  } catch (err) {
    await ns?.stop();
    throw err;
  }
  const started = { ns, broker };
  return {
    namesrvAddr: ns.addr,
    async stop() {
      await started.broker.stop();
      await started.ns.stop();
    },
  };
}

/** `SENT ok=.. tps=..` / `CONSUMED n=.. tps=..` → tps; NaN when the line is missing. */
function harnessTps(stdout: string, kind: 'SENT' | 'CONSUMED'): number {
  const line = stdout.split('\n').find((l) => l.startsWith(`${kind} `));
  const m = line ? / tps=([0-9.]+)/.exec(line) : null;
  return m ? Number(m[1]) : Number.NaN;
}

async function javaProduce(namesrvAddr: string, topic: string, s: Scenario, count: number, size: number): Promise<number> {
  const mode = s.async ? ['--mode', 'async', '--inflight', String(s.inflight)] : ['--mode', 'sync', '--threads', String(s.inflight)];
  const r = await runHarness(['bench-produce', '--namesrv', namesrvAddr, '--topic', topic, '--count', String(count), '--size', String(size), ...mode],
    { timeoutMs: 180_000 });
  const tps = harnessTps(r.stdout, 'SENT');
  if (!Number.isFinite(tps)) process.stderr.write(`java bench-produce printed no result (exit ${r.code}): ${r.stdout.slice(-500)}${r.stderr.slice(-500)}\n`);
  return tps;
}

async function javaDrain(namesrvAddr: string, topic: string, count: number): Promise<number> {
  const group = `bench_drain_java_${process.pid}_${Date.now().toString(36)}`;
  const r = await runHarness(['bench-consume', '--namesrv', namesrvAddr, '--topic', topic, '--group', group, '--expect', String(count), '--timeout', '120'],
    { timeoutMs: 180_000 });
  const tps = harnessTps(r.stdout, 'CONSUMED');
  if (!Number.isFinite(tps)) process.stderr.write(`java bench-consume printed no result (exit ${r.code}): ${r.stdout.slice(-500)}${r.stderr.slice(-500)}\n`);
  return tps;
}

/** server -> scenario -> client -> msg/s */
type Results = Map<ServerName, Map<string, Map<ClientName, number>>>;

async function runServer(server: ServerName, o: MatrixBenchOptions, results: Results, out: BenchResult[]): Promise<void> {
  const wanted = (name: string): boolean => o.scenarios.length === 0 || o.scenarios.includes(name);
  const rows = new Map<string, Map<ClientName, number>>();
  results.set(server, rows);
  const record = (scenario: string, client: ClientName, rate: number): void => {
    let row = rows.get(scenario);
    if (!row) rows.set(scenario, (row = new Map()));
    row.set(client, rate);
    out.push({ name: `matrix.${server}-broker.${client}.${scenario.replace(' ', '.')}`, opsPerSec: rate, meanMicros: 1e6 / rate, ops: 0 });
    process.stderr.write(`${SERVER_TITLE[server]}, ${client}, ${scenario}: ${Number.isFinite(rate) ? Math.round(rate) : '-'} msg/s\n`);
  };
  process.stderr.write(`== starting ${SERVER_TITLE[server]}\n`);
  const srv = await startServer(server);
  const body = Buffer.alloc(o.size, 'x');
  try {
    const namesrvAddr = srv.namesrvAddr;
    const sends = SEND_SCENARIOS.filter((s) => wanted(s.name));
    if (sends.length > 0) {
      const topic = `BenchMatrix_${process.pid}_${Date.now().toString(36)}`;
      await createTopic(namesrvAddr, topic, o.queues);
      const clients: BenchClient[] = [];
      try {
        for (const c of o.clients) {
          if (c === 'ours') clients.push(await ourClient(namesrvAddr, topic, body));
          else if (c === 'ali-ons') clients.push(await aliOnsClient(namesrvAddr, topic, body));
        }
        // warm the broker (JIT, first commit-log pages) before anything is measured
        for (const c of clients) await runScenario(c.sender(SCENARIOS[0])!, SCENARIOS[0], { ...o, durationMillis: 0 }, () => Number.NaN);
        for (const [i, s] of sends.entries()) {
          // Rounds of durationMillis / rounds each, the clients taking turns (who goes first alternates), median per
          // client: the machine's load changes during a run, and turns let both clients see about the same.
          const rates = new Map<string, number[]>();
          for (let round = 0; round < o.rounds; round++) {
            const order = (i + round) % 2 === 0 ? clients : [...clients].reverse();
            for (const c of order) {
              const m = await runScenario(c.sender(s)!, s, { warmupMillis: o.warmupMillis, durationMillis: o.durationMillis / o.rounds }, () => Number.NaN);
              let l = rates.get(c.name);
              if (!l) rates.set(c.name, (l = []));
              l.push(m.msgPerSec);
            }
          }
          for (const c of clients) record(s.name, c.name, median(rates.get(c.name) ?? []));
          if (o.clients.includes('java')) {
            // durationMillis of sending at the rate ours reached (the Java client counts messages, not time, and its
            // rate includes its JIT warm-up: a longer run for a slower client keeps that share small)
            const guide = rows.get(s.name)?.get('ours') ?? rows.get(s.name)?.get('ali-ons') ?? 10_000;
            const count = Math.min(500_000, Math.max(5_000, Math.round((guide * o.durationMillis) / 1000)));
            record(s.name, 'java', await javaProduce(namesrvAddr, topic, s, count, o.size));
          }
        }
      } finally {
        for (const c of clients) await c.close();
      }
    }
    if (wanted('drain')) {
      const topic = `BenchMatrixDrain_${process.pid}_${Date.now().toString(36)}`;
      await createTopic(namesrvAddr, topic, o.queues);
      const producer = new DefaultMQProducer({ producerGroup: `bench_matrix_prod_${process.pid}`, namesrvAddr, instanceName: `bench-matrix-prod-${process.pid}` });
      await producer.start();
      try {
        const t0 = performance.now();
        await preload(producer, topic, o.drainCount, body);
        process.stderr.write(`pre-loaded ${o.drainCount} messages of ${o.size} B in ${Math.round(performance.now() - t0)} ms\n`);
      } finally {
        await producer.shutdown();
      }
      // Warm the broker's pull path (its JIT) and both in-process clients on part of the topic, not measured:
      // otherwise whoever drains first meets a cold broker.
      const warm = Math.min(20_000, o.drainCount);
      for (const c of o.clients) {
        if (c === 'ours') await drainOurs(namesrvAddr, topic, warm);
        else if (c === 'ali-ons') await drainAliOns(namesrvAddr, topic, warm);
      }
      // the in-process clients drain in turns as they send (median of the rounds); the Java client once
      const inProcess = o.clients.filter((c) => c !== 'java');
      const rates = new Map<ClientName, number[]>();
      for (let round = 0; round < o.rounds; round++) {
        for (const c of round % 2 === 0 ? inProcess : [...inProcess].reverse()) {
          try {
            const ms = c === 'ours'
              ? await drainOurs(namesrvAddr, topic, o.drainCount, { pullTrace: o.pullTrace && round === 0 })
              : await drainAliOns(namesrvAddr, topic, o.drainCount);
            let l = rates.get(c);
            if (!l) rates.set(c, (l = []));
            l.push((o.drainCount * 1000) / ms);
          } catch (err) {
            process.stderr.write(`${c} drain failed: ${err instanceof Error ? err.message : String(err)}\n`);
          }
        }
      }
      for (const c of inProcess) record('drain', c, median(rates.get(c) ?? []));
      if (o.clients.includes('java')) record('drain', 'java', await javaDrain(namesrvAddr, topic, o.drainCount));
    }
  } finally {
    await srv.stop();
  }
}

function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const v = [...values].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 === 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

function fmtRate(n: number | undefined): string {
  return n === undefined || !Number.isFinite(n) ? '-' : Math.round(n).toLocaleString('en-US');
}

function fmtRatio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0 ? '-' : `${(a / b).toFixed(2)}x`;
}

/** The table: one row per scenario, per server the three rates and the two ratios. */
export function formatMatrix(results: Results, o: Pick<MatrixBenchOptions, 'servers' | 'drainCount' | 'size' | 'queues'>): string {
  const header = ['scenario'];
  for (const s of o.servers) header.push(`${SERVER_TITLE[s]}: ours`, 'ali-ons', 'Java client', 'ours/ali-ons', 'ours/Java');
  const rows = [header];
  for (const name of ROW_NAMES) {
    if (![...results.values()].some((r) => r.has(name))) continue;
    const row = [name === 'drain' ? `drain ${o.drainCount.toLocaleString('en-US')}` : name];
    for (const s of o.servers) {
      const r = results.get(s)?.get(name);
      const ours = r?.get('ours');
      const ons = r?.get('ali-ons');
      const java = r?.get('java');
      row.push(fmtRate(ours), fmtRate(ons), fmtRate(java), fmtRatio(ours, ons), fmtRatio(ours, java));
    }
    rows.push(row);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const lines = rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd());
  return [`msg/s, ${o.size} B bodies, ${o.queues} queues (ratios > 1: ours faster)`, ...lines].join('\n');
}

function parseArgs(argv: string[]): Partial<MatrixBenchOptions> {
  const o: Partial<MatrixBenchOptions> = {};
  const list = <T extends string>(v: string): T[] => v.split(',').map((x) => x.trim()).filter(Boolean) as T[];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--servers') o.servers = list<ServerName>(argv[++i]);
    else if (a === '--clients') o.clients = list<ClientName>(argv[++i]);
    else if (a === '--duration') o.durationMillis = Number(argv[++i]);
    else if (a === '--warmup') o.warmupMillis = Number(argv[++i]);
    else if (a === '--rounds') o.rounds = Math.max(1, Number(argv[++i]));
    else if (a === '--pull-trace') o.pullTrace = true;
    else if (a === '--drain-count') o.drainCount = Number(argv[++i]);
    else if (a === '--size') o.size = Number(argv[++i]);
    else if (a === '--queues') o.queues = Number(argv[++i]);
    else if (a === '--scenario') o.scenarios = [...(o.scenarios ?? []), argv[++i]];
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

export async function runMatrixBench(options: Partial<MatrixBenchOptions> = {}): Promise<BenchResult[]> {
  const o: MatrixBenchOptions = { ...DEFAULT_MATRIX_BENCH_OPTIONS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const skip = javaSkipReason('4.9.8');
  if (skip) {
    process.stderr.write(`matrix: the Java broker and client are left out: ${skip}\n`);
    o.servers = o.servers.filter((s) => s !== 'java');
    o.clients = o.clients.filter((c) => c !== 'java');
  }
  const results: Results = new Map();
  const out: BenchResult[] = [];
  try {
    for (const s of o.servers) await runServer(s, o, results, out);
  } finally {
    process.stdout.write(`${formatMatrix(results, o)}\n`);
  }
  return out;
}

if (require.main === module) {
  runMatrixBench(parseArgs(process.argv.slice(2))).then(
    () => {
      process.exit(0); // ali-ons leaves timers behind after close()
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
