/**
 * `rocketmq-ts admin` beside Java 4.9.8's mqadmin: each read command runs with both against the same in-process
 * cluster of ours, and the outputs must be equal after masking what legitimately differs between two runs a few
 * seconds apart (TPS figures, the broker's uptime, disk figures). Java runs are sequential (one JVM at a time on a
 * busy box) with generous timeouts; the file skips with javaSkipReason() when Java is absent.
 *
 * Errors are left out: Java prints a stack trace where we print one line.
 */
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
import { javaSkipReason, runMqadmin } from '../../helpers/javaref';

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

describe('rocketmq-ts admin beside Java 4.9.8 mqadmin on one cluster', function () {
  const skip = javaSkipReason('4.9.8');
  let cluster: Cluster;
  let admin: DefaultMQAdminExt;
  const topic = 'AdminJavaTopic';
  const group = 'AdminJavaGroup';
  let brokerAddr = '';
  let last: { msgId: string; offsetMsgId: string; queueId: number; queueOffset: number };
  let tracedMsgId = '';

  before(async function () {
    if (skip) {
      console.log(`      ${skip}`);
      this.skip();
    }
    this.timeout(60_000);
    cluster = await startCluster({});
    admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: 'admin-vs-java' });
    await admin.start();
    brokerAddr = (await admin.examineBrokerClusterInfo()).brokerAddrTable.get('broker-a')!.brokerAddrs.get(0)!;
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
    ];
    this.timeout(cases.length * JAVA_TIMEOUT_MS);
    const mismatches: string[] = [];
    for (const c of cases) {
      const args = [...c.args, '-n', cluster.namesrvAddr];
      const java = await runMqadmin('4.9.8', args, { timeoutMs: JAVA_TIMEOUT_MS });
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
      else if (mask(ours) !== mask(java.stdout)) mismatches.push(`${name}:\n--- java\n${java.stdout}\n--- ours\n${ours}`);
    }
    expect(mismatches, mismatches.join('\n')).to.deep.equal([]);
  });
});
