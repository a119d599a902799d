/**
 * A push consumer with a concurrently listener: the broker "pushes" through long-polling pulls, the listener is
 * called for each batch, CONSUME_SUCCESS commits, RECONSUME_LATER (or a throw) sends the message back for a retry.
 * Run: node dist/examples/consumer-push.js (against ROCKETMQ_NAMESRV_ADDR when set, else an embedded cluster).
 */
import { ConsumeConcurrentlyStatus, DefaultMQPushConsumer, getKeys } from '../lib/index';
import { type ExampleContext, TOPIC, isFromThisRun, run, sendSome, waitUntil, withCluster } from './support';

const COUNT = 10;

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  await sendSome(namesrvAddr, TOPIC, COUNT);
  const consumer = new DefaultMQPushConsumer({
    consumerGroup: 'ExamplePushConsumer',
    namesrvAddr,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  consumer.subscribe(TOPIC, 'TagA || TagB');
  const seen = new Set<string>();
  consumer.registerMessageListener((msgs, context) => {
    for (const msg of msgs) {
      console.log(`queue ${context.messageQueue.queueId} offset ${msg.queueOffset}: ${msg.body.toString()}`);
      if (isFromThisRun(msg)) seen.add(getKeys(msg) ?? '');
    }
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  await consumer.start();
  try {
    await waitUntil(() => seen.size === COUNT);
    console.log(`consumed all ${COUNT} messages of this run`);
  } finally {
    await consumer.shutdown();
  }
}

run(() => withCluster(main));
