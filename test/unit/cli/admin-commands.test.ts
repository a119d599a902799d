/**
 * The mqadmin commands of lib/cli/admin/ against our in-process cluster: each command's output, line by line, in
 * Java mqadmin's layout (the format strings of the Java SubCommands), and its --json document.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startCluster, type Cluster } from '../../../lib/server';
import { runAdmin } from '../../../lib/cli/admin';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { createMessage } from '../../../protocol/message/message';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { javaFormat } from '../../../lib/cli/java-format';
import { javaHashOrderByHash, javaPropertiesOrderKeys } from '../../../protocol/message/java-hash';
import { javaMessageQueueHashCode } from '../../../protocol/message/message-queue';
import { javaPropertiesString } from '../../../lib/cli/admin/message';
import { waitFor } from '../../helpers/cluster';

describe('rocketmq-ts admin: commands of lib/cli/admin/ against an in-process cluster', function () {
  this.timeout(60_000);
  let cluster: Cluster;
  let admin: DefaultMQAdminExt;
  let producer: DefaultMQProducer;
  let brokerAddr: string;
  const topic = 'AdminCmdTopic';
  const sent: Array<{ msgId: string; offsetMsgId: string; queueId: number; queueOffset: number }> = [];

  async function run(...argv: string[]): Promise<{ code: number; out: string; err: string; lines: string[] }> {
    let out = '';
    let err = '';
    const code = await runAdmin([...argv, '-n', cluster.namesrvAddr], { out: (s) => { out += s; }, err: (s) => { err += s; }, env: {} });
    return { code, out, err, lines: out.split('\n') };
  }

  before(async () => {
    cluster = await startCluster({});
    admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: 'admin-cmd-test' });
    await admin.start();
    brokerAddr = (await admin.examineBrokerClusterInfo()).brokerAddrTable.get('broker-a')!.brokerAddrs.get(0)!;
    await admin.createTopic('TBW102', topic, 2);
    producer = new DefaultMQProducer({ producerGroup: 'AdminCmdPG', namesrvAddr: cluster.namesrvAddr, instanceName: 'admin-cmd-p' });
    await producer.start();
    for (let i = 0; i < 4; i++) {
      const r = await producer.send(createMessage(topic, `body${i}`, { tags: i % 2 === 0 ? 'TagA' : 'TagB', keys: `key${i}` }));
      sent.push({ msgId: r.msgId, offsetMsgId: r.offsetMsgId!, queueId: r.messageQueue.queueId, queueOffset: r.queueOffset });
    }
  });

  after(async () => {
    await producer?.shutdown();
    await admin?.shutdown();
    await cluster?.stop();
  });

  it('help lists the new commands; --json is a global flag', async () => {
    const help = await run('help');
    for (const name of ['topicClusterList', 'updateTopicPerm', 'updateOrderConf', 'allocateMQ', 'queryMsgByUniqueKey', 'queryMsgByOffset',
      'printMsg', 'printMsgByQueue', 'getConsumerConfig', 'skipAccumulatedMessage', 'statsAll', 'getNamesrvConfig', 'updateNamesrvConfig', 'addWritePerm']) {
      expect(help.out).to.match(new RegExp(`^  ${name} `, 'm'));
    }
    expect((await run('topicClusterList', '-t', topic, '-h')).out).to.include('--json');
  });

  it('--json on the read commands of lib/cli/admin.ts', async () => {
    const json = async (...argv: string[]) => {
      const r = await run(...argv, '--json');
      expect(r.code, r.err).to.equal(0);
      return JSON.parse(r.out);
    };
    const info = await json('clusterList');
    expect(info.clusterAddrTable.DefaultCluster).to.deep.equal(['broker-a']);
    expect(info.brokerAddrTable['broker-a'].brokerAddrs['0']).to.equal(brokerAddr);
    expect(await json('topicList')).to.include(topic);
    expect((await json('topicRoute', '-t', topic)).queueDatas[0]).to.include({ brokerName: 'broker-a', readQueueNums: 2 });
    expect(await json('topicStatus', '-t', topic)).to.have.length(2);
    expect((await json('brokerStatus', '-b', brokerAddr)).brokerVersionDesc).to.equal('V4_9_8');
    expect((await json('getBrokerConfig', '-b', brokerAddr)).brokerName).to.equal('broker-a');
    await waitFor(async () => (await run('queryMsgByKey', '-t', topic, '-k', 'key1')).code === 0, 10_000, 'key1 indexed');
    expect((await json('queryMsgByKey', '-t', topic, '-k', 'key1'))[0]).to.include({ queueId: sent[1].queueId, queueOffset: sent[1].queueOffset });
  });

  it('topicClusterList', async () => {
    expect((await run('topicClusterList', '-t', topic)).out).to.equal('DefaultCluster\n');
    expect(JSON.parse((await run('topicClusterList', '-t', topic, '--json')).out)).to.deep.equal(['DefaultCluster']);
  });

  it('updateTopicPerm -b / -c, and the same perm refused', async () => {
    let r = await run('updateTopicPerm', '-t', topic, '-b', brokerAddr, '-p', '4');
    expect(r.code).to.equal(0);
    expect(r.lines).to.deep.equal([
      `update topic perm from 6 to 4 in ${brokerAddr} success.`,
      `TopicConfig [topicName=${topic}, readQueueNums=2, writeQueueNums=2, perm=R--, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false].`,
      '',
    ]);
    await waitFor(async () => (await admin.examineTopicRouteInfo(topic)).queueDatas[0].perm === 4, 10_000, 'perm 4 in the route');
    r = await run('updateTopicPerm', '-t', topic, '-b', brokerAddr, '-p', '4');
    expect(r.out).to.equal('new perm equals to the old one!\n');
    r = await run('updateTopicPerm', '-t', topic, '-c', 'DefaultCluster', '-p', '6');
    expect(r.out).to.equal(`update topic perm from 4 to 6 in ${brokerAddr} success.\n`);
    r = await run('updateTopicPerm', '-t', topic, '-b', '127.0.0.1:1', '-p', '6');
    expect(r.out).to.equal('updateTopicPerm error broker not exit or broker is not master!.\n');
    await waitFor(async () => (await admin.examineTopicRouteInfo(topic)).queueDatas[0].perm === 6, 10_000, 'perm 6 in the route');
  });

  it('updateOrderConf put / get / delete (no newline, as Java)', async () => {
    expect((await run('updateOrderConf', '-t', topic, '-m', 'put', '-v', 'broker-a:2')).out).to.equal(`update orderConf success. topic=[${topic}], orderConf=[broker-a:2]`);
    expect((await run('updateOrderConf', '-t', topic, '-m', 'get')).out).to.equal(`get orderConf success. topic=[${topic}], orderConf=[broker-a:2] `);
    expect(JSON.parse((await run('updateOrderConf', '-t', topic, '-m', 'get', '--json')).out)).to.deep.equal({ topic, orderConf: 'broker-a:2' });
    expect((await run('updateOrderConf', '-t', topic, '-m', 'delete')).out).to.equal(`delete orderConf success. topic=[${topic}]`);
    const r = await run('updateOrderConf', '-t', topic, '-m', 'put');
    expect(r.code).to.equal(1);
    expect(r.err).to.match(/^UpdateOrderConfSubCommand command failed.*please set orderConf with option -v\./);
  });

  it('allocateMQ: AllocateMessageQueueAveragely over the HashSet order, as fastjson', async () => {
    const r = await run('allocateMQ', '-t', topic, '-i', '10.0.0.1,10.0.0.2');
    const mqs = javaHashOrderByHash([0, 1].map((queueId) => ({ topic, brokerName: 'broker-a', queueId })), javaMessageQueueHashCode);
    const q = (i: number) => `[{"brokerName":"broker-a","queueId":${mqs[i].queueId},"topic":"${topic}"}]`;
    // HashMap<String, List> order of the two ips: "10.0.0.2" before "10.0.0.1" (bucket of String.hashCode).
    expect(r.out).to.equal(`{"result":{"10.0.0.2":${q(1)},"10.0.0.1":${q(0)}}}\n`);
    expect(JSON.parse((await run('allocateMQ', '-t', topic, '-i', '10.0.0.1', '--json')).out).result['10.0.0.1']).to.have.length(2);
  });

  it('queryMsgByUniqueKey prints showMessage without OffsetID, then the tracks', async () => {
    const m = sent[0];
    const r = await run('queryMsgByUniqueKey', '-t', topic, '-i', m.msgId);
    expect(r.code, r.err).to.equal(0);
    const labels = r.lines.slice(0, 14).map((l) => l.slice(0, 21));
    expect(labels).to.deep.equal(['Topic:               ', 'Tags:                ', 'Keys:                ', 'Queue ID:            ',
      'Queue Offset:        ', 'CommitLog Offset:    ', 'Reconsume Times:     ', 'Born Timestamp:      ', 'Store Timestamp:     ',
      'Born Host:           ', 'Store Host:          ', 'System Flag:         ', 'Properties:          ', 'Message Body Path:   ']);
    expect(r.lines[0]).to.equal(`Topic:               ${topic}`);
    expect(r.lines[1]).to.equal('Tags:                [TagA]');
    expect(r.lines[2]).to.equal('Keys:                [key0]');
    expect(r.lines[3]).to.equal(`Queue ID:            ${m.queueId}`);
    expect(r.lines[4]).to.equal(`Queue Offset:        ${m.queueOffset}`);
    expect(r.lines[7]).to.match(/^Born Timestamp: {6}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}$/);
    expect(r.lines[10]).to.equal(`Store Host:          ${brokerAddr}`);
    expect(r.lines[13]).to.match(new RegExp(`^Message Body Path:   .*msgbodys/${m.msgId}$`));
    expect(r.lines.slice(14)).to.deep.equal(['', '', 'WARN: No Consumer']);
    const doc = JSON.parse((await run('queryMsgByUniqueKey', '-t', topic, '-i', m.msgId, '--json')).out);
    expect(doc).to.include({ msgId: m.msgId, offsetMsgId: m.offsetMsgId, body: 'body0', tags: 'TagA' });
    expect(doc.messageTracks).to.deep.equal([]);
  });

  it('queryMsgByOffset and queryMsgById print the OffsetID line first; tracks list a group that consumes', async () => {
    const m = sent[0];
    let r = await run('queryMsgByOffset', '-t', topic, '-b', 'broker-a', '-i', String(m.queueId), '-o', String(m.queueOffset));
    expect(r.code, r.err).to.equal(0);
    expect(r.lines[0]).to.equal(`OffsetID:            ${m.offsetMsgId}`);
    expect(r.lines[1]).to.equal(`Topic:               ${topic}`);
    // a pulled message carries MIN_OFFSET / MAX_OFFSET, printed in Java HashMap order
    expect(r.lines[13]).to.match(/^Properties: {10}\{.*MIN_OFFSET=0.*\}$/);
    expect(r.lines[13]).to.include('MAX_OFFSET=');
    r = await run('queryMsgById', '-i', m.offsetMsgId);
    expect(r.lines[0]).to.equal(`OffsetID:            ${m.offsetMsgId}`);
    expect(r.lines.slice(15)).to.deep.equal(['', '', 'WARN: No Consumer']);
    expect(javaPropertiesString({ UNIQ_KEY: 'x', KEYS: 'k', TAGS: 't', CLUSTER: 'c' })).to.equal('{KEYS=k, UNIQ_KEY=x, CLUSTER=c, TAGS=t}');
  });

  it('printMsg: per queue the offsets, the MSGID lines, the filtered status and the rule', async () => {
    const r = await run('printMsg', '-t', topic, '-s', 'TagA', '-d', 'false');
    expect(r.code, r.err).to.equal(0);
    const queueLines = r.lines.filter((l) => l.startsWith('minOffset='));
    expect(queueLines).to.have.length(2);
    expect(queueLines[0]).to.match(new RegExp(`^minOffset=0, maxOffset=\\d+, MessageQueue \\[topic=${topic}, brokerName=broker-a, queueId=\\d\\]$`));
    const msgLines = r.lines.filter((l) => l.startsWith('MSGID: '));
    expect(msgLines).to.have.length(2);
    for (const l of msgLines) {
      expect(l).to.match(/^MSGID: [0-9A-F]{32} MessageExt \[brokerName=broker-a, queueId=\d, storeSize=\d+, queueOffset=\d+, sysFlag=0, bornTimestamp=\d+, bornHost=\/127\.0\.0\.1:\d+, storeTimestamp=\d+, storeHost=\/127\.0\.0\.1:\d+, msgId=[0-9A-F]{32}, commitLogOffset=\d+, bodyCRC=\d+, reconsumeTimes=0, preparedTransactionOffset=0, toString\(\)=Message\{topic='AdminCmdTopic', flag=0, properties=\{.*TAGS=TagA.*\}, body=\[98, 111, 100, 121, \d+\], transactionId='null'\}\] BODY: NOT PRINT BODY$/);
    }
    expect(r.lines.filter((l) => l === '--------------------------------------------------------')).to.have.length(2);
    const doc = JSON.parse((await run('printMsg', '-t', topic, '--json')).out) as Array<{ messages: unknown[] }>;
    expect(doc.reduce((n, q) => n + q.messages.length, 0)).to.equal(4);
  });

  it('printMsgByQueue -p -f: messages of one queue and the count per tag', async () => {
    const qid = sent[0].queueId;
    const inQueue = sent.filter((s) => s.queueId === qid).length;
    const r = await run('printMsgByQueue', '-t', topic, '-a', 'broker-a', '-i', String(qid), '-p', 'true', '-d', 'true', '-f', 'true');
    expect(r.code, r.err).to.equal(0);
    const msgLines = r.lines.filter((l) => l.startsWith('MSGID: '));
    expect(msgLines).to.have.length(inQueue);
    expect(msgLines[0]).to.match(/ BODY: body\d$/);
    const tagLines = r.lines.filter((l) => l.startsWith('Tag: '));
    expect(tagLines.length).to.be.greaterThan(0);
    for (const l of tagLines) expect(l).to.match(/^Tag: Tag[AB] {26} Count: \d+$/);
    expect((await run('printMsgByQueue', '-t', topic, '-a', 'broker-a', '-i', String(qid))).out).to.equal('');
  });

  it('getConsumerConfig prints the SubscriptionGroupConfig fields by declaration order', async () => {
    const r = await run('getConsumerConfig', '-g', 'SELF_TEST_C_GROUP');
    expect(r.lines).to.deep.equal([
      '=============================DefaultCluster:broker-a=============================',
      `${'groupName'.padEnd(40)}=  SELF_TEST_C_GROUP`, `${'consumeEnable'.padEnd(40)}=  true`, `${'consumeFromMinEnable'.padEnd(40)}=  true`,
      `${'consumeBroadcastEnable'.padEnd(40)}=  true`, `${'retryQueueNums'.padEnd(40)}=  1`, `${'retryMaxTimes'.padEnd(40)}=  16`,
      `${'brokerId'.padEnd(40)}=  0`, `${'whichBrokerWhenConsumeSlowly'.padEnd(40)}=  1`, `${'notifyConsumerIdsChangedEnable'.padEnd(40)}=  true`, '',
    ]);
    expect((await run('getConsumerConfig', '-g', 'NoSuchGroup')).out).to.equal('');
  });

  it('statsAll: the header and one row per topic', async () => {
    const r = await run('statsAll', '-t', topic);
    expect(r.lines[0]).to.equal(`${'#Topic'.padEnd(64)}  ${'#Consumer Group'.padEnd(64)} ${'#Accumulation'.padStart(12)} ${'#InTPS'.padStart(11)} `
      + `${'#OutTPS'.padStart(11)} ${'#InMsg24Hour'.padStart(14)} ${'#OutMsg24Hour'.padStart(14)}`);
    // %-64s  %-64s %12d %11.2f %11s %14d %14s
    const row = r.lines[1];
    expect(row.slice(0, 130)).to.equal(`${topic.padEnd(64)}  ${''.padEnd(64)}`);
    expect(row.slice(130, 143)).to.equal(` ${'0'.padStart(12)}`);
    expect(row.slice(143, 155)).to.match(/^ {2,}\d+\.\d\d$/);
    expect(row.slice(155, 167)).to.equal(' '.repeat(12));
    expect(row.slice(167, 182)).to.match(/^ {2,}\d+$/);
    expect(row.slice(182)).to.equal(` ${'NO_CONSUMER'.padStart(14)}`);
    expect(r.lines).to.have.length(3);
    const doc = JSON.parse((await run('statsAll', '-t', topic, '--json')).out);
    expect(doc).to.have.length(1);
    expect(doc[0]).to.include({ topic, group: null, accumulation: 0 });
  });

  it('java.util.Properties order: what Java 4.9.8 mqadmin printed for our name server\'s 16 keys (a resize reverses a bin)', () => {
    const fileOrder = ['rocketmqHome', 'kvConfigPath', 'configStorePath', 'productEnvName', 'clusterTest', 'orderMessageEnable',
      'scanNotActiveBrokerInterval', 'brokerChannelExpiredTime', 'configBlackList', 'enableAllTopicList', 'metricsPort',
      'metricsPromExporterHost', 'enableTopicList', 'bindAddress', 'listenPort', 'serverChannelMaxIdleTimeSeconds'];
    expect(javaPropertiesOrderKeys(fileOrder)).to.deep.equal(['enableTopicList', 'scanNotActiveBrokerInterval', 'serverChannelMaxIdleTimeSeconds',
      'brokerChannelExpiredTime', 'bindAddress', 'configBlackList', 'metricsPromExporterHost', 'enableAllTopicList', 'kvConfigPath',
      'configStorePath', 'clusterTest', 'orderMessageEnable', 'listenPort', 'productEnvName', 'rocketmqHome', 'metricsPort']);
  });

  it('getNamesrvConfig / updateNamesrvConfig / addWritePerm', async () => {
    let r = await run('updateNamesrvConfig', '-k', 'orderMessageEnable', '-v', 'true');
    expect(r.out).to.equal(`update name server config success![${cluster.namesrvAddr}]\norderMessageEnable : true\n`);
    r = await run('getNamesrvConfig');
    expect(r.lines[0]).to.equal(`============${cluster.namesrvAddr}============`);
    expect(r.lines).to.include(`${'orderMessageEnable'.padEnd(50)}=  true`);
    expect(JSON.parse((await run('getNamesrvConfig', '--json')).out)[cluster.namesrvAddr].orderMessageEnable).to.equal('true');
    await run('wipeWritePerm', '-b', 'broker-a');
    r = await run('addWritePerm', '-b', 'broker-a');
    expect(r.out).to.match(new RegExp(`^add write perm of broker\\[broker-a\\] in name server\\[${cluster.namesrvAddr}\\] OK, [1-9]\\d*\\n$`));
  });

  it('sendMessage to a chosen queue, then cloneGroupOffset copies a group\'s offsets', async () => {
    let r = await run('sendMessage', '-t', topic, '-p', 'hello', '-c', 'TagC', '-k', 'sk', '-b', 'broker-a', '-i', '1');
    expect(r.code, r.err).to.equal(0);
    expect(r.lines[0]).to.equal(`${'#Broker Name'.padEnd(32)}  #QID  ${'#Send Result'.padEnd(20)}    #MsgId`);
    expect(r.lines[1]).to.match(/^broker-a {24}  1 {3}  SEND_OK {13}    [0-9A-F]{32}$/);
    expect(r.lines).to.have.length(3);
    expect((await run('sendMessage', '-t', topic, '-p', 'x', '-i', '1')).out).to.equal('Broker name must be set if the queue is chosen!');
    const sendDoc = JSON.parse((await run('sendMessage', '-t', topic, '-p', 'json', '--json')).out);
    expect(sendDoc.sendStatus).to.equal('SEND_OK');

    const mq = { topic, brokerName: 'broker-a', queueId: 0 };
    await admin.createAndUpdateTopicConfig(brokerAddr, newTopicConfig('%RETRY%CloneSrc', { readQueueNums: 1, writeQueueNums: 1 }));
    await admin.updateConsumeOffset(brokerAddr, 'CloneSrc', mq, 1);
    await waitFor(async () => (await admin.fetchAllTopicList()).topicList.includes('%RETRY%CloneSrc'), 10_000, 'retry topic');
    r = await run('cloneGroupOffset', '-s', 'CloneSrc', '-d', 'CloneDest', '-t', topic);
    expect(r.code, r.err).to.equal(0);
    expect(r.out).to.equal(`clone group offset success. srcGroup[CloneSrc], destGroup=[CloneDest], topic[${topic}]`);
    await admin.createAndUpdateTopicConfig(brokerAddr, newTopicConfig('%RETRY%CloneDest', { readQueueNums: 1, writeQueueNums: 1 }));
    await waitFor(async () => (await admin.fetchAllTopicList()).topicList.includes('%RETRY%CloneDest'), 10_000, 'retry topic');
    const dest = await admin.examineConsumeStats('CloneDest', topic);
    expect(dest.offsetTable.find(([q]) => q.queueId === 0)![1].consumerOffset).to.equal(1);
  });

  it('brokerConsumeStats: the rows of queues with a last consume time, then the diff total', async () => {
    await admin.createAndUpdateSubscriptionGroupConfig(brokerAddr, newSubscriptionGroupConfig('BcsGroup'));
    const qid = sent[0].queueId;
    const brokerOffset = (await admin.examineTopicStats(topic)).offsetTable.find(([q]) => q.queueId === qid)![1].maxOffset;
    await admin.updateConsumeOffset(brokerAddr, 'BcsGroup', { topic, brokerName: 'broker-a', queueId: qid }, 1);
    const r = await run('brokerConsumeStats', '-b', brokerAddr);
    expect(r.code, r.err).to.equal(0);
    expect(r.lines[0]).to.equal(javaFormat('%-64s  %-64s  %-32s  %-4s  %-20s  %-20s  %-20s  %s',
      '#Topic', '#Group', '#Broker Name', '#QID', '#Broker Offset', '#Consumer Offset', '#Diff', '#LastTime'));
    const row = r.lines.find((l) => l.includes('BcsGroup'))!;
    expect(row).to.match(new RegExp(`^${javaFormat('%-64s  %-64s  %-32s  %-4d  %-20d  %-20d  %-20d  ', topic, 'BcsGroup', 'broker-a', qid, brokerOffset, 1, brokerOffset - 1)}`
      + '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$'));
    expect(r.lines.at(-3)).to.equal('');
    expect(r.lines.at(-2)).to.match(/^Diff Total: \d+$/);
    const doc = JSON.parse((await run('brokerConsumeStats', '-b', brokerAddr, '--json')).out);
    expect(doc.brokerAddr).to.equal(brokerAddr);
    expect(doc.consumeStatsList.some((m: Record<string, unknown>) => 'BcsGroup' in m)).to.equal(true);
  });

  it('exportConfigs writes configs.json as fastjson pretty-prints maps', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-configs-'));
    try {
      const r = await run('exportConfigs', '-c', 'DefaultCluster', '-f', dir);
      expect(r.code, r.err).to.equal(0);
      expect(r.out).to.equal(`export ${dir}/configs.json success`);
      const text = fs.readFileSync(path.join(dir, 'configs.json'), 'utf8');
      const doc = JSON.parse(text);
      expect(doc.clusterScale).to.deep.equal({ namesrvSize: 1, masterBrokerSize: 1, slaveBrokerSize: 0 });
      expect(doc.brokerConfigs['broker-a']).to.include({ brokerClusterName: 'DefaultCluster', brokerName: 'broker-a', brokerId: '0' });
      expect(text.startsWith('{"')).to.equal(true); // a map's first entry stays on the brace's line
      expect(text).to.match(/"brokerConfigs":\{"broker-a":\{"/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checkMsgSendRT: one row per send over the queues in turn, then the average RT', async () => {
    const r = await run('checkMsgSendRT', '-t', topic, '-a', '3', '-s', '16');
    expect(r.code, r.err).to.equal(0);
    expect(r.lines[0]).to.equal(`${'#Broker Name'.padEnd(32)}  #QID  ${'#Send Result'.padEnd(20)}    #RT`);
    expect(r.lines.slice(1, 4).map((l) => l.replace(/ {4}\d+$/, ''))).to.deep.equal([0, 1, 0].map((q) => `${'broker-a'.padEnd(32)}  ${String(q).padEnd(4)}  ${'true'.padEnd(20)}`));
    expect(r.lines[4]).to.match(/^Avg RT: \d+\.\d\d$/);
    expect(r.lines).to.have.length(6);
    expect((await run('checkMsgSendRT', '-t', topic, '-a', '1')).lines[2]).to.equal('Avg RT: NaN');
  });

  it('consumeMessage: by queue from an offset, and the argument checks', async () => {
    const qid = sent[0].queueId;
    const max = (await admin.examineTopicStats(topic)).offsetTable.find(([q]) => q.queueId === qid)![1].maxOffset;
    const r = await run('consumeMessage', '-t', topic, '-b', 'broker-a', '-i', String(qid), '-o', '0', '-c', '1');
    expect(r.code, r.err).to.equal(0);
    expect(r.lines[0]).to.equal(max - 0 > 1 ? 'The oldler 1 message will be provided' : 'Consume ok');
    expect(r.lines).to.include('Consume ok');
    expect(r.lines.filter((l) => l.startsWith('MSGID: '))).to.have.length(1);
    expect(r.lines.find((l) => l.startsWith('MSGID: '))).to.match(/ BODY: body\d$/);
    expect((await run('consumeMessage', '-t', topic, '-i', '0')).out).to.equal('Please set the brokerName before queueId!');
    expect((await run('consumeMessage', '-t', topic, '-c', '0')).out).to.equal('Please input a positive messageNumber!');
    const all = await run('consumeMessage', '-t', topic, '--json');
    expect(JSON.parse(all.out).length).to.be.greaterThan(3);
  });

  it('sendMsgStatus: one line per send to the broker\'s own topic', async () => {
    const r = await run('sendMsgStatus', '-b', 'broker-a', '-c', '2', '-s', '20');
    expect(r.code, r.err).to.equal(0);
    expect(r.lines).to.have.length(3);
    for (const l of r.lines.slice(0, 2)) {
      expect(l).to.match(/^rt=\d+ms, SendResult=SendResult \[sendStatus=SEND_OK, msgId=[0-9A-F]{32}, offsetMsgId=[0-9A-F]{32}, messageQueue=MessageQueue \[topic=broker-a, brokerName=broker-a, queueId=\d+\], queueOffset=\d+\]$/);
    }
  });

  it('skipAccumulatedMessage needs the group online (as INVOKE_BROKER_TO_RESET_OFFSET)', async () => {
    const r = await run('skipAccumulatedMessage', '-g', 'NoSuchGroup', '-t', topic);
    if (r.code === 0) {
      expect(r.lines[0]).to.equal(`${'#brokerName'.padEnd(40)}  ${'#queueId'.padEnd(40)}  ${'#offset'.padEnd(40)}`);
    } else {
      expect(r.err).to.match(/^SkipAccumulatedMessageSubCommand command failed/);
    }
  });
});
