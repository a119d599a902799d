/**
 * The POP scenario run against our in-process broker and against the Java 5.3.3 broker: receive, ack, change the
 * invisible time, and redelivery of what was not acknowledged in time (from the pop retry topic, reconsumeTimes 1).
 */
import { expect } from 'chai';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { SimpleConsumer } from '../../../lib/consumer/simple-consumer';
import { ConsumeInitMode } from '../../../protocol/header/pop-message-request-header';
import { createMessage, type MessageExt } from '../../../protocol/message/message';
import { MessageConst } from '../../../protocol/message/message-const';
import { randomName, waitFor } from '../../helpers/cluster';

export interface PopScenarioReport {
  /** ms between the invisible time's end and the redelivery of the message left unacknowledged. */
  redeliveryLatenessMs: number;
}

export async function createTopicAndWait(namesrvAddr: string, topic: string, queues = 4): Promise<void> {
  const admin = new DefaultMQAdminExt({ namesrvAddr, instanceName: randomName('admin') });
  await admin.start();
  try {
    await waitFor(async () => {
      try {
        await admin.createTopic('TBW102', topic, queues);
        return (await admin.examineTopicRouteInfo(topic)).queueDatas.length > 0;
      } catch {
        return false;
      }
    }, 60_000, `route of ${topic}`);
  } finally {
    await admin.shutdown();
  }
}

/** Receives until `pred` holds on what came (each receive long-polls up to the consumer's awaitDuration). */
async function receiveUntil(c: SimpleConsumer, got: MessageExt[], invisibleMs: number, pred: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (got ${got.map((m) => m.body.toString()).join(',')})`);
    got.push(...await c.receive(16, invisibleMs));
  }
}

export async function runPopScenario(namesrvAddr: string, opts: { invisibleMs: number; redeliveryTimeoutMs: number }): Promise<PopScenarioReport> {
  const topic = randomName('POP');
  const group = randomName('GPOP');
  await createTopicAndWait(namesrvAddr, topic);
  const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr, instanceName: randomName('p') });
  const consumer = new SimpleConsumer({
    consumerGroup: group, namesrvAddr, instanceName: randomName('sc'), subscriptions: { [topic]: 'A || B' }, awaitDuration: 2000,
    initMode: ConsumeInitMode.MIN,
  });
  try {
    await producer.start();
    for (let i = 0; i < 6; i++) await producer.send(createMessage(topic, `m${i}`, { tags: i === 5 ? 'C' : i % 2 ? 'A' : 'B', keys: `k${i}` }));
    await consumer.start();
    const got: MessageExt[] = [];
    await receiveUntil(consumer, got, opts.invisibleMs, () => got.length >= 5, 60_000, '5 messages');
    const bodies = got.map((m) => m.body.toString()).sort();
    expect(bodies).to.deep.equal(['m0', 'm1', 'm2', 'm3', 'm4']);
    for (const m of got) {
      expect(m.topic).to.equal(topic);
      expect(m.reconsumeTimes).to.equal(0);
      expect(m.properties[MessageConst.PROPERTY_POP_CK]).to.match(/^\d+ \d+ \d+ \d+ 0 \S+ \d+ \d+$/);
    }
    const byBody = new Map(got.map((m) => [m.body.toString(), m]));
    // m0..m2 acknowledged, m3 kept invisible for a minute, m4 left to come back.
    for (const b of ['m0', 'm1', 'm2']) await consumer.ack(byBody.get(b)!);
    const m3 = byBody.get('m3')!;
    const ck3 = m3.properties[MessageConst.PROPERTY_POP_CK];
    await consumer.changeInvisibleDuration(m3, 60_000);
    expect(m3.properties[MessageConst.PROPERTY_POP_CK]).to.not.equal(ck3);
    const m4Due = Number(byBody.get('m4')!.properties[MessageConst.PROPERTY_POP_CK].split(' ')[1]) + opts.invisibleMs;

    const again: MessageExt[] = [];
    await receiveUntil(consumer, again, opts.invisibleMs, () => again.some((m) => m.body.toString() === 'm4'), opts.redeliveryTimeoutMs, 'm4 again');
    const lateness = Date.now() - m4Due;
    const r4 = again.find((m) => m.body.toString() === 'm4')!;
    expect(r4.topic).to.equal(topic);
    expect(r4.reconsumeTimes).to.equal(1);
    expect(r4.properties[MessageConst.PROPERTY_KEYS]).to.equal('k4');
    expect(r4.properties[MessageConst.PROPERTY_POP_CK].split(' ')[4]).to.equal('1');
    expect(again.map((m) => m.body.toString())).to.not.include.members(['m0', 'm1', 'm2', 'm3']);
    await consumer.ack(r4);
    // m3 (changed) acknowledged with its new checkpoint.
    await consumer.ack(m3);
    // Nothing more comes: one more receive (it waits its await duration) finds nothing, and m4 does not return.
    const rest = await consumer.receive(16, opts.invisibleMs);
    expect(rest.map((m) => m.body.toString())).to.deep.equal([]);
    return { redeliveryLatenessMs: lateness };
  } finally {
    await consumer.shutdown();
    await producer.shutdown();
  }
}
