/**
 * Message trace end to end: producers, transaction producers and push consumers with enableMsgTrace write Java's
 * trace records to RMQ_SYS_TRACE_TOPIC (or customizedTraceTopic), and `rocketmq-ts admin queryMsgTraceById` reads
 * them, against our broker in-process and against the Java 4.9.8 broker; the Java 4.9.8 client's traces (written
 * through our broker) are read by our admin.
 */
import { expect } from 'chai';
import {
  ConsumeConcurrentlyStatus, DefaultLitePullConsumer, DefaultMQAdminExt, DefaultMQProducer, DefaultMQPushConsumer, LocalTransactionState, TransactionMQProducer, createMessage,
} from '../../../lib/index';
import { runAdmin } from '../../../lib/cli/admin';
import { decodeTraceViews } from '../../../lib/cli/admin/trace';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';
import { javaSkipReason, runJavaDriver, useJavaCluster } from '../../helpers/javaref';

async function createTopic(admin: DefaultMQAdminExt, topic: string): Promise<void> {
  await waitFor(async () => {
    try {
      await admin.createTopic('TBW102', topic, 2);
      return (await admin.examineTopicRouteInfo(topic)).queueDatas.length > 0;
    } catch {
      return false;
    }
  }, 60_000, `route of ${topic}`);
}

/** The trace records of `msgId` in `traceTopic` (what queryMsgTraceById reads), [] while there is none. */
async function traceViews(admin: DefaultMQAdminExt, traceTopic: string, msgId: string) {
  try {
    const r = await admin.queryMessage(traceTopic, msgId, 64, 0, Date.now());
    return r.messageList.flatMap((m) => decodeTraceViews(msgId, m));
  } catch {
    return [];
  }
}

async function adminOut(args: string[]): Promise<string> {
  let out = '';
  let err = '';
  const code = await runAdmin(args, { out: (s) => { out += s; }, err: (s) => { err += s; }, env: {} });
  expect(code, err).to.equal(0);
  return out;
}

