/**
 * Producer throughput, our DefaultMQProducer side by side with ali-ons (a third-party pure-JS client), in one run
 * against one broker: 1 KiB messages, sync with 1 and 16 in flight, async with 256 in flight, batches of 32.
 * The broker (name server + broker, `rocketmq-ts start`) runs in a child process so the client's CPU and the
 * broker's are separated as a user sees them; its peak RSS is sampled during the run. With `--namesrv H:P` the
 * clients use that cluster instead (no RSS then).
 *
 *   node dist/bench/index.js producer
 *   node dist/bench/producer.js [--namesrv H:P] [--duration MS] [--warmup MS] [--size BYTES] [--only ours|ali-ons]
 *     [--scenario 'sync x1'|'sync x16'|'async x256'|'batch32 x1' ...]
 *
 * Prints msg/s, p50/p99/max latency of one send call, and the ratio ours / ali-ons per scenario. No assertions.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DefaultMQAdminExt, DefaultMQProducer, createMessage, type Message } from '../lib/index';
import { freePort } from '../lib/cluster';
import { type BenchResult, benchUsage, readBenchOptions, runBenchScript } from './bench-util';

// ali-ons ships no types.
interface AliOnsProducer {
  ready(): Promise<void>;
  send(msg: unknown): Promise<{ sendStatus: string }>;
  close(): Promise<void>;
  on(event: 'error', fn: (err: Error) => void): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ons = require('ali-ons') as {
  Producer: {
    new (opts: Record<string, unknown>): AliOnsProducer;
    /** The process-wide inner producer (group CLIENT_INNER_PRODUCER) ali-ons starts with the first client. */
    defaultProducer: AliOnsProducer | null;
  };
  Message: new (topic: string, tags: string, body: Buffer | string) => unknown;
};

/**
 * The logger handed to ali-ons clients: its default one prints a warning on console each time a route refresh finds a
 * topic it had routed before ("updateTopicPublishInfo() prev is not null"), lines that say nothing wrong and land in
 * the bench's tables. Errors still print.
 */
export const ALI_ONS_LOGGER = Object.freeze({
  info(): void {},
  debug(): void {},
  warn(): void {},
  error: (...args: unknown[]): void => console.error(...args),
});

/**
 * Closes ali-ons' process-wide inner producer. ali-ons starts it with the options of its first producer or consumer
 * (on that client's MQClient) and nothing closes it, so after that client's broker stopped its MQClient kept polling
 * the old name server, and the inner producer's default error handler printed every failure into the bench's
 * output. Called after each ali-ons client of the bench closes; the next client starts a new one.
 */
export async function closeAliOnsInnerProducer(): Promise<void> {
  const inner = ons.Producer.defaultProducer;
  if (!inner) return;
  ons.Producer.defaultProducer = null;
  inner.on('error', () => undefined);
  await inner.close();
  inner.on('error', () => undefined); // close() removed every listener; late connection errors still come
}

export interface ProducerBenchOptions {
  /** Use this name server instead of starting a broker child process. */
  namesrv?: string;
  durationMillis: number;
  warmupMillis: number;
  size: number;
  clients: ReadonlyArray<'ours' | 'ali-ons'>;
  /** Names of the scenarios to run (all when empty). */
  scenarios: readonly string[];
}

export const DEFAULT_PRODUCER_BENCH_OPTIONS: Readonly<ProducerBenchOptions> = Object.freeze({
  durationMillis: 5000,
  warmupMillis: 1000,
  size: 1024,
  clients: Object.freeze(['ours', 'ali-ons'] as const),
  scenarios: Object.freeze([]),
});

export interface Scenario {
  name: string;
  inflight: number;
  /** Messages per send call. */
  batch: number;
  async: boolean;
}

export const SCENARIOS: readonly Scenario[] = [
  { name: 'sync x1', inflight: 1, batch: 1, async: false },
  { name: 'sync x16', inflight: 16, batch: 1, async: false },
  { name: 'async x256', inflight: 256, batch: 1, async: true },
  { name: 'batch32 x1', inflight: 1, batch: 32, async: false },
];

export interface Measured {
  msgPerSec: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  /** Broker process CPU time (user + system) per message measured, in µs; NaN without a broker child. */
  brokerCpuMicrosPerMsg: number;
}

type SendFn = (scenario: Scenario) => Promise<unknown>;

