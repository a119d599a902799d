/** Async sends: as Promises, and with a Java-style callback. */
import { DefaultMQProducer, createMessage } from '../lib/index';
import { type ExampleContext, TOPIC, run, withCluster } from './support';

const topic = TOPIC;

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleAsyncProducer', namesrvAddr, retryTimesWhenSendAsyncFailed: 0 });
  await producer.start();
  try {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => producer.sendAsync(createMessage(topic, `async ${i}`))));
    for (const r of results) console.log(r.sendStatus, r.msgId);
    await new Promise<void>((resolve) => {
      producer.send(createMessage(topic, 'with a callback'), {
        onSuccess: (r) => { console.log('callback', r.sendStatus, r.msgId); resolve(); },
        onException: (err) => { console.error('callback failed', err); resolve(); },
      });
    });
  } finally {
    await producer.shutdown();
  }
}

run(() => withCluster(main));
