/** Batch sends: one request per batch; splitBatch keeps each batch under the size limit. */
import { splitBatch } from '../lib/index';
import { DefaultMQProducer, createMessage } from '../lib/index';
import { type ExampleContext, TOPIC, run, withCluster } from './support';

const topic = TOPIC;

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
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

run(() => withCluster(main));
