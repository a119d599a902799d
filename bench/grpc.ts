/**
 * The gRPC endpoint beside remoting, in one run against one broker child process (`rocketmq-ts start -c` with
 * grpcServerPort): the official 5.x Node client (rocketmq-client-nodejs) sends through the endpoint and our SDK
 * sends over remoting, 1 KiB, sync x16 and async x256 (the same closed loops as `-- producer`); then one topic is
 * filled and drained twice, by a new remoting push consumer of ours and by the 5.x client's SimpleConsumer
 * (receive batches of 32, each message acked; several receives in flight) and its PushConsumer. Each row gives
 * msg/s, the latency of one send and the broker's CPU per message (from /proc).
 *
 *   node dist/bench/index.js grpc
 *   node dist/bench/grpc.js [--duration MS] [--warmup MS] [--messages N] [--size BYTES]
 *
 * No assertions.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ConsumeResult, Producer, PushConsumer, SimpleConsumer } from 'rocketmq-client-nodejs';
import { freePort } from '../lib/cluster';
import { type BenchResult, benchUsage, readBenchOptions, runBenchScript } from './bench-util';
import { drainOurs } from './consumer';
import { type Measured, type Scenario, SCENARIOS, createTopic, ourClient, runScenario, startBrokerProcess } from './producer';

/** The 5.x client logs to ~/logs/rocketmq and its push consumer keeps a file logger's timer alive: a silent one. */
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
// eslint-disable-next-line @typescript-eslint/no-require-imports
(require('rocketmq-client-nodejs/dist/client/Logger') as { getDefaultLogger: () => unknown }).getDefaultLogger = () => silent;

export interface GrpcBenchOptions {
  durationMillis: number;
  warmupMillis: number;
  /** Messages filled into the drained topic. */
  messages: number;
  size: number;
}

export const DEFAULT_GRPC_BENCH_OPTIONS: Readonly<GrpcBenchOptions> = Object.freeze({ durationMillis: 5000, warmupMillis: 1000, messages: 20_000, size: 1024 });

const SEND_SCENARIOS: readonly Scenario[] = SCENARIOS.filter((s) => s.name === 'sync x16' || s.name === 'async x256');
/** Receives of the SimpleConsumer in flight at once. */
const RECEIVERS = 4;
const RECEIVE_BATCH = 32;

export interface GrpcBenchRow {
  /** `send sync x16`, `drain`... */
  scenario: string;
  /** `remoting (ours)`, `gRPC (rocketmq-client-nodejs)`, ... */
  client: string;
  msgPerSec: number;
  p50: number;
  p99: number;
  brokerCpuMicrosPerMsg: number;
  errors: number;
}

function fmt(n: number, digits = 2): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

async function grpcProducer(endpoints: string, topic: string): Promise<Producer> {
  const p = new Producer({ endpoints, namespace: '', topics: [topic], logger: silent });
  await p.startup();
  return p;
}

/** Drains `count` messages with a new group through the SimpleConsumer (acked one by one); ms taken. */
async function drainSimple(endpoints: string, topic: string, count: number): Promise<number> {
  const c = new SimpleConsumer({
    endpoints, namespace: '', consumerGroup: `bench_grpc_simple_${process.pid}_${Date.now().toString(36)}`, subscriptions: new Map([[topic, '*']]),
    awaitDuration: 3000, logger: silent,
  });
  const t0 = performance.now();
  await c.startup();
  let n = 0;
  const deadline = Date.now() + 300_000;
  const loop = async () => {
    while (n < count && Date.now() < deadline) {
      const got = await c.receive(RECEIVE_BATCH, 30_000);
      n += got.length;
      await Promise.all(got.map((m) => c.ack(m)));
    }
  };
  await Promise.all(Array.from({ length: RECEIVERS }, loop));
  const ms = performance.now() - t0;
  await c.shutdown();
  if (n < count) throw new Error(`the SimpleConsumer got ${n} of ${count} messages in 300 s`);
  return ms;
}

/** Drains `count` messages with a new group through the PushConsumer; ms taken. */
async function drainPush(endpoints: string, topic: string, count: number): Promise<number> {
  let n = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => { done = r; });
  const c = new PushConsumer({
    endpoints, namespace: '', consumerGroup: `bench_grpc_push_${process.pid}_${Date.now().toString(36)}`, subscriptions: new Map([[topic, '*']]), logger: silent,
    messageListener: {
      consume() {
        if (++n === count) done();
        return ConsumeResult.SUCCESS;
      },
    },
  });
  const t0 = performance.now();
  await c.startup();
  const timer = setTimeout(() => done(), 300_000);
  await finished;
  clearTimeout(timer);
  const ms = performance.now() - t0;
  await c.shutdown();
  if (n < count) throw new Error(`the PushConsumer got ${n} of ${count} messages in 300 s`);
  return ms;
}

export const GRPC_OPTIONS = { '--duration': 'value', '--warmup': 'value', '--messages': 'value', '--size': 'value' } as const;

/** The options of the grpc scenario; `ignoreUnknown` for the whole command line of bench/index.ts. */
export function parseGrpcArgs(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): Partial<GrpcBenchOptions> {
  const o = readBenchOptions(argv, GRPC_OPTIONS, how);
  return { durationMillis: o.number('--duration'), warmupMillis: o.number('--warmup'), messages: o.number('--messages'), size: o.number('--size') };
}

