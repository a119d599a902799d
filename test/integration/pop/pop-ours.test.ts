/**
 * SimpleConsumer against our in-process broker: the same scenario as against Java 5.3.3, the checkpoints surviving
 * a broker restart, NOTIFICATION and the broker's refusals.
 */
import { expect } from 'chai';
import { startCluster, type Cluster } from '../../../lib/server';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { SimpleConsumer } from '../../../lib/consumer/simple-consumer';
import { MQClientAPI } from '../../../lib/client/mq-client-api';
import { notification, popMessage } from '../../../lib/client/mq-client-api-pop';
import { ClientConfig } from '../../../lib/client/client-config';
import { MQBrokerError } from '../../../lib/errors';
import { ResponseCode } from '../../../protocol/code/response-code';
import { ConsumeInitMode } from '../../../protocol/header/pop-message-request-header';
import { createMessage, type MessageExt } from '../../../protocol/message/message';
import { MessageConst } from '../../../protocol/message/message-const';
import { randomName, waitFor } from '../../helpers/cluster';
import { registerLeftover } from '../../helpers/root-hooks';
import { createTopicAndWait, runPopScenario } from './pop-scenario';

describe('SimpleConsumer (POP) against our broker', function () {
  this.timeout(120_000);
  let cluster: Cluster;
  let removeLeftover: () => void;

  before(async () => {
    cluster = await startCluster();
    removeLeftover = registerLeftover(() => cluster.stop());
  });
  after(async () => {
    removeLeftover();
    await cluster.stop();
  });

  it('receives, acks, changes the invisible time; what is not acked comes back once from the retry topic', async () => {
    const report = await runPopScenario(cluster.namesrvAddr, { invisibleMs: 2000, redeliveryTimeoutMs: 30_000 });
    // The revive loop checks every 100 ms; the receive waiting in long polling is woken by the re-store.
    process.stdout.write(`      ours redelivered ${report.redeliveryLatenessMs} ms after the invisible time\n`);
  });

  it('a long-polling receive is answered as soon as a message arrives', async () => {
    const topic = randomName('POPLP');
    await createTopicAndWait(cluster.namesrvAddr, topic, 2);
    const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('p') });
    const consumer = new SimpleConsumer({
      consumerGroup: randomName('G'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('sc'), subscriptions: { [topic]: '*' },
      awaitDuration: 30_000, initMode: ConsumeInitMode.MIN,
    });
    try {
      await producer.start();
      await consumer.start();
      const pending = consumer.receive(4, 10_000);
      await waitFor(() => cluster.brokers[0].pop.polling.size > 0, 10_000, 'the receive held');
      await producer.send(createMessage(topic, 'late', {}));
      const got = await pending;
      expect(got.map((m) => m.body.toString())).to.deep.equal(['late']);
      await consumer.ack(got[0]);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
  });

  it('a change of invisible time in the millisecond of the pop still redelivers (the new checkpoint is not the old one)', async () => {
    const topic = randomName('POPMS');
    await createTopicAndWait(cluster.namesrvAddr, topic, 1);
    const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('p') });
    const consumer = new SimpleConsumer({
      consumerGroup: randomName('G'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('sc'), subscriptions: { [topic]: '*' },
      awaitDuration: 5_000, initMode: ConsumeInitMode.MIN,
    });
    const realNow = Date.now;
    try {
      await producer.start();
      await consumer.start();
      await producer.send(createMessage(topic, 'once', {}));
      const [m] = await consumer.receive(1, 60_000);
      // The broker (in this process) sees the clock of the pop again: the change's checkpoint has the same queue,
      // start offset and pop time as the popped one, which an endpoint answering a cancelled receive meets.
      const popTime = Number(m.properties[MessageConst.PROPERTY_POP_CK].split(' ')[1]);
      Date.now = () => popTime;
      try {
        await consumer.changeInvisibleDuration(m, 1000);
      } finally {
        Date.now = realNow;
      }
      let again: MessageExt[] = [];
      await waitFor(async () => (again = await consumer.receive(1, 60_000)).length > 0, 30_000, 'the message back');
      expect(again[0].body.toString()).to.equal('once');
      expect(again[0].reconsumeTimes).to.equal(1);
    } finally {
      Date.now = realNow;
      await consumer.shutdown();
      await producer.shutdown();
    }
  });

  it('refuses more than 32 messages and an unknown topic', async () => {
    const api = new MQClientAPI(new ClientConfig({ namesrvAddr: cluster.namesrvAddr }));
    try {
      const addr = cluster.brokers[0].brokerAddr;
      const base = { consumerGroup: randomName('G'), queueId: -1, invisibleTime: 1000, pollTime: 0, bornTime: Date.now(), initMode: 0 };
      const e1 = await popMessage(api, 'x', addr, { ...base, topic: 'TBW102', maxMsgNums: 33 }, 3000).catch((e: unknown) => e);
      expect(e1).to.be.instanceOf(MQBrokerError);
      expect((e1 as MQBrokerError).responseCode).to.equal(ResponseCode.INVALID_PARAMETER);
      const e2 = await popMessage(api, 'x', addr, { ...base, topic: randomName('NOPE'), maxMsgNums: 1 }, 3000).catch((e: unknown) => e);
      expect((e2 as MQBrokerError).responseCode).to.equal(ResponseCode.TOPIC_NOT_EXIST);
      // NOTIFICATION: nothing there, not held (pollTime 0).
      expect(await notification(api, addr, { consumerGroup: base.consumerGroup, topic: 'TBW102', queueId: -1, pollTime: 0, bornTime: Date.now() }, 3000))
        .to.equal(false);
    } finally {
      await api.shutdown();
    }
  });
  it('a held receive whose connection closed pops nothing when a message wakes it (another consumer gets it at once)', async () => {
    const topic = randomName('POPGONE');
    const group = randomName('G');
    await createTopicAndWait(cluster.namesrvAddr, topic, 1);
    const broker = cluster.brokers[0];
    const api = new MQClientAPI(new ClientConfig({ namesrvAddr: cluster.namesrvAddr }));
    const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('p') });
    const consumer = new SimpleConsumer({
      consumerGroup: group, namesrvAddr: cluster.namesrvAddr, instanceName: randomName('sc'), subscriptions: { [topic]: '*' },
      awaitDuration: 5_000, initMode: ConsumeInitMode.MIN,
    });
    try {
      await producer.start();
      // A pop held for 30 s that would hide what it finds for 60 s; then its connection goes.
      const held = popMessage(api, 'x', broker.brokerAddr, {
        consumerGroup: group, topic, queueId: -1, maxMsgNums: 1, invisibleTime: 60_000, pollTime: 30_000, bornTime: Date.now(),
        initMode: ConsumeInitMode.MIN,
      }, 40_000).catch((e: unknown) => e);
      await waitFor(() => broker.pop.polling.size > 0, 10_000, 'the pop held');
      await api.shutdown();
      await held;
      await producer.send(createMessage(topic, 'for-the-living', {}));
      await waitFor(() => broker.pop.polling.size === 0, 10_000, 'the held pop woken');
      await consumer.start();
      const got = await consumer.receive(1, 10_000);
      expect(got.map((m) => m.body.toString())).to.deep.equal(['for-the-living']);
      expect(got[0].reconsumeTimes).to.equal(0);
      await consumer.ack(got[0]);
    } finally {
      await api.shutdown();
      await consumer.shutdown();
      await producer.shutdown();
    }
  });
});

