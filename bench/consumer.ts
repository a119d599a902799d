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
 *     [--only ours|ali-ons] [--trace] [--pull-trace]
 *
 * No assertions: numbers for humans.
 */
import { PerformanceObserver, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { ConsumeConcurrentlyStatus, DefaultMQProducer, DefaultMQPushConsumer, createMessage, type Message } from '../lib/index';
import { PullAPIWrapper } from '../lib/consumer/pull-api-wrapper';
import { MQBrokerError } from '../lib/errors';
import { FrameDecoder } from '../protocol/frame';
import type { MessageExt } from '../protocol/message/message';
import { type BenchResult, benchUsage, readBenchOptions, runBenchScript } from './bench-util';
import { ALI_ONS_LOGGER, closeAliOnsInnerProducer, createTopic, startBrokerProcess } from './producer';

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
  /** Print the per-stage path trace of the latency run. */
  trace?: boolean;
  /** Print the pull trace of our drain (see PullTrace). */
  pullTrace?: boolean;
}

export const DEFAULT_CONSUMER_BENCH_OPTIONS: Readonly<ConsumerBenchOptions> = Object.freeze({
  count: 100_000,
  size: 1024,
  rate: 1000,
  latencySeconds: 10,
  clients: Object.freeze(['ours', 'ali-ons'] as const),
});

const httpclient = { request: async () => { throw new Error('no HTTP name-server lookup in the bench'); } };

