/**
 * `rocketmq-ts bench consume`: consumes with a DefaultMQPushConsumer and reports throughput and end-to-end latency
 * (store time to delivery) every second and at the end. Exits 0 once --count messages arrived (or at --timeout when
 * no count was given), 1 when the count was not reached in time, 2 on bad arguments, so scripts can rely on it.
 */
import { parseArgs } from 'node:util';
import { ConsumeFromWhere, MessageModel } from '../../protocol/body/heartbeat-data';
import { MessageConst } from '../../protocol/message/message-const';
import type { MessageExt } from '../../protocol/message/message';
import { ConsumeConcurrentlyStatus, ConsumeOrderlyStatus } from '../consumer/listener';
import { MessageSelector } from '../consumer/message-selector';
import { DefaultMQPushConsumer } from '../consumer/push-consumer';
import { endProgress, percentile, progressText, reportMode, summarize, table, writeProgress } from './bench-report';
import { securityOptions } from './bench-produce';

export const BENCH_CONSUME_USAGE = `usage: rocketmq-ts bench consume --namesrv H:P --topic T --group G [--count N] [--timeout S]
       [--tag-expr EXPR | --sql EXPR] [--broadcast] [--orderly] [--from first|last] [--print] [--quiet] [--json]
       [--access-key AK --secret-key SK] (sign requests, ACL) [--tls] (connect with TLS)
  --count N      exit 0 once N messages arrived, 1 if they did not within --timeout
  --timeout S    seconds to wait (default 60); without --count the run ends there with exit 0
  --tag-expr     tag expression ("*", "TagA || TagB"), default "*"; --sql: an SQL92 filter instead
  --broadcast    BROADCASTING message model (default CLUSTERING)
  --orderly      an orderly listener (queues locked at the broker) instead of a concurrent one
  --from         where a group without a committed offset starts (default first)
  --print        one line per message: topic, queueId, queueOffset, msgId, tags, keys, body length, reconsumeTimes
  --quiet        no per-second report
  --json         nothing while running, then one JSON object with the totals
  On a terminal: a live progress line and a final table; otherwise one key=value line per second and a [total] line.
`;

interface Window {
  count: number;
  latencies: number[];
}

function report(label: string, w: Window, seconds: number, total: number): string {
  const sorted = w.latencies.slice().sort((a, b) => a - b);
  const tps = seconds > 0 ? Math.round(w.count / seconds) : 0;
  return `${label} consumed=${total} tps=${tps} e2e_p50=${percentile(sorted, 50)}ms e2e_p99=${percentile(sorted, 99)}ms e2e_max=${sorted[sorted.length - 1] ?? 0}ms\n`;
}

/** One `--print` line. */
export function formatMessageLine(m: MessageExt): string {
  const tags = m.properties[MessageConst.PROPERTY_TAGS] ?? '';
  const keys = m.properties[MessageConst.PROPERTY_KEYS] ?? '';
  return `topic=${m.topic} queueId=${m.queueId} queueOffset=${m.queueOffset} msgId=${m.msgId} tags=${tags} keys=${keys} bodyLength=${m.body.length} reconsumeTimes=${m.reconsumeTimes}\n`;
}

