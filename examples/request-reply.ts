/**
 * Request-reply: a requester calls producer.request() and waits; a consumer answers with createReplyMessage(), sent
 * with any producer, and the broker pushes the reply straight back to the requester.
 * Run: node dist/examples/request-reply.js (against ROCKETMQ_NAMESRV_ADDR when set, else an embedded cluster).
 */
import {
  ConsumeConcurrentlyStatus, DefaultMQProducer, DefaultMQPushConsumer, createMessage, createReplyMessage, getReplyToClient,
} from '../lib/index';
import { type ExampleContext, run, sendSome, withCluster } from './support';

const topic = process.env.REQUEST_TOPIC ?? 'RequestTopicTest';

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  // The topic must exist before the consumer subscribes: one plain message creates it.
  await sendSome(namesrvAddr, topic, 1);

  // The answering side: a consumer of the request topic and a producer for the replies.
  const replyProducer = new DefaultMQProducer({ producerGroup: 'ExampleReplyProducer', namesrvAddr });
  await replyProducer.start();
  const service = new DefaultMQPushConsumer({ consumerGroup: 'ExampleReplyService', namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
  service.subscribe(topic, '*');
  service.registerMessageListener(async (msgs) => {
    for (const m of msgs) {
      if (!getReplyToClient(m)) continue; // not a request
      await replyProducer.send(createReplyMessage(m, `echo: ${m.body.toString()}`));
    }
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  await service.start();

  // The asking side.
  const requester = new DefaultMQProducer({ producerGroup: 'ExampleRequester', namesrvAddr });
  await requester.start();
  try {
    for (let i = 0; i < 3; i++) {
      const t0 = Date.now();
      // a generous timeout: the first request waits for the service's first rebalance
      const reply = await requester.request(createMessage(topic, `question ${i}`), 30_000);
      console.log(`reply "${reply.body.toString()}" from ${reply.topic} in ${Date.now() - t0} ms`);
    }
  } finally {
    await requester.shutdown();
    await service.shutdown();
    await replyProducer.shutdown();
  }
}

run(() => withCluster(main));
