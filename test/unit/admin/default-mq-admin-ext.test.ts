/**
 * DefaultMQAdminExt against our in-process NamesrvController (name-server calls for real) and a scripted broker
 * (a RemotingServer registered with that name server, answering the admin codes with canned bodies and
 * recording what it received).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { encodeConsumeStats } from '../../../protocol/body/consume-stats';
import { encodeConsumerConnection, encodeProducerConnection } from '../../../protocol/body/consumer-connection';
import { encodeGroupList } from '../../../protocol/body/group-list';
import { decodeFastjson } from '../../../protocol/body/fastjson';
import { encodeKVTable } from '../../../protocol/body/kv-table';
import { PermName } from '../../../protocol/body/perm-name';
import { encodeRegisterBrokerBody } from '../../../protocol/body/register-broker-body';
import { encodeResetOffsetBody } from '../../../protocol/body/reset-offset-body';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { encodeTopicStatsTable } from '../../../protocol/body/topic-stats-table';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { bodyCrc32 } from '../../../protocol/message/compression';
import { encodeStoredMessage } from '../../../protocol/message/message-decoder';
import { createOffsetMessageId } from '../../../protocol/message/message-id';
import { type ExtFields, RemotingCommand } from '../../../protocol/remoting-command';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { MQClientManager } from '../../../lib/client/mq-client-manager';
import { MQClientError, MQBrokerError, TopicNotExistError } from '../../../lib/errors';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { RemotingClient, RemotingServer } from '../../../lib/transport';

const mq = (topic: string, queueId: number, brokerName = 'broker-a') => ({ topic, brokerName, queueId });

describe('DefaultMQAdminExt', () => {
  let tmp: string;
  let namesrv: NamesrvController;
  let broker: RemotingServer;
  let brokerAddr: string;
  let registrar: RemotingClient;
  let admin: DefaultMQAdminExt;
  let manager: MQClientManager;
  let received: RemotingCommand[];
  let consumeStatsOffsets: Array<[ReturnType<typeof mq>, { brokerOffset: number; consumerOffset: number; lastTimestamp: number }]>;
  const storedAt = 4096;

  function reply(code: number, fn: (req: RemotingCommand) => { code?: number; remark?: string; ext?: ExtFields; body?: Buffer | null }): void {
    broker.registerProcessor(code, (req) => {
      received.push(req);
      const r = fn(req);
      return RemotingCommand.createResponse(req, r.code ?? ResponseCode.SUCCESS, r.remark ?? null, r.ext ?? null, r.body ?? null);
    });
  }
  const last = (code: number) => [...received].reverse().find((r) => r.code === code)!;

  async function register(topics: string[]): Promise<void> {
    const table = new Map(topics.map((t) => [t, newTopicConfig(t, { readQueueNums: 4, writeQueueNums: 4 })]));
    const body = encodeRegisterBrokerBody({
      topicConfigSerializeWrapper: { topicConfigTable: table, dataVersion: { timestamp: Date.now(), counter: 1 } },
      filterServerList: [],
    });
    const cmd = RemotingCommand.createRequest(RequestCode.REGISTER_BROKER, {
      brokerName: 'broker-a', brokerAddr, clusterName: 'C1', haServerAddr: '127.0.0.1:10912', brokerId: '0',
      compressed: 'false', bodyCrc32: String(bodyCrc32(body)),
    }, body);
    cmd.version = 409;
    const res = await registrar.invoke(namesrv.address, cmd, 3000);
    expect(res.code).to.equal(ResponseCode.SUCCESS);
  }

  beforeEach(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-test-'));
    namesrv = new NamesrvController({
      listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(tmp, 'kvConfig.json'), configStorePath: path.join(tmp, 'namesrv.properties'),
    });
    await namesrv.start();
    received = [];
    broker = new RemotingServer({ listenPort: 0, bindAddress: '127.0.0.1' });
    brokerAddr = `127.0.0.1:${await broker.listen()}`;
    consumeStatsOffsets = [[mq('TopicA', 0), { brokerOffset: 10, consumerOffset: 7, lastTimestamp: 1700000000000 }]];
    reply(RequestCode.UPDATE_AND_CREATE_TOPIC, () => ({}));
    reply(RequestCode.DELETE_TOPIC_IN_BROKER, () => ({}));
    reply(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, () => ({}));
    reply(RequestCode.DELETE_SUBSCRIPTIONGROUP, () => ({}));
    reply(RequestCode.GET_TOPIC_STATS_INFO, (req) => req.extFields?.topic === 'TopicA'
      ? { body: encodeTopicStatsTable({ offsetTable: [[mq('TopicA', 1), { minOffset: 0, maxOffset: 5, lastUpdateTimestamp: 0 }], [mq('TopicA', 0), { minOffset: 2, maxOffset: 9, lastUpdateTimestamp: 1 }]] }) }
      : { code: ResponseCode.TOPIC_NOT_EXIST, remark: 'topic does not exist' });
    reply(RequestCode.GET_CONSUME_STATS, () => ({ body: encodeConsumeStats({ offsetTable: consumeStatsOffsets, consumeTps: 1.5 }) }));
    reply(RequestCode.GET_CONSUMER_CONNECTION_LIST, () => ({
      body: encodeConsumerConnection({
        connectionSet: [{ clientId: '10.0.0.1@1', clientAddr: '10.0.0.1:5555', language: 'JAVA', version: 409 }],
        subscriptionTable: new Map(), consumeType: 'CONSUME_PASSIVELY', messageModel: 'CLUSTERING', consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
      }),
    }));
    reply(RequestCode.GET_PRODUCER_CONNECTION_LIST, (req) => ({
      body: encodeProducerConnection({ connectionSet: req.extFields?.producerGroup === 'PG' ? [{ clientId: 'p@1', clientAddr: '10.0.0.2:1', language: 'JAVA', version: 409 }] : [] }),
    }));
    reply(RequestCode.QUERY_TOPIC_CONSUME_BY_WHO, () => ({ body: encodeGroupList({ groupList: ['GroupA'] }) }));
    reply(RequestCode.GET_BROKER_RUNTIME_INFO, () => ({ body: encodeKVTable({ table: new Map([['putTps', '1.0 2.0 3.0'], ['brokerVersionDesc', 'V4_9_8']]) }) }));
    reply(RequestCode.GET_BROKER_CONFIG, () => ({ body: Buffer.from('brokerName=broker-a\nlistenPort=10911\nmsgTraceTopicName=RMQ_SYS_TRACE_TOPIC\n') }));
    reply(RequestCode.UPDATE_BROKER_CONFIG, () => ({}));
    reply(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, (req) => req.extFields?.group === 'Offline'
      ? { code: ResponseCode.CONSUMER_NOT_ONLINE, remark: 'Consumer not online' }
      : { body: encodeResetOffsetBody({ offsetTable: [[mq('TopicA', 0), 3], [mq('TopicA', 1), 4]] }) });
    const record = (keys: string, uniq: string, offset: number) => encodeStoredMessage({
      topic: 'TopicA', properties: { KEYS: keys, UNIQ_KEY: uniq }, body: Buffer.from('hello'), queueId: 1, queueOffset: 3,
      commitLogOffset: offset, bornTimestamp: 1, bornHost: { address: '10.0.0.2', port: 1 }, storeTimestamp: 2,
      storeHost: { address: '127.0.0.1', port: broker.port },
    });
    reply(RequestCode.VIEW_MESSAGE_BY_ID, (req) => Number(req.extFields?.offset) === storedAt
      ? { body: record('k1', 'AC1100000000000000000000000000AA', storedAt) }
      : { code: ResponseCode.SYSTEM_ERROR, remark: 'no message' });
    reply(RequestCode.QUERY_MESSAGE, (req) => req.extFields?.key === 'none'
      ? { code: ResponseCode.QUERY_NOT_FOUND }
      : { ext: { indexLastUpdateTimestamp: '77', indexLastUpdatePhyoffset: '88' }, body: Buffer.concat([record('k1 k2', 'U1', 0), record('k3', 'U2', 200)]) });
    registrar = new RemotingClient();
    await register(['TopicA', 'TBW102', '%RETRY%GroupA']);
    manager = new MQClientManager();
    admin = new DefaultMQAdminExt({ namesrvAddr: namesrv.address, instanceName: `admin-${Date.now()}` }, { clientManager: manager });
    await admin.start();
  });

  afterEach(async () => {
    await admin.shutdown();
    await registrar.shutdown();
    await broker.shutdown();
    await namesrv.shutdown();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe('lifecycle', () => {
    it('start and shutdown are idempotent; calls before start fail clearly', async () => {
      await admin.start();
      expect(manager.size).to.equal(1);
      await admin.shutdown();
      await admin.shutdown();
      expect(manager.size).to.equal(0);
      const fresh = new DefaultMQAdminExt({ namesrvAddr: namesrv.address });
      expect(() => fresh.fetchAllTopicList()).to.throw(MQClientError, /not started/);
      expect(fresh.adminExtGroup).to.equal('admin_ext_group');
      expect(fresh.timeoutMillis).to.equal(5000);
      await admin.start();
    });

    it('lists its name servers', () => {
      expect(admin.getNameServerAddressList()).to.deep.equal([namesrv.address]);
    });
  });

  describe('name server calls', () => {
    it('examineBrokerClusterInfo', async () => {
      const info = await admin.examineBrokerClusterInfo();
      expect(info.clusterAddrTable.get('C1')).to.deep.equal(['broker-a']);
      expect(info.brokerAddrTable.get('broker-a')!.brokerAddrs.get(0)).to.equal(brokerAddr);
    });

    it('fetchAllTopicList and examineTopicRouteInfo', async () => {
      expect((await admin.fetchAllTopicList()).topicList).to.have.members(['TopicA', 'TBW102', '%RETRY%GroupA']);
      const route = await admin.examineTopicRouteInfo('TopicA');
      expect(route.queueDatas[0]).to.include({ brokerName: 'broker-a', readQueueNums: 4, writeQueueNums: 4, perm: 6 });
      try {
        await admin.examineTopicRouteInfo('NoSuchTopic');
        expect.fail('expected TopicNotExistError');
      } catch (err) {
        expect(err).to.be.instanceOf(TopicNotExistError);
      }
    });

    it('putKVConfig / getKVConfig / deleteKVConfig', async () => {
      await admin.putKVConfig('ORDER_TOPIC_CONFIG', 'TopicA', 'broker-a:4');
      expect(await admin.getKVConfig('ORDER_TOPIC_CONFIG', 'TopicA')).to.equal('broker-a:4');
      await admin.deleteKVConfig('ORDER_TOPIC_CONFIG', 'TopicA');
      try {
        await admin.getKVConfig('ORDER_TOPIC_CONFIG', 'TopicA');
        expect.fail('expected QUERY_NOT_FOUND');
      } catch (err) {
        expect(err).to.be.instanceOf(MQClientError);
        expect((err as MQClientError).responseCode).to.equal(ResponseCode.QUERY_NOT_FOUND);
      }
    });

    it('wipeWritePermOfBroker takes write permission from every topic of the broker', async () => {
      const count = await admin.wipeWritePermOfBroker(namesrv.address, 'broker-a');
      expect(count).to.equal(3);
      const route = await admin.examineTopicRouteInfo('TopicA');
      expect(route.queueDatas[0].perm).to.equal(PermName.PERM_READ);
    });

    it('deleteTopicInNameServer removes the route on every name server', async () => {
      await admin.deleteTopicInNameServer(null, 'TopicA');
      expect((await admin.fetchAllTopicList()).topicList).to.not.include('TopicA');
    });
  });

  describe('broker calls', () => {
    it('createAndUpdateTopicConfig sends the topic config as the UPDATE_AND_CREATE_TOPIC header', async () => {
      await admin.createAndUpdateTopicConfig(brokerAddr, newTopicConfig('NewTopic', { readQueueNums: 8, writeQueueNums: 6, perm: 4, order: true }));
      expect(last(RequestCode.UPDATE_AND_CREATE_TOPIC).extFields).to.include({
        topic: 'NewTopic', defaultTopic: 'TBW102', readQueueNums: '8', writeQueueNums: '6', perm: '4',
        topicFilterType: 'SINGLE_TAG', topicSysFlag: '0', order: 'true',
      });
    });

    it('createTopic creates on the master of every broker serving the key', async () => {
      await admin.createTopic('TBW102', 'Made', 3);
      expect(last(RequestCode.UPDATE_AND_CREATE_TOPIC).extFields).to.include({ topic: 'Made', defaultTopic: 'TBW102', readQueueNums: '3', writeQueueNums: '3' });
    });

    it('deleteTopicInBroker, subscription groups', async () => {
      await admin.deleteTopicInBroker([brokerAddr], 'TopicA');
      expect(last(RequestCode.DELETE_TOPIC_IN_BROKER).extFields).to.include({ topic: 'TopicA' });
      await admin.createAndUpdateSubscriptionGroupConfig(brokerAddr, newSubscriptionGroupConfig('GroupB', { retryMaxTimes: 3 }));
      const body = decodeFastjson(last(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP).body!) as Record<string, unknown>;
      expect(body).to.include({ groupName: 'GroupB', retryMaxTimes: 3, consumeEnable: true });
      await admin.deleteSubscriptionGroup(brokerAddr, 'GroupB', true);
      expect(last(RequestCode.DELETE_SUBSCRIPTIONGROUP).extFields).to.include({ groupName: 'GroupB', removeOffset: 'true' });
    });

    it('examineTopicStats merges the brokers; a broker failure is an MQBrokerError', async () => {
      const stats = await admin.examineTopicStats('TopicA');
      expect(stats.offsetTable.map(([q, o]) => [q.queueId, o.maxOffset])).to.have.deep.members([[0, 9], [1, 5]]);
      await register(['TopicA', 'TBW102', '%RETRY%GroupA', 'Other']);
      try {
        await admin.examineTopicStats('Other');
        expect.fail('expected MQBrokerError');
      } catch (err) {
        expect(err).to.be.instanceOf(MQBrokerError);
        expect((err as MQBrokerError).responseCode).to.equal(ResponseCode.TOPIC_NOT_EXIST);
      }
    });

    it('examineConsumeStats asks the brokers of the retry topic; none is CONSUMER_NOT_ONLINE', async () => {
      const stats = await admin.examineConsumeStats('GroupA');
      expect(stats.consumeTps).to.equal(1.5);
      expect(stats.offsetTable[0][1]).to.deep.equal({ brokerOffset: 10, consumerOffset: 7, lastTimestamp: 1700000000000 });
      expect(last(RequestCode.GET_CONSUME_STATS).extFields).to.include({ consumerGroup: 'GroupA' });
      consumeStatsOffsets = [];
      try {
        await admin.examineConsumeStats('GroupA', 'TopicA');
        expect.fail('expected CONSUMER_NOT_ONLINE');
      } catch (err) {
        expect((err as MQClientError).responseCode).to.equal(ResponseCode.CONSUMER_NOT_ONLINE);
      }
      expect(last(RequestCode.GET_CONSUME_STATS).extFields).to.include({ consumerGroup: 'GroupA', topic: 'TopicA' });
    });

    it('connections of consumer and producer groups', async () => {
      const cc = await admin.examineConsumerConnectionInfo('GroupA');
      expect(cc.connectionSet[0]).to.include({ clientId: '10.0.0.1@1', version: 409 });
      expect(cc.messageModel).to.equal('CLUSTERING');
      const pc = await admin.examineProducerConnectionInfo('PG', 'TopicA');
      expect(pc.connectionSet).to.have.length(1);
      try {
        await admin.examineProducerConnectionInfo('Nobody', 'TopicA');
        expect.fail('expected not found');
      } catch (err) {
        expect(err).to.be.instanceOf(MQClientError);
        expect((err as Error).message).to.match(/Not found the producer group connection/);
      }
    });

    it('queryTopicConsumeByWho, runtime stats, broker config', async () => {
      expect((await admin.queryTopicConsumeByWho('TopicA')).groupList).to.deep.equal(['GroupA']);
      expect((await admin.fetchBrokerRuntimeStats(brokerAddr)).table.get('brokerVersionDesc')).to.equal('V4_9_8');
      const config = await admin.getBrokerConfig(brokerAddr);
      expect(config.get('listenPort')).to.equal('10911');
      await admin.updateBrokerConfig(brokerAddr, { flushDiskType: 'SYNC_FLUSH', brokerPermission: '4' });
      expect(last(RequestCode.UPDATE_BROKER_CONFIG).body!.toString()).to.equal('flushDiskType=SYNC_FLUSH\nbrokerPermission=4\n');
    });

    it('resetOffsetByTimestamp sends INVOKE_BROKER_TO_RESET_OFFSET; CONSUMER_NOT_ONLINE keeps its code', async () => {
      const table = await admin.resetOffsetByTimestamp('TopicA', 'GroupA', 1234, true);
      expect(table.map(([q, o]) => [q.queueId, o])).to.deep.equal([[0, 3], [1, 4]]);
      expect(last(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET).extFields).to.include({ topic: 'TopicA', group: 'GroupA', timestamp: '1234', isForce: 'true' });
      try {
        await admin.resetOffsetByTimestamp('TopicA', 'Offline', 1234);
        expect.fail('expected CONSUMER_NOT_ONLINE');
      } catch (err) {
        expect((err as MQClientError).responseCode).to.equal(ResponseCode.CONSUMER_NOT_ONLINE);
      }
    });

    it('queryMessage keeps the messages whose keys match; none is NO_MESSAGE', async () => {
      const result = await admin.queryMessage('TopicA', 'k2', 32, 0, Date.now());
      expect(result.indexLastUpdateTimestamp).to.equal(77);
      expect(result.messageList.map((m) => m.msgId)).to.deep.equal(['U1']);
      expect(last(RequestCode.QUERY_MESSAGE).extFields).to.include({ topic: 'TopicA', key: 'k2', maxNum: '32', beginTimestamp: '0' });
      expect((await admin.queryMessageByUniqKey('TopicA', 'U2')).body.toString()).to.equal('hello');
      try {
        await admin.queryMessage('TopicA', 'none', 32, 0, Date.now());
        expect.fail('expected NO_MESSAGE');
      } catch (err) {
        expect((err as MQClientError).responseCode).to.equal(ResponseCode.NO_MESSAGE);
      }
    });

    it('viewMessage finds the broker and offset in the offset msgId', async () => {
      const msg = await admin.viewMessage(createOffsetMessageId('127.0.0.1', broker.port, storedAt));
      expect(msg.topic).to.equal('TopicA');
      expect(msg.commitLogOffset).to.equal(storedAt);
      expect(last(RequestCode.VIEW_MESSAGE_BY_ID).extFields).to.include({ offset: String(storedAt) });
    });
  });
});