describe('POP checkpoints survive a broker restart', function () {
  this.timeout(120_000);

  it('a message popped before the restart and never acked comes back after it; an acked one does not', async () => {
    const cluster = await startCluster();
    const remove = registerLeftover(() => cluster.stop());
    const topic = randomName('POPR');
    const group = randomName('G');
    const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('p') });
    const mk = () => new SimpleConsumer({
      consumerGroup: group, namesrvAddr: cluster.namesrvAddr, instanceName: randomName('sc'), subscriptions: { [topic]: '*' },
      awaitDuration: 1000, initMode: ConsumeInitMode.MIN,
    });
    let consumer = mk();
    try {
      await createTopicAndWait(cluster.namesrvAddr, topic, 1);
      await producer.start();
      await producer.send(createMessage(topic, 'keep', {}));
      await producer.send(createMessage(topic, 'acked', {}));
      await consumer.start();
      const got: MessageExt[] = [];
      while (got.length < 2) got.push(...await consumer.receive(8, 3000));
      await consumer.ack(got.find((m) => m.body.toString() === 'acked')!);
      await consumer.shutdown();
      await producer.shutdown();
      expect(cluster.brokers[0].pop.checkPoints.size).to.equal(1);

      await cluster.restartBroker(0);
      expect(cluster.brokers[0].pop.checkPoints.size).to.equal(1);
      consumer = mk();
      await consumer.start();
      const again: MessageExt[] = [];
      await waitFor(async () => {
        again.push(...await consumer.receive(8, 3000));
        return again.length > 0;
      }, 30_000, 'the redelivery after the restart');
      expect(again.map((m) => m.body.toString())).to.deep.equal(['keep']);
      expect(again[0].reconsumeTimes).to.equal(1);
      await consumer.ack(again[0]);
      expect(await consumer.receive(8, 3000)).to.deep.equal([]);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
      remove();
      await cluster.stop();
    }
  });
});
