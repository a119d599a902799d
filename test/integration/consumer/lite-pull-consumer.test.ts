/**
 * DefaultLitePullConsumer against the in-process cluster: subscribe + poll, assign + seek, commits that a new consumer
 * resumes from, pause/resume, autoCommit, and two members of one group sharing the queues.
 */
import { expect } from 'chai';
import {
  DefaultLitePullConsumer, DefaultMQAdminExt, DefaultMQProducer, MQClientError, createMessage, type MessageExt, type MessageQueue,
} from '../../../lib/index';
import { messageQueueKey } from '../../../protocol/message/message-queue';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';

describe('consumer: DefaultLitePullConsumer against the in-process cluster', function () {
  this.timeout(60_000);
  let tc: TestCluster;
  let admin: DefaultMQAdminExt;
  let producer: DefaultMQProducer;
  const consumers: DefaultLitePullConsumer[] = [];

  before(async () => {
    tc = await getCluster();
    admin = new DefaultMQAdminExt({ namesrvAddr: tc.namesrvAddr, instanceName: randomName('admin') });
    await admin.start();
    producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: tc.namesrvAddr, instanceName: randomName('inst'), sendMsgTimeout: 30_000 });
    await producer.start();
  });

  after(async () => {
    await Promise.all(consumers.map((c) => c.shutdown()));
    await producer?.shutdown();
    await admin?.shutdown();
    await tc?.stop();
  });

  async function createTopic(queues = 4): Promise<string> {
    const topic = randomName('LT');
    await admin.createTopic('TBW102', topic, queues);
    await waitFor(async () => {
      try {
        return (await admin.examineTopicRouteInfo(topic)).queueDatas.length > 0;
      } catch {
        return false;
      }
    }, 10_000, `route of ${topic}`);
    return topic;
  }

  /** Sends n messages round-robin over the topic's queues; bodies `${prefix}${i}`. */
  async function send(topic: string, n: number, prefix = 'm', tags = 'a'): Promise<void> {
    for (let i = 0; i < n; i++) await producer.send(createMessage(topic, `${prefix}${i}`, { tags }));
  }

  function consumer(group: string, extra: Partial<ConstructorParameters<typeof DefaultLitePullConsumer>[0]> = {}): DefaultLitePullConsumer {
    const c = new DefaultLitePullConsumer({
      consumerGroup: group, namesrvAddr: tc.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('i'), ...extra,
    });
    consumers.push(c);
    return c;
  }

  /** Polls until `n` messages arrived (or the deadline passes). */
  async function pollN(c: DefaultLitePullConsumer, n: number, timeout = 20_000): Promise<MessageExt[]> {
    const got: MessageExt[] = [];
    const deadline = Date.now() + timeout;
    while (got.length < n && Date.now() < deadline) got.push(...(await c.poll(500)));
    return got;
  }

  it('has Java\'s defaults', () => {
    const c = new DefaultLitePullConsumer({ consumerGroup: 'G' });
    expect(c.options).to.include({
      autoCommit: true, autoCommitIntervalMillis: 5000, pullBatchSize: 10, pullThreadNums: 20, pullThresholdForAll: 10000,
      consumeMaxSpan: 2000, pullThresholdForQueue: 1000, pullThresholdSizeForQueue: 100, pollTimeoutMillis: 5000,
      topicMetadataCheckIntervalMillis: 30000, messageModel: 'CLUSTERING', consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
    });
    expect(() => c.subscribe('T', '*')).not.to.throw();
    expect(() => c.assign([{ topic: 'T', brokerName: 'b', queueId: 0 }])).to.throw(MQClientError, /mutually exclusive/);
  });

  it('subscribe + poll receives every message, tag filters apply', async () => {
    const topic = await createTopic();
    await send(topic, 30, 'a', 'a');
    await send(topic, 10, 'b', 'b');
    const c = consumer(randomName('G'));
    c.subscribe(topic, 'a');
    await c.start();
    const got = await pollN(c, 30);
    expect(new Set(got.map((m) => m.body.toString()))).to.deep.equal(new Set(Array.from({ length: 30 }, (_, i) => `a${i}`)));
    expect(got.every((m) => m.topic === topic && m.properties.TAGS === 'a')).to.equal(true);
    expect(await c.poll(300)).to.deep.equal([]);
    expect(c.assignment()).to.have.length(4);
    await c.shutdown();
  });

  it('assign + seek / seekToBegin / seekToEnd', async () => {
    const topic = await createTopic(1);
    await send(topic, 10);
    const mq: MessageQueue = (await admin.examineTopicRouteInfo(topic)).queueDatas.map((q) => ({ topic, brokerName: q.brokerName, queueId: 0 }))[0];
    const c = consumer(randomName('G'), { autoCommit: false });
    c.assign([mq]);
    await c.start();
    const first = await pollN(c, 10);
    expect(first.map((m) => m.queueOffset)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

    await c.seek(mq, 6);
    const fromSix = await pollN(c, 4);
    expect(fromSix.map((m) => m.queueOffset)).to.deep.equal([6, 7, 8, 9]);

    await c.seekToBegin(mq);
    const again = await pollN(c, 10);
    expect(again.map((m) => m.queueOffset)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

    await c.seekToEnd(mq);
    expect(await c.poll(500)).to.deep.equal([]);
    await send(topic, 2, 'late');
    const late = await pollN(c, 2);
    expect(late.map((m) => m.body.toString())).to.deep.equal(['late0', 'late1']);

    await expectReject(c.seek(mq, 1000), /Seek offset illegal/);
    await expectReject(c.seek({ ...mq, queueId: 3 }, 0), /not in assigned list/);
    await c.shutdown();
  });

  it('commitSync is persisted and a new consumer of the group resumes from it', async () => {
    const topic = await createTopic(1);
    await send(topic, 10);
    const mq = (await c0Queues(topic))[0];
    const group = randomName('G');
    const a = consumer(group, { autoCommit: false, pullBatchSize: 4 });
    a.assign([mq]);
    await a.start();
    const batch = await a.poll(10_000);
    expect(batch.map((m) => m.queueOffset)).to.deep.equal([0, 1, 2, 3]);
    await a.commitSync();
    expect(await a.committed(mq)).to.equal(4);
    await a.shutdown();

    const b = consumer(group, { autoCommit: false });
    b.assign([mq]);
    await b.start();
    expect(await b.committed(mq)).to.equal(4);
    const rest = await pollN(b, 6);
    expect(rest.map((m) => m.queueOffset)).to.deep.equal([4, 5, 6, 7, 8, 9]);
    await b.commitSync(new Map([[mq, 7]]), true);
    await b.shutdown();

    const d = consumer(group, { autoCommit: false });
    d.assign([mq]);
    await d.start();
    expect(await d.committed(mq)).to.equal(7);
    await d.shutdown();
  });

  it('pause stops a queue, resume goes on', async () => {
    const topic = await createTopic(2);
    const mqs = await c0Queues(topic);
    const c = consumer(randomName('G'));
    c.assign(mqs);
    await c.start();
    c.pause([mqs[0]]);
    await new Promise((r) => setTimeout(r, 1200)); // the paused loop re-checks every second
    await send(topic, 10);
    const got = await pollN(c, 5, 5000);
    expect(got).to.have.length(5);
    expect(got.every((m) => m.queueId === mqs[1].queueId)).to.equal(true);
    expect(await c.poll(1500)).to.deep.equal([]);
    c.resume([mqs[0]]);
    const resumed = await pollN(c, 5);
    expect(resumed.map((m) => m.queueId)).to.deep.equal([0, 0, 0, 0, 0].map(() => mqs[0].queueId));
    await c.shutdown();
  });

  it('autoCommit commits at a poll after autoCommitIntervalMillis and at shutdown', async () => {
    const topic = await createTopic(1);
    await send(topic, 5);
    const mq = (await c0Queues(topic))[0];
    const group = randomName('G');
    const c = consumer(group, { autoCommitIntervalMillis: 1000 });
    c.assign([mq]);
    await c.start();
    expect(await pollN(c, 5)).to.have.length(5);
    expect(await c.committed(mq)).to.be.lessThan(5);
    await new Promise((r) => setTimeout(r, 1100));
    await c.poll(10);
    expect(await c.committed(mq)).to.equal(5);
    await send(topic, 3);
    expect(await pollN(c, 3)).to.have.length(3);
    await c.shutdown();

    const d = consumer(group);
    d.assign([mq]);
    await d.start();
    expect(await d.committed(mq)).to.equal(8);
    await d.shutdown();
  });

  it('two consumers of a group share the queues and together get every message once', async () => {
    const topic = await createTopic(4);
    const group = randomName('G');
    const a = consumer(group);
    const b = consumer(group);
    a.subscribe(topic, '*');
    b.subscribe(topic, '*');
    await a.start();
    await b.start();
    await waitFor(() => a.assignment().length === 2 && b.assignment().length === 2, 20_000, 'rebalance to 2 + 2');
    const keys = new Set([...a.assignment(), ...b.assignment()].map(messageQueueKey));
    expect(keys.size).to.equal(4);
    await send(topic, 40);
    const got: MessageExt[] = [];
    const seenBy = { a: 0, b: 0 };
    const deadline = Date.now() + 20_000;
    while (got.length < 40 && Date.now() < deadline) {
      const [ra, rb] = await Promise.all([a.poll(300), b.poll(300)]);
      got.push(...ra, ...rb);
      seenBy.a += ra.length;
      seenBy.b += rb.length;
    }
    expect(got.map((m) => m.body.toString()).sort()).to.deep.equal(Array.from({ length: 40 }, (_, i) => `m${i}`).sort());
    expect(seenBy.a).to.be.greaterThan(0);
    expect(seenBy.b).to.be.greaterThan(0);
    await a.shutdown();
    await b.shutdown();
  });

  it('fetchMessageQueues, offsetForTimestamp and the topic queue change listener', async () => {
    const topic = await createTopic(2);
    const before = Date.now();
    await send(topic, 4);
    const c = consumer(randomName('G'), { topicMetadataCheckIntervalMillis: 200 });
    const changes: MessageQueue[][] = [];
    await c.registerTopicMessageQueueChangeListener(topic, { onChanged: (_t, mqs) => changes.push(mqs) });
    await c.start();
    const mqs = await c.fetchMessageQueues(topic);
    expect(mqs.map((q) => q.queueId).sort()).to.deep.equal([0, 1]);
    expect(await c.offsetForTimestamp(mqs[0], before - 60_000)).to.equal(0);
    await waitFor(() => changes.length === 0, 100);
    await admin.createTopic('TBW102', topic, 3);
    await waitFor(() => changes.length > 0, 10_000, 'queue change');
    expect(changes[0]).to.have.length(3);
    await c.shutdown();
  });

  async function c0Queues(topic: string): Promise<MessageQueue[]> {
    const route = await admin.examineTopicRouteInfo(topic);
    return route.queueDatas.flatMap((q) => Array.from({ length: q.readQueueNums }, (_, i) => ({ topic, brokerName: q.brokerName, queueId: i })));
  }

  async function expectReject(p: Promise<unknown>, re: RegExp): Promise<void> {
    try {
      await p;
    } catch (err) {
      expect((err as Error).message).to.match(re);
      return;
    }
    expect.fail(`expected a rejection matching ${re}`);
  }
});
