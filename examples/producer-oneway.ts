/** Oneway sends: no answer from the broker (logs, metrics). */
import { DefaultMQProducer, createMessage } from '../lib/index';
import { type ExampleContext, TOPIC, run, withCluster } from './support';

const topic = TOPIC;

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleOnewayProducer', namesrvAddr });
  await producer.start();
  try {
    for (let i = 0; i < 10; i++) await producer.sendOneway(createMessage(topic, `oneway ${i}`));
    console.log('sent 10 oneway messages');
  } finally {
    await producer.shutdown();
  }
}

run(() => withCluster(main));