export interface BenchClient {
  name: 'ours' | 'ali-ons';
  /** null when the client cannot run the scenario (ali-ons has no batch send). */
  sender(scenario: Scenario): SendFn | null;
  close(): Promise<void>;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

export async function runScenario(send: SendFn, s: Scenario, o: Pick<ProducerBenchOptions, 'warmupMillis' | 'durationMillis'>, brokerCpuMicros: () => number): Promise<Measured> {
  let measuring = false;
  let stop = false;
  let count = 0;
  let errors = 0;
  let lat = new Float64Array(1 << 16);
  let n = 0;
  const loop = async () => {
    while (!stop) {
      const t0 = performance.now();
      try {
        await send(s);
      } catch {
        errors++;
        continue;
      }
      if (measuring) {
        if (n === lat.length) {
          const next = new Float64Array(lat.length * 2);
          next.set(lat);
          lat = next;
        }
        lat[n++] = performance.now() - t0;
        count += s.batch;
      }
    }
  };
  const loops = Array.from({ length: s.inflight }, loop);
  await new Promise((r) => setTimeout(r, o.warmupMillis));
  measuring = true;
  errors = 0;
  const cpu0 = brokerCpuMicros();
  const start = performance.now();
  await new Promise((r) => setTimeout(r, o.durationMillis));
  measuring = false;
  const elapsed = performance.now() - start;
  const cpu = brokerCpuMicros() - cpu0;
  stop = true;
  await Promise.all(loops);
  const sorted = lat.slice(0, n).sort();
  return { msgPerSec: (count * 1000) / elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: n ? sorted[n - 1] : Number.NaN, errors, brokerCpuMicrosPerMsg: cpu / count };
}

/** A free port p with p + 1 also free (the broker announces listenPort + 1 as its HA address). */
async function freeBrokerPort(): Promise<number> {
  for (;;) {
    const p = await freePort();
    if (p >= 65535) continue;
    const ok = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(p + 1, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (ok) return p;
  }
}

export interface BrokerProcess {
  namesrvAddr: string;
  child: ChildProcess;
  peakRssBytes(): number;
  /** The peak's parts: the process's own memory and the mapped files' pages. */
  peakRssParts(): RssParts;
  /** CPU time (user + system) the broker process has used so far, in µs. */
  cpuMicros(): number;
  stop(): Promise<void>;
}

const CLOCK_TICK_MICROS = 10_000; // USER_HZ is 100 on Linux

/** utime + stime of a process from /proc/<pid>/stat, in µs (NaN where /proc is missing). */
export function readCpuMicros(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * CLOCK_TICK_MICROS;
  } catch {
    return Number.NaN;
  }
}

/** VmRSS of a process, bytes (0 where /proc is missing). */
export function readRss(pid: number): number {
  return readRssParts(pid).rss;
}

/**
 * A process's resident memory, bytes (0s where /proc is missing): all of it (VmRSS), its own (RssAnon: heap, stacks,
 * buffers) and the pages of mapped files (RssFile: the binary's code and, for a broker, the store's files it maps,
 * which are page cache shared with the OS).
 */
export interface RssParts { rss: number; anon: number; file: number }

export function readRssParts(pid: number): RssParts {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(s)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') };
  } catch {
    return { rss: 0, anon: 0, file: 0 };
  }
}

/** Samples a process's resident memory every 100 ms; peak() is the sample with the largest VmRSS. */
export function rssPeakSampler(pid: number): { peak(): RssParts; stop(): void } {
  let peak = readRssParts(pid);
  const sample = (): RssParts => {
    const now = readRssParts(pid);
    if (now.rss > peak.rss) peak = now;
    return peak;
  };
  const timer = setInterval(sample, 100);
  timer.unref();
  return { peak: sample, stop: () => clearInterval(timer) };
}

