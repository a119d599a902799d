/**
 * Push-consumer benchmark, our DefaultMQPushConsumer side by side with ali-ons's consumer in one run against one
 * broker child process (`rocketmq-ts start`, as bench/producer.ts):
 * - drain: 100,000 messages of 1 KiB pre-loaded, then each client drains them with a new group from the first
 *   offset, listener doing nothing; msg/s from start() to the last message, and the ratio ours / ali-ons;
 * - latency: our producer at a steady 1,000 msg/s, our consumer; end-to-end latency from the broker's store
 *   timestamp to the listener call, p50/p99/max (ms resolution: the store timestamp has whole milliseconds).
 *
 *   node dist/bench/index.js consumer
 *   node dist/bench/consumer.js [--namesrv H:P] [--count N] [--size BYTES] [--rate MSG_PER_SEC] [--latency-seconds S]
 *     [--only ours|ali-ons]
 *
 * No assertions: numbers for humans.
 */
import { performance } from 'node:perf_hooks';
import { ConsumeConcurrentlyStatus, DefaultMQProducer, DefaultMQPushConsumer, createMessage, type Message } from '../lib/index';
import type { BenchResult } from './bench-util';
import { createTopic, startBrokerProcess } from './producer';

// ali-ons ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ons = require('ali-ons') as {
  Consumer: new (opts: Record<string, unknown>) => {
    ready(): Promise<void>;
    subscribe(topic: string, expr: string, handler: (msg: unknown) => Promise<void>): void;
    on(event: string, fn: (err: Error) => void): void;
    close(): Promise<void>;
  };
};

export interface ConsumerBenchOptions {
  namesrv?: string;
  count: number;
  size: number;
  /** Messages per second of the latency run. */
  rate: number;
  latencySeconds: number;
  clients: ReadonlyArray<'ours' | 'ali-ons'>;
}

export const DEFAULT_CONSUMER_BENCH_OPTIONS: Readonly<ConsumerBenchOptions> = Object.freeze({
  count: 100_000,
  size: 1024,
  rate: 1000,
  latencySeconds: 10,
  clients: Object.freeze(['ours', 'ali-ons'] as const),
});

const httpclient = { request: async () => { throw new Error('no HTTP name-server lookup in the bench'); } };

async function preload(producer: DefaultMQProducer, topic: string, count: number, body: Buffer): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = Math.min(32, count - next);
      next += n;
      const batch: Message[] = new Array(n);
      for (let i = 0; i < n; i++) batch[i] = createMessage(topic, body, { tags: 'TagA' });
      await producer.send(batch);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** Drains `count` messages with a new group of ours; ms from start() to the last message. */
async function drainOurs(namesrvAddr: string, topic: string, count: number): Promise<number> {
  const c = new DefaultMQPushConsumer({
    consumerGroup: `bench_drain_ours_${process.pid}_${Date.now().toString(36)}`, namesrvAddr, instanceName: `bench-ours-${process.pid}`,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  let n = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => { done = r; });
  c.subscribe(topic, '*');
  c.registerMessageListener((msgs) => {
    n += msgs.length;
    if (n >= count) done();
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  const t0 = performance.now();
  await c.start();
  await finished;
  const ms = performance.now() - t0;
  await c.shutdown();
  return ms;
}

async function drainAliOns(namesrvAddr: string, topic: string, count: number): Promise<number> {
  const c = new ons.Consumer({
    httpclient, nameSrv: namesrvAddr, accessKeyId: 'ak', accessKeySecret: 'sk', persistent: false,
    consumerGroup: `bench_drain_ons_${process.pid}_${Date.now().toString(36)}`, instanceName: `bench-ons-${process.pid}`,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', parallelConsumeLimit: 32,
  });
  c.on('error', () => undefined);
  let n = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => { done = r; });
  c.subscribe(topic, '*', async () => {
    n++;
    if (n === count) done();
  });
  const t0 = performance.now();
  await c.ready();
  await finished;
  const ms = performance.now() - t0;
  await c.close();
  c.on('error', () => undefined);
  return ms;
}

interface Latency { p50: number; p99: number; max: number; n: number; rate: number }

/** Our producer at `rate` msg/s for `seconds` (first second not measured), our consumer on a fresh topic. */
async function latencyRun(namesrvAddr: string, producer: DefaultMQProducer, o: ConsumerBenchOptions, body: Buffer): Promise<Latency> {
  const topic = `BenchConsumerLat_${process.pid}_${Date.now().toString(36)}`;
  await createTopic(namesrvAddr, topic);
  const c = new DefaultMQPushConsumer({
    consumerGroup: `bench_lat_${process.pid}_${Date.now().toString(36)}`, namesrvAddr, instanceName: `bench-lat-${process.pid}`,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  let measuring = false;
  const lat: number[] = [];
  c.subscribe(topic, '*');
  c.registerMessageListener((msgs) => {
    const now = Date.now();
    if (measuring) for (const m of msgs) lat.push(now - m.storeTimestamp);
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  await c.start();
  // one tick every 10 ms, sending what the schedule owes by now (steady rate, no bursts beyond a tick)
  const t0 = performance.now();
  let sent = 0;
  let inflight = 0;
  const end = t0 + o.latencySeconds * 1000;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (now >= end) {
        clearInterval(timer);
        resolve();
        return;
      }
      if (!measuring && now - t0 >= 1000) measuring = true;
      const owed = Math.floor(((now - t0) * o.rate) / 1000) - sent;
      for (let i = 0; i < owed; i++) {
        sent++;
        inflight++;
        producer.sendAsync(createMessage(topic, body, { tags: 'TagA' })).catch(() => undefined).finally(() => { inflight--; });
      }
    }, 10);
  });
  while (inflight > 0) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 200));
  measuring = false;
  const measuredSeconds = (performance.now() - t0 - 1000) / 1000;
  await c.shutdown();
  lat.sort((a, b) => a - b);
  const pct = (p: number): number => (lat.length ? lat[Math.min(lat.length - 1, Math.floor((lat.length * p) / 100))] : Number.NaN);
  return { p50: pct(50), p99: pct(99), max: lat.length ? lat[lat.length - 1] : Number.NaN, n: lat.length, rate: lat.length / measuredSeconds };
}

