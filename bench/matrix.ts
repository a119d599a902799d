/**
 * The comparison matrix in one command: every client against every server, 1 KiB bodies, 8 queues.
 * - servers: the Java 4.9.8 name server + broker (../shared/javaref, started by test/helpers/javaref.ts) and ours
 *   (`rocketmq-ts start` in a child process), both up for the whole run;
 * - clients: ours, ali-ons (both in this process) and the Java 4.9.8 client (`harness.sh bench-produce` /
 *   `bench-consume`, a JVM per turn);
 * - scenarios: sync with 1 and 16 in flight, async with 256 in flight (msg/s over a fixed time; the Java client sends
 *   a count sized to about the same time and reports its own rate), a drain of 100,000 pre-loaded messages by a new
 *   group from the first offset (msg/s from start to the last message), our client's end-to-end latency at 1,000
 *   msg/s through each broker, each broker's peak RSS, and the store's ASYNC append against a raw write (bench/store.ts);
 * - `sync-flush`: a second pair of brokers with flushDiskType=SYNC_FLUSH (a put is answered once on disk), sync x1 and
 *   x16 with our client;
 * - `store`: bench/store.ts, our store beside the Java 4.9.8 store fed the same messages (bench/java/JavaStoreBench.java).
 *
 *   npm run bench -- matrix
 *   node dist/bench/matrix.js [--servers java,ours] [--clients ours,ali-ons,java] [--duration MS] [--rounds N]
 *     [--warmup MS] [--broker-warmup MS] [--drain-count N] [--size BYTES] [--latency-seconds S] [--latency-rate MSG_PER_SEC]
 *     [--scenario 'sync x1'|'sync x16'|'async x256'|'drain'|'latency'|'sync-flush'|'store' ...]
 *     [--pull-trace]   (what our first measured drain's pulls saw: answers, request->answer times, socket reads)
 *
 * Every (server, client) pair gets one turn per round (rounds, default 3; sends of 2 s a turn), the order reversed
 * every other round, and the median turn counts: a change of the machine's load mid-run hits every cell alike, the
 * two brokers' comparison included. BENCH_MATRIX_VERBOSE=1 prints every turn.
 *
 * Prints the rates with the ratios ours/ali-ons and ours/Java per server, our broker against the Java broker per
 * client, RSS, latency and the store's share, then each performance target (docs/performance.md) as `holds` or
 * `misses`. Without Java (no `java`, no javaref folder) the Java server and client are left out with a line saying
 * why. No assertions.
 */
import './quiet-logs';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DefaultMQProducer } from '../lib/index';
import {
  type JavaBroker, type JavaNamesrv, javaSkipReason, runHarness, startJavaBroker, startJavaNamesrv,
} from '../test/helpers/javaref';
import { type BenchResult, BenchUsageError, benchUsage, readBenchOptions, recordTargets, runBenchScript } from './bench-util';
import { ratioOfFresh, type StoreBenchRow } from './store';
import { type Latency, drainAliOns, drainOurs, latencyRun, preload } from './consumer';
import {
  type BenchClient, type BrokerProcess, type Scenario, SCENARIOS, aliOnsClient, createTopic, ourClient, readCpuMicros, rssPeakSampler, runScenario, startBrokerProcess, type RssParts,
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
  /**
   * Before anything is measured, each broker serves our client (or the first in-process client) for this long at
   * async x256 and then sync x16: a JVM broker reaches its compiled speed only after some seconds of load.
   */
  brokerWarmupMillis: number;
  rounds: number;
  /** Print the pull trace of our first measured drain per server (bench/consumer.ts PullTrace). */
  pullTrace?: boolean;
  drainCount: number;
  size: number;
  queues: number;
  /** Scenario names to run (all when empty): 'sync x1', 'sync x16', 'async x256', 'drain', 'latency', 'store'. */
  scenarios: readonly string[];
  /** Length of the end-to-end latency run per server (our client), seconds; 0 leaves it out. */
  latencySeconds: number;
  /** Send rate of the latency run, msg/s. */
  latencyRate: number;
}

export const DEFAULT_MATRIX_BENCH_OPTIONS: Readonly<MatrixBenchOptions> = Object.freeze({
  servers: Object.freeze(['java', 'ours'] as const),
  clients: Object.freeze(['ours', 'ali-ons', 'java'] as const),
  durationMillis: 6000,
  warmupMillis: 500,
  brokerWarmupMillis: 5000,
  rounds: 3,
  drainCount: 100_000,
  size: 1024,
  queues: 8,
  scenarios: Object.freeze([]),
  latencySeconds: 10,
  latencyRate: 1000,
});

