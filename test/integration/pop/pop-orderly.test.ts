/**
 * Orderly POP (FIFO consumer groups) against our in-process broker over real sockets: the scenario also run against
 * Java 5.3.3, attempt ids, an ack of an older pop, held receives woken when a block ends, NOTIFICATION of a blocked
 * queue, and the order info surviving a broker restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startCluster, type Cluster } from '../../../lib/server';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { SimpleConsumer } from '../../../lib/consumer/simple-consumer';
import { MQClientAPI } from '../../../lib/client/mq-client-api';
import { notification } from '../../../lib/client/mq-client-api-pop';
import { ClientConfig } from '../../../lib/client/client-config';
import { InvalidArgumentError } from '../../../lib/errors';
import { ConsumeInitMode } from '../../../protocol/header/pop-message-request-header';
import type { MessageExt } from '../../../protocol/message/message';
import { MessageConst } from '../../../protocol/message/message-const';
import { randomName, waitFor } from '../../helpers/cluster';
import { registerLeftover } from '../../helpers/root-hooks';
import { createTopicAndWait } from './pop-scenario';
import { bodies, receiveSome, runOrderlyPopScenario, sendToQueue } from './pop-orderly-scenario';

describe('orderly POP (FIFO) against our broker', function () {
  this.timeout(120_000);
  let cluster: Cluster;
  let removeLeftover: () => void;
  const closers: { shutdown(): Promise<void> }[] = [];

  before(async () => {
    cluster = await startCluster();
    removeLeftover = registerLeftover(() => cluster.stop());
  });
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c.shutdown().catch(() => undefined);
  });
  after(async () => {
    removeLeftover();
    await cluster.stop();
  });

  async function producer(): Promise<DefaultMQProducer> {
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('p') });
    await p.start();
    closers.push(p);
    return p;
  }

  async function orderlyConsumer(topic: string, group: string, awaitDuration = 1000): Promise<SimpleConsumer> {
    const c = new SimpleConsumer({
      consumerGroup: group, namesrvAddr: cluster.namesrvAddr, instanceName: randomName('sc'), subscriptions: { [topic]: '*' },
      awaitDuration, initMode: ConsumeInitMode.MIN, order: true,
    });
    await c.start();
    closers.push(c);
    return c;
  }

  it('one batch per queue in flight, the other queue going on; the failed rest again in order, attempt counted', async () => {
    const report = await runOrderlyPopScenario(cluster.namesrvAddr);
    expect(report.popAnswers.length).to.be.at.least(3);
    // No checkpoint for orderly pops: nothing to revive.
    expect(cluster.brokers[0].pop.checkPoints.size).to.equal(0);
  });

  it('a receive repeating an attempt id gets its batch again; another attempt waits; an ack of the older pop commits nothing', async () => {
    const topic = randomName('POPA');
    const group = randomName('GA');
    await createTopicAndWait(cluster.namesrvAddr, topic, 1);
    const p = await producer();
    for (const b of ['m0', 'm1', 'm2']) await sendToQueue(p, topic, 0, b);
    const c = await orderlyConsumer(topic, group);
    const offsets = cluster.brokers[0].consumerOffsetManager;
    const first = await c.receive(2, 60_000, { attemptId: 'attempt-1' });
    expect(bodies(first)).to.deep.equal(['m0', 'm1']);
    const repeated = await c.receive(2, 60_000, { attemptId: 'attempt-1' });
    expect(bodies(repeated)).to.deep.equal(['m0', 'm1']);
    expect(repeated.map((m) => m.reconsumeTimes)).to.deep.equal([0, 0]);
    expect(await c.receive(2, 60_000, { attemptId: 'attempt-2' })).to.deep.equal([]);
    // The handles of the first answer name a pop the order info no longer holds (unless both pops fell in one
    // millisecond): answered, nothing moves.
    const popTime = (m: MessageExt) => m.properties[MessageConst.PROPERTY_POP_CK].split(' ')[1];
    if (popTime(first[0]) !== popTime(repeated[0])) {
      for (const m of first) await c.ack(m);
      expect(offsets.queryOffset(group, topic, 0)).to.equal(0);
      expect(await c.receive(2, 60_000)).to.deep.equal([]);
    }
    for (const m of repeated) await c.ack(m);
    expect(offsets.queryOffset(group, topic, 0)).to.equal(2);
    expect(bodies(await receiveSome(c, 60_000, 30_000, 'm2'))).to.deep.equal(['m2']);
  });

  it('a repeated attempt id pops the topic its first receive popped, not the next one in turn', async () => {
    const topics = [randomName('POPT'), randomName('POPT')];
    const group = randomName('GT');
    for (const t of topics) await createTopicAndWait(cluster.namesrvAddr, t, 1);
    const p = await producer();
    for (const t of topics) for (const b of ['m0', 'm1']) await sendToQueue(p, t, 0, `${t}:${b}`);
    const c = new SimpleConsumer({
      consumerGroup: group, namesrvAddr: cluster.namesrvAddr, instanceName: randomName('sc'),
      subscriptions: Object.fromEntries(topics.map((t) => [t, '*'])), awaitDuration: 1000, initMode: ConsumeInitMode.MIN, order: true,
    });
    await c.start();
    closers.push(c);
    const first = await c.receive(32, 60_000, { attemptId: 'attempt-t' });
    expect(first.length).to.equal(2);
    const again = await c.receive(32, 60_000, { attemptId: 'attempt-t' });
    expect(bodies(again)).to.deep.equal(bodies(first));
    // The next receive without it goes on to the other topic.
    const other = await c.receive(32, 60_000);
    expect(other.length).to.equal(2);
    expect(other[0].topic).to.not.equal(first[0].topic);
    for (const m of [...again, ...other]) await c.ack(m);
  });

  it('a held receive is answered when the blocking batch is acked, and when its invisible time ends', async () => {
    const topic = randomName('POPH');
    const group = randomName('GH');
    await createTopicAndWait(cluster.namesrvAddr, topic, 1);
    const p = await producer();
    for (const b of ['m0', 'm1']) await sendToQueue(p, topic, 0, b);
    const c = await orderlyConsumer(topic, group, 30_000);
    const polling = cluster.brokers[0].pop.polling;
    const [m0] = await c.receive(1, 60_000);
    expect(bodies([m0])).to.deep.equal(['m0']);
    // Held (the queue is blocked), then woken by the ack, not by a message arrival or its poll time.
    const held = c.receive(1, 60_000);
    await waitFor(() => polling.size === 1, 10_000, 'the receive held');
    await c.ack(m0);
    const [m1] = await held;
    expect(bodies([m1])).to.deep.equal(['m1']);
    // Held again; m1's invisible time cut to 1 s: the end of the block wakes it (enableNotifyAfterPopOrderLockRelease).
    const again = c.receive(1, 60_000);
    await waitFor(() => polling.size === 1, 10_000, 'the receive held');
    await c.changeInvisibleDuration(m1, 1000);
    const [m1again] = await again;
    expect(bodies([m1again])).to.deep.equal(['m1']);
    expect(m1again.reconsumeTimes).to.equal(1);
    await c.ack(m1again);
  });

  it('NOTIFICATION of an orderly consumer: a blocked queue has nothing', async () => {
    const topic = randomName('POPN');
    const group = randomName('GN');
    await createTopicAndWait(cluster.namesrvAddr, topic, 1);
    const p = await producer();
    for (const b of ['m0', 'm1']) await sendToQueue(p, topic, 0, b);
    const c = await orderlyConsumer(topic, group);
    const api = new MQClientAPI(new ClientConfig({ namesrvAddr: cluster.namesrvAddr }));
    closers.push(api);
    const addr = cluster.brokers[0].brokerAddr;
    const ask = (order: boolean) => notification(api, addr, { consumerGroup: group, topic, queueId: -1, pollTime: 0, bornTime: Date.now(), order }, 3000);
    const [m0] = await c.receive(1, 60_000);
    expect(await ask(true)).to.equal(false);
    expect(await ask(false)).to.equal(true);
    await c.ack(m0);
    expect(await ask(true)).to.equal(true);
  });

  it('the order info survives a restart: the batch stays blocked, then comes again with its attempt counted', async () => {
    const topic = randomName('POPR');
    const group = randomName('GR');
    await createTopicAndWait(cluster.namesrvAddr, topic, 1);
    const p = await producer();
    for (const b of ['m0', 'm1', 'm2']) await sendToQueue(p, topic, 0, b);
    let c = await orderlyConsumer(topic, group);
    const got = await receiveSome(c, 60_000, 30_000, 'the batch');
    expect(bodies(got)).to.deep.equal(['m0', 'm1', 'm2']);
    await c.ack(got[0]);
    await c.shutdown();

    const broker = await cluster.restartBroker(0);
    const file = path.join(broker.messageStoreConfig.storePathRootDir, 'config', 'consumerOrderInfo.json');
    expect(fs.readFileSync(file, 'utf8')).to.include(`"${topic}@${group}"`);
    expect(broker.consumerOffsetManager.queryOffset(group, topic, 0)).to.equal(1);
    expect(broker.pop.consumerOrderInfoManager.get(topic, group, 0)!.nextOffset()).to.equal(1);
    c = await orderlyConsumer(topic, group);
    expect(await c.receive(32, 60_000)).to.deep.equal([]);
    // The handles from before the restart still act on the batch.
    for (const m of got.slice(1)) await c.changeInvisibleDuration(m, 1000);
    const again = await receiveSome(c, 60_000, 30_000, 'm1 and m2 again');
    expect(bodies(again)).to.deep.equal(['m1', 'm2']);
    expect(again.map((m) => m.reconsumeTimes)).to.deep.equal([1, 1]);
    for (const m of again) await c.ack(m);
    expect(broker.consumerOffsetManager.queryOffset(group, topic, 0)).to.equal(3);
  });

  it('refuses an attempt id without order', async () => {
    const topic = randomName('POPX');
    await createTopicAndWait(cluster.namesrvAddr, topic, 1);
    const c = new SimpleConsumer({ consumerGroup: randomName('GX'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('sc'), subscriptions: { [topic]: '*' } });
    await c.start();
    closers.push(c);
    const err = await c.receive(1, 1000, { attemptId: 'x' }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(InvalidArgumentError);
  });
});
