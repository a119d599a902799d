/**
 * `rocketmq-ts admin` beside Java 4.9.8's mqadmin: each read command runs with both against the same in-process
 * cluster of ours, and the outputs must be equal after masking what legitimately differs between two runs a few
 * seconds apart (TPS figures, the broker's uptime, disk figures). Java runs are sequential (one JVM at a time on a
 * busy box) with generous timeouts; the file skips with javaSkipReason() when Java is absent.
 *
 * Errors are left out: Java prints a stack trace where we print one line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startCluster, type Cluster } from '../../../lib/server';
import { runAdmin } from '../../../lib/cli/admin';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { DefaultLitePullConsumer } from '../../../lib/consumer/lite-pull-consumer';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { decodeTraceViews } from '../../../lib/cli/admin/trace';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { createMessage } from '../../../protocol/message/message';
import { waitFor } from '../../helpers/cluster';
import { javaSkipReason, makeRunDir, runMqadmin, startMqadmin } from '../../helpers/javaref';
import { AclClientRPCHook } from '../../../lib/client/acl/acl-client-rpc-hook';

const JAVA_TIMEOUT_MS = 180_000;

/** Floats (TPS, hours, disk ratios) become `#`, keeping no padding (their widths may differ). */
const maskFloats = (s: string) => s.replace(/ *-?\d+\.\d+/g, ' #');

/** statsAll: TPS and the 24-hour sums move as the broker's 10 s / 10 min / 1 h samples roll (the minute window empties after 70 s). */
const maskNumbers = (s: string) => s.replace(/ +-?\d+(\.\d+)?/g, ' #');

/** brokerStatus keys whose values move between two runs. */
const MOVING_BROKER_KEYS = /^(runtime|\w*Tps\w*|commitLogDirCapacity|commitLogDiskRatio\S*|consumeQueueDiskRatio|pageCacheLockTimeMills|\w*WaitTimeMills|dispatchMaxBuffer|putMessageDistributeTime|putMessageTimesTotal|putMessageSizeTotal|putMessageEntireTimeMax|msgPutTotal\w*|msgGetTotal\w*|getMessageEntireTimeMax|remainHowManyDataToFlush|remainTransientStoreBufferNumbs|earliestMessageTimeStamp|startAcceptSendRequestTimeStamp|bootTimestamp)$/;

function maskBrokerStatus(s: string): string {
  return s.split('\n').map((line) => {
    const m = /^(\S+)(\s*: )/.exec(line);
    return m && MOVING_BROKER_KEYS.test(m[1]) ? `${m[1]}${m[2]}*` : line;
  }).join('\n');
}

interface Case {
  args: string[];
  mask?: (s: string) => string;
}

/**
 * Each block's start: skip (saying why) without Java, else our in-process cluster, an admin on it and broker-a's
 * master address. `beforeStart` runs after the skip check (e.g. to write an ACL file the cluster reads).
 */
async function startAdminCluster(
  ctx: Mocha.Context, skip: string | null, instanceName: string,
  opts: { cluster?: Parameters<typeof startCluster>[0]; rpcHook?: AclClientRPCHook; beforeStart?: () => void } = {},
): Promise<{ cluster: Cluster; admin: DefaultMQAdminExt; brokerAddr: string }> {
  if (skip) {
    console.log(`      ${skip}`);
    ctx.skip();
  }
  ctx.timeout(60_000);
  opts.beforeStart?.();
  const cluster = await startCluster(opts.cluster ?? {});
  const admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName }, opts.rpcHook ? { rpcHook: opts.rpcHook } : undefined);
  await admin.start();
  const brokerAddr = (await admin.examineBrokerClusterInfo()).brokerAddrTable.get('broker-a')!.brokerAddrs.get(0)!;
  return { cluster, admin, brokerAddr };
}