function scenarios(env: () => { namesrvAddr: string }): void {
  let admin: DefaultMQAdminExt;
  before(async () => {
    admin = new DefaultMQAdminExt({ namesrvAddr: env().namesrvAddr, instanceName: randomName('admin') });
    await admin.start();
  });
  after(async () => { await admin?.shutdown(); });

  it('Pub, SubBefore and SubAfter records of a traced producer and consumer, read by queryMsgTraceById', async () => {
    const { namesrvAddr } = env();
    const topic = randomName('TraceT');
    await createTopic(admin, topic);
    const pg = randomName('TPG');
    const cg = randomName('TCG');
    const producer = new DefaultMQProducer({ producerGroup: pg, namesrvAddr, instanceName: randomName('p'), enableMsgTrace: true, sendMsgTimeout: 30_000 });
    const consumer = new DefaultMQPushConsumer({
      consumerGroup: cg, namesrvAddr, instanceName: randomName('c'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', enableMsgTrace: true,
    });
    const seen = new Set<string>();
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener((msgs) => {
      for (const m of msgs) seen.add(m.msgId);
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await producer.start();
    await consumer.start();
    let sent;
    try {
      sent = await producer.send(createMessage(topic, 'traced body', { tags: 'TagT', keys: ['tk1', 'tk2'] }));
      await producer.send(createMessage(topic, 'no tags'));
      await waitFor(() => seen.has(sent!.msgId), 60_000, 'the traced message consumed');
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
    }
    // shutdown() flushed both dispatchers: the records are stored (the index may lag the store a moment)
    let views: Awaited<ReturnType<typeof traceViews>> = [];
    await waitFor(async () => {
      views = await traceViews(admin, 'RMQ_SYS_TRACE_TOPIC', sent.msgId);
      return ['Pub', 'SubBefore', 'SubAfter'].every((t) => views.some((v) => v.msgType === t));
    }, 30_000, 'Pub, SubBefore and SubAfter records');
    const pub = views.find((v) => v.msgType === 'Pub')!;
    expect(pub).to.include({ groupName: pg, topic, tags: 'TagT', keys: 'tk1 tk2', offSetMsgId: sent.offsetMsgId, status: 'success' });
    expect(pub.storeHost).to.match(/^127\.0\.0\.1:\d+$/);
    const subAfter = views.find((v) => v.msgType === 'SubAfter')!;
    expect(subAfter).to.include({ groupName: cg, status: 'success', keys: 'tk1 tk2' });
    // the trace message is found by the message's keys too
    const byKey = await admin.queryMessage('RMQ_SYS_TRACE_TOPIC', 'tk2', 64, 0, Date.now());
    expect(byKey.messageList.length).to.be.greaterThan(0);

    const out = await adminOut(['queryMsgTraceById', '-i', sent.msgId, '-n', namesrvAddr]);
    const lines = out.split('\n');
    expect(lines[0]).to.match(/^#Type\s+#ProducerGroup\s+#ClientHost\s+#SendTime\s+#CostTimes\s+#Status\s*$/);
    expect(lines[1]).to.match(new RegExp(`^Pub\\s+${pg}\\s+\\S+\\s+\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\s+\\d+ms\\s+success\\s*$`));
    expect(out).to.match(new RegExp(`#Type\\s+#ConsumerGroup\\s+#ClientHost\\s+#ConsumerTime\\s+#CostTimes\\s+#Status\\s*\\nSub\\s+${cg}\\s+\\S+\\s+\\S+ \\S+\\s+\\d+ms\\s+success`));
  });

  it('a traced lite pull consumer: SubBefore and SubAfter records of what poll() returned', async () => {
    const { namesrvAddr } = env();
    const topic = randomName('TraceLite');
    await createTopic(admin, topic);
    const producer = new DefaultMQProducer({ producerGroup: randomName('LPG'), namesrvAddr, instanceName: randomName('p'), sendMsgTimeout: 30_000 });
    await producer.start();
    let msgId: string;
    try {
      msgId = (await producer.send(createMessage(topic, 'lite'))).msgId;
    } finally {
      await producer.shutdown();
    }
    const cg = randomName('LCG');
    const lite = new DefaultLitePullConsumer({ consumerGroup: cg, namesrvAddr, instanceName: randomName('l'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', enableMsgTrace: true });
    lite.subscribe(topic, '*');
    await lite.start();
    try {
      const got: string[] = [];
      await waitFor(async () => {
        for (const m of await lite.poll(1000)) got.push(m.msgId);
        return got.includes(msgId);
      }, 60_000, 'the message polled');
    } finally {
      await lite.shutdown();
    }
    let views: Awaited<ReturnType<typeof traceViews>> = [];
    await waitFor(async () => {
      views = await traceViews(admin, 'RMQ_SYS_TRACE_TOPIC', msgId);
      return views.some((v) => v.msgType === 'SubBefore') && views.some((v) => v.msgType === 'SubAfter');
    }, 30_000, 'SubBefore and SubAfter records');
    expect(views.find((v) => v.msgType === 'SubAfter')).to.include({ groupName: cg, status: 'success' });
  });

  it('customizedTraceTopic, and EndTransaction records of a traced transaction producer', async () => {
    const { namesrvAddr } = env();
    const topic = randomName('TraceTx');
    const traceTopic = randomName('MyTrace');
    await createTopic(admin, topic);
    await createTopic(admin, traceTopic);
    const pg = randomName('TXPG');
    const producer = new TransactionMQProducer({
      producerGroup: pg, namesrvAddr, instanceName: randomName('tx'), enableMsgTrace: true, customizedTraceTopic: traceTopic, sendMsgTimeout: 30_000,
    });
    producer.setTransactionListener({
      executeLocalTransaction: () => LocalTransactionState.COMMIT_MESSAGE,
      checkLocalTransaction: () => LocalTransactionState.COMMIT_MESSAGE,
    });
    await producer.start();
    let r;
    try {
      r = await producer.sendMessageInTransaction(createMessage(topic, 'tx body', { tags: 'TX' }), null);
    } finally {
      await producer.shutdown();
    }
    let views: Awaited<ReturnType<typeof traceViews>> = [];
    await waitFor(async () => {
      views = await traceViews(admin, traceTopic, r.msgId);
      return views.some((v) => v.msgType === 'Pub') && views.some((v) => v.msgType === 'EndTransaction');
    }, 30_000, 'Pub and EndTransaction records in the customized trace topic');
    const msg = await admin.queryMessage(traceTopic, r.msgId, 64, 0, Date.now());
    const body = msg.messageList.map((m) => m.body.toString()).join('');
    expect(body).to.include(['EndTransaction'].join(''));
    expect(body).to.match(new RegExp(`EndTransaction\\u0001\\d+\\u0001DefaultRegion\\u0001${pg}\\u0001${topic}\\u0001${r.msgId}\\u0001TX\\u0001null\\u0001[^\\u0001]+\\u00012\\u0001${r.msgId}\\u0001COMMIT_MESSAGE\\u0001false\\u0002`));
    // Pub of a half message: msgType Trans_Msg_Half (1)
    expect(body).to.match(new RegExp(`Pub\\u0001\\d+\\u0001[^\\u0001]*\\u0001${pg}\\u0001${topic}\\u0001${r.msgId}\\u0001TX\\u0001null\\u0001[^\\u0001]+\\u0001\\d+\\u0001\\d+\\u00011\\u0001`));
    const out = await adminOut(['queryMsgTraceById', '-i', r.msgId, '-t', traceTopic, '-n', namesrvAddr]);
    expect(out).to.match(new RegExp(`\\nPub\\s+${pg}\\s`));
  });
}

describe('integration: message trace', function () {
  this.timeout(180_000);

  describe('against our broker (in-process, traceTopicEnable)', () => {
    let tc: TestCluster;
    before(async function () {
      if (process.env.ROCKETMQ_NAMESRV_ADDR) this.skip();
      tc = await getCluster({ brokers: 1, brokerConfig: { traceTopicEnable: true } });
    });
    after(async () => { await tc?.stop(); });

    it('traceTopicEnable creates RMQ_SYS_TRACE_TOPIC (1 queue) at start', () => {
      const tcfg = tc.cluster!.brokers[0].topicConfigManager.selectTopicConfig('RMQ_SYS_TRACE_TOPIC');
      expect(tcfg).to.include({ readQueueNums: 1, writeQueueNums: 1 });
    });
    scenarios(() => ({ namesrvAddr: tc.namesrvAddr }));
  });

  describe('against the Java 4.9.8 broker (traceTopicEnable=true)', () => {
    const java = useJavaCluster('4.9.8', { conf: { traceTopicEnable: true } });
    scenarios(() => ({ namesrvAddr: java.ns.addr }));
  });

  describe('the Java 4.9.8 client traced through our broker, read by our admin', () => {
    let tc: TestCluster;
    before(async function () {
      const skip = javaSkipReason('4.9.8');
      if (skip || process.env.ROCKETMQ_NAMESRV_ADDR) {
        process.stderr.write(`      ${skip ?? 'skipped: needs the in-process cluster'}\n`);
        this.skip();
      }
      tc = await getCluster({ brokers: 1, brokerConfig: { traceTopicEnable: true } });
    });
    after(async () => { await tc?.stop(); });

    it('Java DefaultMQProducer/DefaultMQPushConsumer with enableMsgTrace: queryMsgTraceById shows their Pub and Sub', async function () {
      this.timeout(240_000);
      const admin = new DefaultMQAdminExt({ namesrvAddr: tc.namesrvAddr, instanceName: randomName('admin') });
      await admin.start();
      try {
        const topic = randomName('JTrace');
        await createTopic(admin, topic);
        const pg = randomName('JPG');
        const cg = randomName('JCG');
        const p = await runJavaDriver(['produce', '--namesrv', tc.namesrvAddr, '--topic', topic, '--group', pg, '--count', '2', '--keys', 'jk{i}', '--tag', 'JT']);
        const ok = p.stdout.split('\n').filter((l) => l.startsWith('OK ')).map((l) => l.split(' '));
        expect(ok.length, p.stdout + p.stderr.slice(-3000)).to.equal(2);
        const c = await runJavaDriver(['consume', '--namesrv', tc.namesrvAddr, '--topic', topic, '--group', cg, '--expect', '2', '--timeout', '90']);
        expect(c.stdout, c.stderr.slice(-3000)).to.include('CONSUMED n=2');
        const msgId = ok[0][2];
        let views: Awaited<ReturnType<typeof traceViews>> = [];
        await waitFor(async () => {
          views = await traceViews(admin, 'RMQ_SYS_TRACE_TOPIC', msgId);
          return views.some((v) => v.msgType === 'Pub') && views.some((v) => v.msgType === 'SubAfter');
        }, 30_000, 'the Java client\'s Pub and SubAfter records');
        expect(views.find((v) => v.msgType === 'Pub')).to.include({ groupName: pg, topic, tags: 'JT', keys: 'jk0', offSetMsgId: ok[0][3], status: 'success' });
        expect(views.find((v) => v.msgType === 'SubAfter')).to.include({ groupName: cg, status: 'success' });
        const out = await adminOut(['queryMsgTraceById', '-i', msgId, '-n', tc.namesrvAddr]);
        expect(out).to.match(new RegExp(`\\nPub\\s+${pg}\\s`));
        expect(out).to.match(new RegExp(`\\nSub\\s+${cg}\\s`));
      } finally {
        await admin.shutdown();
      }
    });
  });
});
