/**
 * The push consumer as an async iterable: `for await (const msg of consumer.messages({ signal }))`. Each message is
 * acknowledged with ack() (or nack() for a redelivery through %RETRY%<group>); moving on acknowledges the previous
 * one. Breaking out of the loop (or aborting the signal) ends the iteration.
 * Run: node dist/examples/consumer-async-iterator.js (against ROCKETMQ_NAMESRV_ADDR when set, else an embedded cluster).
 */
import { DefaultMQPushConsumer, getKeys } from '../lib/index';
import { type ExampleContext, TOPIC, isFromThisRun, run, sendSome, withCluster } from './support';

const COUNT = 10;

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  await sendSome(namesrvAddr, TOPIC, COUNT);
  const consumer = new DefaultMQPushConsumer({ consumerGroup: 'ExampleIteratorConsumer', namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
  consumer.subscribe(TOPIC, '*');
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(), 30_000);
  const messages = consumer.messages({ signal: controller.signal });
  await consumer.start();
  const seen = new Set<string>();
  try {
    for await (const msg of messages) {
      console.log(`queue ${msg.queueId} offset ${msg.queueOffset}: ${msg.body.toString()}`);
      if (isFromThisRun(msg)) seen.add(getKeys(msg) ?? '');
      msg.ack();
      if (seen.size === COUNT) break;
    }
  } finally {
    clearTimeout(timeout);
    await consumer.shutdown();
  }
  if (seen.size !== COUNT) throw new Error(`only ${seen.size} of ${COUNT} messages arrived`);
  console.log(`iterated over all ${COUNT} messages of this run`);
}

run(() => withCluster(main));
