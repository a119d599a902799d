/**
 * Namespaces end to end on the in-process cluster (NamespaceUtil rules of 4.9.8 / 5.x): every client with
 * `namespace: NS` names `NS%topic` and `NS%group` on the wire (`%RETRY%NS%group`, `%DLQ%NS%group`), leaves system
 * topics alone, and hands the user messages, queues and results with the namespace stripped. Checked from the
 * servers' side with a client without namespace (full names).
 */
import { expect } from 'chai';
import {
  ConsumeConcurrentlyStatus, DefaultLitePullConsumer, DefaultMQAdminExt, DefaultMQProducer, DefaultMQPushConsumer, LocalTransactionState,
  NamespaceUtil, TransactionMQProducer, createMessage, type MessageExt,
} from '../../lib/index';
import { runAdmin } from '../../lib/cli/admin';
import { getCluster, randomName, skipWhenExternal, waitFor, type TestCluster } from '../helpers/cluster';

describe('integration: namespaces in every client', function () {
  this.timeout(90_000);
  let tc: TestCluster;
  let raw: DefaultMQAdminExt;
  const ns = `NS${process.pid}`;
  const closers: Array<() => Promise<void>> = [];

  before(async function () {
    skipWhenExternal(this, 'runs a transaction check pass of the in-process broker');
    tc = await getCluster({ brokerConfig: { transactionCheckInterval: 60_000, transactionTimeOut: 0 } });
    await tc.cluster!.brokers[0].transactionalMessageCheckService.shutdown();
    raw = new DefaultMQAdminExt({ namesrvAddr: tc.namesrvAddr, instanceName: randomName('raw') });
    await raw.start();
  });
  after(async () => {
    for (const c of closers.reverse()) await c();
    await raw?.shutdown();
    await tc?.stop();
  });

  async function started<T extends { start(): Promise<void>; shutdown(): Promise<void> }>(c: T): Promise<T> {
    closers.push(() => c.shutdown());
    await c.start();
    return c;
  }

  it('admin with a namespace creates NS%topic and reads it back by the short name', async () => {
    const admin = await started(new DefaultMQAdminExt({ namesrvAddr: tc.namesrvAddr, instanceName: randomName('nsadmin'), namespace: ns }));
    const topic = randomName('T_ADM');
    await admin.createTopic('TBW102', topic, 2);
    await waitFor(async () => (await raw.examineTopicRouteInfo(`${ns}%${topic}`).catch(() => null)) !== null, 10_000, 'route of NS%topic');
    expect((await admin.examineTopicRouteInfo(topic)).queueDatas[0].readQueueNums).to.equal(2);
    const topics = (await raw.fetchAllTopicList()).topicList;
    expect(topics).to.include(`${ns}%${topic}`);
    expect(topics).to.not.include(topic);
    // Already wrapped and system names stay as they are.
    expect((await admin.examineTopicRouteInfo(`${ns}%${topic}`)).queueDatas.length).to.equal(1);
    expect((await admin.examineTopicRouteInfo('TBW102')).queueDatas.length).to.be.greaterThan(0);
    const mqs = await admin.fetchSubscribeMessageQueues(topic);
    expect(mqs.map((q) => q.topic)).to.deep.equal([`${ns}%${topic}`, `${ns}%${topic}`]);
    expect(await admin.maxOffset({ ...mqs[0], topic })).to.equal(0);
  });

  it('producer → push consumer: NS%topic and NS%group on the wire, short names to the user, retry through %RETRY%NS%group', async () => {
    const topic = randomName('T_NS');
    const group = randomName('G_NS');
    const producer = await started(new DefaultMQProducer({ producerGroup: randomName('PG_NS'), namesrvAddr: tc.namesrvAddr, namespace: ns, instanceName: randomName('p') }));
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await producer.send(createMessage(topic, `ns-${i}`, { keys: `k${i}` })));
    expect(results.every((r) => r.messageQueue.topic === topic)).to.equal(true);
    expect((await producer.fetchPublishMessageQueues(topic)).every((q) => q.topic === topic)).to.equal(true);

    // What the broker holds: the wrapped topic, the namespace in INSTANCE_ID.
    const stored = await raw.viewMessage(results[0].offsetMsgId);
    expect(stored.topic).to.equal(`${ns}%${topic}`);
    expect(stored.properties.INSTANCE_ID).to.equal(ns);

    const got: MessageExt[] = [];
    let failedOnce = false;
    const consumer = new DefaultMQPushConsumer({
      consumerGroup: group, namesrvAddr: tc.namesrvAddr, namespace: ns, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c'),
    });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener((msgs) => {
      for (const m of msgs) {
        if (m.body.toString() === 'ns-0' && !failedOnce) {
          failedOnce = true;
          return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        }
        got.push(m);
      }
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await started(consumer);
    await waitFor(() => got.length === 4, 40_000, 'all 4, ns-0 after its retry');
    for (const m of got) expect(m.topic, 'topic without namespace').to.equal(topic);
    const retried = got.find((m) => m.body.toString() === 'ns-0')!;
    expect(retried.reconsumeTimes).to.equal(1);
    expect(retried.properties.RETRY_TOPIC).to.equal(`${ns}%${topic}`);

    // The servers know the group and its retry topic by their full names.
    const conn = await raw.examineConsumerConnectionInfo(`${ns}%${group}`);
    expect(conn.connectionSet.length).to.equal(1);
    expect([...conn.subscriptionTable.keys()].sort()).to.deep.equal([`${ns}%${topic}`, `%RETRY%${ns}%${group}`].sort());
    expect((await raw.examineTopicRouteInfo(NamespaceUtil.wrapNamespaceAndRetry(ns, group)!)).queueDatas.length).to.equal(1);
    // And the admin with the namespace by the short ones.
    const admin = await started(new DefaultMQAdminExt({ namesrvAddr: tc.namesrvAddr, instanceName: randomName('nsadmin2'), namespace: ns }));
    expect((await admin.examineConsumerConnectionInfo(group)).connectionSet.length).to.equal(1);
    await waitFor(async () => (await admin.examineConsumeStats(group, topic).catch(() => null))?.offsetTable.some(([, w]) => w.consumerOffset > 0) === true, 20_000, 'consume stats by short names');
  });

  it('a consumer without namespace sees NS%topic as a topic of its own; another namespace does not see it', async () => {
    const topic = randomName('T_RAW');
    const producer = await started(new DefaultMQProducer({ producerGroup: randomName('PG_RAW'), namesrvAddr: tc.namesrvAddr, namespace: ns, instanceName: randomName('p2') }));
    await producer.send(createMessage(topic, 'from-ns'));
    const lite = new DefaultLitePullConsumer({ consumerGroup: randomName('LG_RAW'), namesrvAddr: tc.namesrvAddr, instanceName: randomName('l0') });
    lite.subscribe(`${ns}%${topic}`, '*');
    await started(lite);
    let msgs: MessageExt[] = [];
    await waitFor(async () => (msgs = await lite.poll(200)).length === 1, 20_000, 'the raw consumer gets it');
    expect(msgs[0].topic).to.equal(`${ns}%${topic}`);
    expect(msgs[0].body.toString()).to.equal('from-ns');
    const other = new DefaultMQProducer({ producerGroup: randomName('PG_OTHER'), namesrvAddr: tc.namesrvAddr, namespace: `${ns}X`, instanceName: randomName('p3') });
    await started(other);
    const r = await other.send(createMessage(topic, 'from-other-ns'));
    expect((await raw.viewMessage(r.offsetMsgId)).topic).to.equal(`${ns}X%${topic}`);
  });

  it('lite pull consumer: subscribe, assign, seek and poll by short names', async () => {
    const topic = randomName('T_LITE');
    const producer = await started(new DefaultMQProducer({ producerGroup: randomName('PG_L'), namesrvAddr: tc.namesrvAddr, namespace: ns, instanceName: randomName('p4') }));
    for (let i = 0; i < 3; i++) await producer.send(createMessage(topic, `l${i}`));
    const lite = new DefaultLitePullConsumer({ consumerGroup: randomName('LG'), namesrvAddr: tc.namesrvAddr, namespace: ns, instanceName: randomName('l1') });
    await started(lite);
    const mqs = await lite.fetchMessageQueues(topic);
    expect(mqs.length).to.be.greaterThan(0);
    expect(mqs.every((q) => q.topic === topic), 'queues without namespace').to.equal(true);
    lite.assign(mqs);
    for (const mq of mqs) await lite.seekToBegin(mq);
    const got: MessageExt[] = [];
    await waitFor(async () => {
      got.push(...(await lite.poll(200)));
      return got.length === 3;
    }, 20_000, 'lite pull of 3');
    expect(got.every((m) => m.topic === topic)).to.equal(true);
  });

  it('transaction producer: half message on NS%topic, the check-back listener sees the short topic, the group wrapped', async () => {
    const topic = randomName('T_TX');
    const checked: string[] = [];
    const group = randomName('PG_TX');
    const p = new TransactionMQProducer({
      producerGroup: group, namesrvAddr: tc.namesrvAddr, namespace: ns, instanceName: randomName('tx'),
      transactionListener: {
        executeLocalTransaction: () => LocalTransactionState.UNKNOW,
        checkLocalTransaction: (m) => {
          checked.push(m.topic);
          return LocalTransactionState.COMMIT_MESSAGE;
        },
      },
    });
    await started(p);
    const r = await p.sendMessageInTransaction(createMessage(topic, 'tx-body'), null);
    expect(r.messageQueue.topic).to.equal(topic);
    const half = await raw.viewMessage(r.offsetMsgId);
    expect(half.properties.REAL_TOPIC).to.equal(`${ns}%${topic}`);
    expect(half.properties.PGROUP).to.equal(`${ns}%${group}`);
    // Register with the broker now (the client's own heartbeat may come after the check pass).
    await p.clientInstance!.sendHeartbeatToAllBrokerWithLock();
    await new Promise((res) => setTimeout(res, 2));
    await tc.cluster!.brokers[0].transactionalMessageCheckService.onWaitEnd();
    await waitFor(() => checked.length > 0, 20_000, 'the check-back');
    expect(checked[0]).to.equal(topic);
    // Committed: the message shows up on NS%topic.
    const lite = new DefaultLitePullConsumer({ consumerGroup: randomName('LG_TX'), namesrvAddr: tc.namesrvAddr, namespace: ns, instanceName: randomName('l2') });
    lite.subscribe(topic, '*');
    await started(lite);
    let got: MessageExt[] = [];
    await waitFor(async () => (got = await lite.poll(200)).length === 1, 20_000, 'the committed message');
    expect(got[0].topic).to.equal(topic);
    expect(got[0].body.toString()).to.equal('tx-body');
  });

  it('rocketmq-ts admin has no namespace option, as mqadmin (4.9.8, 5.3.3): full names `NS%topic` work', async () => {
    const topic = randomName('T_CLI');
    let out = '';
    const run = (...argv: string[]): Promise<number> => runAdmin(argv, { out: (x) => { out += x; }, err: (x) => { out += x; }, env: {} });
    expect(await run('updateTopic', '-n', tc.namesrvAddr, '-b', tc.cluster!.brokers[0].brokerAddr, '-t', `${ns}%${topic}`, '-r', '1', '-w', '1')).to.equal(0);
    expect(out).to.contain(`topicName=${ns}%${topic}`);
    const producer = await started(new DefaultMQProducer({ producerGroup: randomName('PG_CLI'), namesrvAddr: tc.namesrvAddr, namespace: ns, instanceName: randomName('p5') }));
    await waitFor(async () => (await producer.fetchPublishMessageQueues(topic).catch(() => [])).length === 1, 20_000, 'the route of the CLI-made topic');
    await producer.send(createMessage(topic, 'cli'));
    out = '';
    expect(await run('topicStatus', '-n', tc.namesrvAddr, '-t', `${ns}%${topic}`)).to.equal(0);
    const row = out.split('\n')[1].trim().split(/\s+/);
    expect(row.slice(1, 4), 'queue 0: min 0, max 1').to.deep.equal(['0', '0', '1']);
    out = '';
    expect(await run('updateTopic', '--namespace', ns, '-n', tc.namesrvAddr, '-t', topic)).to.not.equal(0);
  });
});
