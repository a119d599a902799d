/**
 * Ordered consumption: messages of one order are sent to one queue (SelectMessageQueueByHash on the order id); an
 * orderly listener gets each queue's messages one call at a time, in offset order, while this consumer holds the
 * queue's lock at the broker. SUSPEND_CURRENT_QUEUE_A_MOMENT retries the same messages after a pause.
 * Run: node dist/examples/consumer-orderly.js (against ROCKETMQ_NAMESRV_ADDR when set, else an embedded cluster).
 */
import {
  ConsumeOrderlyStatus, DefaultMQProducer, DefaultMQPushConsumer, SelectMessageQueueByHash, createMessage, getKeys,
} from '../lib/index';
import { type ExampleContext, RUN_ID, TOPIC, run, waitUntil, withCluster } from './support';

const ORDERS = 4;
const STEPS = 5;

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleOrderlyProducer', namesrvAddr });
  await producer.start();
  try {
    const selector = new SelectMessageQueueByHash();
    for (let step = 0; step < STEPS; step++) {
      for (let order = 0; order < ORDERS; order++) {
        await producer.send(createMessage(TOPIC, `order ${order} step ${step}`, { tags: 'TagA', keys: `${RUN_ID}-${order}-${step}` }), selector, order);
      }
    }
  } finally {
    await producer.shutdown();
  }

  const consumer = new DefaultMQPushConsumer({ consumerGroup: 'ExampleOrderlyConsumer', namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
  consumer.subscribe(TOPIC, '*');
  const steps = new Map<number, number[]>();
  let suspendedOnce = false;
  consumer.registerMessageListenerOrderly((msgs, context) => {
    for (const msg of msgs) {
      const m = /^(.+)-(\d+)-(\d+)$/.exec(getKeys(msg) ?? '');
      if (!m || m[1] !== RUN_ID) continue;
      if (!suspendedOnce && Number(m[3]) === 2) {
        suspendedOnce = true;
        console.log('suspending the queue once: the same message comes again');
        context.suspendCurrentQueueTimeMillis = 200;
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
      }
      const order = Number(m[2]);
      steps.set(order, [...(steps.get(order) ?? []), Number(m[3])]);
      console.log(`queue ${context.messageQueue.queueId}: ${msg.body.toString()}`);
    }
    return ConsumeOrderlyStatus.SUCCESS;
  });
  await consumer.start();
  try {
    await waitUntil(() => [...steps.values()].reduce((n, s) => n + s.length, 0) === ORDERS * STEPS);
    for (const [order, s] of steps) {
      if (s.some((v, i) => v !== i)) throw new Error(`order ${order} out of sequence: ${s.join(',')}`);
    }
    console.log(`every order consumed in sequence: ${ORDERS} orders x ${STEPS} steps`);
  } finally {
    await consumer.shutdown();
  }
}

run(() => withCluster(main));