describe('rocketmq-ts admin beside Java 4.9.8 mqadmin on one cluster', function () {
  const skip = javaSkipReason('4.9.8');
  let cluster: Cluster;
  let admin: DefaultMQAdminExt;
  const topic = 'AdminJavaTopic';
  const group = 'AdminJavaGroup';
  let brokerAddr = '';
  let last: { msgId: string; offsetMsgId: string; queueId: number; queueOffset: number };
  let tracedMsgId = '';
  const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-vs-java-export-'));

  before(async function () {
    ({ cluster, admin, brokerAddr } = await startAdminCluster(this, skip, 'admin-vs-java'));
    await admin.createTopic('TBW102', topic, 2);
    await admin.createAndUpdateSubscriptionGroupConfig(brokerAddr, newSubscriptionGroupConfig(group, { retryMaxTimes: 3 }));
    // the group's retry topic (a push consumer's heartbeat would create it): consume stats are found through its route
    await admin.createAndUpdateTopicConfig(brokerAddr, newTopicConfig(`%RETRY%${group}`, { readQueueNums: 1, writeQueueNums: 1 }));
    await admin.putKVConfig('ORDER_TOPIC_CONFIG', topic, 'broker-a:2');
    const producer = new DefaultMQProducer({ producerGroup: 'AdminJavaPG', namesrvAddr: cluster.namesrvAddr, instanceName: 'admin-vs-java-p' });
    await producer.start();
    try {
      for (let i = 0; i < 5; i++) {
        const r = await producer.send(createMessage(topic, `body ${i}`, { tags: i % 2 === 0 ? 'TagA' : 'TagB', keys: `key${i} shared` }));
        last = { msgId: r.msgId, offsetMsgId: r.offsetMsgId!, queueId: r.messageQueue.queueId, queueOffset: r.queueOffset };
      }
    } finally {
      await producer.shutdown();
    }
    // The group commits offset 1 on queue 0, then goes offline: consumerProgress and the message tracks have a group.
    const consumer = new DefaultLitePullConsumer({ consumerGroup: group, namesrvAddr: cluster.namesrvAddr, instanceName: 'admin-vs-java-c', autoCommit: false });
    const mq = { topic, brokerName: 'broker-a', queueId: 0 };
    consumer.assign([mq]);
    await consumer.start();
    try {
      await consumer.commitSync([[mq, 1]]);
    } finally {
      await consumer.shutdown();
    }
    // A traced producer and consumer on a topic of their own: queryMsgTraceById has a Pub and a Sub to print.
    const traceTopic = 'AdminJavaTraceTopic';
    await admin.createTopic('TBW102', traceTopic, 1);
    const tp = new DefaultMQProducer({ producerGroup: 'AdminJavaTracePG', namesrvAddr: cluster.namesrvAddr, instanceName: 'admin-vs-java-tp', enableMsgTrace: true });
    const tc = new DefaultMQPushConsumer({
      consumerGroup: 'AdminJavaTraceCG', namesrvAddr: cluster.namesrvAddr, instanceName: 'admin-vs-java-tc', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', enableMsgTrace: true,
    });
    let consumed = false;
    tc.subscribe(traceTopic, '*');
    tc.registerMessageListener(() => { consumed = true; return ConsumeConcurrentlyStatus.CONSUME_SUCCESS; });
    await tp.start();
    await tc.start();
    try {
      tracedMsgId = (await tp.send(createMessage(traceTopic, 'traced', { tags: 'TagT', keys: 'traced-key' }))).msgId;
      await waitFor(() => consumed, 30_000, 'the traced message consumed');
    } finally {
      await tc.shutdown();
      await tp.shutdown();
    }
    await waitFor(async () => {
      try {
        const r = await admin.queryMessage('RMQ_SYS_TRACE_TOPIC', tracedMsgId, 64, 0, Date.now());
        const types = r.messageList.flatMap((m) => decodeTraceViews(tracedMsgId, m)).map((v) => v.msgType);
        return types.includes('Pub') && types.includes('SubAfter');
      } catch {
        return false;
      }
    }, 30_000, 'the Pub and SubAfter trace records');
    await waitFor(async () => (await admin.queryTopicConsumeByWho(topic)).groupList.includes(group), 10_000, 'the group consuming the topic');
    await waitFor(async () => (await admin.fetchAllTopicList()).topicList.includes(`%RETRY%${group}`), 10_000, 'the retry topic in the name server');
  });

  after(async () => {
    await admin?.shutdown();
    await cluster?.stop();
    fs.rmSync(exportDir, { recursive: true, force: true });
  });

  it('prints what Java prints, command by command', async function () {
    const cases: Case[] = [
      { args: ['clusterList'], mask: maskFloats },
      { args: ['topicList'] },
      { args: ['topicList', '-c'] },
      { args: ['topicRoute', '-t', topic] },
      { args: ['topicRoute', '-t', topic, '-l'] },
      { args: ['topicStatus', '-t', topic] },
      { args: ['topicClusterList', '-t', topic] },
      { args: ['allocateMQ', '-t', topic, '-i', '10.0.0.1,10.0.0.2,10.0.0.3'] },
      { args: ['brokerStatus', '-b', brokerAddr], mask: maskBrokerStatus },
      { args: ['getBrokerConfig', '-b', brokerAddr] },
      { args: ['getBrokerConfig', '-c', 'DefaultCluster'] },
      { args: ['getNamesrvConfig'] },
      { args: ['getConsumerConfig', '-g', group] },
      { args: ['consumerProgress'], mask: maskFloats },
      { args: ['consumerProgress', '-g', group], mask: maskFloats },
      { args: ['statsAll'], mask: maskNumbers },
      { args: ['brokerConsumeStats', '-b', brokerAddr] },
      { args: ['updateOrderConf', '-t', topic, '-m', 'get'] },
      { args: ['queryMsgByKey', '-t', topic, '-k', 'shared'] },
      { args: ['queryMsgById', '-i', last.offsetMsgId] },
      { args: ['queryMsgByUniqueKey', '-t', topic, '-i', last.msgId] },
      { args: ['queryMsgTraceById', '-i', tracedMsgId] },
      { args: ['queryMsgTraceById', '-i', tracedMsgId, '-t', 'RMQ_SYS_TRACE_TOPIC'] },
      { args: ['queryMsgByOffset', '-t', topic, '-b', 'broker-a', '-i', '0', '-o', '0'] },
      { args: ['printMsg', '-t', topic, '-s', 'TagA'] },
      { args: ['consumeMessage', '-t', topic, '-c', '3'] },
      { args: ['consumeMessage', '-t', topic, '-b', 'broker-a', '-i', '1', '-o', '1'] },
      { args: ['printMsgByQueue', '-t', topic, '-a', 'broker-a', '-i', '1', '-p', 'true', '-d', 'true', '-f', 'true'] },
      // Java's exportConfigs copies filterServerNums and useTLS from GET_BROKER_CONFIG (a missing key was a NullPointerException)
      { args: ['exportConfigs', '-c', 'DefaultCluster', '-f', exportDir] },
    ];
    this.timeout(cases.length * JAVA_TIMEOUT_MS);
    const mismatches: string[] = [];
    for (const c of cases) {
      const args = [...c.args, '-n', cluster.namesrvAddr];
      let java = await runMqadmin('4.9.8', args, { timeoutMs: JAVA_TIMEOUT_MS });
      // Java's mqadmin prints a failed command's exception on stderr and exits 0; on a loaded machine its first
      // request can time out while the JVM warms up (seen at load 16): such a run is tried again, twice at most.
      for (let i = 0; i < 2 && java.code === 0 && java.stdout.trim() === '' && /Exception/.test(java.stderr); i++) {
        java = await runMqadmin('4.9.8', args, { timeoutMs: JAVA_TIMEOUT_MS });
      }
      let ours = '';
      let oursErr = '';
      const code = await runAdmin(args, { out: (s) => { ours += s; }, err: (s) => { oursErr += s; }, env: {} });
      // The broker creates RMQ_SYS_TRANS_HALF_TOPIC on its first transaction check (a minute after start): a topic list
      // may gain it between the two runs.
      const dropHalfTopic = (s: string) => s.split('\n').filter((l) => !l.includes('RMQ_SYS_TRANS_HALF_TOPIC')).join('\n');
      const mask = (s: string) => dropHalfTopic((c.mask ?? ((x: string) => x))(s));
      const name = c.args.join(' ');
      if (java.code !== 0) mismatches.push(`${name}: Java exited ${java.code}: ${java.stderr.slice(0, 500)}`);
      else if (code !== 0) mismatches.push(`${name}: ours exited ${code}: ${oursErr}`);
      else if (mask(ours) !== mask(java.stdout)) mismatches.push(`${name}:\n--- java\n${java.stdout}\n--- java stderr\n${java.stderr.slice(0, 1000)}\n--- ours\n${ours}`);
    }
    expect(mismatches, mismatches.join('\n')).to.deep.equal([]);
  });
});

