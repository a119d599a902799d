/**
 * DefaultLitePullConsumer: the application pulls with poll(). subscribe() lets the rebalance divide the queues among
 * the group's members (assign() picks queues by hand); offsets are committed with commitSync() here (autoCommit off).
 * Then, on one queue it holds, it seeks back to the beginning and reads it again.
 * Run: node dist/examples/consumer-lite-pull.js (against ROCKETMQ_NAMESRV_ADDR when set, else an embedded cluster).
 */
import { DefaultLitePullConsumer, getKeys } from '../lib/index';
import { type ExampleContext, TOPIC, isFromThisRun, run, sendSome, withCluster } from './support';

const COUNT = 10;

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  await sendSome(namesrvAddr, TOPIC, COUNT);
  const consumer = new DefaultLitePullConsumer({
    consumerGroup: 'ExampleLitePullConsumer',
    namesrvAddr,
    autoCommit: false,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  consumer.subscribe(TOPIC, '*');
  await consumer.start();
  try {
    const seen = new Set<string>();
    const deadline = Date.now() + 30_000;
    while (seen.size < COUNT) {
      if (Date.now() > deadline) throw new Error('timed out polling');
      const msgs = await consumer.poll(1000);
      for (const msg of msgs) {
        console.log(`queue ${msg.queueId} offset ${msg.queueOffset}: ${msg.body.toString()}`);
        if (isFromThisRun(msg)) seen.add(getKeys(msg) ?? '');
      }
      await consumer.commitSync();
    }
    console.log(`polled all ${COUNT} messages of this run; queues held: ${consumer.assignment().length}`);

    const mq = consumer.assignment()[0];
    console.log(`committed offset of queue ${mq.queueId}: ${await consumer.committed(mq)}`);
    await consumer.seekToBegin(mq);
    const again = await consumer.poll(3000);
    console.log(`after seekToBegin: ${again.length} message(s) from queue ${mq.queueId}, first offset ${again[0]?.queueOffset}`);
  } finally {
    await consumer.shutdown();
  }
}

run(() => withCluster(main));
