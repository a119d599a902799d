/** Sync sends: each send resolves once the broker has stored the message. Run: node dist/examples/producer-sync.js (against ROCKETMQ_NAMESRV_ADDR when set, else an embedded cluster) */
import { DefaultMQProducer, createMessage } from '../lib/index';
import { type ExampleContext, TOPIC, run, withCluster } from './support';

const topic = TOPIC;

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleSyncProducer', namesrvAddr });
  await producer.start();
  try {
    for (let i = 0; i < 10; i++) {
      const result = await producer.send(createMessage(topic, `Hello RocketMQ ${i}`, { tags: 'TagA', keys: [`key-${i}`] }));
      console.log(result.sendStatus, result.msgId, result.messageQueue, result.queueOffset);
    }
  } finally {
    await producer.shutdown();
  }
}

run(() => withCluster(main));