const SEND_SCENARIOS: readonly Scenario[] = SCENARIOS.filter((s) => s.batch === 1);
const ROW_NAMES: readonly string[] = [...SEND_SCENARIOS.map((s) => s.name), 'drain'];
const SERVER_TITLE: Record<ServerName, string> = { java: 'Java 4.9.8 broker', ours: 'our broker' };
const THROUGH: Record<ServerName, string> = { java: 'the Java 4.9.8 broker', ours: 'our broker' };

interface Server {
  namesrvAddr: string;
  /** Peak RSS of the broker process so far (sampled every 100 ms), bytes, with its parts; null when unknown. */
  peakRss(): RssParts | null;
  /** CPU time (user + system) the broker process has used so far, µs; NaN when unknown. */
  cpuMicros(): number;
  stop(): Promise<void>;
}

/** The pid of the JVM whose command line contains `needle` (the launcher script's child), or undefined. */
function findPid(needle: string): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.includes(needle) && cmd.split('\0')[0].endsWith('java')) return Number(entry);
    } catch { /* gone */ }
  }
  return undefined;
}

/** Samples a process's RSS every 100 ms; peak() is the highest seen. */
function rssSampler(pid: number | undefined): { peak(): RssParts | null; stop(): void } {
  return pid === undefined ? { peak: () => null, stop: () => undefined } : rssPeakSampler(pid);
}

