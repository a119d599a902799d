/** Ordered sends: the same order id always lands on the same queue (as Java's SelectMessageQueueByHash). */
import { SelectMessageQueueByHash } from '../lib/index';
import { DefaultMQProducer, createMessage } from '../lib/index';
import { type ExampleContext, TOPIC, run, withCluster } from './support';

const topic = TOPIC;

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleOrderlyProducer', namesrvAddr });
  await producer.start();
  const selector = new SelectMessageQueueByHash();
  try {
    for (let i = 0; i < 20; i++) {
      const orderId = i % 4;
      const r = await producer.send(createMessage(topic, `order ${orderId} step ${Math.floor(i / 4)}`, { keys: `order-${orderId}` }), selector, orderId);
      console.log(`order ${orderId} ->`, r.messageQueue.brokerName, r.messageQueue.queueId);
    }
  } finally {
    await producer.shutdown();
  }
}

run(() => withCluster(main));
