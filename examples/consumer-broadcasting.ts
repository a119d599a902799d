/**
 * Broadcasting: every consumer of the group gets every message; each keeps its offsets in a local file
 * (~/.rocketmq_offsets/<clientId>/<group>/offsets.json, or ROCKETMQ_CLIENT_LOCAL_OFFSET_STORE_DIR).
 * Two consumers of one group run here side by side (two client instances).
 * Run: node dist/examples/consumer-broadcasting.js (against ROCKETMQ_NAMESRV_ADDR when set, else an embedded cluster).
 */
import { ConsumeConcurrentlyStatus, DefaultMQPushConsumer, getKeys } from '../lib/index';
import { type ExampleContext, RUN_ID, TOPIC, isFromThisRun, run, sendSome, waitUntil, withCluster } from './support';

const COUNT = 8;

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  await sendSome(namesrvAddr, TOPIC, COUNT);
  const received = new Map<string, Set<string>>();
  const consumers = ['one', 'two'].map((name) => {
    const consumer = new DefaultMQPushConsumer({
      consumerGroup: 'ExampleBroadcastConsumer',
      namesrvAddr,
      instanceName: `${name}-${RUN_ID}`,
      messageModel: 'BROADCASTING',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    consumer.subscribe(TOPIC, '*');
    const seen = new Set<string>();
    received.set(name, seen);
    consumer.registerMessageListener((msgs) => {
      for (const msg of msgs) {
        if (!isFromThisRun(msg)) continue;
        seen.add(getKeys(msg) ?? '');
        console.log(`consumer ${name} got ${msg.body.toString()}`);
      }
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    return consumer;
  });
  await Promise.all(consumers.map((c) => c.start()));
  try {
    await waitUntil(() => [...received.values()].every((s) => s.size === COUNT));
    console.log(`both consumers got all ${COUNT} messages`);
  } finally {
    await Promise.all(consumers.map((c) => c.shutdown()));
  }
}

run(() => withCluster(main));
