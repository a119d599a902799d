/** Delayed messages: delay level 3 is 10 s with the broker's default messageDelayLevel. */
import { setDelayTimeLevel } from '../lib/index';
import { DefaultMQProducer, createMessage } from '../lib/index';

const namesrvAddr = process.env.ROCKETMQ_NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = process.env.TOPIC ?? 'TopicTest';

async function main(): Promise<void> {
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

main().catch((err) => { console.error(err); process.exitCode = 1; });
