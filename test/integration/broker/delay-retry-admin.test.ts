import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';
import { heartbeat, newClient, pullRequest, sendHeader, sendRequest } from './broker-helpers';
import type { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { SendMessageResponseHeader } from '../../../protocol/header/send-message-response-header';
import { ConsumerSendMsgBackRequestHeader } from '../../../protocol/header/consumer-send-msg-back-request-header';
import { QueryMessageRequestHeader } from '../../../protocol/header/query-message-request-header';
import { CreateTopicRequestHeader } from '../../../protocol/header/create-topic-request-header';
import { decodeMessages } from '../../../protocol/message/message-decoder';
import { decodeOffsetMessageId } from '../../../protocol/message/message-id';
import { decodeLockBatchResponseBody, encodeLockBatchRequestBody } from '../../../protocol/body/lock-batch';
import { decodeKVTable } from '../../../protocol/body/kv-table';
import { decodeTopicStatsTable } from '../../../protocol/body/topic-stats-table';
import { decodeConsumeStats } from '../../../protocol/body/consume-stats';
import { decodeTopicConfigSerializeWrapper } from '../../../protocol/body/topic-config-serialize-wrapper';
import { decodeSubscriptionGroupWrapper, encodeSubscriptionGroupConfig, newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { decodeGroupList } from '../../../protocol/body/group-list';
import { decodeConsumerConnection } from '../../../protocol/body/consumer-connection';

describe('broker: delay levels, retry/DLQ, locks, queries, admin', function () {
  this.timeout(30000);
  let tc: TestCluster;
  let client: RemotingClient;
  const addr = () => tc.cluster!.brokers[0].brokerAddr;
  const broker = () => tc.cluster!.brokers[0];
  const invoke = (cmd: RemotingCommand) => client.invoke(addr(), cmd, 5000);

  before(async () => {
    tc = await getCluster({ storeConfig: { messageDelayLevel: '1s 2s 1s 1s' } });
    client = newClient();
  });
  after(async () => {
    await client.shutdown();
    await tc.stop();
  });

  async function send(topic: string, props: Record<string, string>, body = 'x', queueId = 0): Promise<SendMessageResponseHeader> {
    const r = await invoke(sendRequest('V2', sendHeader(topic, props, queueId), Buffer.from(body)));
    expect(r.code, r.remark ?? '').to.equal(ResponseCode.SUCCESS);
    return SendMessageResponseHeader.decode(r.extFields);
  }

  it('delivers a delay-level-1 message to its real topic after about 1 s, and not again after a restart', async () => {
    const topic = randomName('DT');
    const sentAt = Date.now();
    await send(topic, { DELAY: '1', KEYS: 'dk' }, 'later', 2);
    expect(broker().messageStore.getMaxOffsetInQueue(topic, 2)).to.equal(0);
    await waitFor(() => broker().messageStore.getMaxOffsetInQueue(topic, 2) === 1, 15_000, 'delayed delivery');
    const elapsed = Date.now() - sentAt;
    expect(elapsed).to.be.at.least(950);
    // level 1's delay (1 s), not level 2's (5 s): what the level guarantees, not how fast this machine delivers
    expect(elapsed).to.be.below(5000);
    const pull = await invoke(pullRequest('DG', topic, 2, 0));
    const [m] = decodeMessages(pull.body!);
    expect(m.body.toString()).to.equal('later');
    expect(m.properties).to.include({ REAL_TOPIC: topic, REAL_QID: '2', DELAY: '1' });

    await tc.cluster!.restartBroker(0);
    const file = path.join(broker().messageStoreConfig.storePathRootDir, 'config', 'delayOffset.json');
    expect(fs.readFileSync(file, 'utf8')).to.match(/^\{"offsetTable":\{1:\d+/);
    await new Promise((r) => setTimeout(r, 1500));
    expect(broker().messageStore.getMaxOffsetInQueue(topic, 2)).to.equal(1);
  });

  it('CONSUMER_SEND_MSG_BACK goes to %RETRY% through the delay levels, then to %DLQ% after maxReconsumeTimes', async () => {
    const topic = randomName('RT');
    const group = randomName('RG');
    expect((await invoke(heartbeat('cid-1', group, topic))).code).to.equal(ResponseCode.SUCCESS);
    const h = await send(topic, { KEYS: 'rk' }, 'retry me');
    const offset = decodeOffsetMessageId(h.msgId).offset;
    const back = (off: number, extra: Partial<ConsumerSendMsgBackRequestHeader> = {}) => invoke(RemotingCommand.createRequest(
      RequestCode.CONSUMER_SEND_MSG_BACK, ConsumerSendMsgBackRequestHeader.encode({ offset: off, group, delayLevel: 1, maxReconsumeTimes: 1, ...extra })));
    const r = await back(offset);
    expect(r.code, r.remark ?? '').to.equal(ResponseCode.SUCCESS);
    const retry = `%RETRY%${group}`;
    await waitFor(() => broker().messageStore.getMaxOffsetInQueue(retry, 0) === 1, 15_000, 'retry delivery');
    const [m] = decodeMessages((await invoke(pullRequest(group, retry, 0, 0))).body!, { clientMsgId: false });
    expect(m.reconsumeTimes).to.equal(1);
    expect(m.properties).to.include({ RETRY_TOPIC: topic, ORIGIN_MESSAGE_ID: h.msgId });
    // reconsumeTimes 1 >= maxReconsumeTimes 1 -> DLQ
    expect((await back(m.commitLogOffset)).code).to.equal(ResponseCode.SUCCESS);
    const dlq = `%DLQ%${group}`;
    await waitFor(() => broker().messageStore.getMaxOffsetInQueue(dlq, 0) === 1, 15_000, 'DLQ');
    expect(broker().topicConfigManager.selectTopicConfig(dlq)!.readQueueNums).to.equal(1);
    const [d] = decodeMessages((await invoke(pullRequest(group, dlq, 0, 0))).body!);
    expect(d.reconsumeTimes).to.equal(2);
    expect(d.body.toString()).to.equal('retry me');
  });

  it('LOCK_BATCH_MQ refuses a second client; UNLOCK_BATCH_MQ releases', async () => {
    const mq = { topic: 'LT', brokerName: broker().brokerConfig.brokerName, queueId: 0 };
    const lock = (clientId: string, code: number = RequestCode.LOCK_BATCH_MQ) =>
      invoke(RemotingCommand.createRequest(code, null, encodeLockBatchRequestBody({ consumerGroup: 'LG', clientId, mqSet: [mq] })));
    expect(decodeLockBatchResponseBody((await lock('c1')).body!).lockOKMQSet).to.deep.equal([mq]);
    expect(decodeLockBatchResponseBody((await lock('c2')).body!).lockOKMQSet).to.deep.equal([]);
    expect((await lock('c1', RequestCode.UNLOCK_BATCH_MQ)).code).to.equal(ResponseCode.SUCCESS);
    expect(decodeLockBatchResponseBody((await lock('c2')).body!).lockOKMQSet).to.deep.equal([mq]);
  });

  it('QUERY_MESSAGE by key and VIEW_MESSAGE_BY_ID', async () => {
    const topic = randomName('QT');
    const h = await send(topic, { KEYS: 'qkey other' }, 'find me');
    await waitFor(() => broker().messageStore.getMaxOffsetInQueue(topic, 0) === 1);
    let r: RemotingCommand | null = null;
    await waitFor(async () => {
      r = await invoke(RemotingCommand.createRequest(RequestCode.QUERY_MESSAGE, QueryMessageRequestHeader.encode({
        topic, key: 'qkey', maxNum: 32, beginTimestamp: 0, endTimestamp: Number.MAX_SAFE_INTEGER, uniqueKeyQuery: false,
      })));
      return r.code === ResponseCode.SUCCESS;
    }, 3000, 'index');
    expect(decodeMessages(r!.body!).map((m) => m.body.toString())).to.deep.equal(['find me']);
    const v = await invoke(RemotingCommand.createRequest(RequestCode.VIEW_MESSAGE_BY_ID, { offset: String(decodeOffsetMessageId(h.msgId).offset) }));
    expect(v.code).to.equal(ResponseCode.SUCCESS);
    expect(decodeMessages(v.body!)[0].body.toString()).to.equal('find me');
  });

  it('answers the admin codes with bodies our decoders read', async () => {
    const topic = randomName('AT');
    const group = randomName('AG');
    const create = await invoke(RemotingCommand.createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, CreateTopicRequestHeader.encode({
      topic, defaultTopic: 'TBW102', readQueueNums: 2, writeQueueNums: 2, perm: 6, topicFilterType: 'SINGLE_TAG', topicSysFlag: 0, order: false,
    })));
    expect([create.code, create.remark]).to.deep.equal([ResponseCode.SUCCESS, 'not set any response code']);
    await send(topic, { KEYS: 'a' }, 'one', 1);
    await waitFor(() => broker().messageStore.getMaxOffsetInQueue(topic, 1) === 1);

    const all = decodeTopicConfigSerializeWrapper((await invoke(RemotingCommand.createRequest(RequestCode.GET_ALL_TOPIC_CONFIG))).body!);
    expect(all.topicConfigTable.get(topic)!.readQueueNums).to.equal(2);

    const stats = decodeTopicStatsTable((await invoke(RemotingCommand.createRequest(RequestCode.GET_TOPIC_STATS_INFO, { topic }))).body!);
    expect(stats.offsetTable.map(([mq, o]) => [mq.queueId, o.maxOffset])).to.deep.equal([[0, 0], [1, 1]]);
    const missing = await invoke(RemotingCommand.createRequest(RequestCode.GET_TOPIC_STATS_INFO, { topic: 'nope_nope' }));
    expect(missing.code).to.equal(ResponseCode.TOPIC_NOT_EXIST);

    broker().consumerOffsetManager.commitOffset('127.0.0.1', group, topic, 1, 1);
    const cs = decodeConsumeStats((await invoke(RemotingCommand.createRequest(RequestCode.GET_CONSUME_STATS, { consumerGroup: group }))).body!);
    expect(cs.offsetTable.find(([mq]) => mq.queueId === 1)![1]).to.include({ brokerOffset: 1, consumerOffset: 1 });

    const who = decodeGroupList((await invoke(RemotingCommand.createRequest(RequestCode.QUERY_TOPIC_CONSUME_BY_WHO, { topic }))).body!);
    expect(who.groupList).to.include(group);

    await invoke(heartbeat('cid-admin', group, topic));
    const conn = decodeConsumerConnection((await invoke(RemotingCommand.createRequest(RequestCode.GET_CONSUMER_CONNECTION_LIST, { consumerGroup: group }))).body!);
    expect(conn.connectionSet.map((c) => c.clientId)).to.deep.equal(['cid-admin']);
    const offline = await invoke(RemotingCommand.createRequest(RequestCode.GET_CONSUMER_CONNECTION_LIST, { consumerGroup: 'none_here' }));
    expect(offline.code).to.equal(ResponseCode.CONSUMER_NOT_ONLINE);

    const sub = await invoke(RemotingCommand.createRequest(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, null,
      encodeSubscriptionGroupConfig(newSubscriptionGroupConfig('SUBG_NEW', { retryMaxTimes: 3 }))));
    expect(sub.code).to.equal(ResponseCode.SUCCESS);
    const subs = decodeSubscriptionGroupWrapper((await invoke(RemotingCommand.createRequest(RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG))).body!);
    expect(subs.subscriptionGroupTable.get('SUBG_NEW')!.retryMaxTimes).to.equal(3);

    const rt = decodeKVTable((await invoke(RemotingCommand.createRequest(RequestCode.GET_BROKER_RUNTIME_INFO))).body!);
    expect(rt.table.get('brokerVersionDesc')).to.equal('V4_9_8');
    expect(rt.table.has('putTps')).to.equal(true);
    expect(rt.table.has('commitLogMaxOffset')).to.equal(true);

    const cfg = await invoke(RemotingCommand.createRequest(RequestCode.GET_BROKER_CONFIG));
    expect(JSON.parse(cfg.extFields!.version)).to.have.keys('counter', 'timestamp');
    expect(cfg.body!.toString()).to.match(/^brokerClusterName=DefaultCluster$/m);
    // each key once, as Java's merged Properties print it (storePathRootDir is in two config objects)
    const keys = cfg.body!.toString().split('\n').filter(Boolean).map((l) => l.slice(0, l.indexOf('=')));
    expect(keys.filter((k) => k === 'storePathRootDir')).to.have.length(1);
    expect(new Set(keys).size).to.equal(keys.length);
    const upd = await invoke(RemotingCommand.createRequest(RequestCode.UPDATE_BROKER_CONFIG, null, Buffer.from('shortPollingTimeMills=1500\n')));
    expect(upd.code).to.equal(ResponseCode.SUCCESS);
    expect(broker().brokerConfig.shortPollingTimeMills).to.equal(1500);

    const delay = await invoke(RemotingCommand.createRequest(RequestCode.GET_ALL_DELAY_OFFSET));
    expect(delay.body!.toString()).to.match(/^\{"offsetTable":\{/);

    const del = await invoke(RemotingCommand.createRequest(RequestCode.DELETE_TOPIC_IN_BROKER, { topic }));
    expect(del.code).to.equal(ResponseCode.SUCCESS);
    expect(broker().topicConfigManager.selectTopicConfig(topic)).to.equal(undefined);
    const delGroup = await invoke(RemotingCommand.createRequest(RequestCode.DELETE_SUBSCRIPTIONGROUP, { groupName: 'SUBG_NEW' }));
    expect(delGroup.code).to.equal(ResponseCode.SUCCESS);
  });
});