/** `rocketmq-ts start` in a child process on free ports with a temp store (and HOME, for the name server's kv file). */
export async function startBrokerProcess(opts: { confFile?: string } = {}): Promise<BrokerProcess> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'producer-bench-'));
  const namesrvPort = await freePort();
  const brokerPort = await freeBrokerPort();
  const main = path.join(__dirname, '..', 'lib', 'cli', 'main.js');
  // BENCH_BROKER_NODE_ARGS: node flags for the broker child, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_BROKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, main, 'start', '--store', path.join(tmp, 'store'), '--namesrv-port', String(namesrvPort), '--broker-port', String(brokerPort), ...(opts.confFile ? ['-c', opts.confFile] : [])], {
    env: { ...process.env, HOME: tmp, ROCKETMQ_LOG_LEVEL: process.env.ROCKETMQ_LOG_LEVEL ?? 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`broker did not start in 20 s: ${out}`)), 20_000);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`broker exited with ${code}: ${out}`)); });
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('rocketmq-ts is running')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.removeAllListeners('exit');
  child.stdout!.resume();
  const sampler = rssPeakSampler(child.pid!);
  return {
    namesrvAddr: `127.0.0.1:${namesrvPort}`,
    child,
    peakRssBytes: () => sampler.peak().rss,
    peakRssParts: () => sampler.peak(),
    cpuMicros: () => readCpuMicros(child.pid!),
    async stop() {
      sampler.stop();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** Creates `topic` with `queueNums` queues on every broker serving TBW102 and waits for its route. */
export async function createTopic(namesrvAddr: string, topic: string, queueNums = 4): Promise<void> {
  const admin = new DefaultMQAdminExt({ namesrvAddr, instanceName: `bench-admin-${process.pid}` });
  await admin.start();
  try {
    const deadline = Date.now() + 20_000;
    // a broker that just started may not be in the name server's TBW102 route yet
    for (;;) {
      try {
        await admin.createTopic('TBW102', topic, queueNums);
        break;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    for (;;) {
      try {
        const route = await admin.examineTopicRouteInfo(topic);
        if (route.queueDatas.length > 0) return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await admin.shutdown();
  }
}

export async function ourClient(namesrvAddr: string, topic: string, body: Buffer): Promise<BenchClient> {
  const producer = new DefaultMQProducer({ producerGroup: `bench_ours_${process.pid}`, namesrvAddr, instanceName: `bench-ours-${process.pid}-${Date.now().toString(36)}` });
  await producer.start();
  const one = (): Message => createMessage(topic, body, { tags: 'TagA' });
  return {
    name: 'ours',
    sender(s) {
      if (s.batch > 1) {
        return () => {
          const batch: Message[] = new Array(s.batch);
          for (let i = 0; i < s.batch; i++) batch[i] = one();
          return producer.send(batch);
        };
      }
      return s.async ? () => producer.sendAsync(one()) : () => producer.send(one());
    },
    close: () => producer.shutdown(),
  };
}

export async function aliOnsClient(namesrvAddr: string, topic: string, body: Buffer): Promise<BenchClient> {
  const httpclient = { request: async () => { throw new Error('no HTTP name-server lookup in the bench'); } };
  const producer = new ons.Producer({
    httpclient, nameSrv: namesrvAddr, accessKeyId: 'ak', accessKeySecret: 'sk', persistent: false, logger: ALI_ONS_LOGGER,
    producerGroup: `bench_ons_${process.pid}`, instanceName: `bench-ons-${process.pid}-${Date.now().toString(36)}`,
    // a fresh instanceName per client: ali-ons keeps a closed client of a name and hands it out again
  });
  // ali-ons reports background failures (e.g. its MQClient reconnecting once the broker has stopped) as 'error'.
  producer.on('error', () => undefined);
  await producer.ready();
  return {
    name: 'ali-ons',
    sender(s) {
      if (s.batch > 1) return null; // ali-ons has no batch send
      return () => producer.send(new ons.Message(topic, 'TagA', body));
    },
    async close() {
      await producer.close();
      producer.on('error', () => undefined); // close() removed every listener; late connection errors still come
      await closeAliOnsInnerProducer();
    },
  };
}

function fmt(n: number, digits = 2): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd()).join('\n');
}

export const PRODUCER_OPTIONS = {
  '--namesrv': 'value', '--duration': 'value', '--warmup': 'value', '--size': 'value', '--only': 'value', '--scenario': 'values',
} as const;

/** The options of the producer scenario; `ignoreUnknown` for the whole command line of bench/index.ts. */
export function parseProducerArgs(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): Partial<ProducerBenchOptions> {
  const o = readBenchOptions(argv, PRODUCER_OPTIONS, how);
  return {
    namesrv: o.string('--namesrv'), durationMillis: o.number('--duration'), warmupMillis: o.number('--warmup'), size: o.number('--size'),
    clients: o.list('--only', ['ours', 'ali-ons'] as const), scenarios: o.has('--scenario') ? o.all('--scenario') : undefined,
  };
}

/** Runs every scenario for each client in turn against one broker; prints the side-by-side table. */
export async function runProducerBench(options: Partial<ProducerBenchOptions> = {}): Promise<BenchResult[]> {
  // Quiet client logs unless asked for (the root logger is created on first use, after this).
  process.env.ROCKETMQ_LOG_LEVEL ??= 'warn';
  const o: ProducerBenchOptions = { ...DEFAULT_PRODUCER_BENCH_OPTIONS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const broker = o.namesrv ? null : await startBrokerProcess();
  const namesrvAddr = o.namesrv ?? broker!.namesrvAddr;
  const results = new Map<string, Map<string, Measured>>();
  const out: BenchResult[] = [];
  try {
    const topic = `BenchProducer_${process.pid}_${Date.now().toString(36)}`;
    await createTopic(namesrvAddr, topic);
    const body = Buffer.alloc(o.size, 'x');
    // Both clients run each scenario in turn, so both see the broker in about the same state.
    const clients: BenchClient[] = [];
    for (const c of o.clients) clients.push(c === 'ours' ? await ourClient(namesrvAddr, topic, body) : await aliOnsClient(namesrvAddr, topic, body));
    try {
      // Warm the broker (its JIT, the first commit-log pages) before anything is measured: otherwise whoever runs
      // the first scenario first meets a cold broker, which alone cost that client ~15% of sync x1.
      for (const c of clients) {
        const send = c.sender(SCENARIOS[0]);
        if (send) await runScenario(send, SCENARIOS[0], { ...o, durationMillis: 0 }, () => Number.NaN);
      }
      for (const s of SCENARIOS) {
        if (o.scenarios.length > 0 && !o.scenarios.includes(s.name)) continue;
        const row = new Map<string, Measured>();
        results.set(s.name, row);
        // Alternate who goes first, so neither always meets a fresh commit-log file or a warmer page cache.
        const order = SCENARIOS.indexOf(s) % 2 === 0 ? clients : [...clients].reverse();
        for (const c of order) {
          const send = c.sender(s);
          if (!send) continue;
          const m = await runScenario(send, s, o, () => broker?.cpuMicros() ?? Number.NaN);
          row.set(c.name, m);
          out.push({ name: `producer.${c.name}.${s.name.replace(' ', '.')}`, opsPerSec: m.msgPerSec, meanMicros: 1e6 / m.msgPerSec, ops: Math.round((m.msgPerSec * o.durationMillis) / 1000), note: `p50 ${fmt(m.p50)} ms, p99 ${fmt(m.p99)} ms, broker ${fmt(m.brokerCpuMicrosPerMsg, 1)} µs CPU/msg` });
          process.stderr.write(`${c.name} ${s.name}: ${Math.round(m.msgPerSec)} msg/s, p50 ${fmt(m.p50)} p99 ${fmt(m.p99)} max ${fmt(m.max)} ms, broker ${fmt(m.brokerCpuMicrosPerMsg, 1)} µs CPU/msg${m.errors ? `, ${m.errors} errors` : ''}\n`);
        }
      }
    } finally {
      for (const c of clients) await c.close();
    }
  } finally {
    const rss = broker?.peakRssBytes();
    await broker?.stop();
    const rows = [['scenario (1 KiB)', 'ours msg/s', 'p50 ms', 'p99 ms', 'max ms', 'ali-ons msg/s', 'p50 ms', 'p99 ms', 'max ms', 'ours/ali-ons', 'broker µs/msg ours', 'ali-ons']];
    for (const [name, row] of results) {
      const a = row.get('ours');
      const b = row.get('ali-ons');
      rows.push([
        name,
        a ? Math.round(a.msgPerSec).toLocaleString('en-US') : '-', fmt(a?.p50 ?? NaN), fmt(a?.p99 ?? NaN), fmt(a?.max ?? NaN),
        b ? Math.round(b.msgPerSec).toLocaleString('en-US') : '-', fmt(b?.p50 ?? NaN), fmt(b?.p99 ?? NaN), fmt(b?.max ?? NaN),
        a && b ? `${(a.msgPerSec / b.msgPerSec).toFixed(2)}x` : '-',
        fmt(a?.brokerCpuMicrosPerMsg ?? NaN, 1), fmt(b?.brokerCpuMicrosPerMsg ?? NaN, 1),
      ]);
    }
    process.stdout.write(`${table(rows)}\n`);
    if (rss !== undefined) process.stdout.write(`broker process peak RSS: ${(rss / 1024 / 1024).toFixed(1)} MB\n`);
  }
  return out;
}

if (require.main === module) {
  runBenchScript(
    benchUsage(PRODUCER_OPTIONS, { '--namesrv': 'HOST:PORT', '--duration': 'MS', '--warmup': 'MS', '--size': 'BYTES', '--only': 'ours|ali-ons', '--scenario': 'NAME' }),
    (argv) => runProducerBench(parseProducerArgs(argv)),
  );
}
