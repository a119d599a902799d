import { expect } from 'chai';
import { inflateSync } from 'node:zlib';
import { ResponseCode } from '../../../protocol/code/response-code';
import { RequestCode } from '../../../protocol/code/request-code';
import { decodeBatchBody } from '../../../protocol/message/batch';
import { createMessage, setDelayTimeLevel } from '../../../protocol/message/message';
import { stringToProperties } from '../../../protocol/message/properties';
import { RPC_ONEWAY } from '../../../protocol/remoting-command';
import { DefaultMQProducer, type DefaultMQProducerOptions } from '../../../lib/producer/default-mq-producer';
import { splitBatch } from '../../../lib/producer/message-batch';
import { SelectMessageQueueByHash } from '../../../lib/producer/selector';
import { MQBrokerError, MQClientError, RemotingTooMuchRequestError } from '../../../lib/errors';
import { transportResources } from '../../../lib/transport/connection';
import { type ScriptedCluster, sends, startScriptedCluster } from '../../helpers/scripted-cluster';
import { tcpHandles, waitFor } from '../transport/helpers';

let seq = 0;

describe('lib/producer DefaultMQProducer against a scripted cluster', function () {
  this.timeout(10_000);
  let cluster: ScriptedCluster;
  const producers: DefaultMQProducer[] = [];

  async function producer(options: DefaultMQProducerOptions = {}): Promise<DefaultMQProducer> {
    // a generous send budget unless a test sets its own: a starved machine may take seconds for a first send
    const p = new DefaultMQProducer({ producerGroup: `PG_${seq++}`, namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', sendMsgTimeout: 30_000, ...options });
    producers.push(p);
    await p.start();
    return p;
  }

  beforeEach(async () => {
    cluster = await startScriptedCluster(2, { T: 4 });
  });

  afterEach(async () => {
    await Promise.all(producers.splice(0).map((p) => p.shutdown()));
    await cluster.stop();
  });

  it('sync send: SEND_MESSAGE_V2 with the short keys, properties with UNIQ_KEY, and a SendResult', async () => {
    const p = await producer();
    const msg = createMessage('T', 'hello', { tags: 'TagA', keys: ['k1', 'k2'] });
    const sentFrom = Date.now();
    const r = await p.send(msg);
    const sentBy = Date.now();
    const all = [...sends(cluster.brokers[0]), ...sends(cluster.brokers[1])];
    expect(all).to.have.length(1);
    const req = all[0];
    expect(req.code).to.equal(RequestCode.SEND_MESSAGE_V2);
    expect(req.language).to.equal('JAVA');
    const e = req.extFields!;
    expect(e.a).to.equal(p.producerGroup);
    expect(e.b).to.equal('T');
    expect(e.c).to.equal('TBW102');
    expect(e.d).to.equal('4');
    expect(e.f).to.equal('0');
    expect(e.h).to.equal('0');
    expect(e.j).to.equal('0');
    expect(e.k).to.equal('false');
    expect(e.m).to.equal('false');
    expect(Number(e.g)).to.be.within(sentFrom, sentBy);
    const props = stringToProperties(e.i);
    expect(props.TAGS).to.equal('TagA');
    expect(props.KEYS).to.equal('k1 k2');
    expect(props.WAIT).to.equal('true');
    expect(props.UNIQ_KEY).to.match(/^[0-9A-F]{32}$/);
    expect(req.body!.toString()).to.equal('hello');
    expect(r.sendStatus).to.equal('SEND_OK');
    expect(r.msgId).to.equal(props.UNIQ_KEY);
    expect(r.offsetMsgId).to.match(/^7F00000100002A9F/);
    expect(r.messageQueue.topic).to.equal('T');
    expect(e.n).to.equal(r.messageQueue.brokerName);
    expect(String(r.messageQueue.queueId)).to.equal(e.e);
    expect(r.regionId).to.equal('DefaultRegion');
    expect(r.traceOn).to.equal(true);
  });

  it('batch send: SEND_BATCH_MESSAGE, a body Java decodes, ids joined; batches are never compressed', async () => {
    const p = await producer({ compressMsgBodyOverHowmuch: 10 });
    const msgs = [0, 1, 2].map((i) => createMessage('T', `body-${i}-${'x'.repeat(20)}`, { tags: `t${i}` }));
    const r = await p.send(msgs);
    const req = [...sends(cluster.brokers[0]), ...sends(cluster.brokers[1])][0];
    expect(req.code).to.equal(RequestCode.SEND_BATCH_MESSAGE);
    expect(req.extFields!.m).to.equal('true');
    expect(req.extFields!.f).to.equal('0');
    expect(stringToProperties(req.extFields!.i)).to.deep.equal({ WAIT: 'true' });
    const entries = decodeBatchBody(req.body!);
    expect(entries.map((x) => x.body.toString())).to.deep.equal(msgs.map((m) => m.body.toString()));
    expect(entries.map((x) => x.properties.TAGS)).to.deep.equal(['t0', 't1', 't2']);
    expect(r.msgId.split(',')).to.deep.equal(entries.map((x) => x.properties.UNIQ_KEY));
  });

  it('batch rules: delay level and mixed topics are refused before anything is sent', async () => {
    const p = await producer();
    const delayed = createMessage('T', 'a');
    setDelayTimeLevel(delayed, 2);
    await expectReject(p.send([createMessage('T', 'b'), delayed]), MQClientError, /TimeDelayLevel/);
    await expectReject(p.send([createMessage('T', 'b'), createMessage('U', 'c')]), MQClientError, /same/);
    expect(sends(cluster.brokers[0]).length + sends(cluster.brokers[1]).length).to.equal(0);
  });

  it('splitBatch keeps each batch under the limit and in order', () => {
    const msgs = Array.from({ length: 10 }, (_, i) => createMessage('T', Buffer.alloc(300, i)));
    const parts = splitBatch(msgs, 1000);
    expect(parts.flat()).to.deep.equal(msgs);
    expect(parts.length).to.be.greaterThan(3);
    expect(() => splitBatch([createMessage('T', Buffer.alloc(2000))], 1000)).to.throw(MQClientError);
  });

  it('compresses bodies over compressMsgBodyOverHowmuch with sysFlag 0x301 and leaves the message body intact', async () => {
    const p = await producer();
    const body = Buffer.alloc(8192, 'a');
    const msg = createMessage('T', body);
    await p.send(msg);
    const req = [...sends(cluster.brokers[0]), ...sends(cluster.brokers[1])][0];
    expect(req.extFields!.f).to.equal('769');
    expect(inflateSync(req.body!).equals(body)).to.equal(true);
    expect(msg.body.equals(body)).to.equal(true);
  });

  it('oneway sends carry the oneway flag; async sends resolve and call callbacks', async () => {
    const p = await producer();
    await p.sendOneway(createMessage('T', 'one'));
    const r = await p.sendAsync(createMessage('T', 'two'));
    expect(r.sendStatus).to.equal('SEND_OK');
    const viaCallback = await new Promise<string>((resolve, reject) => {
      p.send(createMessage('T', 'three'), { onSuccess: (res) => resolve(res.msgId), onException: reject });
    });
    expect(viaCallback).to.match(/^[0-9A-F]+$/);
    await waitFor(() => sends(cluster.brokers[0]).length + sends(cluster.brokers[1]).length === 3);
    const all = [...sends(cluster.brokers[0]), ...sends(cluster.brokers[1])];
    const oneway = all.find((x) => x.body!.toString() === 'one')!;
    expect(oneway.flag & RPC_ONEWAY).to.equal(RPC_ONEWAY);
  });

  it('send to a queue and by selector: SelectMessageQueueByHash puts one key on one queue', async () => {
    const p = await producer();
    const queues = await p.fetchPublishMessageQueues('T');
    expect(queues).to.have.length(8);
    const r1 = await p.send(createMessage('T', 'q'), queues[5]);
    expect(r1.messageQueue).to.deep.equal(queues[5]);
    const selector = new SelectMessageQueueByHash();
    const a = await p.send(createMessage('T', 'x'), selector, 'order-42');
    const b = await p.send(createMessage('T', 'y'), selector, 'order-42');
    expect(a.messageQueue).to.deep.equal(b.messageQueue);
    expect(a.messageQueue).to.deep.equal(selector.select(queues, null, 'order-42'));
  });

  for (const code of [ResponseCode.TOPIC_NOT_EXIST, ResponseCode.SERVICE_NOT_AVAILABLE, ResponseCode.SYSTEM_ERROR, ResponseCode.NO_PERMISSION, ResponseCode.NO_BUYER_ID, ResponseCode.NOT_IN_CURRENT_UNIT]) {
    it(`retries response code ${code} on another broker`, async () => {
      const p = await producer();
      for (const b of cluster.brokers) b.script.push(code);
      const r = await p.send(createMessage('T', 'retry'));
      expect(r.sendStatus).to.equal('SEND_OK');
      const attempts = [...sends(cluster.brokers[0]), ...sends(cluster.brokers[1])];
      // each broker fails once: the second attempt goes to the other broker, the third succeeds
      expect(attempts).to.have.length(3);
      expect(sends(cluster.brokers[0]).length).to.be.greaterThan(0);
      expect(sends(cluster.brokers[1]).length).to.be.greaterThan(0);
    });
  }

  it('does not retry other response codes', async () => {
    const p = await producer();
    for (const b of cluster.brokers) b.script.push(ResponseCode.MESSAGE_ILLEGAL);
    const err = await expectReject(p.send(createMessage('T', 'x')), MQBrokerError);
    expect((err as MQBrokerError).responseCode).to.equal(ResponseCode.MESSAGE_ILLEGAL);
    expect(sends(cluster.brokers[0]).length + sends(cluster.brokers[1]).length).to.equal(1);
  });

  it('gives up after retryTimesWhenSendFailed + 1 attempts with the last code', async () => {
    const p = await producer({ retryTimesWhenSendFailed: 3 });
    for (const b of cluster.brokers) b.script.push(1, 1, 1, 1);
    const err = await expectReject(p.send(createMessage('T', 'x')), MQClientError, /Send \[4\] times/);
    expect((err as MQClientError).responseCode).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(sends(cluster.brokers[0]).length + sends(cluster.brokers[1]).length).to.equal(4);
  });

  it('a stored-but-not-OK status returns at once, or goes to another broker with retryAnotherBrokerWhenNotStoreOK', async () => {
    const p = await producer();
    for (const b of cluster.brokers) b.script.push(ResponseCode.FLUSH_DISK_TIMEOUT);
    expect((await p.send(createMessage('T', 'x'))).sendStatus).to.equal('FLUSH_DISK_TIMEOUT');
    for (const b of cluster.brokers) b.script.length = 0;
    const q = await producer({ retryAnotherBrokerWhenNotStoreOK: true });
    for (const b of cluster.brokers) b.script.push(ResponseCode.SLAVE_NOT_AVAILABLE);
    expect((await q.send(createMessage('T', 'y'))).sendStatus).to.equal('SEND_OK');
  });

  it('never runs past sendMsgTimeout: a silent broker costs one budget, not three', async () => {
    const budget = 300;
    const p = await producer({ sendMsgTimeout: budget });
    for (const b of cluster.brokers) b.script.push('drop', 'drop', 'drop');
    // What each attempt was given to wait, rather than how long this machine took: the attempts share one budget.
    const sendTimeouts: number[] = [];
    p.on('network.request_timeout', (e) => {
      if (e.payload.code === RequestCode.SEND_MESSAGE_V2) sendTimeouts.push(e.payload.timeoutMillis);
    });
    const err = await p.send(createMessage('T', 'x')).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    expect(err instanceof RemotingTooMuchRequestError || err instanceof MQClientError).to.equal(true);
    expect(sendTimeouts.length, 'send attempts that timed out').to.be.greaterThan(0);
    // Fresh budgets would sum to 3 x 300 ms. One budget: at most 300 ms, plus 1 ms because a timer may fire up to a
    // millisecond early by Date.now (libuv's cached loop time), leaving the next attempt that much.
    expect(sendTimeouts.reduce((a, b) => a + b, 0)).to.be.at.most(budget + 1);
  });

  it('latency fault isolation sends to the other broker after a failure', async () => {
    // A fake clock that stands still: every send measures 0 ms (so a slow machine isolates no broker), and the
    // failure's 30 s isolation cannot run out during the test.
    const p = await producer({ sendLatencyFaultEnable: true, retryTimesWhenSendFailed: 0, now: () => 1_000_000 });
    const [a] = cluster.brokers;
    a.script.push(ResponseCode.SYSTEM_ERROR);
    // Round robin from a random start over 8 queues (4 per broker) reaches broker-a within 5 sends: find the first
    // send that lands on it and fails.
    let failed = false;
    for (let i = 0; i < 8 && !failed; i++) {
      failed = await p.send(createMessage('T', 'x')).then(() => false, () => true);
    }
    expect(failed).to.equal(true);
    const before = sends(a).length;
    for (let i = 0; i < 6; i++) await p.send(createMessage('T', 'y'));
    expect(sends(a).length).to.equal(before);
  });

  it('routes a new topic through TBW102 with defaultTopicQueueNums', async () => {
    const p = await producer();
    const r = await p.send(createMessage('NewTopic', 'x'));
    expect(r.messageQueue.topic).to.equal('NewTopic');
    expect(r.messageQueue.queueId).to.be.lessThan(4);
    const topics = cluster.namesrvRequests.map((x) => x.extFields!.topic);
    expect(topics).to.include('NewTopic');
    expect(topics).to.include('TBW102');
  });

  it('applies the namespace to topics and groups on the wire, not in results', async () => {
    cluster.topics.set('NS1%T2', 2);
    const p = await producer({ namespace: 'NS1' });
    const r = await p.send(createMessage('T2', 'x'));
    const req = [...sends(cluster.brokers[0]), ...sends(cluster.brokers[1])][0];
    expect(req.extFields!.b).to.equal('NS1%T2');
    expect(req.extFields!.a).to.equal(`NS1%${p.producerGroup}`);
    expect(stringToProperties(req.extFields!.i).INSTANCE_ID).to.equal('NS1');
    expect(r.messageQueue.topic).to.equal('T2');
  });

  it('validates before sending: topic characters, reserved topics, empty and oversize bodies', async () => {
    const p = await producer({ maxMessageSize: 1024 });
    await expectReject(p.send(createMessage('bad topic', 'x')), MQClientError, /illegal/);
    await expectReject(p.send(createMessage('SCHEDULE_TOPIC_XXXX', 'x')), MQClientError, /forbidden/);
    await expectReject(p.send(createMessage('T', Buffer.alloc(0))), MQClientError, /zero/);
    await expectReject(p.send(createMessage('T', Buffer.alloc(2048))), MQClientError, /over max/);
    expect(sends(cluster.brokers[0]).length + sends(cluster.brokers[1]).length).to.equal(0);
  });

  it('emits producer.send events', async () => {
    const p = await producer();
    const events: unknown[] = [];
    const off = p.on('producer.send', (e) => events.push(e.payload));
    await p.send(createMessage('T', 'x'));
    off();
    await p.send(createMessage('T', 'y'));
    expect(events).to.have.length(1);
    expect(events[0]).to.include({ topic: 'T', mode: 'SYNC', attempts: 1, sendStatus: 'SEND_OK' });
  });

  it('two producers with one instanceName share one client instance; the same group twice is refused', async () => {
    const instanceName = `shared-${seq}`;
    const a = await producer({ instanceName, producerGroup: 'PG_SHARED_A' });
    const b = await producer({ instanceName, producerGroup: 'PG_SHARED_B' });
    expect(a.clientInstance).to.equal(b.clientInstance);
    const dup = new DefaultMQProducer({ instanceName, producerGroup: 'PG_SHARED_A', namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1' });
    await expectReject(dup.start(), MQClientError, /has been created before/);
    await a.send(createMessage('T', 'a'));
    await b.send(createMessage('T', 'b'));
    await a.shutdown();
    expect(b.clientInstance!.isRunning).to.equal(true);
    await b.send(createMessage('T', 'c'));
  });

  it('a producer that is not started refuses to send', async () => {
    const p = new DefaultMQProducer({ producerGroup: 'PG_NOT_STARTED', namesrvAddr: cluster.namesrvAddr });
    await expectReject(p.send(createMessage('T', 'x')), MQClientError, /state not OK/);
  });

  it('shutdown leaves no socket, timer or pending request behind', async () => {
    const baseline = tcpHandles();
    const p = await producer();
    await p.send(createMessage('T', 'x'));
    await p.shutdown();
    await waitFor(() => transportResources().connections === 0 && transportResources().timers === 0, 3000, 'transport resources released');
    await waitFor(() => tcpHandles() <= baseline, 3000, 'tcp handles released');
    const unregistered = cluster.brokers.some((b) => b.requests.some((r) => r.code === RequestCode.UNREGISTER_CLIENT));
    expect(unregistered).to.equal(true);
  });
});

async function expectReject(p: Promise<unknown>, type: new (...args: never[]) => Error, message?: RegExp): Promise<Error> {
  const err = await p.then(() => null, (e: unknown) => e as Error);
  expect(err, 'expected a rejection').to.be.instanceOf(type);
  if (message) expect(err!.message).to.match(message);
  return err!;
}