/** Starts a name server and broker; `conf`: broker.conf keys beside the defaults (both brokers read Java's names). */
async function startServer(name: ServerName, conf: Record<string, string> = {}): Promise<Server> {
  if (name === 'ours') {
    let confFile: string | undefined;
    if (Object.keys(conf).length > 0) {
      confFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-matrix-conf-')), 'broker.conf');
      fs.writeFileSync(confFile, Object.entries(conf).map(([k, v]) => `${k}=${v}\n`).join(''));
    }
    const b: BrokerProcess = await startBrokerProcess({ confFile });
    return {
      namesrvAddr: b.namesrvAddr, peakRss: () => b.peakRssParts(), cpuMicros: () => b.cpuMicros(),
      async stop() {
        await b.stop();
        if (confFile) fs.rmSync(path.dirname(confFile), { recursive: true, force: true });
      },
    };
  }
  let ns: JavaNamesrv | undefined;
  let broker: JavaBroker | undefined;
  try {
    ns = await startJavaNamesrv('4.9.8');
    // the broker's ports (listenPort, -2, +1) were free when chosen; on a shared machine one can be taken before the
    // JVM binds it: try fresh ports a few times
    for (let attempt = 1; !broker; attempt++) {
      try {
        broker = await startJavaBroker('4.9.8', { namesrvAddr: ns.addr, heap: '-Xms1g -Xmx1g', conf });
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
  const pid = findPid(broker.confPath);
  const rss = rssSampler(pid);
  return {
    namesrvAddr: ns.addr,
    peakRss: () => rss.peak(),
    cpuMicros: () => (pid === undefined ? Number.NaN : readCpuMicros(pid)),
    async stop() {
      rss.stop();
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

/** Everything one run measured besides the rates: broker RSS, end-to-end latency, the store's append ratio. */
export interface MatrixExtras {
  /** Peak RSS of each broker process, bytes. */
  rss: Map<ServerName, RssParts | null>;
  /** End-to-end latency (store timestamp to listener) of our client at `latencyRate` msg/s, per server. */
  latency: Map<ServerName, Latency>;
  /** Broker CPU time per message sent, µs: server -> scenario -> client (the in-process clients' median turn). */
  cpu: Map<ServerName, Map<string, Map<ClientName, number>>>;
  /** Store ASYNC append as a share of the raw sequential write of the same run (bench/store.ts), per scenario. */
  store: Array<{ scenario: string; share: number; mbPerSec: number; rawMbPerSec: readonly number[]; rawWithCrcMbPerSec: number }>;
  /** bench/store.ts's rows: ours and the Java 4.9.8 store's (`Java store append ...`) appends, for the comparison. */
  storeRows: StoreBenchRow[];
  /** Brokers with flushDiskType=SYNC_FLUSH, our client: server -> scenario -> msg/s. */
  syncFlush: Map<ServerName, Map<string, number>>;
}

/** Our store's append beside the Java store's, the same way (the broker's send path: coalesced puts for ours). */
export const STORE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ['store append ASYNC_FLUSH x512 coalesced', 'Java store append ASYNC_FLUSH x512'],
  ['store append SYNC_FLUSH x1', 'Java store append SYNC_FLUSH x1'],
  ['store append SYNC_FLUSH x64', 'Java store append SYNC_FLUSH x64'],
  ['store append SYNC_FLUSH x512', 'Java store append SYNC_FLUSH x512'],
];
/** The pairs of STORE_PAIRS that are targets (ours >= 1.0x the Java store); the others are printed beside them. */
const STORE_TARGETS: readonly string[] = ['store append ASYNC_FLUSH x512 coalesced', 'store append SYNC_FLUSH x1'];
const SYNC_FLUSH_SCENARIOS = ['sync x1', 'sync x16'];

/** Adds one turn's rate to server -> scenario -> client -> rates. */
type Turns = Map<ServerName, Map<string, Map<ClientName, number[]>>>;
function addTurn(turns: Turns, server: ServerName, scenario: string, client: ClientName, rate: number, quiet = false): void {
  let byScenario = turns.get(server);
  if (!byScenario) turns.set(server, (byScenario = new Map()));
  let byClient = byScenario.get(scenario);
  if (!byClient) byScenario.set(scenario, (byClient = new Map()));
  let l = byClient.get(client);
  if (!l) byClient.set(client, (l = []));
  l.push(rate);
  if (process.env.BENCH_MATRIX_VERBOSE && !quiet) process.stderr.write(`  ${SERVER_TITLE[server]}, ${client}, ${scenario}: ${Math.round(rate)} msg/s\n`);
}

/** The order of the turns of one round: every (server, client) pair, reversed every other round. */
function turnOrder<T>(cells: readonly T[], round: number): readonly T[] {
  return round % 2 === 0 ? cells : [...cells].reverse();
}

/**
 * Runs the scenarios with every server up at once: each round gives every (server, client) pair one turn, the order
 * reversed every other round, and the median of the rounds counts. A change of the machine's load mid-run then hits
 * every cell alike, the brokers' comparison included.
 */
async function runAll(servers: Map<ServerName, Server>, o: MatrixBenchOptions, results: Results, extras: MatrixExtras, out: BenchResult[]): Promise<void> {
  const wanted = (name: string): boolean => o.scenarios.length === 0 || o.scenarios.includes(name);
  const turns: Turns = new Map();
  const cpuTurns: Turns = new Map();
  const body = Buffer.alloc(o.size, 'x');
  const inProcess = o.clients.filter((c): c is 'ours' | 'ali-ons' => c !== 'java');
  const record = (server: ServerName, scenario: string): void => {
    for (const [client, rates] of turns.get(server)?.get(scenario) ?? []) {
      const rate = median(rates);
      let rows = results.get(server);
      if (!rows) results.set(server, (rows = new Map()));
      let row = rows.get(scenario);
      if (!row) rows.set(scenario, (row = new Map()));
      row.set(client, rate);
      out.push({ name: `matrix.${server}-broker.${client}.${scenario.replace(' ', '.')}`, opsPerSec: rate, meanMicros: 1e6 / rate, ops: 0 });
      process.stderr.write(`${SERVER_TITLE[server]}, ${client}, ${scenario}: ${Number.isFinite(rate) ? Math.round(rate) : '-'} msg/s (median of ${rates.length})\n`);
    }
  };

  const recordCpu = (server: ServerName, scenario: string): void => {
    for (const [client, values] of cpuTurns.get(server)?.get(scenario) ?? []) {
      let byScenario = extras.cpu.get(server);
      if (!byScenario) extras.cpu.set(server, (byScenario = new Map()));
      let byClient = byScenario.get(scenario);
      if (!byClient) byScenario.set(scenario, (byClient = new Map()));
      byClient.set(client, median(values));
    }
  };

  const sends = SEND_SCENARIOS.filter((s) => wanted(s.name));
  if (sends.length > 0) {
    const topics = new Map<ServerName, string>();
    const cells: Array<{ server: ServerName; client: BenchClient }> = [];
    try {
      for (const [name, srv] of servers) {
        const topic = `BenchMatrix_${process.pid}_${Date.now().toString(36)}`;
        topics.set(name, topic);
        await createTopic(srv.namesrvAddr, topic, o.queues);
        for (const c of inProcess) {
          cells.push({ server: name, client: c === 'ours' ? await ourClient(srv.namesrvAddr, topic, body) : await aliOnsClient(srv.namesrvAddr, topic, body) });
        }
      }
      // Warm each broker (its JIT, the first commit-log pages) under load, then each client, before anything is measured.
      const heavy = SEND_SCENARIOS.filter((x) => x.name === 'async x256' || x.name === 'sync x16');
      for (const server of servers.keys()) {
        const warmer = cells.find((c) => c.server === server)?.client;
        for (const x of warmer && o.brokerWarmupMillis > 0 ? heavy : []) {
          await runScenario(warmer!.sender(x)!, x, { warmupMillis: 0, durationMillis: o.brokerWarmupMillis / heavy.length }, () => Number.NaN);
        }
      }
      for (const { client } of cells) await runScenario(client.sender(SCENARIOS[0])!, SCENARIOS[0], { ...o, durationMillis: 0 }, () => Number.NaN);
      for (const s of sends) {
        const turnMillis = o.durationMillis / o.rounds;
        for (let round = 0; round < o.rounds; round++) {
          for (const { server, client } of turnOrder(cells, round)) {
            const srv = servers.get(server)!;
            const m = await runScenario(client.sender(s)!, s, { warmupMillis: o.warmupMillis, durationMillis: turnMillis }, () => srv.cpuMicros());
            addTurn(turns, server, s.name, client.name, m.msgPerSec);
            addTurn(cpuTurns, server, s.name, client.name, m.brokerCpuMicrosPerMsg, true);
          }
          if (o.clients.includes('java')) {
            // The Java client counts messages, not time: as many as ours sends in the whole scenario (durationMillis at
            // the fastest rate ours reached on any broker), the same count on every broker. A JVM per turn runs its JIT
            // warm-up inside the figure, and a short turn leaves the rate to the noise of a few seconds: the longer turn
            // keeps both small, and the one count keeps the brokers' cells alike.
            const guides = [...servers.keys()].map((server) =>
              median(turns.get(server)?.get(s.name)?.get('ours') ?? turns.get(server)?.get(s.name)?.get('ali-ons') ?? [10_000]));
            const count = Math.min(500_000, Math.max(10_000, Math.round((Math.max(...guides) * o.durationMillis) / 1000)));
            for (const server of turnOrder([...servers.keys()], round)) {
              // the broker's CPU over the whole turn (the JVM's start and warm-up included, the broker idle then)
              const srv = servers.get(server)!;
              const cpu0 = srv.cpuMicros();
              addTurn(turns, server, s.name, 'java', await javaProduce(srv.namesrvAddr, topics.get(server)!, s, count, o.size));
              addTurn(cpuTurns, server, s.name, 'java', (srv.cpuMicros() - cpu0) / count, true);
            }
          }
        }
        for (const server of servers.keys()) {
          record(server, s.name);
          recordCpu(server, s.name);
        }
      }
    } finally {
      for (const { client } of cells) await client.close();
    }
  }

  if (wanted('drain')) {
    const topics = new Map<ServerName, string>();
    for (const [name, srv] of servers) {
      const topic = `BenchMatrixDrain_${process.pid}_${Date.now().toString(36)}`;
      topics.set(name, topic);
      await createTopic(srv.namesrvAddr, topic, o.queues);
      const producer = new DefaultMQProducer({ producerGroup: `bench_matrix_prod_${process.pid}`, namesrvAddr: srv.namesrvAddr, instanceName: `bench-matrix-prod-${process.pid}-${name}` });
      await producer.start();
      try {
        const t0 = performance.now();
        await preload(producer, topic, o.drainCount, body);
        process.stderr.write(`${SERVER_TITLE[name]}: pre-loaded ${o.drainCount} messages of ${o.size} B in ${Math.round(performance.now() - t0)} ms\n`);
      } finally {
        await producer.shutdown();
      }
      // Warm the broker's pull path (its JIT) and the in-process clients on part of the topic, not measured:
      // otherwise whoever drains first meets a cold broker.
      const warm = Math.min(20_000, o.drainCount);
      for (const c of inProcess) {
        if (c === 'ours') await drainOurs(srv.namesrvAddr, topic, warm);
        else await drainAliOns(srv.namesrvAddr, topic, warm);
      }
    }
    const cells = [...servers.keys()].flatMap((server) => o.clients.map((client) => ({ server, client })));
    for (let round = 0; round < o.rounds; round++) {
      for (const { server, client } of turnOrder(cells, round)) {
        const srv = servers.get(server)!;
        const namesrvAddr = srv.namesrvAddr;
        const topic = topics.get(server)!;
        try {
          // the broker's CPU over the whole drain (the consumer's start included): the drain's rate moves with the
          // machine far more than this does
          const cpu0 = srv.cpuMicros();
          if (client === 'java') {
            addTurn(turns, server, 'drain', client, await javaDrain(namesrvAddr, topic, o.drainCount));
          } else {
            const ms = client === 'ours'
              ? await drainOurs(namesrvAddr, topic, o.drainCount, { pullTrace: o.pullTrace && round === 0 })
              : await drainAliOns(namesrvAddr, topic, o.drainCount);
            addTurn(turns, server, 'drain', client, (o.drainCount * 1000) / ms);
          }
          addTurn(cpuTurns, server, 'drain', client, (srv.cpuMicros() - cpu0) / o.drainCount, true);
        } catch (err) {
          process.stderr.write(`${SERVER_TITLE[server]}, ${client} drain failed: ${err instanceof Error ? err.message : String(err)}\n`);
        }
      }
    }
    for (const server of servers.keys()) {
      record(server, 'drain');
      recordCpu(server, 'drain');
    }
  }

  if (wanted('latency') && o.latencySeconds > 0 && o.clients.includes('ours')) {
    for (const [name, srv] of servers) {
      const producer = new DefaultMQProducer({ producerGroup: `bench_matrix_lat_${process.pid}`, namesrvAddr: srv.namesrvAddr, instanceName: `bench-matrix-lat-${process.pid}-${name}` });
      await producer.start();
      try {
        const l = await latencyRun(srv.namesrvAddr, producer, { rate: o.latencyRate, latencySeconds: o.latencySeconds }, body);
        extras.latency.set(name, l);
        out.push({ name: `matrix.${name}-broker.ours.latency`, opsPerSec: l.rate, meanMicros: 1e6 / l.rate, ops: l.n, note: `p50 ${l.p50} ms, p99 ${l.p99} ms` });
        process.stderr.write(`${SERVER_TITLE[name]}, ours, end-to-end at ${o.latencyRate} msg/s: p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms\n`);
      } finally {
        await producer.shutdown();
      }
    }
  }
  for (const [name, srv] of servers) extras.rss.set(name, srv.peakRss());
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

function align(rows: string[][]): string[] {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd());
}

const rowTitle = (name: string, drainCount: number): string => (name === 'drain' ? `drain ${drainCount.toLocaleString('en-US')}` : name);

/**
 * The tables: per scenario and server the three clients' rates with ours/ali-ons and ours/Java; then, per scenario
 * and client, our broker against the Java broker; then RSS, latency and the store's share of a raw write.
 */
export function formatMatrix(results: Results, o: Pick<MatrixBenchOptions, 'servers' | 'drainCount' | 'size' | 'queues' | 'latencyRate'>, extras?: MatrixExtras): string {
  const header = ['scenario'];
  for (const s of o.servers) header.push(`${SERVER_TITLE[s]}: ours`, 'ali-ons', 'Java client', 'ours/ali-ons', 'ours/Java');
  const rows = [header];
  const names = ROW_NAMES.filter((name) => [...results.values()].some((r) => r.has(name)));
  for (const name of names) {
    const row = [rowTitle(name, o.drainCount)];
    for (const s of o.servers) {
      const r = results.get(s)?.get(name);
      const ours = r?.get('ours');
      row.push(fmtRate(ours), fmtRate(r?.get('ali-ons')), fmtRate(r?.get('java')), fmtRatio(ours, r?.get('ali-ons')), fmtRatio(ours, r?.get('java')));
    }
    rows.push(row);
  }
  const lines = names.length > 0 ? [`msg/s, ${o.size} B bodies, ${o.queues} queues (ratios > 1: ours faster)`, ...align(rows)] : [];
  if (names.length > 0 && o.servers.includes('java') && o.servers.includes('ours')) {
    const clients: ClientName[] = ['ours', 'ali-ons', 'java'];
    const brokers = [['scenario', ...clients.map((c) => `our broker / Java broker, ${c === 'java' ? 'Java' : c} client`)]];
    for (const name of names) {
      brokers.push([rowTitle(name, o.drainCount), ...clients.map((c) => fmtRatio(results.get('ours')?.get(name)?.get(c), results.get('java')?.get(name)?.get(c)))]);
    }
    lines.push('', ...align(brokers));
  }
  if (extras) {
    const mb = (b: number | undefined): string => (b === undefined || !Number.isFinite(b) ? '-' : `${(b / 1048576).toFixed(0)} MB`);
    if (extras.cpu.size > 0) {
      const cpuClients = (['ours', 'ali-ons', 'java'] as const).filter((c) => o.servers.some((s) => [...extras.cpu.get(s)?.values() ?? []].some((m) => m.has(c))));
      const cpuRows = [['broker CPU µs per message', ...o.servers.flatMap((s) => cpuClients.map((c) => `${SERVER_TITLE[s]}, ${c === 'java' ? 'Java client' : c}`))]];
      for (const name of names) {
        cpuRows.push([rowTitle(name, o.drainCount), ...o.servers.flatMap((s) => cpuClients.map((c) => {
          const v = extras.cpu.get(s)?.get(name)?.get(c);
          return v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(1);
        }))]);
      }
      lines.push('', ...align(cpuRows));
    }
    if (extras.rss.size > 0) {
      // Anonymous: the process's own memory; file-backed: the binary and the mapped store files' pages (page cache).
      const parts = (r: RssParts | null | undefined): string => (r ? `${mb(r.rss)} (own ${mb(r.anon)}, mapped files ${mb(r.file)})` : '-');
      lines.push('', `broker peak RSS: ${o.servers.map((s) => `${SERVER_TITLE[s]} ${parts(extras.rss.get(s))}`).join(', ')}`);
    }
    for (const [s, l] of extras.latency) {
      lines.push(`end-to-end latency, our client at ${o.latencyRate} msg/s through ${THROUGH[s]} (store timestamp -> listener): p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms (${l.n} messages)`);
    }
    if (extras.syncFlush.size > 0) {
      const sf = [['SYNC_FLUSH brokers, our client, msg/s', ...o.servers.map((s) => SERVER_TITLE[s]), 'our broker / Java broker']];
      for (const n of SYNC_FLUSH_SCENARIOS) {
        const rate = (s: ServerName): number | undefined => extras.syncFlush.get(s)?.get(n);
        sf.push([n, ...o.servers.map((s) => fmtRate(rate(s))), fmtRatio(rate('ours'), rate('java'))]);
      }
      lines.push('', ...align(sf));
    }
    const storePairs = STORE_PAIRS.map(([a, b]) => [extras.storeRows.find((r) => r.scenario === a), extras.storeRows.find((r) => r.scenario === b)] as const)
      .filter(([a, b]) => a && b);
    if (storePairs.length > 0) {
      const st = [['store append, msg/s (same messages)', 'our store', 'Java 4.9.8 store', 'ours / Java']];
      for (const [a, b] of storePairs) st.push([a!.scenario.replace(/^store append /, ''), fmtRate(a!.msgPerSec), fmtRate(b!.msgPerSec), fmtRatio(a!.msgPerSec, b!.msgPerSec)]);
      lines.push('', ...align(st));
    }
    // the MB/s too: the raw write's speed moves with the kernel's writeback state (page cache only, or throttled)
    for (const st of extras.store) {
      lines.push(`${st.scenario}: ${(st.share * 100).toFixed(0)} % of the raw sequential write of this run ` +
        `(${st.mbPerSec.toFixed(0)} MB/s; raw write ${st.rawMbPerSec.map((x) => x.toFixed(0)).join(' and ')} MB/s, ` +
        `${st.rawWithCrcMbPerSec.toFixed(0)} MB/s with a body CRC per record)`);
    }
  }
  return lines.join('\n');
}

/** bench/store.ts in a child process; its rows. */
async function storeBenchInChild(): Promise<StoreBenchRow[]> {
  const child = spawn(process.execPath, [path.join(__dirname, 'store.js'), '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench/store.js exited with ${code}`);
  return JSON.parse(out.trim().split('\n').pop() ?? '[]') as StoreBenchRow[];
}

/** The performance targets (docs/performance.md) against one run: one line each, `holds` or `misses` with the figures. */
export function checkTargets(results: Results, extras: MatrixExtras): string[] {
  const out: string[] = [];
  const ratio = (a: number | undefined, b: number | undefined): number => (a !== undefined && b !== undefined && b > 0 ? a / b : Number.NaN);
  const verdict = (ok: boolean, what: string, figures: string): string => `${ok ? 'holds ' : 'misses'}  ${what}: ${figures}`;
  const java = results.get('java');
  const ours = results.get('ours');
  if (java) {
    const figs = ROW_NAMES.filter((n) => java.has(n)).map((n) => [n, ratio(java.get(n)?.get('ours'), java.get(n)?.get('ali-ons'))] as const)
      .filter(([, r]) => Number.isFinite(r));
    if (figs.length > 0) {
      out.push(verdict(figs.every(([, r]) => r >= 1.2), 'our client against the Java broker >= 1.2x ali-ons', figs.map(([n, r]) => `${n} ${r.toFixed(2)}x`).join(', ')));
    }
  }
  if (java && ours) {
    const figs: Array<readonly [string, number]> = [];
    for (const n of ROW_NAMES) {
      for (const c of ['ours', 'ali-ons', 'java'] as const) {
        const r = ratio(ours.get(n)?.get(c), java.get(n)?.get(c));
        if (Number.isFinite(r)) figs.push([`${n}/${c}`, r]);
      }
    }
    if (figs.length > 0) out.push(verdict(figs.every(([, r]) => r >= 1.0), 'our broker >= 1.0x the Java broker for the same client', figs.map(([n, r]) => `${n} ${r.toFixed(2)}x`).join(', ')));
  }
  const rss = extras.rss.get('ours');
  // The process's own memory: the mapped files' pages are the page cache of the store (the read window of up to
  // 128 MiB among them), which the kernel takes back under pressure, as it does the Java broker's.
  if (rss) out.push(verdict(rss.anon < 250 * 1048576, 'our broker\'s own memory (RssAnon) < 250 MB', `own ${(rss.anon / 1048576).toFixed(0)} MB (RSS ${(rss.rss / 1048576).toFixed(0)} MB with ${(rss.file / 1048576).toFixed(0)} MB of mapped files)`));
  for (const [a, b] of STORE_PAIRS.filter(([x]) => STORE_TARGETS.includes(x))) {
    const x = extras.storeRows.find((r) => r.scenario === a);
    const y = extras.storeRows.find((r) => r.scenario === b);
    if (x && y) out.push(verdict(x.msgPerSec >= y.msgPerSec, `${a} >= 1.0x the Java store`, `${(x.msgPerSec / y.msgPerSec).toFixed(2)}x`));
  }
  // SYNC_FLUSH after a kill -9: each restart's rate against the fresh stores measured beside it, the median of the
  // restarts per x (a single store's rate moves by 2x with the disk's phase; the median of five is the figure)
  for (const x of ['x1', 'x16']) {
    const ratios = extras.storeRows.filter((r) => r.scenario.startsWith(`store SYNC_FLUSH ${x} after kill -9`))
      .map((r) => ratioOfFresh(extras.storeRows, r)).filter((v): v is number => v !== null).sort((a, b) => a - b);
    if (ratios.length === 0) continue;
    const median = ratios[Math.floor(ratios.length / 2)];
    out.push(verdict(median >= 0.9, `store SYNC_FLUSH ${x} after a kill -9 restart >= 0.9x before it (median of ${ratios.length} restarts)`,
      `${median.toFixed(2)}x (${ratios.map((v) => v.toFixed(2)).join(', ')})`));
  }
  // The broker's append path against the least work a store of this format does (the raw write with each record's
  // body CRC), with the Java store's share and the minimal put loop's (bench/store.ts: the format's work and a promise
  // per put, no store) in the same run beside it: none of the three reaches 80 % on this project's machines
  // (docs/performance.md, "Store"), so the store is also held to 80 % of the minimal loop.
  const coalesced = extras.store.find((x) => x.scenario === 'store append ASYNC_FLUSH x512 coalesced');
  if (coalesced && Number.isFinite(coalesced.rawWithCrcMbPerSec)) {
    const share = coalesced.mbPerSec / coalesced.rawWithCrcMbPerSec;
    const java = extras.storeRows.find((r) => r.scenario === 'Java store append ASYNC_FLUSH x512');
    const minimal = extras.storeRows.find((r) => r.scenario.startsWith('minimal put loop'));
    const beside = [java && `the Java store: ${(100 * java.mbPerSec / coalesced.rawWithCrcMbPerSec).toFixed(0)} %`,
      minimal && `the minimal put loop: ${(100 * minimal.mbPerSec / coalesced.rawWithCrcMbPerSec).toFixed(0)} %`].filter(Boolean);
    out.push(verdict(share >= 0.8, `${coalesced.scenario} >= 80 % of the raw write with a body CRC per record`,
      `${(share * 100).toFixed(0)} %${beside.length ? ` (${beside.join(', ')})` : ''}`));
    if (minimal) {
      out.push(verdict(coalesced.mbPerSec >= 0.8 * minimal.mbPerSec, `${coalesced.scenario} >= 80 % of the minimal put loop of this format`,
        `${(100 * coalesced.mbPerSec / minimal.mbPerSec).toFixed(0)} % (${coalesced.mbPerSec.toFixed(0)} against ${minimal.mbPerSec.toFixed(0)} MB/s)`));
    }
  }
  for (const [s, l] of extras.latency) out.push(verdict(l.p99 <= 5, `end-to-end p99 <= 5 ms through ${THROUGH[s]}`, `p99 ${l.p99} ms`));
  const sf = SYNC_FLUSH_SCENARIOS.map((n) => [n, ratio(extras.syncFlush.get('ours')?.get(n), extras.syncFlush.get('java')?.get(n))] as const)
    .filter(([, r]) => Number.isFinite(r));
  if (sf.length > 0) out.push(verdict(sf.every(([, r]) => r >= 1.0), 'SYNC_FLUSH: our broker keeps its lead over the Java broker (our client)', sf.map(([n, r]) => `${n} ${r.toFixed(2)}x`).join(', ')));
  return out;
}

function emptyExtras(): MatrixExtras {
  return { rss: new Map(), latency: new Map(), cpu: new Map(), store: [], storeRows: [], syncFlush: new Map() };
}

/** The options of the header; `ignoreUnknown` (bench/index.ts, whose options go to every scenario) skips the others. */
/** The names `--scenario` takes. */
const MATRIX_SCENARIOS: readonly string[] = ['sync x1', 'sync x16', 'async x256', 'drain', 'latency', 'sync-flush', 'store'];

export const MATRIX_OPTIONS = {
  '--servers': 'value', '--clients': 'value', '--scenario': 'values', '--rounds': 'value', '--duration': 'value', '--warmup': 'value',
  '--broker-warmup': 'value', '--drain-count': 'value', '--size': 'value', '--queues': 'value', '--latency-seconds': 'value',
  '--latency-rate': 'value', '--pull-trace': 'flag',
} as const;

export function parseMatrixArgs(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): Partial<MatrixBenchOptions> {
  const o = readBenchOptions(argv, MATRIX_OPTIONS, how);
  const rounds = o.number('--rounds');
  const unknown = o.all('--scenario').find((n) => !MATRIX_SCENARIOS.includes(n));
  if (unknown !== undefined) throw new BenchUsageError(`--scenario: ${JSON.stringify(unknown)} is not one of ${MATRIX_SCENARIOS.join(', ')}`);
  return {
    servers: o.list('--servers', ['ours', 'java'] as const), clients: o.list('--clients', ['ours', 'ali-ons', 'java'] as const),
    scenarios: o.has('--scenario') ? o.all('--scenario') : undefined, rounds: rounds === undefined ? undefined : Math.max(1, rounds),
    durationMillis: o.number('--duration'), warmupMillis: o.number('--warmup'), brokerWarmupMillis: o.number('--broker-warmup'),
    drainCount: o.number('--drain-count'), size: o.number('--size'), queues: o.number('--queues'),
    latencySeconds: o.number('--latency-seconds'), latencyRate: o.number('--latency-rate'), pullTrace: o.has('--pull-trace') || undefined,
  };
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
  const extras: MatrixExtras = emptyExtras();
  const out: BenchResult[] = [];
  const servers = new Map<ServerName, Server>();
  try {
    for (const name of o.servers) {
      process.stderr.write(`== starting ${SERVER_TITLE[name]}\n`);
      servers.set(name, await startServer(name));
    }
    await runAll(servers, o, results, extras, out);
    for (const s of servers.values()) await s.stop();
    servers.clear();
    if ((o.scenarios.length === 0 || o.scenarios.includes('sync-flush')) && o.clients.includes('ours')) {
      // A second pair of brokers that answer a put once it is on disk: our client's sync sends, alternating turns.
      for (const name of o.servers) {
        process.stderr.write(`== starting ${SERVER_TITLE[name]} with flushDiskType=SYNC_FLUSH\n`);
        servers.set(name, await startServer(name, { flushDiskType: 'SYNC_FLUSH' }));
      }
      const sf: Results = new Map();
      const sfOut: BenchResult[] = [];
      await runAll(servers, { ...o, scenarios: SYNC_FLUSH_SCENARIOS, clients: ['ours'], brokerWarmupMillis: o.brokerWarmupMillis / 2 }, sf, emptyExtras(), sfOut);
      for (const [server, rows] of sf) extras.syncFlush.set(server, new Map([...rows].map(([n, byClient]) => [n, byClient.get('ours') ?? Number.NaN])));
      out.push(...sfOut.map((r) => ({ ...r, name: `${r.name}.sync-flush` })));
      for (const s of servers.values()) await s.stop();
      servers.clear();
    }
    // the store's append against a raw write of the same bytes, on a machine without the servers, in a process of
    // its own (this one's heap and leftover client timers would weigh on it): bench/store.ts
    if (o.scenarios.length === 0 || o.scenarios.includes('store')) {
      const rows = await storeBenchInChild();
      const raws = rows.filter((r) => r.scenario.startsWith('plain'));
      const raw = raws.reduce((a, r) => a + r.mbPerSec, 0) / Math.max(1, raws.length);
      const rawMbPerSec = raws.map((r) => r.mbPerSec);
      const rawWithCrcMbPerSec = rows.find((r) => r.scenario.startsWith('raw write with'))?.mbPerSec ?? Number.NaN;
      extras.storeRows = rows;
      for (const r of rows.filter((x) => x.scenario.startsWith('store append ASYNC'))) {
        extras.store.push({ scenario: r.scenario, share: r.mbPerSec / raw, mbPerSec: r.mbPerSec, rawMbPerSec, rawWithCrcMbPerSec });
      }
    }
  } finally {
    process.stdout.write(`${formatMatrix(results, o, extras)}\n`);
    const targets = checkTargets(results, extras);
    if (targets.length > 0) process.stdout.write(`\ntargets:\n${targets.map((t) => `  ${t}`).join('\n')}\n`);
    recordTargets(targets);
    for (const s of servers.values()) await s.stop();
  }
  return out;
}

if (require.main === module) {
  runBenchScript(
    benchUsage(MATRIX_OPTIONS, {
      '--servers': 'ours,java', '--clients': 'ours,ali-ons,java', '--scenario': 'NAME', '--duration': 'MS', '--warmup': 'MS', '--broker-warmup': 'MS',
      '--size': 'BYTES', '--latency-seconds': 'S',
    }),
    (argv) => runMatrixBench(parseMatrixArgs(argv)),
  );
}