function parseArgs(argv: string[]): Partial<ConsumerBenchOptions> {
  const o: Partial<ConsumerBenchOptions> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--namesrv') o.namesrv = argv[++i];
    else if (a === '--count') o.count = Number(argv[++i]);
    else if (a === '--size') o.size = Number(argv[++i]);
    else if (a === '--rate') o.rate = Number(argv[++i]);
    else if (a === '--latency-seconds') o.latencySeconds = Number(argv[++i]);
    else if (a === '--only') o.clients = [argv[++i] as 'ours' | 'ali-ons'];
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

export async function runConsumerBench(options: Partial<ConsumerBenchOptions> = {}): Promise<BenchResult[]> {
  process.env.ROCKETMQ_LOG_LEVEL ??= 'warn';
  const o: ConsumerBenchOptions = { ...DEFAULT_CONSUMER_BENCH_OPTIONS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const broker = o.namesrv ? null : await startBrokerProcess();
  const namesrvAddr = o.namesrv ?? broker!.namesrvAddr;
  const out: BenchResult[] = [];
  const drain = new Map<string, number>();
  let latency: Latency | undefined;
  const body = Buffer.alloc(o.size, 'x');
  const producer = new DefaultMQProducer({ producerGroup: `bench_cons_prod_${process.pid}`, namesrvAddr, instanceName: `bench-cons-prod-${process.pid}` });
  try {
    await producer.start();
    const topic = `BenchConsumer_${process.pid}_${Date.now().toString(36)}`;
    await createTopic(namesrvAddr, topic);
    const t0 = performance.now();
    await preload(producer, topic, o.count, body);
    process.stderr.write(`pre-loaded ${o.count} messages of ${o.size} B in ${Math.round(performance.now() - t0)} ms\n`);
    for (const name of o.clients) {
      const ms = name === 'ours' ? await drainOurs(namesrvAddr, topic, o.count) : await drainAliOns(namesrvAddr, topic, o.count);
      const rate = (o.count * 1000) / ms;
      drain.set(name, rate);
      out.push({ name: `consumer.${name}.drain`, opsPerSec: rate, meanMicros: 1e6 / rate, ops: o.count });
      process.stderr.write(`${name} drain: ${Math.round(rate)} msg/s (${Math.round(ms)} ms)\n`);
    }
    if (o.clients.includes('ours')) {
      latency = await latencyRun(namesrvAddr, producer, o, body);
      out.push({ name: 'consumer.ours.latency', opsPerSec: latency.rate, meanMicros: 1e6 / latency.rate, ops: latency.n, note: `p50 ${latency.p50} ms, p99 ${latency.p99} ms` });
    }
  } finally {
    await producer.shutdown();
    const rss = broker?.peakRssBytes();
    await broker?.stop();
    const ours = drain.get('ours');
    const theirs = drain.get('ali-ons');
    const fmt = (n: number | undefined): string => (n === undefined ? '-' : Math.round(n).toLocaleString('en-US'));
    process.stdout.write(`drain of ${o.count.toLocaleString('en-US')} x ${o.size} B (listener doing nothing)\n`);
    process.stdout.write(`  ours ${fmt(ours)} msg/s   ali-ons ${fmt(theirs)} msg/s   ours/ali-ons ${ours && theirs ? (ours / theirs).toFixed(2) : '-'}x\n`);
    if (latency) {
      process.stdout.write(`end-to-end latency (store timestamp -> listener) at ${o.rate} msg/s: p50 ${latency.p50} ms, p99 ${latency.p99} ms, max ${latency.max} ms (${latency.n} messages, ${Math.round(latency.rate)} msg/s)\n`);
    }
    if (rss !== undefined) process.stdout.write(`broker process peak RSS: ${(rss / 1024 / 1024).toFixed(1)} MB\n`);
  }
  return out;
}

if (require.main === module) {
  runConsumerBench(parseArgs(process.argv.slice(2))).then(
    () => {
      process.exit(0); // ali-ons leaves timers behind after close()
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
