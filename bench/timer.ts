/**
 * Timer-message lateness: N messages with deliver times spread over a few seconds (setDeliverTimeMs) through our
 * in-process broker; lateness = arrival at the push consumer's listener − deliver time (p50 / p99 / max), and the
 * broker's own (re-store time − deliver time). Numbers for humans: no assertion.
 */
import { ConsumeConcurrentlyStatus, DefaultMQProducer, DefaultMQPushConsumer, createMessage, setDeliverTimeMs } from '../lib/index';
import { startCluster } from '../lib/server';
import { benchUsage, readBenchOptions, runBenchScript } from './bench-util';

export interface TimerBenchResult {
  messages: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  earlyCount: number;
  brokerMaxMs: number;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

export async function runTimerBench(messages = 500, spreadMs = 4000): Promise<TimerBenchResult> {
  const cluster = await startCluster();
  const topic = `BenchTimer_${process.pid}`;
  const producer = new DefaultMQProducer({ producerGroup: 'BenchTimerP', namesrvAddr: cluster.namesrvAddr, instanceName: 'bench-timer-p' });
  const consumer = new DefaultMQPushConsumer({
    consumerGroup: 'BenchTimerC', namesrvAddr: cluster.namesrvAddr, instanceName: 'bench-timer-c', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  const lateness: number[] = [];
  try {
    await producer.start();
    await producer.send(createMessage(topic, 'warm-up'));
    consumer.subscribe(topic, 'timer');
    consumer.registerMessageListener((msgs) => {
      const now = Date.now();
      for (const m of msgs) lateness.push(now - Number(m.properties.TIMER_DELIVER_MS));
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await consumer.start();
    // Deliver times start after the sends are likely over (a message enqueued after its time is late by construction).
    const t0 = Date.now() + 3000;
    for (let i = 0; i < messages; i++) {
      const m = createMessage(topic, `t${i}`, { tags: 'timer' });
      setDeliverTimeMs(m, t0 + Math.floor((i * spreadMs) / messages));
      await producer.send(m);
    }
    const deadline = Date.now() + spreadMs + 60_000;
    while (lateness.length < messages && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const sorted = [...lateness].sort((a, b) => a - b);
    return {
      messages: sorted.length, p50Ms: pct(sorted, 0.5), p99Ms: pct(sorted, 0.99), maxMs: sorted[sorted.length - 1] ?? NaN,
      earlyCount: sorted.filter((x) => x < 0).length, brokerMaxMs: cluster.brokers[0].timerMessageStore.stats.maxLatenessMs,
    };
  } finally {
    await consumer.shutdown();
    await producer.shutdown();
    await cluster.stop();
  }
}

export const TIMER_OPTIONS = { '--messages': 'value', '--spread': 'value' } as const;

/** The options of the timer scenario; `ignoreUnknown` for the whole command line of bench/index.ts. */
export function parseTimerArgs(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): { messages?: number; spreadMs?: number } {
  const o = readBenchOptions(argv, TIMER_OPTIONS, how);
  return { messages: o.number('--messages'), spreadMs: o.number('--spread') };
}

if (require.main === module) {
  runBenchScript(benchUsage(TIMER_OPTIONS, { '--spread': 'MS' }), async (argv) => {
    const o = parseTimerArgs(argv);
    process.stdout.write(`${JSON.stringify(await runTimerBench(o.messages, o.spreadMs))}\n`);
  });
}