export async function preload(producer: DefaultMQProducer, topic: string, count: number, body: Buffer): Promise<void> {
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

/**
 * `--pull-trace`: what the pull path of our drain saw: pulls per queue, the time from a pull's request to its answer,
 * the most pulls outstanding on one queue, the broker's answers (pull status or error code, when each first came
 * and on which queues), and socket reads per pull response. PullAPIWrapper.pullKernelImpl and FrameDecoder.push are
 * wrapped for the run (bench only). This is how a 3 s stall of a few queues after the rebalance showed up against
 * the Java broker (SUBSCRIPTION_NOT_LATEST, see DefaultMQPushConsumer #announceSubscriptions).
 */
export class PullTrace {
  #t0 = 0;
  #reads = 0;
  #readBytes = 0;
  #pulls = 0;
  #pullBytes = 0;
  readonly #rtt: number[] = [];
  readonly #answers = new Map<string, { n: number; first: number; queues: Set<number> }>();
  readonly #inflight = new Map<number, number>();
  #maxInflight = 0;
  #restore: (() => void) | undefined;

  start(topic: string): void {
    const proto = PullAPIWrapper.prototype;
    const kernel = proto.pullKernelImpl;
    const decoderProto = FrameDecoder.prototype;
    const push = decoderProto.push;
    this.#t0 = performance.now();
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const trace = this;
    decoderProto.push = function tracedPush(this: FrameDecoder, chunk: Buffer) {
      trace.#reads++;
      trace.#readBytes += chunk.length;
      return push.call(this, chunk);
    };
    proto.pullKernelImpl = async function tracedKernel(this: PullAPIWrapper, ...args: Parameters<typeof kernel>) {
      const q = args[0].mq.queueId;
      const ours = args[0].mq.topic === topic;
      const sent = performance.now();
      if (ours) {
        const n = (trace.#inflight.get(q) ?? 0) + 1;
        trace.#inflight.set(q, n);
        trace.#maxInflight = Math.max(trace.#maxInflight, n);
      }
      let answer = '';
      try {
        const raw = await kernel.apply(this, args);
        answer = raw.pullStatus;
        if (ours) {
          trace.#pulls++;
          trace.#pullBytes += raw.messageBinary?.length ?? 0;
        }
        return raw;
      } catch (err) {
        answer = err instanceof MQBrokerError ? `error ${err.responseCode} (${err.remark ?? ''})` : `error ${(err as Error).name}`;
        throw err;
      } finally {
        if (ours) {
          const now = performance.now();
          trace.#inflight.set(q, trace.#inflight.get(q)! - 1);
          trace.#rtt.push(now - sent);
          let a = trace.#answers.get(answer);
          if (!a) trace.#answers.set(answer, (a = { n: 0, first: now - trace.#t0, queues: new Set() }));
          a.n++;
          a.queues.add(q);
        }
      }
    };
    this.#restore = () => {
      proto.pullKernelImpl = kernel;
      decoderProto.push = push;
    };
  }

  stop(): string {
    this.#restore?.();
    this.#restore = undefined;
    const p = percentiles(this.#rtt);
    const answers = [...this.#answers].map(([k, a]) => `    ${k}: ${a.n}, first at +${a.first.toFixed(0)} ms, queues ${[...a.queues].sort((x, y) => x - y).join(',')}`);
    return [
      `pull trace of our drain: ${this.#pulls} pull responses (${(this.#pullBytes / Math.max(1, this.#pulls)).toFixed(0)} B of records each), ` +
        `${this.#reads} socket reads of ${(this.#readBytes / 1048576).toFixed(1)} MiB (${(this.#reads / Math.max(1, this.#pulls)).toFixed(2)} reads per pull response)`,
      `  request -> answer ms: p50 ${p.p50.toFixed(2)}  p99 ${p.p99.toFixed(2)}  max ${p.max.toFixed(2)}; at most ${this.#maxInflight} pull(s) outstanding on one queue`,
      '  answers:',
      ...answers,
    ].join('\n');
  }
}

/** Drains `count` messages with a new group of ours; ms from start() to the last message. */
export async function drainOurs(namesrvAddr: string, topic: string, count: number, opts: { pullTrace?: boolean } = {}): Promise<number> {
  const trace = opts.pullTrace ? new PullTrace() : undefined;
  trace?.start(topic);
  const c = new DefaultMQPushConsumer({
    consumerGroup: `bench_drain_ours_${process.pid}_${Date.now().toString(36)}`, namesrvAddr, instanceName: `bench-ours-drain-${process.pid}-${Date.now().toString(36)}`,
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
  try {
    await c.start();
    await finished;
  } finally {
    const report = trace?.stop();
    if (report) process.stderr.write(`${report}\n`);
  }
  const ms = performance.now() - t0;
  await c.shutdown();
  return ms;
}

export async function drainAliOns(namesrvAddr: string, topic: string, count: number): Promise<number> {
  const c = new ons.Consumer({
    httpclient, nameSrv: namesrvAddr, accessKeyId: 'ak', accessKeySecret: 'sk', persistent: false, logger: ALI_ONS_LOGGER,
    consumerGroup: `bench_drain_ons_${process.pid}_${Date.now().toString(36)}`, instanceName: `bench-ons-drain-${process.pid}-${Date.now().toString(36)}`,
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
  await closeAliOnsInnerProducer();
  return ms;
}

export interface Latency { p50: number; p99: number; max: number; n: number; rate: number; trace?: string }

/** Wall-clock milliseconds with sub-millisecond resolution (comparable across processes of one machine). */
const hrNow = (): number => performance.timeOrigin + performance.now();

const percentiles = (values: number[]): { p50: number; p99: number; max: number } => {
  const v = [...values].sort((a, b) => a - b);
  const at = (p: number): number => (v.length ? v[Math.min(v.length - 1, Math.floor((v.length * p) / 100))] : Number.NaN);
  return { p50: at(50), p99: at(99), max: v.length ? v[v.length - 1] : Number.NaN };
};

/**
 * `--trace`: per-message timestamps along the path, send (in the body) -> broker store timestamp -> pull response
 * handed to the client's result processing -> decoded -> listener called, plus event-loop delay and GC pauses
 * of this process. The pull wrapper's result processing is wrapped for the run (bench only).
 */
class PathTrace {
  readonly #marks = new WeakMap<object, { recv: number; decoded: number; pullSent: number }>();
  readonly rows: Array<[send: number, store: number, recv: number, decoded: number, listener: number, queueId: number, queueOffset: number, pullSent: number]> = [];
  readonly gc: number[] = [];
  readonly #histogram = monitorEventLoopDelay({ resolution: 1 });
  readonly #observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) this.gc.push(e.duration);
  });
  #restore: (() => void) | undefined;
  #t0 = 0;

  start(): void {
    const proto = PullAPIWrapper.prototype;
    const original = proto.processPullResult;
    const originalKernel = proto.pullKernelImpl;
    const marks = this.#marks;
    const sentAt = new WeakMap<object, number>();
    this.#t0 = hrNow();
    proto.pullKernelImpl = async function patchedKernel(this: PullAPIWrapper, ...args: Parameters<typeof originalKernel>) {
      const sent = hrNow();
      const raw = await originalKernel.apply(this, args);
      sentAt.set(raw, sent);
      return raw;
    };
    proto.processPullResult = function patched(this: PullAPIWrapper, ...args: Parameters<typeof original>) {
      const recv = hrNow();
      const result = original.apply(this, args);
      const decoded = hrNow();
      const pullSent = sentAt.get(args[1]) ?? Number.NaN;
      for (const m of result.msgFoundList) marks.set(m, { recv, decoded, pullSent });
      return result;
    };
    this.#restore = () => {
      proto.processPullResult = original;
      proto.pullKernelImpl = originalKernel;
    };
    this.#histogram.enable();
    this.#observer.observe({ entryTypes: ['gc'] });
  }

  record(m: MessageExt, listener: number): void {
    const mark = this.#marks.get(m);
    if (!mark || m.body.length < 8) return;
    this.rows.push([m.body.readDoubleLE(0), m.storeTimestamp, mark.recv, mark.decoded, listener, m.queueId, m.queueOffset, mark.pullSent]);
  }

  stop(): string {
    this.#restore?.();
    this.#histogram.disable();
    this.#observer.disconnect();
    const col = (f: (r: PathTrace['rows'][number]) => number): string => {
      const p = percentiles(this.rows.map(f));
      return `p50 ${p.p50.toFixed(2)}  p99 ${p.p99.toFixed(2)}  max ${p.max.toFixed(2)}`;
    };
    const h = this.#histogram;
    const gc = percentiles(this.gc);
    const worst = [...this.rows].sort((a, b) => (b[4] - b[1]) - (a[4] - a[1])).slice(0, 8)
      .map((r) => `    queue ${r[5]} offset ${r[6]} at +${(r[0] - this.#t0).toFixed(0)}: send->store ${(r[1] - r[0]).toFixed(1)}  pull sent at store${(r[7] - r[1]) >= 0 ? '+' : ''}${(r[7] - r[1]).toFixed(1)}  store->recv ${(r[2] - r[1]).toFixed(1)}  decode ${(r[3] - r[2]).toFixed(2)}  decoded->listener ${(r[4] - r[3]).toFixed(2)}`);
    return [
      `path trace (ms, ${this.rows.length} messages; store timestamps are whole ms):`,
      `  send -> store            ${col((r) => r[1] - r[0])}`,
      `  store -> pull response   ${col((r) => r[2] - r[1])}`,
      `  pull response -> decoded ${col((r) => r[3] - r[2])}`,
      `  decoded -> listener      ${col((r) => r[4] - r[3])}`,
      `  store -> listener        ${col((r) => r[4] - r[1])}`,
      `  send -> listener         ${col((r) => r[4] - r[0])}`,
      `  event-loop delay: p50 ${(h.percentile(50) / 1e6).toFixed(2)}  p99 ${(h.percentile(99) / 1e6).toFixed(2)}  max ${(h.max / 1e6).toFixed(2)}`,
      `  GC pauses: ${this.gc.length}, p50 ${gc.p50.toFixed(2)}  p99 ${gc.p99.toFixed(2)}  max ${gc.max.toFixed(2)}  total ${this.gc.reduce((a, b) => a + b, 0).toFixed(1)}`,
      '  slowest store -> listener:',
      ...worst,
    ].join('\n');
  }
}

/**
 * Our producer at `rate` msg/s for `seconds` (first second not measured), our consumer on a fresh topic. Each
 * message is sent at its own time on the schedule (a timer per due message, no bursts of a 10 ms tick).
 */
export async function latencyRun(namesrvAddr: string, producer: DefaultMQProducer, o: Pick<ConsumerBenchOptions, 'rate' | 'latencySeconds' | 'trace'>, body: Buffer): Promise<Latency> {
  const topic = `BenchConsumerLat_${process.pid}_${Date.now().toString(36)}`;
  await createTopic(namesrvAddr, topic);
  const c = new DefaultMQPushConsumer({
    consumerGroup: `bench_lat_${process.pid}_${Date.now().toString(36)}`, namesrvAddr, instanceName: `bench-lat-${process.pid}`,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  let measuring = false;
  const lat: number[] = [];
  const trace = o.trace ? new PathTrace() : undefined;
  c.subscribe(topic, '*');
  c.registerMessageListener((msgs) => {
    const now = Date.now();
    const hr = trace ? hrNow() : 0;
    if (measuring) {
      for (const m of msgs) {
        lat.push(now - m.storeTimestamp);
        trace?.record(m, hr);
      }
    }
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  await c.start();
  trace?.start();
  const t0 = performance.now();
  let sent = 0;
  let inflight = 0;
  const end = t0 + o.latencySeconds * 1000;
  const intervalMs = 1000 / o.rate;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      if (now >= end) {
        resolve();
        return;
      }
      if (!measuring && now - t0 >= 1000) measuring = true;
      const owed = Math.floor((now - t0) / intervalMs) + 1 - sent;
      for (let i = 0; i < owed; i++) {
        sent++;
        inflight++;
        const b = Buffer.from(body);
        if (b.length >= 8) b.writeDoubleLE(hrNow(), 0);
        producer.sendAsync(createMessage(topic, b, { tags: 'TagA' })).catch(() => undefined).finally(() => { inflight--; });
      }
      // the next message's due time (at least 1 ms: timer resolution)
      setTimeout(tick, Math.max(0, t0 + sent * intervalMs - performance.now()));
    };
    tick();
  });
  while (inflight > 0) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 200));
  measuring = false;
  const measuredSeconds = (performance.now() - t0 - 1000) / 1000;
  await c.shutdown();
  const p = percentiles(lat);
  return { ...p, n: lat.length, rate: lat.length / measuredSeconds, trace: trace?.stop() };
}

export const CONSUMER_OPTIONS = {
  '--namesrv': 'value', '--count': 'value', '--size': 'value', '--rate': 'value', '--latency-seconds': 'value', '--trace': 'flag',
  '--pull-trace': 'flag', '--only': 'value',
} as const;

/** The options of the consumer scenario; `ignoreUnknown` for the whole command line of bench/index.ts. */
export function parseConsumerArgs(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): Partial<ConsumerBenchOptions> {
  const o = readBenchOptions(argv, CONSUMER_OPTIONS, how);
  return {
    namesrv: o.string('--namesrv'), count: o.number('--count'), size: o.number('--size'), rate: o.number('--rate'),
    latencySeconds: o.number('--latency-seconds'), trace: o.has('--trace') || undefined, pullTrace: o.has('--pull-trace') || undefined,
    clients: o.list('--only', ['ours', 'ali-ons'] as const),
  };
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
      const ms = name === 'ours' ? await drainOurs(namesrvAddr, topic, o.count, { pullTrace: o.pullTrace }) : await drainAliOns(namesrvAddr, topic, o.count);
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
      if (latency.trace) process.stdout.write(`${latency.trace}\n`);
    }
    if (rss !== undefined) process.stdout.write(`broker process peak RSS: ${(rss / 1024 / 1024).toFixed(1)} MB\n`);
  }
  return out;
}

if (require.main === module) {
  runBenchScript(
    benchUsage(CONSUMER_OPTIONS, { '--namesrv': 'HOST:PORT', '--size': 'BYTES', '--latency-seconds': 'S', '--only': 'ours|ali-ons' }),
    (argv) => runConsumerBench(parseConsumerArgs(argv)),
  );
}
