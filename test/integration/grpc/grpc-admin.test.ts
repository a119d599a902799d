/**
 * The 5.x admin features gRPC clients rely on, on our broker: topic attributes on create and update (`updateTopic
 * -a +message.type=FIFO`, Java 5.3.3's AttributeUtil rules), the topic's message type checked on a gRPC send as the
 * proxy checks it (MESSAGE_PROPERTY_CONFLICT_WITH_TYPE), and GET_SUBSCRIPTIONGROUP_CONFIG (352) with the group's
 * 5.x fields.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { DefaultMQAdminExt } from '../../../lib/index';
import { startCluster, type Cluster } from '../../../lib/server';
import { PROTO_LOADER_OPTIONS, protoRoot } from '../../../lib/grpc/grpc-loader';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { GetSubscriptionGroupConfigRequestHeader } from '../../../protocol/header/get-subscription-group-config-request-header';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { registerLeftover } from '../../helpers/root-hooks';
import { randomName } from '../../helpers/cluster';
import { javaSkipReason, makeRunDir, runMqadmin } from '../../helpers/javaref';

type Unary = (req: object, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: Record<string, unknown>) => void) => void;
type Stub = grpc.Client & Record<string, Unary>;

describe('gRPC endpoint: topic message types and GET_SUBSCRIPTIONGROUP_CONFIG', function () {
  this.timeout(60_000);
  let cluster: Cluster;
  let remove: () => void;
  let stub: Stub;
  let admin: DefaultMQAdminExt;
  let raw: RemotingClient;
  let brokerAddr: string;
  const md = () => {
    const m = new grpc.Metadata();
    m.set('x-mq-client-id', 'admin-test-client');
    m.set('x-mq-language', 'HTTP');
    return m;
  };
  const call = (method: string, req: object) => new Promise<Record<string, unknown>>((resolve, reject) => {
    stub[method](req, md(), (err, res) => (err ? reject(err) : resolve(res)));
  });

  before(async () => {
    cluster = await startCluster({ grpc: true });
    remove = registerLeftover(() => cluster.stop());
    brokerAddr = cluster.brokers[0].brokerAddr;
    const root = protoRoot();
    const def = protoLoader.loadSync(path.join(root, 'apache/rocketmq/v2/service.proto'), { ...PROTO_LOADER_OPTIONS, includeDirs: [root] });
    const pkg = grpc.loadPackageDefinition(def) as unknown as { apache: { rocketmq: { v2: { MessagingService: new (addr: string, c: grpc.ChannelCredentials) => Stub } } } };
    stub = new pkg.apache.rocketmq.v2.MessagingService(`127.0.0.1:${cluster.brokers[0].grpcEndpoint?.port}`, grpc.credentials.createInsecure());
    admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: randomName('adm') });
    await admin.start();
    raw = new RemotingClient();
  });
  after(async () => {
    stub?.close();
    await admin?.shutdown();
    await raw?.shutdown();
    remove?.();
    await cluster?.stop();
  });

  /** UPDATE_AND_CREATE_TOPIC with a 5.x attributes modification ("+message.type=FIFO"). */
  function updateTopic(topic: string, attributes?: string, perm = 6): Promise<void> {
    const config = newTopicConfig(topic, { readQueueNums: 2, writeQueueNums: 2, perm });
    if (attributes !== undefined) {
      config.attributes = new Map(attributes.split(',').map((kv) => {
        const [k, v] = kv.split('=');
        return [k, v ?? ''];
      }));
    }
    return admin.createAndUpdateTopicConfig(brokerAddr, config);
  }
  const attributesOf = (topic: string) => Object.fromEntries(cluster.brokers[0].topicConfigManager.selectTopicConfig(topic)?.attributes ?? []);
  const errorOf = (p: Promise<unknown>) => p.then(() => 'no error', (err: Error) => err.message);

  it('updateTopic -a: attributes set on create, changed, kept, removed; the rules of 5.x', async () => {
    const topic = randomName('GTA');
    await updateTopic(topic, '+message.type=FIFO');
    expect(attributesOf(topic)).to.deep.equal({ 'message.type': 'FIFO' });
    const route = await call('queryRoute', { topic: { name: topic } });
    expect((route.messageQueues as Array<{ acceptMessageTypes: string[] }>)[0].acceptMessageTypes).to.deep.equal(['FIFO']);
    // An update without attributes keeps them; one with a change applies it; a removal removes it.
    await updateTopic(topic, undefined, 4);
    expect(attributesOf(topic)).to.deep.equal({ 'message.type': 'FIFO' });
    await updateTopic(topic, '+message.type=DELAY');
    expect(attributesOf(topic)).to.deep.equal({ 'message.type': 'DELAY' });
    await updateTopic(topic, '-message.type');
    expect(attributesOf(topic)).to.deep.equal({});
    // Refused: values out of the set, MIXED, unknown keys, a removal at creation, an unchangeable key changed later.
    expect(await errorOf(updateTopic(topic, '+message.type=BOGUS'))).to.match(/value is not in set/);
    expect(await errorOf(updateTopic(topic, '+message.type=MIXED'))).to.match(/MIXED message type is not supported/);
    expect(await errorOf(updateTopic(topic, '+no.such.key=1'))).to.match(/unsupported key: no\.such\.key/);
    expect(await errorOf(updateTopic(topic, '+queue.type=BatchCQ'))).to.match(/attempt to update an unchangeable attribute/);
    expect(await errorOf(updateTopic(randomName('GTA'), '-message.type'))).to.match(/only add attribute is supported while creating topic/);
    expect(attributesOf(topic)).to.deep.equal({});
  });

  it('Java 5.3.3 mqadmin updateTopic -a +message.type=FIFO against our broker: the attribute set; a wrong value refused', async function () {
    const skip = javaSkipReason('5.3.3');
    if (skip) {
      console.log(`      ${skip}`);
      this.skip();
    }
    this.timeout(180_000);
    const runDir = makeRunDir('rmq533-attr-');
    try {
      const topic = randomName('GTJ');
      const ok = await runMqadmin('5.3.3', ['updateTopic', '-b', brokerAddr, '-t', topic, '-r', '2', '-w', '2', '-a', '+message.type=FIFO'], { runDir, timeoutMs: 90_000 });
      expect(ok.stdout).to.contain(`create topic to ${brokerAddr} success.`);
      expect(attributesOf(topic)).to.deep.equal({ 'message.type': 'FIFO' });
      const bad = await runMqadmin('5.3.3', ['updateTopic', '-b', brokerAddr, '-t', topic, '-a', '+message.type=BOGUS'], { runDir, timeoutMs: 90_000 });
      expect(`${bad.stdout}${bad.stderr}`).to.contain('value is not in set');
      expect(attributesOf(topic)).to.deep.equal({ 'message.type': 'FIFO' });
    } finally {
      fs.rmSync(runDir, { recursive: true, force: true });
    }
  });

  it('a gRPC send is checked against the topic\'s message type (MESSAGE_PROPERTY_CONFLICT_WITH_TYPE)', async () => {
    const fifo = randomName('GTF');
    await updateTopic(fifo, '+message.type=FIFO');
    const tx = randomName('GTT');
    await updateTopic(tx, '+message.type=TRANSACTION');
    const plain = randomName('GTN');
    await updateTopic(plain);
    const now = { seconds: Math.floor(Date.now() / 1000), nanos: 0 };
    let n = 0;
    const send = async (topic: string, systemProperties: object = {}) => {
      const id = `01${String(++n).padStart(32, '0')}`;
      const res = await call('sendMessage', {
        messages: [{
          topic: { name: topic }, body: Buffer.from('x'), userProperties: {},
          systemProperties: { messageId: id, keys: [], bodyEncoding: 'IDENTITY', messageType: 'NORMAL', bornTimestamp: now, bornHost: '10.0.0.1', ...systemProperties },
        }],
      });
      return res.status as { code: string; message: string };
    };
    const normalToFifo = await send(fifo);
    expect(normalToFifo.code).to.equal('MESSAGE_PROPERTY_CONFLICT_WITH_TYPE');
    expect(normalToFifo.message).to.equal('TopicMessageType validate failed, the expected type is FIFO, but actual type is NORMAL');
    expect((await send(fifo, { messageGroup: 'g1', messageType: 'FIFO' })).code).to.equal('OK');
    expect((await send(tx)).code).to.equal('MESSAGE_PROPERTY_CONFLICT_WITH_TYPE');
    expect((await send(plain)).code).to.equal('OK');
    expect((await send(plain, { messageGroup: 'g1', messageType: 'FIFO' })).code).to.equal('MESSAGE_PROPERTY_CONFLICT_WITH_TYPE');
    expect((await send(plain, { deliveryTimestamp: { seconds: now.seconds + 5, nanos: 0 }, messageType: 'DELAY' })).code)
      .to.equal('MESSAGE_PROPERTY_CONFLICT_WITH_TYPE');
    const store = cluster.brokers[0].messageStore;
    expect(store.getMaxOffsetInQueue(fifo, 0) + store.getMaxOffsetInQueue(fifo, 1)).to.equal(1);
    expect(store.getMaxOffsetInQueue(plain, 0) + store.getMaxOffsetInQueue(plain, 1)).to.equal(1);
  });

  it('GET_SUBSCRIPTIONGROUP_CONFIG (352): the group\'s config with its 5.x fields; a group it may not create is SUBSCRIPTION_GROUP_NOT_EXIST', async () => {
    const group = randomName('GSG');
    await admin.createAndUpdateSubscriptionGroupConfig(brokerAddr, newSubscriptionGroupConfig(group, { retryMaxTimes: 3 }));
    const get = (g: string) => raw.invoke(brokerAddr,
      RemotingCommand.createRequest(RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG, GetSubscriptionGroupConfigRequestHeader.encode({ group: g })), 5000);
    const found = await get(group);
    expect(found.code).to.equal(ResponseCode.SUCCESS);
    const json = JSON.parse(found.body!.toString('utf8')) as Record<string, unknown>;
    expect(json).to.include({ groupName: group, retryMaxTimes: 3, consumeEnable: true, consumeMessageOrderly: false, consumeTimeoutMinute: 15, groupSysFlag: 0 });
    expect(json.groupRetryPolicy).to.deep.equal({ type: 'CUSTOMIZED' });
    // autoCreateSubscriptionGroup (on by default) creates the group on first ask, as Java's findSubscriptionGroupConfig.
    const created = randomName('GSN');
    expect((await get(created)).code).to.equal(ResponseCode.SUCCESS);
    expect(cluster.brokers[0].subscriptionGroupManager.subscriptionGroupTable.has(created)).to.equal(true);
    cluster.brokers[0].brokerConfig.autoCreateSubscriptionGroup = false;
    try {
      const missing = await get(randomName('GSX'));
      expect(missing.code).to.equal(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST);
      expect(missing.remark).to.equal('No group in this broker');
    } finally {
      cluster.brokers[0].brokerConfig.autoCreateSubscriptionGroup = true;
    }
  });
});
