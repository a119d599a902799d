/**
 * An application as a user writes it (run as a child process by quiet-sdk.test.ts, with no logging settings): an
 * in-process cluster, a producer, a push consumer; everything shut down. It prints one result line on stdout.
 */
import { ConsumeConcurrentlyStatus, DefaultMQProducer, DefaultMQPushConsumer, createMessage } from '../../../lib/index';
import { startCluster } from '../../../lib/server';

async function main(): Promise<void> {
  const count = 20;
  const cluster = await startCluster({ brokers: 1 });
  const topic = `QuietTopic${process.pid}`;
  const producer = new DefaultMQProducer({ producerGroup: 'QuietPG', namesrvAddr: cluster.namesrvAddr, instanceName: 'quiet' });
  const consumer = new DefaultMQPushConsumer({ consumerGroup: 'QuietCG', namesrvAddr: cluster.namesrvAddr, instanceName: 'quiet', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
  try {
    await producer.start();
    for (let i = 0; i < count; i++) await producer.send(createMessage(topic, `m${i}`));
    const seen = new Set<string>();
    let done!: () => void;
    const all = new Promise<void>((resolve) => { done = resolve; });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener((msgs) => {
      for (const m of msgs) seen.add(m.body.toString());
      if (seen.size === count) done();
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await consumer.start();
    await all;
    process.stdout.write(`DONE ${seen.size}\n`);
  } finally {
    await consumer.shutdown();
    await producer.shutdown();
    await cluster.stop();
  }
}

// only as a child process: a test runner given this folder loads it too
if (require.main === module) {
  main().catch((err: unknown) => {
    process.stdout.write(`FAILED ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