export async function benchConsume(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        namesrv: { type: 'string' }, topic: { type: 'string' }, group: { type: 'string' }, count: { type: 'string' },
        timeout: { type: 'string', default: '60' }, 'tag-expr': { type: 'string' }, sql: { type: 'string' },
        broadcast: { type: 'boolean', default: false }, orderly: { type: 'boolean', default: false },
        from: { type: 'string', default: 'first' }, print: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false },
        'access-key': { type: 'string' }, 'secret-key': { type: 'string' }, tls: { type: 'boolean', default: false },
      },
    }));
  } catch (e) {
    err.write(`${(e as Error).message}\n${BENCH_CONSUME_USAGE}`);
    return 2;
  }
  if (values.help) {
    out.write(BENCH_CONSUME_USAGE);
    return 0;
  }
  const namesrv = values.namesrv ?? process.env.ROCKETMQ_NAMESRV_ADDR;
  const count = values.count !== undefined ? Number(values.count) : undefined;
  const timeoutMs = Number(values.timeout) * 1000;
  const bad = !namesrv || !values.topic || !values.group
    || (count !== undefined && !(Number.isInteger(count) && count > 0))
    || !(timeoutMs > 0)
    || (values['tag-expr'] !== undefined && values.sql !== undefined)
    || (values.from !== 'first' && values.from !== 'last');
  const security = securityOptions(values['access-key'], values['secret-key'], values.tls);
  if (bad || !security) {
    err.write(BENCH_CONSUME_USAGE);
    return 2;
  }
  const consumer = new DefaultMQPushConsumer({
    ...security,
    consumerGroup: values.group!,
    namesrvAddr: namesrv,
    messageModel: values.broadcast ? MessageModel.BROADCASTING : MessageModel.CLUSTERING,
    consumeFromWhere: values.from === 'last' ? ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET : ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
  });
  consumer.subscribe(values.topic!, values.sql !== undefined ? MessageSelector.bySql(values.sql) : (values['tag-expr'] ?? '*'));

  let total = 0;
  let windowStats: Window = { count: 0, latencies: [] };
  const all: number[] = [];
  let finish: (() => void) | null = null;
  const done = new Promise<void>((resolve) => { finish = resolve; });
  const onMessages = (msgs: MessageExt[]): void => {
    const now = Date.now();
    for (const m of msgs) {
      const latency = Math.max(0, now - m.storeTimestamp);
      total++;
      windowStats.count++;
      windowStats.latencies.push(latency);
      all.push(latency);
      if (values.print) out.write(formatMessageLine(m));
    }
    if (count !== undefined && total >= count) finish?.();
  };
  if (values.orderly) {
    consumer.registerMessageListenerOrderly((msgs) => {
      onMessages(msgs);
      return ConsumeOrderlyStatus.SUCCESS;
    });
  } else {
    consumer.registerMessageListener((msgs) => {
      onMessages(msgs);
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
  }

  const started = Date.now();
  let last = started;
  const mode = reportMode(out, values.json === true);
  const ticker = values.quiet || mode === 'json' ? null : setInterval(() => {
    const now = Date.now();
    if (mode === 'tty' && !values.print) {
      const rate = windowStats.count / Math.max(0.001, (now - last) / 1000);
      writeProgress(out, progressText((now - started) / 1000, rate, 'received', total, summarize(windowStats.latencies)));
    } else {
      out.write(report(`[${((now - started) / 1000).toFixed(0)}s]`, windowStats, (now - last) / 1000, total));
    }
    windowStats = { count: 0, latencies: [] };
    last = now;
  }, 1000);
  const timer = setTimeout(() => finish?.(), timeoutMs);
  const onSignal = (): void => finish?.();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await consumer.start();
    await done;
  } finally {
    clearTimeout(timer);
    if (ticker) clearInterval(ticker);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await consumer.shutdown();
  }
  const seconds = (Date.now() - started) / 1000;
  if (mode === 'json') {
    const lat = summarize(all);
    out.write(JSON.stringify({ received: total, seconds, tps: seconds > 0 ? Math.round(total / seconds) : 0, e2eP50Ms: lat.p50, e2eP99Ms: lat.p99, e2eMaxMs: lat.max }) + '\n');
  } else if (mode === 'tty' && !values.print) {
    const lat = summarize(all);
    endProgress(out);
    out.write(table(['received', 'seconds', 'msg/s', 'e2e p50 ms', 'e2e p99 ms', 'e2e max ms'],
      [[total, seconds, seconds > 0 ? Math.round(total / seconds) : 0, lat.p50, lat.p99, lat.max]]));
  } else {
    out.write(report('[total]', { count: total, latencies: all }, seconds, total));
  }
  if (count !== undefined && total < count) {
    err.write(`bench consume: ${total} of ${count} messages arrived within ${values.timeout} s\n`);
    return 1;
  }
  return 0;
}
