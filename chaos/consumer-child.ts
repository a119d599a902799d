/**
 * A chaos consumer worker: `node dist/chaos/consumer-child.js <namesrv> <topic> <group> <recvFile> <name>`.
 * A clustering push consumer whose listener writes each message's key to recvFile (synchronously, before it returns
 * CONSUME_SUCCESS, so every message whose consumption the group may commit is on record even under kill -9). Reports
 * progress over IPC; on `{ type: 'stop' }` it shuts down (persisting offsets) and reports `done`.
 */
import * as fs from 'node:fs';
import { ConsumeFromWhere } from '../protocol/body/heartbeat-data';
import { MessageConst } from '../protocol/message/message-const';
import { ConsumeConcurrentlyStatus } from '../lib/consumer/listener';
import { DefaultMQPushConsumer } from '../lib/consumer/push-consumer';

const [namesrv, topic, group, recvFile, name] = process.argv.slice(2);

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
  consumer.registerMessageListener((msgs) => {
    let lines = '';
    for (const m of msgs) lines += `${m.properties[MessageConst.PROPERTY_KEYS] ?? m.msgId}\n`;
    fs.writeSync(fd, lines);
    received += msgs.length;
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
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
