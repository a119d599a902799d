/**
 * What every example shares: a cluster to run against. With ROCKETMQ_NAMESRV_ADDR set the example uses that cluster;
 * otherwise it starts an embedded one (name server + broker on 127.0.0.1, temp store) and stops it when done.
 */
import { DefaultMQProducer, type MessageExt, createMessage, getKeys } from '../lib/index';
import { type StartClusterOptions, startCluster } from '../lib/server';

export interface ExampleContext {
  namesrvAddr: string;
  /** True when the example runs against a cluster it started itself. */
  embedded: boolean;
}

/** Runs `fn` against ROCKETMQ_NAMESRV_ADDR, or an embedded cluster started for it (and stopped after). */
export async function withCluster(fn: (ctx: ExampleContext) => Promise<void>, options: StartClusterOptions = {}): Promise<void> {
  const external = process.env.ROCKETMQ_NAMESRV_ADDR;
  if (external) {
    await fn({ namesrvAddr: external, embedded: false });
    return;
  }
  const cluster = await startCluster(options);
  console.log(`embedded cluster, name server at ${cluster.namesrvAddr}`);
  try {
    await fn({ namesrvAddr: cluster.namesrvAddr, embedded: true });
  } finally {
    await cluster.stop();
  }
}

/** Runs an example's main: errors are printed and make the process exit non-zero. */
export function run(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}

/** A tag for this run, so a consumer example can tell its own messages from older ones on a shared cluster. */
export const RUN_ID = `${process.pid}-${Date.now().toString(36)}`;

/** The topic of the examples (env TOPIC, default TopicTest). */
export const TOPIC = process.env.TOPIC ?? 'TopicTest';

/** Sends `count` messages to `topic` with keys `${RUN_ID}-${i}` (what the consumer examples consume). */
export async function sendSome(namesrvAddr: string, topic: string, count: number, tags = 'TagA'): Promise<void> {
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleSupportProducer', namesrvAddr, instanceName: `support-${RUN_ID}` });
  await producer.start();
  try {
    for (let i = 0; i < count; i++) await producer.send(createMessage(topic, `Hello RocketMQ ${i}`, { tags, keys: `${RUN_ID}-${i}` }));
    console.log(`sent ${count} messages to ${topic}`);
  } finally {
    await producer.shutdown();
  }
}

/** True when the message was sent by this run's sendSome. */
export function isFromThisRun(msg: MessageExt): boolean {
  return (getKeys(msg) ?? '').startsWith(`${RUN_ID}-`);
}

/** Resolves once `predicate` holds (checked every 50 ms); rejects after `timeoutMillis`. */
export async function waitUntil(predicate: () => boolean, timeoutMillis = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMillis;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMillis} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
