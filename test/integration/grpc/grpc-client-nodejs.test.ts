/**
 * The official 5.x Node client, rocketmq-client-nodejs, against our broker's gRPC endpoint (startCluster({ grpc:
 * true }), no proxy): its Producer sends, its SimpleConsumer receives, acks and changes invisible durations; our
 * remoting producer feeds its SimpleConsumer and its Producer feeds our remoting push consumer, bodies intact
 * (8 KiB included, which our producer compresses).
 */
import { expect } from 'chai';
import { ConsumeResult, PushConsumer, SimpleConsumer, type MessageView } from 'rocketmq-client-nodejs';
import { ConsumeConcurrentlyStatus, DefaultMQAdminExt, DefaultMQProducer, DefaultMQPushConsumer, createMessage } from '../../../lib/index';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';
import { createTopicAndWait } from '../pop/pop-scenario';
import { clientLogger, useGrpcCluster } from './grpc-client-fixture';

const logger = clientLogger;

function body(i: number, size = 0): Buffer {
  const head = Buffer.from(`grpc body ${i} `);
  if (size <= head.length) return head;
  const b = Buffer.alloc(size);
  head.copy(b);
  for (let k = head.length; k < size; k++) b[k] = (k * 31 + i) & 0xff;
  return b;
}

describe('gRPC endpoint: rocketmq-client-nodejs against our broker', function () {
  this.timeout(120_000);
  const g = useGrpcCluster();

  /** Receives until `count` messages came (or the time is up). */
  async function receiveAll(c: SimpleConsumer, count: number, invisibleMillis = 20_000): Promise<MessageView[]> {
    const got: MessageView[] = [];
    await waitFor(async () => {
      got.push(...await c.receive(16, invisibleMillis));
      return got.length >= count;
    }, 60_000, `${count} messages`);
    return got;
  }

  it('the Producer sends, the SimpleConsumer receives every message intact and acks it; nothing comes back', async () => {
    const topic = randomName('GRPC');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 4);
    const p = await g.producer(topic);
    const sent = new Map<string, Buffer>();
    for (let i = 0; i < 12; i++) {
      const b = body(i, i === 5 ? 8192 : 0);
      const receipt = await p.send({ topic, tag: i % 2 ? 'odd' : 'even', keys: [`k${i}`], body: b, properties: new Map([['seq', String(i)]]) });
      expect(receipt.messageId).to.match(/^[0-9A-F]{34}$/);
      sent.set(receipt.messageId, b);
    }
    const group = randomName('GCG');
    const c = await g.simpleConsumer(topic, group);
    const got = await receiveAll(c, sent.size);
    expect(g.inflight(topic, group, 4)).to.equal(sent.size);
    expect(got.map((m) => m.messageId).sort()).to.deep.equal([...sent.keys()].sort());
    for (const m of got) {
      expect(m.corrupted, `digest of ${m.messageId}`).to.not.equal(true);
      expect(m.body.equals(sent.get(m.messageId)!)).to.equal(true);
      const seq = Number(m.properties.get('seq'));
      expect(m.tag).to.equal(seq % 2 ? 'odd' : 'even');
      expect(m.keys).to.deep.equal([`k${seq}`]);
      expect(m.deliveryAttempt).to.equal(1);
      await c.ack(m);
    }
    expect(g.inflight(topic, group, 4)).to.equal(0);
    expect(await c.receive(16, 20_000)).to.deep.equal([]);
  });

  it('receives with a tag filter: only the matching messages', async () => {
    const topic = randomName('GRPCT');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 2);
    const p = await g.producer(topic);
    const want = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const r = await p.send({ topic, tag: i < 2 ? 'B' : 'A', body: body(i) });
      if (i < 2) want.add(r.messageId);
    }
    const c = await g.simpleConsumer(topic, randomName('GCT'), 'B');
    const got = await receiveAll(c, 2);
    expect(new Set(got.map((m) => m.messageId))).to.deep.equal(want);
    for (const m of got) await c.ack(m);
    expect(await c.receive(16, 20_000)).to.deep.equal([]);
  });

  it('a changed invisible duration brings the message back with its attempt counted; acking the new handle ends it', async () => {
    const topic = randomName('GRPCI');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 1);
    const p = await g.producer(topic);
    const { messageId } = await p.send({ topic, tag: 'x', body: body(1) });
    const group = randomName('GCI');
    const c = await g.simpleConsumer(topic, group);
    const [first] = await receiveAll(c, 1, 60_000);
    expect(first.messageId).to.equal(messageId);
    const before = first.receiptHandle;
    await c.changeInvisibleDuration(first, 1000);
    expect(first.receiptHandle).to.not.equal(before);
    const [again] = await receiveAll(c, 1, 30_000);
    expect(again.messageId).to.equal(messageId);
    expect(again.deliveryAttempt).to.equal(2);
    expect(again.body.equals(body(1))).to.equal(true);
    // A short invisible time: were the ack of the changed handle lost, the message would be back within the poll below.
    await c.changeInvisibleDuration(again, 1500);
    await c.ack(again);
    expect(g.inflight(topic, group, 1)).to.equal(0);
    expect(await c.receive(16, 20_000)).to.deep.equal([]);
  });

  it('a delay message (topic of type DELAY) waits in the timer wheel, then arrives with its delivery time', async () => {
    const topic = randomName('GRPCD');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 2);
    // The client checks the message type against the route's accepted types (Publishing.validate_message_type).
    g.cluster.brokers[0].topicConfigManager.selectTopicConfig(topic)!.attributes = new Map([['message.type', 'DELAY']]);
    const p = await g.producer(topic);
    const deliveryTimestamp = new Date(Date.now() + 2000);
    const { messageId } = await p.send({ topic, tag: 'd', body: body(7), deliveryTimestamp });
    const store = g.cluster.brokers[0].messageStore;
    const queued = () => store.getMaxOffsetInQueue(topic, 0) + store.getMaxOffsetInQueue(topic, 1);
    expect(queued()).to.equal(0);
    const c = await g.simpleConsumer(topic, randomName('GCD'));
    const [m] = await receiveAll(c, 1);
    expect(queued()).to.equal(1);
    expect(m.messageId).to.equal(messageId);
    expect(m.deliveryTimestamp?.getTime()).to.equal(deliveryTimestamp.getTime());
    expect(m.body.equals(body(7))).to.equal(true);
    await c.ack(m);
  });

  it('the PushConsumer: a failed first attempt comes back as attempt 2; always failing, to %DLQ%group after the group\'s max attempts', async () => {
    const topic = randomName('GRPCQ');
    const group = randomName('GPC');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 2);
    const admin = new DefaultMQAdminExt({ namesrvAddr: g.cluster.namesrvAddr, instanceName: randomName('adm') });
    await admin.start();
    try {
      await admin.createAndUpdateSubscriptionGroupConfig(g.cluster.brokers[0].brokerAddr, newSubscriptionGroupConfig(group, { retryMaxTimes: 2 }));
    } finally {
      await admin.shutdown();
    }
    const p = await g.producer(topic);
    const ids = new Map<string, string>();
    for (const name of ['ok', 'once', 'never']) ids.set((await p.send({ topic, tag: 'p', body: Buffer.from(name) })).messageId, name);
    const attempts = new Map<string, number[]>();
    const consumer = new PushConsumer({
      endpoints: g.endpoints, namespace: '', consumerGroup: group, subscriptions: new Map([[topic, '*']]), logger,
      messageListener: {
        consume(m: MessageView) {
          const seen = attempts.get(m.messageId) ?? [];
          seen.push(m.deliveryAttempt ?? 0);
          attempts.set(m.messageId, seen);
          const name = m.body.toString();
          return name === 'never' || (name === 'once' && seen.length === 1) ? ConsumeResult.FAILURE : ConsumeResult.SUCCESS;
        },
      },
    });
    await consumer.startup();
    g.clients.push(consumer);
    const dlq = () => g.cluster.brokers[0].messageStore.getMaxOffsetInQueue(`%DLQ%${group}`, 0);
    await waitFor(() => dlq() === 1 && attempts.size === 3 && (attempts.get([...ids].find(([, n]) => n === 'once')![0])?.length ?? 0) >= 2,
      60_000, 'the DLQ message and every attempt');
    const byName = new Map([...attempts].map(([id, a]) => [ids.get(id), a]));
    expect(byName.get('ok')).to.deep.equal([1]);
    expect(byName.get('once')).to.deep.equal([1, 2]);
    expect(byName.get('never')).to.deep.equal([1, 2, 3]);
    expect(dlq()).to.equal(1);
  });

  it('our remoting producer -> the gRPC SimpleConsumer: bodies intact, 8 KiB (sent compressed) included', async () => {
    const topic = randomName('GRPCR');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 4);
    const rp = new DefaultMQProducer({ producerGroup: randomName('RPG'), namesrvAddr: g.cluster.namesrvAddr, instanceName: randomName('rp') });
    await rp.start();
    const sent = new Map<string, Buffer>();
    try {
      for (let i = 0; i < 6; i++) {
        const b = body(i, i % 3 === 0 ? 8192 : 100);
        const r = await rp.send(createMessage(topic, b, { tags: 'R', keys: [`rk${i}`], properties: { origin: 'remoting' } }));
        sent.set(r.msgId, b);
      }
    } finally {
      await rp.shutdown();
    }
    const group = randomName('GCR');
    const c = await g.simpleConsumer(topic, group);
    const got = await receiveAll(c, sent.size);
    expect(got.map((m) => m.messageId).sort()).to.deep.equal([...sent.keys()].sort());
    for (const m of got) {
      expect(m.corrupted, `digest of ${m.messageId}`).to.not.equal(true);
      expect(m.body.equals(sent.get(m.messageId)!)).to.equal(true);
      expect(m.tag).to.equal('R');
      expect(m.properties.get('origin')).to.equal('remoting');
      await c.ack(m);
    }
    expect(g.inflight(topic, group, 4)).to.equal(0);
  });

  it('the gRPC Producer -> our remoting push consumer: bodies, tags, keys and message ids intact', async () => {
    const topic = randomName('GRPCP');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 4);
    const p = await g.producer(topic);
    const sent = new Map<string, Buffer>();
    for (let i = 0; i < 6; i++) {
      const b = body(i, i % 3 === 0 ? 8192 : 64);
      const r = await p.send({ topic, tag: 'G', keys: [`gk${i}`], body: b, properties: new Map([['origin', 'grpc']]) });
      sent.set(r.messageId, b);
    }
    const consumer = new DefaultMQPushConsumer({
      consumerGroup: randomName('RCG'), namesrvAddr: g.cluster.namesrvAddr, instanceName: randomName('rc'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    const seen = new Map<string, { body: Buffer; tags?: string; keys?: string; origin?: string }>();
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener((msgs) => {
      for (const m of msgs) seen.set(m.msgId, { body: Buffer.from(m.body), tags: m.properties.TAGS, keys: m.properties.KEYS, origin: m.properties.origin });
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await consumer.start();
    try {
      await waitFor(() => seen.size >= sent.size, 60_000, `${sent.size} messages at the push consumer`);
    } finally {
      await consumer.shutdown();
    }
    expect([...seen.keys()].sort()).to.deep.equal([...sent.keys()].sort());
    for (const [id, m] of seen) {
      expect(m.body.equals(sent.get(id)!)).to.equal(true);
      expect(m.tags).to.equal('G');
      expect(m.keys).to.match(/^gk\d$/);
      expect(m.origin).to.equal('grpc');
    }
  });
});