/** PlainAccessConfig has no toString in 4.9.8: Java prints Object.toString, whose identity hash differs per run. */
const maskIdentityHash = (s: string) => s.replace(/PlainAccessConfig@[0-9a-f]+/g, 'PlainAccessConfig@#');

/** clusterAclConfigVersion: the data version moves with every write (each run of a row writes). */
const maskAclVersion = (s: string) => s.replace(/(plain_acl\.yml)\s+\d+\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g, '$1 # #');

describe('rocketmq-ts admin beside Java 4.9.8 mqadmin: the ACL commands on a broker with aclEnable', function () {
  const skip = javaSkipReason('4.9.8');
  let cluster: Cluster;
  let admin: DefaultMQAdminExt;
  let brokerAddr = '';
  let home = '';
  // Java's mqadmin signs with its conf/tools.yml account rocketmq2; ours with the same account by --access-key
  const SIGN = ['--access-key', 'rocketmq2', '--secret-key', '12345678'];
  const aclFile = () => path.join(home, 'conf', 'plain_acl.yml');

  before(async function () {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-vs-java-acl-'));
    ({ cluster, admin, brokerAddr } = await startAdminCluster(this, skip, 'admin-vs-java-acl', {
      cluster: { brokerConfig: { aclEnable: true, rocketmqHome: home } },
      rpcHook: new AclClientRPCHook({ accessKey: 'rocketmq2', secretKey: '12345678' }),
      beforeStart: () => {
        fs.mkdirSync(path.join(home, 'conf'));
        fs.writeFileSync(path.join(home, 'conf', 'plain_acl.yml'),
          'globalWhiteRemoteAddresses:\n  - 10.10.10.*\naccounts:\n  - accessKey: rocketmq2\n    secretKey: 12345678\n    admin: true\n');
      },
    }));
  });

  after(async () => {
    await admin?.shutdown();
    await cluster?.stop();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('prints what Java prints, and leaves the broker in the same state', async function () {
    const account = (key: string) => async () => { await admin.createAndUpdatePlainAccessConfig(brokerAddr, { accessKey: key, secretKey: 'secret123' }); };
    const cases: Array<Case & { setup?: () => Promise<void> }> = [
      { args: ['updateAclConfig', '-b', brokerAddr, '-a', 'madeByAdmin', '-s', 'secret123', '-i', 'PUB', '-u', 'SUB', '-t', 'TopicA=DENY,TopicB=PUB', '-g', 'GroupA=SUB', '-w', '192.168.1.*', '-m', 'false'], mask: maskIdentityHash },
      { args: ['updateAclConfig', '-c', 'DefaultCluster', '-a', 'madeByAdmin2', '-s', 'secret123'], mask: maskIdentityHash },
      { args: ['deleteAclConfig', '-b', brokerAddr, '-a', 'toDelete'], setup: account('toDelete') },
      { args: ['deleteAclConfig', '-c', 'DefaultCluster', '-a', 'toDelete2'], setup: account('toDelete2') },
      // without -p Java's request lacks aclFileFullPath, which 4.9.8 declares @CFNotNull: a Java broker refuses it too
      { args: ['updateGlobalWhiteAddr', '-b', brokerAddr, '-g', '10.10.103.*,192.168.0.*', '-p', aclFile()] },
      { args: ['updateGlobalWhiteAddr', '-c', 'DefaultCluster', '-g', '10.10.104.*', '-p', aclFile()] },
      { args: ['clusterAclConfigVersion', '-b', brokerAddr], mask: maskAclVersion },
      { args: ['clusterAclConfigVersion', '-c', 'DefaultCluster'], mask: maskAclVersion },
    ];
    this.timeout(cases.length * JAVA_TIMEOUT_MS);
    const mismatches: string[] = [];
    for (const c of cases) {
      const args = [...c.args, '-n', cluster.namesrvAddr];
      await c.setup?.();
      const java = await runMqadmin('4.9.8', args, { timeoutMs: JAVA_TIMEOUT_MS });
      await c.setup?.();
      let ours = '';
      let oursErr = '';
      const code = await runAdmin([...args, ...SIGN], { out: (s) => { ours += s; }, err: (s) => { oursErr += s; }, env: {} });
      const mask = c.mask ?? ((x: string) => x);
      const name = c.args.join(' ');
      if (java.code !== 0) mismatches.push(`${name}: Java exited ${java.code}: ${java.stderr.slice(0, 500)}`);
      else if (code !== 0) mismatches.push(`${name}: ours exited ${code}: ${oursErr}`);
      else if (mask(ours) !== mask(java.stdout)) mismatches.push(`${name}:\n--- java\n${java.stdout}\n--- ours\n${ours}`);
    }
    expect(mismatches, mismatches.join('\n')).to.deep.equal([]);
    const acl = fs.readFileSync(path.join(home, 'conf', 'plain_acl.yml'), 'utf8');
    expect(acl).to.contain('madeByAdmin').and.to.contain('madeByAdmin2').and.to.contain('10.10.104.*');
    expect(acl).not.to.contain('toDelete');
  });
});

describe('rocketmq-ts admin beside Java 4.9.8 mqadmin: store maintenance, and consuming a message directly', function () {
  const skip = javaSkipReason('4.9.8');
  let cluster: Cluster;
  let admin: DefaultMQAdminExt;
  let consumer: DefaultMQPushConsumer;
  let producer: DefaultMQProducer;
  let brokerAddr = '';
  let clientId = '';
  const topic = 'AdminJavaDirect';
  const group = 'AdminJavaDirectGroup';
  let sent: { msgId: string; offsetMsgId: string };
  const consumed: string[] = [];
  const exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-vs-java-metadata-'));

  before(async function () {
    ({ cluster, admin, brokerAddr } = await startAdminCluster(this, skip, 'admin-vs-java-direct'));
    await admin.createTopic('TBW102', topic, 1);
    producer = new DefaultMQProducer({ producerGroup: 'AdminJavaDirectPG', namesrvAddr: cluster.namesrvAddr, instanceName: 'admin-vs-java-direct-p' });
    await producer.start();
    const r = await producer.send(createMessage(topic, 'consume me directly', { tags: 'TagA' }));
    sent = { msgId: r.msgId, offsetMsgId: r.offsetMsgId! };
    consumer = new DefaultMQPushConsumer({ consumerGroup: group, namesrvAddr: cluster.namesrvAddr, instanceName: 'admin-vs-java-direct-c', consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener((msgs) => {
      for (const m of msgs) consumed.push(m.body.toString());
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await consumer.start();
    await waitFor(() => consumed.length >= 1, 30_000, 'the consumer took the message');
    clientId = (await admin.examineConsumerConnectionInfo(group)).connectionSet[0].clientId;
  });

  after(async () => {
    await consumer?.shutdown();
    await producer?.shutdown();
    await admin?.shutdown();
    await cluster?.stop();
    fs.rmSync(exportDir, { recursive: true, force: true });
  });

  it('prints what Java prints', async function () {
    const spent = (x: string) => x.replace(/spentTimeMills=\d+/, 'spentTimeMills=#');
    const cases: Array<Case & { file?: string; fileMask?: RegExp }> = [
      { args: ['cleanExpiredCQ', '-b', brokerAddr] },
      { args: ['cleanExpiredCQ', '-c', 'DefaultCluster'] },
      { args: ['cleanExpiredCQ'] },
      { args: ['deleteExpiredCommitLog', '-b', brokerAddr] },
      { args: ['deleteExpiredCommitLog', '-c', 'DefaultCluster'] },
      { args: ['cleanUnusedTopic', '-b', brokerAddr] },
      { args: ['cleanUnusedTopic', '-c', 'DefaultCluster'] },
      // the broker hands the stored message to the client, whose listener runs once more and answers
      { args: ['queryMsgByUniqueKey', '-t', topic, '-i', sent.msgId, '-g', group, '-d', clientId], mask: spent },
      { args: ['queryCq', '-t', topic, '-q', '0', '-i', '0'] },
      { args: ['queryCq', '-t', topic, '-q', '0', '-i', '0', '-c', '1', '-b', brokerAddr, '-g', group] },
      { args: ['queryCq', '-t', topic, '-q', '0', '-i', '0', '-g', 'NoSuchGroup'] },
      { args: ['exportMetadata', '-b', brokerAddr, '-t', '-f', exportDir], file: 'topic.json' },
      { args: ['exportMetadata', '-b', brokerAddr, '-t', '-s', '-f', exportDir], file: 'topic.json' },
      { args: ['exportMetadata', '-b', brokerAddr, '-g', '-f', exportDir], file: 'subscriptionGroup.json' },
      { args: ['exportMetadata', '-c', 'DefaultCluster', '-f', exportDir], file: 'metadata.json' },
      { args: ['exportMetadata', '-c', 'DefaultCluster', '-t', '-f', exportDir], file: 'topic.json' },
      { args: ['exportMetadata', '-c', 'DefaultCluster', '-g', '-f', exportDir], file: 'subscriptionGroup.json' },
      // TPS, disk ratios and the average size move between the two runs: compared with their numbers masked
      { args: ['exportMetrics', '-c', 'DefaultCluster', '-f', exportDir], file: 'metrics.json', fileMask: /"(\w*Tps|\w*DiskRatio|messageAverageSize)":"?[-\d.E]+"?/g },
      // what the consumer reports moves (timestamps, RT and TPS figures, the report file's folder): digits masked
      { args: ['consumerStatus', '-g', group, '-i', clientId], mask: (x) => x.replace(/\d+(\.\d+)?/g, '#') },
      { args: ['consumerStatus', '-g', group], mask: (x) => x.replace(/\d+(\.\d+)?/g, '#') },
      // the producer stays online; its heartbeat time moves between the two runs
      { args: ['producer', '-b', brokerAddr], mask: (x) => x.replace(/lastUpdateTimestamp=\d+/g, 'lastUpdateTimestamp=#') },
    ];
    this.timeout(cases.length * JAVA_TIMEOUT_MS);
    const before = consumed.length;
    const mismatches: string[] = [];
    for (const c of cases) {
      const args = [...c.args, '-n', cluster.namesrvAddr];
      // an exported file is compared as JSON, its export time and data version left out (the broker bumps the topic
      // config's version when it creates RMQ_SYS_TRANS_HALF_TOPIC, a minute after start, a system topic the file leaves out)
      const exported = () => {
        if (!c.file) return null;
        let text = fs.readFileSync(path.join(exportDir, c.file), 'utf8');
        if (c.fileMask) text = text.replace(c.fileMask, '"$1":"#"');
        const doc = JSON.parse(text) as Record<string, unknown>;
        delete doc.exportTime;
        delete doc.dataVersion;
        fs.rmSync(path.join(exportDir, c.file));
        return doc;
      };
      const java = await runMqadmin('4.9.8', args, { timeoutMs: JAVA_TIMEOUT_MS });
      const javaFile = java.code === 0 ? exported() : null;
      let ours = '';
      let oursErr = '';
      const code = await runAdmin(args, { out: (x) => { ours += x; }, err: (x) => { oursErr += x; }, env: {} });
      // consumerStatus writes each client's report to <now>/<clientId> under the working folder, as Java: removed at once
      for (const m of `${java.stdout}\n${ours}`.matchAll(/ (\d{13})\/\S+$/gm)) fs.rmSync(m[1], { recursive: true, force: true });
      if (code === 0 && c.file) expect(exported(), `${c.args.join(' ')}: the exported file`).to.deep.equal(javaFile);
      const mask = c.mask ?? ((x: string) => x);
      const name = c.args.join(' ');
      if (java.code !== 0 || java.stdout === '') mismatches.push(`${name}: Java exited ${java.code}: ${java.stderr.slice(0, 800)}`);
      else if (code !== 0) mismatches.push(`${name}: ours exited ${code}: ${oursErr}`);
      else if (mask(ours) !== mask(java.stdout)) mismatches.push(`${name}:\n--- java\n${java.stdout}\n--- ours\n${ours}`);
    }
    // clusterRT runs until stopped: Java's first round (header and a row), ours with --rounds 1; RT figures masked
    const rtArgs = ['clusterRT', '-a', '5', '-s', '16', '-n', cluster.namesrvAddr];
    const rtJava = await startMqadmin('4.9.8', rtArgs, { readyPattern: /\nDefaultCluster +broker-a +\S+ +\d+ +\d+ *\n/, readyTimeoutMs: JAVA_TIMEOUT_MS });
    const rtJavaLines = rtJava.output().split('\n').filter((l) => /^(#Cluster Name|DefaultCluster) /.test(l)).slice(0, 2).map((l) => `${l}\n`).join('');
    await rtJava.stop();
    let rtOurs = '';
    expect(await runAdmin([...rtArgs, '--rounds', '1'], { out: (x) => { rtOurs += x; }, err: () => undefined, env: {} })).to.equal(0);
    const maskRt = (x: string) => x.replace(/ \d+\.\d\d +/g, ' # ');
    expect(maskRt(rtOurs).trimEnd()).to.equal(maskRt(rtJavaLines).trimEnd());
    // startMonitoring: Java writes its rounds to the client log, ours prints them; the UndoneMsgs lines of the group compared
    const monRun = makeRunDir('rmq-monitor-');
    const monJava = await startMqadmin('4.9.8', ['startMonitoring', '-n', cluster.namesrvAddr], { runDir: monRun });
    const monLog = path.join(monRun, 'logs', 'rocketmqlogs', 'rocketmq_client.log');
    let javaUndone: string[] = [];
    try {
      await waitFor(() => fs.existsSync(monLog) && fs.readFileSync(monLog, 'utf8').includes('endRound'), JAVA_TIMEOUT_MS, 'a monitor round in the Java log');
      javaUndone = fs.readFileSync(monLog, 'utf8').split(/\r?\n/).filter((l) => l.includes(`UndoneMsgs [consumerGroup=${group},`)).map((l) => l.slice(l.indexOf('[MONITOR]')));
    } finally {
      await monJava.stop();
      fs.rmSync(monRun, { recursive: true, force: true });
    }
    let monOurs = '';
    expect(await runAdmin(['startMonitoring', '--first-delay', '0', '--rounds', '1', '-n', cluster.namesrvAddr], { out: (x) => { monOurs += x; }, err: () => undefined, env: {} })).to.equal(0);
    expect(monOurs).to.contain('[MONITOR] =========================================endRound');
    expect(javaUndone).to.have.length.greaterThan(0);
    expect(monOurs.split('\n').filter((l) => l.includes(`UndoneMsgs [consumerGroup=${group},`))).to.deep.equal(javaUndone);
    expect(mismatches, mismatches.join('\n')).to.deep.equal([]);
    expect(consumed.slice(before), 'the listener ran once for Java and once for ours').to.deep.equal(['consume me directly', 'consume me directly']);
    // the topic of a config keeps its consume queue; the store still serves it
    expect(await admin.maxOffset({ topic, brokerName: 'broker-a', queueId: 0 })).to.equal(1);
  });
});