export function formatGrpcBench(rows: readonly GrpcBenchRow[]): string {
  const out = [['scenario (1 KiB)', 'client', 'msg/s', 'p50 ms', 'p99 ms', 'broker µs CPU/msg', 'gRPC / remoting']];
  const remoting = new Map(rows.filter((r) => r.client.startsWith('remoting')).map((r) => [r.scenario, r.msgPerSec]));
  for (const r of rows) {
    const base = remoting.get(r.scenario);
    out.push([r.scenario, r.client, Math.round(r.msgPerSec).toLocaleString('en-US'), fmt(r.p50), fmt(r.p99), fmt(r.brokerCpuMicrosPerMsg, 1),
      r.client.startsWith('remoting') || !base ? '' : `${(r.msgPerSec / base).toFixed(2)}x`]);
  }
  const widths = out[0].map((_, c) => Math.max(...out.map((r) => r[c].length)));
  return out.map((r) => r.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ').trimEnd()).join('\n');
}

export async function runGrpcBench(options: Partial<GrpcBenchOptions> = {}): Promise<GrpcBenchRow[]> {
  process.env.ROCKETMQ_LOG_LEVEL ??= 'warn';
  const o: GrpcBenchOptions = { ...DEFAULT_GRPC_BENCH_OPTIONS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'grpc-bench-'));
  const grpcPort = await freePort();
  fs.writeFileSync(path.join(dir, 'broker.conf'), `grpcServerPort=${grpcPort}\n`);
  const broker = await startBrokerProcess({ confFile: path.join(dir, 'broker.conf') });
  const endpoints = `127.0.0.1:${grpcPort}`;
  const rows: GrpcBenchRow[] = [];
  const row = (scenario: string, client: string, m: Measured) => {
    rows.push({ scenario, client, msgPerSec: m.msgPerSec, p50: m.p50, p99: m.p99, brokerCpuMicrosPerMsg: m.brokerCpuMicrosPerMsg, errors: m.errors });
    process.stderr.write(`${client} ${scenario}: ${Math.round(m.msgPerSec)} msg/s, p50 ${fmt(m.p50)} p99 ${fmt(m.p99)} ms, broker ${fmt(m.brokerCpuMicrosPerMsg, 1)} µs CPU/msg${m.errors ? `, ${m.errors} errors` : ''}\n`);
  };
  try {
    const topic = `BenchGrpc_${process.pid}_${Date.now().toString(36)}`;
    await createTopic(broker.namesrvAddr, topic, 8);
    const body = Buffer.alloc(o.size, 'x');
    const ours = await ourClient(broker.namesrvAddr, topic, body);
    const grpc = await grpcProducer(endpoints, topic);
    const grpcSend = () => grpc.send({ topic, tag: 'TagA', body });
    try {
      // warm both paths (the broker's JIT, the first pages) before anything is measured
      await runScenario(ours.sender(SEND_SCENARIOS[0])!, SEND_SCENARIOS[0], { ...o, durationMillis: 0 }, () => Number.NaN);
      await runScenario(grpcSend, SEND_SCENARIOS[0], { ...o, durationMillis: 0 }, () => Number.NaN);
      for (const s of SEND_SCENARIOS) {
        // alternate who goes first
        const turns: Array<[string, (s: Scenario) => Promise<unknown>]> = [['remoting (ours)', ours.sender(s)!], ['gRPC (rocketmq-client-nodejs)', grpcSend]];
        if (SEND_SCENARIOS.indexOf(s) % 2 === 1) turns.reverse();
        for (const [client, send] of turns) row(`send ${s.name}`, client, await runScenario(send, s, o, () => broker.cpuMicros()));
      }
    } finally {
      await ours.close();
      await grpc.shutdown();
    }

    // one topic, filled once, drained by each kind of consumer in a group of its own
    const drained = `BenchGrpcDrain_${process.pid}_${Date.now().toString(36)}`;
    await createTopic(broker.namesrvAddr, drained, 8);
    const filler = await ourClient(broker.namesrvAddr, drained, body);
    try {
      let sent = 0;
      const fill = filler.sender(SEND_SCENARIOS[1])!;
      await Promise.all(Array.from({ length: 64 }, async () => {
        while (sent < o.messages) {
          sent++;
          await fill(SEND_SCENARIOS[1]);
        }
      }));
    } finally {
      await filler.close();
    }
    const drains: Array<[string, () => Promise<number>]> = [
      ['remoting (ours, push)', () => drainOurs(broker.namesrvAddr, drained, o.messages)],
      ['gRPC (SimpleConsumer)', () => drainSimple(endpoints, drained, o.messages)],
      ['gRPC (PushConsumer)', () => drainPush(endpoints, drained, o.messages)],
    ];
    for (const [client, drain] of drains) {
      const cpu0 = broker.cpuMicros();
      const ms = await drain();
      const cpu = broker.cpuMicros() - cpu0;
      row(`drain ${o.messages.toLocaleString('en-US')}`, client, {
        msgPerSec: (o.messages * 1000) / ms, p50: Number.NaN, p99: Number.NaN, max: Number.NaN, errors: 0, brokerCpuMicrosPerMsg: cpu / o.messages,
      });
    }
  } finally {
    await broker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${formatGrpcBench(rows)}\n`);
  return rows;
}

export function grpcBenchResults(rows: readonly GrpcBenchRow[]): BenchResult[] {
  return rows.map((r) => ({
    name: `grpc.${r.scenario.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.${r.client.replace(/[^a-z0-9]+/gi, '-').toLowerCase().replace(/-$/, '')}`,
    opsPerSec: r.msgPerSec, meanMicros: 1e6 / r.msgPerSec, ops: 0,
    note: `p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, broker ${fmt(r.brokerCpuMicrosPerMsg, 1)} µs CPU/msg${r.errors ? `, ${r.errors} errors` : ''}`,
  }));
}

if (require.main === module) {
  runBenchScript(
    benchUsage(GRPC_OPTIONS, { '--duration': 'MS', '--warmup': 'MS', '--size': 'BYTES' }),
    (argv) => runGrpcBench(parseGrpcArgs(argv)),
  );
}
