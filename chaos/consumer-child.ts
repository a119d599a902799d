/**
 * A chaos consumer worker: `node dist/chaos/consumer-child.js <namesrv> <topic> <group> <recvFile> <name> [orderly]`.
 * A clustering push consumer whose listener writes each delivery to recvFile as
 * `key<TAB>brokerName<TAB>queueId<TAB>queueOffset<TAB>ms` (synchronously, before it returns CONSUME_SUCCESS, so every
 * message whose consumption the group may commit is on record even under kill -9); `orderly` uses an orderly
 * listener (one queue at a time, under the broker's queue lock). Reports
 * progress over IPC; on `{ type: 'stop' }` it shuts down (persisting offsets) and reports `done`.
 */
import * as fs from 'node:fs';
import { ConsumeFromWhere } from '../protocol/body/heartbeat-data';
import { MessageConst } from '../protocol/message/message-const';
import type { MessageExt } from '../protocol/message/message';
import { ConsumeConcurrentlyStatus, ConsumeOrderlyStatus } from '../lib/consumer/listener';
import { DefaultMQPushConsumer } from '../lib/consumer/push-consumer';

const [namesrv, topic, group, recvFile, name, mode = 'concurrently'] = process.argv.slice(2);

async function main(): Promise<void> {
  const fd = fs.openSync(recvFile, 'a');
  const consumer = new DefaultMQPushConsumer({
    consumerGroup: group, namesrvAddr: namesrv, instanceName: `chaos-${name}-${process.pid}`,
    consumeFromWhere: ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
    pollNameServerInterval: 1000, heartbeatBrokerInterval: 1000, persistConsumerOffsetInterval: 1000,
  });
  consumer.subscribe(topic, '*');
  let received = 0;
  const report = (type: 'progress' | 'done'): void => { process.send?.({ type, received }); };
  const record = (msgs: MessageExt[]): void => {
    let lines = '';
    const now = Date.now();
    for (const m of msgs) lines += `${m.properties[MessageConst.PROPERTY_KEYS] ?? m.msgId}\t${m.brokerName ?? ''}\t${m.queueId}\t${m.queueOffset}\t${now}\n`;
    fs.writeSync(fd, lines);
    received += msgs.length;
  };
  if (mode === 'orderly') {
    consumer.registerMessageListenerOrderly((msgs) => { record(msgs); return ConsumeOrderlyStatus.SUCCESS; });
  } else {
    consumer.registerMessageListener((msgs) => { record(msgs); return ConsumeConcurrentlyStatus.CONSUME_SUCCESS; });
  }
  await consumer.start();
  const ticker = setInterval(() => report('progress'), 250);
  report('progress');
  await new Promise<void>((resolve) => process.on('message', (m: { type?: string }) => { if (m?.type === 'stop') resolve(); }));
  clearInterval(ticker);
  await consumer.shutdown();
  fs.closeSync(fd);
  report('done');
  process.disconnect?.();
}

main().catch((err: unknown) => {
  process.stderr.write(`consumer-child ${name}: ${(err as Error).stack}\n`);
  process.exit(1);
});
