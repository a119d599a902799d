/**
 * DefaultMQProducer end to end against a cluster (ROCKETMQ_NAMESRV_ADDR, else the in-process one): every send mode,
 * selectors, batches, compression, validation, namespaces, shared instances, route refresh and delay levels. Messages
 * are read back with raw PULL_MESSAGE through pullMessage (lib/client/mq-client-api-consumer.ts) and compared field by field.
 */
import { expect } from 'chai';
import { PullMessageRequestHeader } from '../../protocol/header/pull-message-request-header';
import { decodeMessages } from '../../protocol/message/message-decoder';
import { pullMessage } from '../../lib/client/mq-client-api-consumer';
import {
  DefaultMQAdminExt, DefaultMQProducer, MQClientError, MessageConst, RemotingTooMuchRequestError, SelectMessageQueueByHash, createMessage, getUserProperty,
  putUserProperty, setDelayTimeLevel, splitBatch, type Message, type MessageExt, type MessageQueue, type SendCallback,
  type SendResult,
} from '../../lib/index';
import { getCluster, randomName, waitFor, type TestCluster } from '../helpers/cluster';

describe('integration: DefaultMQProducer end to end', function () {
  this.timeout(60_000);
  let tc: TestCluster;
  let admin: DefaultMQAdminExt;
  let producer: DefaultMQProducer;

  before(async () => {
    tc = await getCluster({ brokers: 1 });
    admin = new DefaultMQAdminExt({ namesrvAddr: tc.namesrvAddr, instanceName: randomName('admin') });
    await admin.start();
    // a generous send budget: a starved machine may take seconds for a send, and the timeout is not tested here
    producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: tc.namesrvAddr, instanceName: randomName('inst'), sendMsgTimeout: 30_000 });
    await producer.start();
  });

  after(async () => {
    await producer?.shutdown();
    await admin?.shutdown();
    await tc?.stop();
  });

  /** Creates a topic with `queues` queues on every broker and waits for its route. */
  async function createTopic(topic: string, queues = 4): Promise<void> {
    await admin.createTopic('TBW102', topic, queues);
    await waitFor(async () => {
      try {
        return (await admin.examineTopicRouteInfo(topic)).queueDatas.length > 0;
      } catch {
        return false;
      }
    }, 10_000, `route of ${topic}`);
  }

  /** Every message of one queue from offset 0, by raw PULL_MESSAGE. */
  async function pullAll(p: DefaultMQProducer, mq: MessageQueue, min = 1): Promise<MessageExt[]> {
    const instance = p.clientInstance!;
    const addr = instance.findBrokerAddressInPublish(mq.brokerName)!;
    let got: MessageExt[] = [];
    await waitFor(async () => {
      const header: PullMessageRequestHeader = {
        consumerGroup: 'IT_PULL_GROUP', topic: mq.topic, queueId: mq.queueId, queueOffset: 0, maxMsgNums: 64,
        sysFlag: 0x4 /* SUBSCRIPTION: carried in the request, no heartbeat needed */, commitOffset: 0,
        suspendTimeoutMillis: 0, subscription: '*', expressionType: 'TAG', subVersion: Date.now(),
      } as PullMessageRequestHeader;
      const r = await pullMessage(instance.api, addr, header, 5000);
      got = r.pullStatus === 'FOUND' && r.messageBinary ? decodeMessages(r.messageBinary) : [];
      return got.length >= min;
    }, 10_000, `${min} message(s) in ${mq.topic}/${mq.queueId}`);
    return got;
  }

  async function pullOne(p: DefaultMQProducer, r: SendResult): Promise<MessageExt> {
    const all = await pullAll(p, r.messageQueue);
    const m = all.find((x) => x.queueOffset === r.queueOffset);
    expect(m, `message at offset ${r.queueOffset}`).to.not.equal(undefined);
    return m!;
  }

  function expectSame(got: MessageExt, sent: Message, topic = sent.topic): void {
    expect(got.topic).to.equal(topic);
    expect(got.properties[MessageConst.PROPERTY_TAGS]).to.equal(sent.properties[MessageConst.PROPERTY_TAGS]);
    expect(got.properties[MessageConst.PROPERTY_KEYS]).to.equal(sent.properties[MessageConst.PROPERTY_KEYS]);
    expect(got.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX]).to.equal(sent.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX]);
    // the broker drops WAIT before storing (as 5.x); everything else travels as sent
    for (const [k, v] of Object.entries(sent.properties)) if (k !== MessageConst.PROPERTY_WAIT_STORE_MSG_OK) expect(got.properties[k], k).to.equal(v);
    expect(Buffer.compare(got.body, sent.body)).to.equal(0);
  }

  function message(topic: string, body: string | Buffer, i = 0): Message {
    const m = createMessage(topic, body, { tags: `Tag${i % 3}`, keys: [`k${i}`, `order-${i}`] });
    putUserProperty(m, 'color', i % 2 ? 'red' : 'blue');
    putUserProperty(m, 'seq', String(i));
    return m;
  }

  it('sync send to an auto-created topic: SendResult and the stored message match', async () => {
    const topic = randomName('IT_SYNC');
    const m = message(topic, 'hello sync', 1);
    const r = await producer.send(m);
    expect(r.sendStatus).to.equal('SEND_OK');
    expect(r.msgId).to.equal(m.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX]);
    expect(r.offsetMsgId).to.match(/^[0-9A-F]{32}$/);
    // Our broker answers the message's id as its transaction id, as Java 5.3.3 (4.9.8 answers none).
    if (tc.cluster) expect(r.transactionId).to.equal(r.msgId);
    expect(r.messageQueue.topic).to.equal(topic);
    const got = await pullOne(producer, r);
    expectSame(got, m);
    expect(got.msgId).to.equal(r.msgId);
    expect(got.offsetMsgId).to.equal(r.offsetMsgId);
    expect(getUserProperty(got, 'color')).to.equal('red');
  });

  it('async sends as Promise and with a callback, and oneway, all reach the broker', async () => {
    const topic = randomName('IT_ASYNC');
    await createTopic(topic, 1);
    const a = message(topic, 'async promise', 2);
    const ra = await producer.sendAsync(a);
    expect(ra.sendStatus).to.equal('SEND_OK');
    const b = message(topic, 'async callback', 3);
    const rb = await new Promise<SendResult>((resolve, reject) => {
      const cb: SendCallback = { onSuccess: resolve, onException: reject };
      producer.send(b, cb);
    });
    expect(rb.sendStatus).to.equal('SEND_OK');
    const c = message(topic, 'oneway', 4);
    await producer.sendOneway(c);
    const all = await pullAll(producer, rb.messageQueue, 3);
    const byBody = new Map(all.map((x) => [x.body.toString(), x]));
    expectSame(byBody.get('async promise')!, a);
    expectSame(byBody.get('async callback')!, b);
    expectSame(byBody.get('oneway')!, c);
  });

  it('back-pressure for async sends (Java 5.x enableBackpressureForAsyncMode): at most backPressureForAsyncSendNum in flight', async () => {
    const topic = randomName('IT_BP');
    await createTopic(topic, 1);
    const bp = new DefaultMQProducer({
      producerGroup: randomName('PG'), namesrvAddr: tc.namesrvAddr, instanceName: randomName('inst'),
      enableBackpressureForAsyncMode: true, backPressureForAsyncSendNum: 10,
    });
    await bp.start();
    try {
      await bp.send(message(topic, 'route warm-up', 1));
      const sends = Array.from({ length: 100 }, (_, i) => bp.sendAsync(message(topic, `bp ${i}`, 1)));
      // The first 10 took the permits synchronously; none can have completed yet.
      expect(bp.getSemaphoreAsyncSendNumAvailablePermits()).to.equal(0);
      const refused = await bp.sendAsync(message(topic, 'no time to wait', 1), 0).then(() => null, (e: unknown) => e);
      expect(refused).to.be.instanceOf(RemotingTooMuchRequestError);
      expect((refused as Error).message).to.equal('send message tryAcquire semaphoreAsyncNum timeout');
      const results = await Promise.all(sends);
      expect(results.every((r) => r.sendStatus === 'SEND_OK')).to.equal(true);
      expect(bp.getSemaphoreAsyncSendNumAvailablePermits()).to.equal(10);
      expect(bp.getSemaphoreAsyncSendSizeAvailablePermits()).to.equal(100 * 1024 * 1024);
    } finally {
      await bp.shutdown();
    }
  });

  it('a callback send reports failures through onException', async () => {
    const err = await new Promise<Error>((resolve) => {
      producer.send(createMessage(randomName('IT_CB'), Buffer.alloc(0)), { onSuccess: () => resolve(new Error('unexpected success')), onException: resolve });
    });
    expect(err).to.be.instanceOf(MQClientError);
  });

  it('batch send stores every message with its own properties', async () => {
    const topic = randomName('IT_BATCH');
    await createTopic(topic, 1);
    const batch = Array.from({ length: 10 }, (_, i) => message(topic, `batch-${i}`, i));
    const r = await producer.send(batch);
    expect(r.sendStatus).to.equal('SEND_OK');
    const ids = r.msgId.split(',');
    expect(ids).to.have.length(10);
    const all = await pullAll(producer, r.messageQueue, 10);
    expect(all.map((x) => x.body.toString())).to.deep.equal(batch.map((m) => m.body.toString()));
    all.forEach((got, i) => {
      expectSame(got, batch[i]);
      expect(got.msgId).to.equal(ids[i]);
    });
  });

  it('splitBatch cuts a batch over the size limit into sendable parts', async () => {
    const topic = randomName('IT_SPLIT');
    await createTopic(topic, 1);
    const body = Buffer.alloc(100 * 1024, 'b');
    const batch = Array.from({ length: 50 }, (_, i) => message(topic, body, i)); // ~5 MB > 4 MiB
    const parts = splitBatch(batch);
    expect(parts.length).to.be.greaterThan(1);
    expect(parts.flat()).to.have.length(50);
    let mq: MessageQueue | undefined;
    for (const part of parts) {
      const r = await producer.send(part);
      expect(r.sendStatus).to.equal('SEND_OK');
      mq = r.messageQueue;
    }
    // one pull returns what fits its byte budget: read on from nextBeginOffset
    const instance = producer.clientInstance!;
    const addr = instance.findBrokerAddressInPublish(mq!.brokerName)!;
    const bodies: Buffer[] = [];
    for (let offset = 0; bodies.length < 50;) {
      const r = await pullMessage(instance.api, addr, {
        consumerGroup: 'IT_PULL_GROUP', topic, queueId: mq!.queueId, queueOffset: offset, maxMsgNums: 64, sysFlag: 0x4,
        commitOffset: 0, suspendTimeoutMillis: 0, subscription: '*', expressionType: 'TAG', subVersion: Date.now(),
      } as PullMessageRequestHeader, 5000);
      expect(r.pullStatus).to.equal('FOUND');
      for (const got of decodeMessages(r.messageBinary!)) bodies.push(got.body);
      offset = r.nextBeginOffset;
    }
    expect(bodies).to.have.length(50);
    bodies.forEach((b) => expect(Buffer.compare(b, body)).to.equal(0));
  });

  it('sends to a given queue', async () => {
    const topic = randomName('IT_MQ');
    await createTopic(topic, 4);
    const [mq] = (await producer.fetchPublishMessageQueues(topic)).filter((q) => q.queueId === 3);
    const m = message(topic, 'to queue 3', 5);
    const r = await producer.send(m, mq);
    expect(r.messageQueue.queueId).to.equal(3);
    expectSame(await pullOne(producer, r), m);
  });

  it('SelectMessageQueueByHash puts a key on the queue Java does', async () => {
    const topic = randomName('IT_HASH');
    await createTopic(topic, 4);
    // Java: Math.abs(key.hashCode() % 4) is 2 for "order-1", 0 for "key-42" and "中文-7" (computed with Java 17)
    const selector = new SelectMessageQueueByHash();
    for (const [key, queueId] of [['order-1', 2], ['key-42', 0], ['中文-7', 0]] as const) {
      const r1 = await producer.send(message(topic, `a ${key}`), selector, key);
      const r2 = await producer.send(message(topic, `b ${key}`), selector, key);
      expect(r1.messageQueue.queueId, key).to.equal(queueId);
      expect(r2.messageQueue).to.deep.equal(r1.messageQueue);
    }
  });

  it('compresses a body over 4 KiB and it reads back equal (PULL_MESSAGE and viewMessage)', async () => {
    const topic = randomName('IT_ZIP');
    const body = Buffer.from('compressible text '.repeat(1000)); // 18 KB
    const m = message(topic, body, 6);
    const r = await producer.send(m);
    const got = await pullOne(producer, r);
    expect(got.sysFlag & 0x1).to.equal(1); // stored compressed
    expect(got.storeSize).to.be.lessThan(body.length);
    expectSame(got, m);
    const viewed = await admin.viewMessage(r.offsetMsgId);
    expect(Buffer.compare(viewed.body, body)).to.equal(0);
    expect(viewed.topic).to.equal(topic);
  });

  it('rejects invalid messages before sending', async () => {
    const reject = async (m: Message, pattern: RegExp) => {
      const err = await producer.send(m).then(() => null, (e: Error) => e);
      expect(err, `${String(pattern)} ${m.topic}`).to.be.instanceOf(MQClientError);
      expect(err!.message).to.match(pattern);
    };
    await reject(createMessage('bad topic!', 'x'), /topic/i);
    await reject(createMessage('', 'x'), /topic/i);
    await reject(createMessage('a'.repeat(200), 'x'), /topic/i);
    await reject(createMessage('SCHEDULE_TOPIC_XXXX', 'x'), /topic/i); // a topic no client may send to
    await reject(createMessage(randomName('IT_V'), Buffer.alloc(0)), /body/i);
    await reject(createMessage(randomName('IT_V'), Buffer.alloc(4 * 1024 * 1024 + 1)), /body|size/i);
    await reject([createMessage(randomName('IT_V'), 'a'), createMessage(randomName('IT_W'), 'b')] as unknown as Message, /topic|batch/i);
  });

  it('applies the namespace to topics and groups and strips it from results', async () => {
    const ns = `ns${process.pid}`;
    const p = new DefaultMQProducer({ producerGroup: randomName('PG_NS'), namesrvAddr: tc.namesrvAddr, namespace: ns, instanceName: randomName('inst_ns') });
    await p.start();
    try {
      const topic = randomName('IT_NS');
      const m = message(topic, 'namespaced', 7);
      const r = await p.send(m);
      expect(r.messageQueue.topic).to.equal(topic);
      const got = await pullOne(p, { ...r, messageQueue: { ...r.messageQueue, topic: `${ns}%${topic}` } });
      expect(got.topic).to.equal(`${ns}%${topic}`);
      expect(got.body.toString()).to.equal('namespaced');
      expect(got.properties[MessageConst.PROPERTY_INSTANCE_ID]).to.equal(ns);
    } finally {
      await p.shutdown();
    }
  });

  it('two producers with one instanceName share one client instance; one group twice is refused', async () => {
    const instanceName = randomName('shared');
    const p1 = new DefaultMQProducer({ producerGroup: randomName('PG1'), namesrvAddr: tc.namesrvAddr, instanceName });
    const p2 = new DefaultMQProducer({ producerGroup: randomName('PG2'), namesrvAddr: tc.namesrvAddr, instanceName });
    const dup = new DefaultMQProducer({ producerGroup: p1.producerGroup, namesrvAddr: tc.namesrvAddr, instanceName });
    await p1.start();
    await p2.start();
    try {
      expect(p1.clientInstance).to.equal(p2.clientInstance);
      const topic = randomName('IT_SHARE');
      const [r1, r2] = await Promise.all([p1.send(message(topic, 'from p1')), p2.send(message(topic, 'from p2'))]);
      expect(r1.sendStatus).to.equal('SEND_OK');
      expect(r2.sendStatus).to.equal('SEND_OK');
      const err = await dup.start().then(() => null, (e: Error) => e);
      expect(err?.message).to.match(/has been created before/);
      await p1.shutdown();
      // the instance lives on for p2
      expect((await p2.send(message(topic, 'after p1 left'))).sendStatus).to.equal('SEND_OK');
    } finally {
      await p1.shutdown();
      await p2.shutdown();
    }
  });

  it('picks up the route of a topic created on the broker after the producer started', async () => {
    const topic = randomName('IT_NEW');
    await createTopic(topic, 8);
    const r = await producer.send(message(topic, 'new topic'));
    expect(r.sendStatus).to.equal('SEND_OK');
    const queues = await producer.fetchPublishMessageQueues(topic);
    expect(queues).to.have.length(8); // the created topic's 8 queues, not TBW102's default 4
    const seen = new Set<number>();
    for (let i = 0; i < 16; i++) seen.add((await producer.send(message(topic, `n${i}`))).messageQueue.queueId);
    expect(seen.size).to.equal(8);
  });

  it('a delay-level message reaches its topic after the delay', async () => {
    const topic = randomName('IT_DELAY');
    await createTopic(topic, 1);
    const m = message(topic, 'delayed', 8);
    setDelayTimeLevel(m, 1); // 1 s
    const sentAt = Date.now();
    const r = await producer.send(m);
    expect(r.sendStatus).to.equal('SEND_OK');
    const mq = { ...r.messageQueue, topic, queueId: 0 };
    const got = (await pullAll(producer, mq, 1))[0];
    expect(Date.now() - sentAt).to.be.greaterThan(900);
    expect(got.body.toString()).to.equal('delayed');
    expect(got.topic).to.equal(topic);
    expect(got.properties[MessageConst.PROPERTY_KEYS]).to.equal(m.properties[MessageConst.PROPERTY_KEYS]);
    expect(got.properties[MessageConst.PROPERTY_REAL_TOPIC]).to.equal(topic);
  });
});
