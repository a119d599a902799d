/**
 * Message trace: a producer and a push consumer with enableMsgTrace write Pub / SubBefore / SubAfter records to
 * RMQ_SYS_TRACE_TOPIC; they are read back the way `rocketmq-ts admin queryMsgTraceById -i <msgId>` reads them.
 * Run: node dist/examples/message-trace.js (against ROCKETMQ_NAMESRV_ADDR when set, else an embedded cluster).
 */
import {
  ConsumeConcurrentlyStatus, DefaultMQAdminExt, DefaultMQProducer, DefaultMQPushConsumer, createMessage, decodeTraceData,
} from '../lib/index';
import { type ExampleContext, TOPIC, run, sendSome, waitUntil, withCluster } from './support';

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  await sendSome(namesrvAddr, TOPIC, 1); // the topic exists before the consumer subscribes
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleTracedProducer', namesrvAddr, enableMsgTrace: true });
  const consumer = new DefaultMQPushConsumer({
    consumerGroup: 'ExampleTracedConsumer', namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', enableMsgTrace: true,
  });
  let msgId = '';
  const consumed = new Set<string>();
  consumer.subscribe(TOPIC, 'TagTrace');
  consumer.registerMessageListener((msgs) => {
    for (const m of msgs) consumed.add(m.msgId);
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  await producer.start();
  await consumer.start();
  try {
    msgId = (await producer.send(createMessage(TOPIC, 'traced', { tags: 'TagTrace', keys: 'trace-example' }))).msgId;
    console.log(`sent ${msgId}`);
    await waitUntil(() => consumed.has(msgId), 60_000);
  } finally {
    await consumer.shutdown(); // shutdown() sends the trace records still pending
    await producer.shutdown();
  }

  const admin = new DefaultMQAdminExt({ namesrvAddr });
  await admin.start();
  try {
    // The trace messages are indexed by the traced msgIds: find the records of ours.
    const types = new Set<string>();
    const deadline = Date.now() + 30_000;
    while (!(types.has('Pub') && types.has('SubAfter')) && Date.now() < deadline) {
      try {
        const found = await admin.queryMessage('RMQ_SYS_TRACE_TOPIC', msgId, 64, 0, Date.now());
        for (const m of found.messageList) {
          for (const record of decodeTraceData(m.body.toString())) {
            if (record.traceBeans[0]?.msgId !== msgId || types.has(record.traceType)) continue;
            types.add(record.traceType);
            console.log(`${record.traceType} group=${record.groupName} cost=${record.costTime}ms success=${record.isSuccess}`);
          }
        }
      } catch {
        // not indexed yet
      }
      if (!(types.has('Pub') && types.has('SubAfter'))) await new Promise((r) => setTimeout(r, 200));
    }
    if (!types.has('Pub') || !types.has('SubAfter')) throw new Error('trace records not found');
    console.log(`see them with: rocketmq-ts admin queryMsgTraceById -n ${namesrvAddr} -i ${msgId}`);
  } finally {
    await admin.shutdown();
  }
}

run(() => withCluster(main));
