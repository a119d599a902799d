/**
 * POP consumption (5.x brokers: ours or Java 5.x): receive, process, ack. A message not acknowledged within its
 * invisible duration comes again (reconsumeTimes + 1); changeInvisibleDuration asks for more time.
 */
import { ConsumeInitMode, SimpleConsumer } from '../lib/index';
import { type ExampleContext, RUN_ID, TOPIC, run, sendSome, withCluster } from './support';

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  await sendSome(namesrvAddr, TOPIC, 4);
  const consumer = new SimpleConsumer({
    consumerGroup: 'ExampleSimpleConsumer', namesrvAddr, subscriptions: { [TOPIC]: 'TagA' },
    awaitDuration: 3000, initMode: ConsumeInitMode.MIN,
  });
  await consumer.start();
  try {
    let mine = 0;
    for (let round = 0; round < 20 && mine < 4; round++) {
      for (const msg of await consumer.receive(16, 30_000)) {
        if (msg.properties.KEYS?.startsWith(RUN_ID)) mine++;
        console.log('received', msg.body.toString(), 'reconsumeTimes', msg.reconsumeTimes);
        await consumer.ack(msg);
      }
    }
    console.log(`acked ${mine} messages of this run`);
  } finally {
    await consumer.shutdown();
  }
}

run(() => withCluster(main));
