/**
 * `rocketmq-ts bench produce`: sends messages and reports throughput, p50/p99/max latency and failures every
 * second and at the end. With `--count N --quiet` it is a plain sender for other tools.
 */
import { parseArgs } from 'node:util';
import { createMessage } from '../../protocol/message/message';
import type { Message } from '../../protocol/message/message';
import { DefaultMQProducer } from '../producer/default-mq-producer';

export const BENCH_PRODUCE_USAGE = `usage: rocketmq-ts bench produce --namesrv H:P --topic T [--count N | --duration S] [--size BYTES]
       [--mode sync|async|oneway|batch] [--concurrency N] [--batch-size N] [--tag TAG] [--keys K] [--group G] [--quiet]
`;

interface Stats {
  sent: number;
  failed: number;
  latencies: number[];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function line(label: string, stats: Stats, seconds: number): string {
  const sorted = stats.latencies.slice().sort((a, b) => a - b);
  const tps = seconds > 0 ? Math.round(stats.sent / seconds) : 0;
  return `${label} sent=${stats.sent} tps=${tps} p50=${percentile(sorted, 50).toFixed(2)}ms p99=${percentile(sorted, 99).toFixed(2)}ms max=${(sorted[sorted.length - 1] ?? 0).toFixed(2)}ms failed=${stats.failed}\n`;
}

export async function benchProduce(argv: string[], out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      namesrv: { type: 'string' }, topic: { type: 'string' }, count: { type: 'string' }, duration: { type: 'string' },
      size: { type: 'string', default: '1024' }, mode: { type: 'string', default: 'sync' }, concurrency: { type: 'string', default: '1' },
      'batch-size': { type: 'string', default: '16' }, tag: { type: 'string' }, keys: { type: 'string' }, group: { type: 'string' },
      quiet: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    out.write(BENCH_PRODUCE_USAGE);
    return 0;
  }
  const namesrv = values.namesrv ?? process.env.ROCKETMQ_NAMESRV_ADDR;
  if (!namesrv || !values.topic) {
    process.stderr.write(BENCH_PRODUCE_USAGE);
    return 2;
  }
  const mode = values.mode as string;
  if (!['sync', 'async', 'oneway', 'batch'].includes(mode)) {
    process.stderr.write(`unknown --mode ${mode}\n${BENCH_PRODUCE_USAGE}`);
    return 2;
  }
  const count = values.count !== undefined ? Number(values.count) : undefined;
  const durationMs = values.duration !== undefined ? Number(values.duration) * 1000 : count === undefined ? 10_000 : undefined;
  const concurrency = Math.max(1, Number(values.concurrency));
  const batchSize = Math.max(1, Number(values['batch-size']));
  const body = Buffer.alloc(Number(values.size), 0x61);
  const topic = values.topic;
  const makeMessage = (): Message => createMessage(topic, body, { tags: values.tag, keys: values.keys });

  const producer = new DefaultMQProducer({ producerGroup: values.group ?? `BENCH_PRODUCER_${process.pid}`, namesrvAddr: namesrv });
  await producer.start();
  const total: Stats = { sent: 0, failed: 0, latencies: [] };
  let window: Stats = { sent: 0, failed: 0, latencies: [] };
  const begin = Date.now();
  let windowBegin = begin;
  let issued = 0;
  const perSend = mode === 'batch' ? batchSize : 1;
  const more = () => (count !== undefined ? issued < count : Date.now() - begin < (durationMs ?? 0));
  const ticker = values.quiet ? null : setInterval(() => {
    const now = Date.now();
    out.write(line(`[${((now - begin) / 1000).toFixed(0)}s]`, window, (now - windowBegin) / 1000));
    window = { sent: 0, failed: 0, latencies: [] };
    windowBegin = now;
  }, 1000);
  ticker?.unref();

  const worker = async () => {
    while (more()) {
      const n = count !== undefined ? Math.min(perSend, count - issued) : perSend;
      issued += n;
      const t0 = process.hrtime.bigint();
      try {
        if (mode === 'sync') await producer.send(makeMessage());
        else if (mode === 'async') await producer.sendAsync(makeMessage());
        else if (mode === 'oneway') await producer.sendOneway(makeMessage());
        else await producer.send(Array.from({ length: n }, makeMessage));
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        total.sent += n;
        window.sent += n;
        total.latencies.push(ms);
        window.latencies.push(ms);
      } catch (err) {
        total.failed += n;
        window.failed += n;
        if (!values.quiet && total.failed <= 5) process.stderr.write(`send failed: ${(err as Error).message}\n`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    if (ticker) clearInterval(ticker);
    await producer.shutdown();
  }
  if (!values.quiet) out.write(line('[total]', total, (Date.now() - begin) / 1000));
  return total.failed > 0 ? 1 : 0;
}
