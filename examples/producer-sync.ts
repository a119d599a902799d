/** Sync sends: each send resolves once the broker has stored the message. Run: ROCKETMQ_NAMESRV_ADDR=h:p node dist/examples/producer-sync.js */
import { DefaultMQProducer, createMessage } from '../lib/index';

const namesrvAddr = process.env.ROCKETMQ_NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = process.env.TOPIC ?? 'TopicTest';

async function main(): Promise<void> {
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

main().catch((err) => { console.error(err); process.exitCode = 1; });
