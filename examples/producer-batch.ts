/** Batch sends: one request per batch; splitBatch keeps each batch under the size limit. */
import { splitBatch } from '../lib/index';
import { DefaultMQProducer, createMessage } from '../lib/index';

const namesrvAddr = process.env.ROCKETMQ_NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = process.env.TOPIC ?? 'TopicTest';

async function main(): Promise<void> {
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleBatchProducer', namesrvAddr });
  await producer.start();
  try {
    const messages = Array.from({ length: 1000 }, (_, i) => createMessage(topic, Buffer.alloc(2048, i % 256), { tags: 'Batch' }));
    for (const batch of splitBatch(messages, 1024 * 1024)) {
      const result = await producer.send(batch);
      console.log(result.sendStatus, `${batch.length} messages`, result.messageQueue, result.queueOffset);
    }
  } finally {
    await producer.shutdown();
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
