/**
 * `rocketmq-ts bench produce`: sends messages and reports throughput, p50/p99/max latency and failures every
 * second and at the end (a live line and a table on a terminal, key=value lines otherwise, one JSON object with
 * `--json`; see bench-report.ts). With `--count N --quiet` it is a plain sender for other tools.
 */
import { parseArgs } from 'node:util';
import { createMessage } from '../../protocol/message/message';
import type { Message } from '../../protocol/message/message';
import { DefaultMQProducer } from '../producer/default-mq-producer';
import { AclClientRPCHook } from '../client/acl/acl-client-rpc-hook';

/** `rpcHook` and `useTLS` from --access-key / --secret-key / --tls; null when only one key is given. */
export function securityOptions(accessKey: string | undefined, secretKey: string | undefined, tls: boolean | undefined): { rpcHook?: AclClientRPCHook; useTLS: boolean } | null {
  if ((accessKey === undefined) !== (secretKey === undefined)) return null;
  return { useTLS: tls === true, ...(accessKey !== undefined ? { rpcHook: new AclClientRPCHook({ accessKey, secretKey: secretKey as string }) } : {}) };
}
import { LocalTransactionState, TransactionMQProducer } from '../producer/transaction-mq-producer';
import { endProgress, percentile, progressText, reportMode, summarize, table, writeProgress } from './bench-report';

export const BENCH_PRODUCE_USAGE = `usage: rocketmq-ts bench produce --namesrv H:P --topic T [--count N | --duration S] [--size BYTES]
       [--mode sync|async|oneway|batch|transaction] [--concurrency N] [--batch-size N] [--tag TAG] [--keys K] [--group G]
       [--quiet] [--json]
       [--access-key AK --secret-key SK] (sign requests, ACL) [--tls] (connect with TLS)
       a live progress line and a final table on a terminal, key=value lines otherwise; --json: one JSON object at the end
       transaction mode: [--local commit|rollback|unknown] (the local transaction's answer, default commit)
                         [--check commit|rollback] (the answer to the broker's checks, default commit)
                         [--linger S] (stay up S seconds after the sends to answer checks, default 0)
`;

const LOCAL_STATES: Record<string, LocalTransactionState> = {
  commit: LocalTransactionState.COMMIT_MESSAGE,
  rollback: LocalTransactionState.ROLLBACK_MESSAGE,
  unknown: LocalTransactionState.UNKNOW,
};

interface Stats {
  sent: number;
  failed: number;
  latencies: number[];
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
      local: { type: 'string', default: 'commit' }, check: { type: 'string', default: 'commit' }, linger: { type: 'string', default: '0' },
      quiet: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false },
      'access-key': { type: 'string' }, 'secret-key': { type: 'string' }, tls: { type: 'boolean', default: false },
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
  if (!['sync', 'async', 'oneway', 'batch', 'transaction'].includes(mode)) {
    process.stderr.write(`unknown --mode ${mode}\n${BENCH_PRODUCE_USAGE}`);
    return 2;
  }
  const localState = LOCAL_STATES[values.local as string];
  const checkState = LOCAL_STATES[values.check as string];
  if (!localState || !checkState || checkState === LocalTransactionState.UNKNOW) {
    process.stderr.write(`bad --local ${values.local} or --check ${values.check}\n${BENCH_PRODUCE_USAGE}`);
    return 2;
  }
  const lingerMs = Math.max(0, Number(values.linger) * 1000);
  const count = values.count !== undefined ? Number(values.count) : undefined;
  const durationMs = values.duration !== undefined ? Number(values.duration) * 1000 : count === undefined ? 10_000 : undefined;
  const concurrency = Math.max(1, Number(values.concurrency));
  const batchSize = Math.max(1, Number(values['batch-size']));
  const body = Buffer.alloc(Number(values.size), 0x61);
  const topic = values.topic;
  const makeMessage = (): Message => createMessage(topic, body, { tags: values.tag, keys: values.keys });

  const producerGroup = values.group ?? `BENCH_PRODUCER_${process.pid}`;
  const security = securityOptions(values['access-key'], values['secret-key'], values.tls);
  if (!security) {
    process.stderr.write(`--access-key and --secret-key go together\n${BENCH_PRODUCE_USAGE}`);
    return 2;
  }
  const tx = mode === 'transaction'
    ? new TransactionMQProducer({
      producerGroup, namesrvAddr: namesrv, ...security,
      transactionListener: { executeLocalTransaction: () => localState, checkLocalTransaction: () => checkState },
    })
    : null;
  const producer = tx ?? new DefaultMQProducer({ producerGroup, namesrvAddr: namesrv, ...security });
  await producer.start();
  const total: Stats = { sent: 0, failed: 0, latencies: [] };
  let window: Stats = { sent: 0, failed: 0, latencies: [] };
  const begin = Date.now();
  let windowBegin = begin;
  let issued = 0;
  const perSend = mode === 'batch' ? batchSize : 1;
  const more = () => (count !== undefined ? issued < count : Date.now() - begin < (durationMs ?? 0));
  const report = reportMode(out, values.json === true);
  const ticker = values.quiet || report === 'json' ? null : setInterval(() => {
    const now = Date.now();
    if (report === 'tty') {
      const rate = window.sent / Math.max(0.001, (now - windowBegin) / 1000);
      writeProgress(out, progressText((now - begin) / 1000, rate, 'sent', total.sent, summarize(window.latencies), total.failed));
    } else {
      out.write(line(`[${((now - begin) / 1000).toFixed(0)}s]`, window, (now - windowBegin) / 1000));
    }
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
        else if (tx) await tx.sendMessageInTransaction(makeMessage());
        else await producer.send(Array.from({ length: n }, makeMessage));
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        total.sent += n;
        window.sent += n;
        total.latencies.push(ms);
        window.latencies.push(ms);
      } catch (err) {
        total.failed += n;
        window.failed += n;
        if (!values.quiet && report !== 'json' && total.failed <= 5) process.stderr.write(`${report === 'tty' ? '\n' : ''}send failed: ${(err as Error).message}\n`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    if (ticker) clearInterval(ticker);
    if (tx && lingerMs > 0) await new Promise((r) => setTimeout(r, lingerMs));
    await producer.shutdown();
  }
  const seconds = (Date.now() - begin) / 1000;
  const lat = summarize(total.latencies);
  const tps = seconds > 0 ? total.sent / seconds : 0;
  if (report === 'json') {
    out.write(JSON.stringify({ mode, sent: total.sent, failed: total.failed, seconds, tps: Math.round(tps), p50Ms: lat.p50, p99Ms: lat.p99, maxMs: lat.max }) + '\n');
  } else if (report === 'tty' && !values.quiet) {
    endProgress(out);
    out.write(table(['mode', 'sent', 'failed', 'seconds', 'msg/s', 'p50 ms', 'p99 ms', 'max ms'],
      [[mode, total.sent, total.failed, seconds, Math.round(tps), lat.p50, lat.p99, lat.max]]));
  } else if (!values.quiet) {
    out.write(line('[total]', total, seconds));
  }
  return total.failed > 0 ? 1 : 0;
}
