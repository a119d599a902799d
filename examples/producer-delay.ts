/** Delayed messages: delay level 3 is 10 s with the broker's default messageDelayLevel. */
import { setDelayTimeLevel } from '../lib/index';
import { DefaultMQProducer, createMessage } from '../lib/index';
import { type ExampleContext, TOPIC, run, withCluster } from './support';

const topic = TOPIC;

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleDelayProducer', namesrvAddr });
  await producer.start();
  try {
    const msg = createMessage(topic, `delayed, sent at ${new Date().toISOString()}`);
    setDelayTimeLevel(msg, 3);
    const r = await producer.send(msg);
    console.log(r.sendStatus, r.msgId);
  } finally {
    await producer.shutdown();
  }
}

run(() => withCluster(main));
