/** Oneway sends: no answer from the broker (logs, metrics). */
import { DefaultMQProducer, createMessage } from '../lib/index';

const namesrvAddr = process.env.ROCKETMQ_NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = process.env.TOPIC ?? 'TopicTest';

async function main(): Promise<void> {
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleOnewayProducer', namesrvAddr });
  await producer.start();
  try {
    for (let i = 0; i < 10; i++) await producer.sendOneway(createMessage(topic, `oneway ${i}`));
    console.log('sent 10 oneway messages');
  } finally {
    await producer.shutdown();
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
