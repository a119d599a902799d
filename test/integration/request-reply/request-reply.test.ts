/**
 * Request-reply end to end: `producer.request(...)` on one side, a push consumer answering with
 * `createReplyMessage(...)` through another producer on the other, against our broker in-process and against the
 * Java 4.9.8 broker (SEND_REPLY_MESSAGE_V2 to the broker, PUSH_REPLY_MESSAGE_TO_CLIENT back to the requester).
 */
import { expect } from 'chai';
import {
  ConsumeConcurrentlyStatus, DefaultMQAdminExt, DefaultMQProducer, DefaultMQPushConsumer, MQClientError, MessageConst, RequestTimeoutError, createMessage,
  createReplyMessage, getReplyToClient, type MessageExt, type MessageQueue,
} from '../../../lib/index';
import { RequestFutureHolder } from '../../../lib/client/request-future-holder';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';
import { type JavaProcess, javaSkipReason, runJavaDriver, startJavaDriver, useJavaCluster } from '../../helpers/javaref';

/** A requester, a replying consumer and its reply producer on `namesrvAddr`; `stop()` shuts them down. */
export async function startReplier(namesrvAddr: string, topic: string): Promise<{ stop(): Promise<void>; replied: string[] }> {
  const replyProducer = new DefaultMQProducer({ producerGroup: randomName('PGR'), namesrvAddr, instanceName: randomName('r') });
  await replyProducer.start();
  const replied: string[] = [];
  const consumer = new DefaultMQPushConsumer({
    consumerGroup: randomName('CGR'), namesrvAddr, instanceName: randomName('c'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener(async (msgs) => {
    for (const m of msgs) {
      const reply = createReplyMessage(m, `reply:${m.body.toString()}`);
      await replyProducer.send(reply, 30_000);
      replied.push(m.properties[MessageConst.PROPERTY_CORRELATION_ID]);
    }
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  await consumer.start();
  return {
    replied,
    async stop() {
      await consumer.shutdown();
      await replyProducer.shutdown();
    },
  };
}

async function createTopic(namesrvAddr: string, topic: string): Promise<void> {
  const admin = new DefaultMQAdminExt({ namesrvAddr, instanceName: randomName('admin') });
  await admin.start();
  try {
    await waitFor(async () => {
      try {
        await admin.createTopic('TBW102', topic, 4);
        return (await admin.examineTopicRouteInfo(topic)).queueDatas.length > 0;
      } catch {
        return false;
      }
    }, 60_000, `route of ${topic}`);
  } finally {
    await admin.shutdown();
  }
}

function scenarios(env: () => { namesrvAddr: string; clusterName: string }): void {
  let requester: DefaultMQProducer;
  let replier: Awaited<ReturnType<typeof startReplier>> | undefined;
  let topic: string;

  before(async () => {
    const { namesrvAddr } = env();
    topic = randomName('ReqT');
    await createTopic(namesrvAddr, topic);
    requester = new DefaultMQProducer({ producerGroup: randomName('PGQ'), namesrvAddr, instanceName: randomName('q'), sendMsgTimeout: 30_000 });
    await requester.start();
  });
  after(async () => {
    await replier?.stop();
    await requester?.shutdown();
  });

  it('a request gets no reply while nobody answers: RequestTimeoutError after the request was sent', async () => {
    const err = await requester.request(createMessage(topic, 'nobody'), 1500).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(RequestTimeoutError);
    expect((err as RequestTimeoutError).responseCode).to.equal(10006);
    expect((err as Error).message).to.match(/OK, but wait reply message timeout, 1500 ms/);
    expect(RequestFutureHolder.instance.size).to.equal(0);
  });

  it('request(msg, timeout) resolves with the reply the consumer sent with createReplyMessage', async () => {
    replier = await startReplier(env().namesrvAddr, topic);
    const msg = createMessage(topic, 'hello', { tags: 'TagA' });
    const reply = await requester.request(msg, 60_000);
    // the first request may meet the old "nobody" message first: both are answered, ours is matched by correlation id
    expect(reply.body.toString()).to.equal('reply:hello');
    const p = reply.properties;
    expect(p[MessageConst.PROPERTY_CORRELATION_ID]).to.equal(msg.properties[MessageConst.PROPERTY_CORRELATION_ID]);
    expect(p[MessageConst.PROPERTY_MESSAGE_TYPE]).to.equal('reply');
    expect(p[MessageConst.PROPERTY_MESSAGE_REPLY_TO_CLIENT]).to.equal(requester.clientInstance!.clientId);
    expect(p[MessageConst.PROPERTY_MESSAGE_TTL]).to.equal('60000');
    expect(Number(p[MessageConst.PROPERTY_PUSH_REPLY_TIME])).to.be.greaterThan(0);
    expect(Number(p[MessageConst.PROPERTY_REPLY_MESSAGE_ARRIVE_TIME])).to.be.at.least(Number(p[MessageConst.PROPERTY_PUSH_REPLY_TIME]) - 60_000);
    expect(reply.topic).to.equal(`${env().clusterName}_REPLY_TOPIC`);
    expect(getReplyToClient(msg)).to.equal(requester.clientInstance!.clientId);
  });

  it('request to a chosen queue and through a selector; several in flight at once', async () => {
    const mqs = await requester.fetchPublishMessageQueues(topic);
    const mq: MessageQueue = mqs[mqs.length - 1];
    const viaQueue = await requester.request(createMessage(topic, 'q'), mq, 60_000);
    expect(viaQueue.body.toString()).to.equal('reply:q');
    const viaSelector = await requester.request(createMessage(topic, 's'), { select: (list) => list[0] }, null, 60_000);
    expect(viaSelector.body.toString()).to.equal('reply:s');
    const many = await Promise.all([0, 1, 2, 3, 4].map((i) => requester.request(createMessage(topic, `m${i}`), 60_000)));
    expect(many.map((m) => m.body.toString())).to.deep.equal([0, 1, 2, 3, 4].map((i) => `reply:m${i}`));
  });

  it('the callback forms: request(msg, callback, timeout), to a queue and through a selector, and a timeout told to onException', async () => {
    const viaCallback = (...args: unknown[]): Promise<{ reply?: MessageExt; err?: Error }> => new Promise((resolve) => {
      const cb = { onSuccess: (reply: MessageExt) => resolve({ reply }), onException: (err: Error) => resolve({ err }) };
      const i = args.indexOf('CB');
      args[i] = cb;
      const ret = (requester.request as (...a: unknown[]) => unknown)(...args);
      expect(ret).to.equal(undefined);
    });
    const plain = await viaCallback(createMessage(topic, 'cb'), 'CB', 60_000);
    expect(plain.reply?.body.toString(), String(plain.err)).to.equal('reply:cb');
    const mq = (await requester.fetchPublishMessageQueues(topic))[0];
    expect((await viaCallback(createMessage(topic, 'cbq'), mq, 'CB', 60_000)).reply?.body.toString()).to.equal('reply:cbq');
    expect((await viaCallback(createMessage(topic, 'cbs'), { select: (l: MessageQueue[]) => l[1] }, null, 'CB', 60_000)).reply?.body.toString()).to.equal('reply:cbs');
    // a topic nobody answers on: the timeout reaches onException
    const silent = randomName('ReqSilent');
    await createTopic(env().namesrvAddr, silent);
    const timedOut = await viaCallback(createMessage(silent, 'nobody'), 'CB', 1500);
    expect(timedOut.err).to.be.instanceOf(RequestTimeoutError);
  });

  it('a reply to a client the broker does not know is refused (SYSTEM_ERROR, "channel of <id> not found")', async () => {
    const sender = new DefaultMQProducer({ producerGroup: randomName('PGX'), namesrvAddr: env().namesrvAddr, instanceName: randomName('x'), retryTimesWhenSendFailed: 0 });
    await sender.start();
    try {
      const reply = createReplyMessage({
        topic, flag: 0, body: Buffer.alloc(0),
        properties: { [MessageConst.PROPERTY_CLUSTER]: env().clusterName, [MessageConst.PROPERTY_CORRELATION_ID]: 'c', [MessageConst.PROPERTY_MESSAGE_REPLY_TO_CLIENT]: '10.9.9.9@nobody' },
      }, 'x');
      const err = await sender.send(reply, 30_000).then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(Error);
      expect(String((err as Error).message)).to.match(/channel of <10\.9\.9\.9@nobody> not found/);
    } finally {
      await sender.shutdown();
    }
  });
}

describe('integration: request-reply', function () {
  this.timeout(180_000);

  it('createReplyMessage needs the CLUSTER property the broker adds to stored messages', () => {
    expect(() => createReplyMessage(createMessage('T', 'x'), 'y')).to.throw(MQClientError, /property\[CLUSTER\] is null/);
    const r = createReplyMessage({ ...createMessage('T', 'x'), properties: { CLUSTER: 'C1', CORRELATION_ID: 'id', REPLY_TO_CLIENT: 'cid', TTL: '3000' } }, 'y');
    expect(r.topic).to.equal('C1_REPLY_TOPIC');
    expect(r.properties).to.deep.equal({ MSG_TYPE: 'reply', CORRELATION_ID: 'id', REPLY_TO_CLIENT: 'cid', TTL: '3000' });
    expect(r.body.toString()).to.equal('y');
  });

  describe('against our broker (in-process)', () => {
    let tc: TestCluster;
    before(async function () {
      if (process.env.ROCKETMQ_NAMESRV_ADDR) this.skip();
      tc = await getCluster({ brokers: 1 });
    });
    after(async () => { await tc?.stop(); });
    scenarios(() => ({ namesrvAddr: tc.namesrvAddr, clusterName: tc.cluster!.brokers[0].brokerConfig.brokerClusterName }));
  });

  describe('against the Java 4.9.8 broker', () => {
    const java = useJavaCluster('4.9.8');
    scenarios(() => ({ namesrvAddr: java.ns.addr, clusterName: 'DefaultCluster' }));
  });
});

describe('integration: request-reply with the Java 4.9.8 client (test/java/ReplyTraceDriver.java)', function () {
  this.timeout(240_000);
  let tc: TestCluster;
  const procs: JavaProcess[] = [];

  before(async function () {
    const skip = javaSkipReason('4.9.8');
    if (skip || process.env.ROCKETMQ_NAMESRV_ADDR) {
      process.stderr.write(`      ${skip ?? 'skipped: needs the in-process cluster'}\n`);
      this.skip();
    }
    tc = await getCluster({ brokers: 1 });
  });
  after(async () => {
    for (const p of procs) await p.stop();
    await tc?.stop();
  });

  it('the Java requester gets the reply of our consumer through our broker', async () => {
    const topic = randomName('ReqJ');
    await createTopic(tc.namesrvAddr, topic);
    const replier = await startReplier(tc.namesrvAddr, topic);
    try {
      const r = await runJavaDriver(['request', '--namesrv', tc.namesrvAddr, '--topic', topic, '--group', randomName('PGJ'), '--count', '3', '--timeout-ms', '30000']);
      const replies = r.stdout.split('\n').filter((l) => l.startsWith('REPLY '));
      expect(replies.map((l) => l.split(' ').slice(0, 3).join(' ')), r.stdout + r.stderr.slice(-3000)).to.deep.equal(['REPLY 0 reply:req0', 'REPLY 1 reply:req1', 'REPLY 2 reply:req2']);
    } finally {
      await replier.stop();
    }
  });

  it('our requester gets the reply the Java consumer sent with MessageUtil.createReplyMessage through our broker', async () => {
    const topic = randomName('ReqJ');
    await createTopic(tc.namesrvAddr, topic);
    const java = await startJavaDriver(['reply', '--namesrv', tc.namesrvAddr, '--topic', topic, '--group', randomName('CGJ'), '--expect', '2', '--timeout', '120'],
      { readyPattern: /STARTED/, readyTimeoutMs: 120_000 });
    procs.push(java);
    const requester = new DefaultMQProducer({ producerGroup: randomName('PGQ'), namesrvAddr: tc.namesrvAddr, instanceName: randomName('q') });
    await requester.start();
    try {
      // the Java consumer takes its first rebalance before it pulls: a generous timeout
      const a = await requester.request(createMessage(topic, 'a'), 90_000);
      const b = await requester.request(createMessage(topic, 'b'), 90_000);
      expect([a.body.toString(), b.body.toString()], java.output()).to.deep.equal(['reply:a', 'reply:b']);
      expect(a.properties[MessageConst.PROPERTY_MESSAGE_TYPE]).to.equal('reply');
    } finally {
      await requester.shutdown();
      await java.stop();
    }
  });
});
