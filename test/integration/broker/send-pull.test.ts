import { expect } from 'chai';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';
import { heartbeat, newClient, pullRequest, sendHeader, sendRequest } from './broker-helpers';
import type { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { SendMessageResponseHeader } from '../../../protocol/header/send-message-response-header';
import { SendMessageRequestHeaderV2, toSendMessageRequestHeaderV2 } from '../../../protocol/header/send-message-request-header-v2';
import { PullMessageResponseHeader } from '../../../protocol/header/pull-message-response-header';
import { QueryConsumerOffsetRequestHeader } from '../../../protocol/header/query-consumer-offset-request-header';
import { QueryConsumerOffsetResponseHeader } from '../../../protocol/header/query-consumer-offset-response-header';
import { UpdateConsumerOffsetRequestHeader } from '../../../protocol/header/update-consumer-offset-request-header';
import { GetMaxOffsetRequestHeader } from '../../../protocol/header/get-max-offset-request-header';
import { GetMaxOffsetResponseHeader } from '../../../protocol/header/get-max-offset-response-header';
import { GetMinOffsetRequestHeader } from '../../../protocol/header/get-min-offset-request-header';
import { GetMinOffsetResponseHeader } from '../../../protocol/header/get-min-offset-response-header';
import { SearchOffsetRequestHeader } from '../../../protocol/header/search-offset-request-header';
import { SearchOffsetResponseHeader } from '../../../protocol/header/search-offset-response-header';
import { GetEarliestMsgStoretimeRequestHeader } from '../../../protocol/header/get-earliest-msg-storetime-request-header';
import { GetEarliestMsgStoretimeResponseHeader } from '../../../protocol/header/get-earliest-msg-storetime-response-header';
import { decodeMessages } from '../../../protocol/message/message-decoder';
import { encodeBatchBody } from '../../../protocol/message/batch';
import { decodeConsumerOffsetSerializeWrapper } from '../../../protocol/body/consumer-offset-serialize-wrapper';
import { GetRouteInfoRequestHeader } from '../../../protocol/header/get-route-info-request-header';
import { decodeTopicRouteData } from '../../../protocol/body/topic-route-data';

describe('broker: send and pull over sockets', function () {
  this.timeout(30000);
  let tc: TestCluster;
  let client: RemotingClient;
  let brokerAddr: string;

  before(async () => {
    tc = await getCluster();
    brokerAddr = tc.cluster!.brokers[0].brokerAddr;
    client = newClient();
  });
  after(async () => {
    await client.shutdown();
    await tc.stop();
  });

  for (const way of ['V1', 'V2'] as const) {
    it(`sends with SEND_MESSAGE ${way}, auto-creating the topic, and pulls it back`, async () => {
      const topic = randomName('T');
      const res = await client.invoke(brokerAddr, sendRequest(way, sendHeader(topic, { TAGS: 'a', KEYS: 'k1' }, 1), Buffer.from(`hello ${way}`)), 5000);
      expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
      const h = SendMessageResponseHeader.decode(res.extFields);
      expect(h.queueId).to.equal(1);
      expect(h.queueOffset).to.equal(0);
      expect(h.msgId).to.have.length(32);
      expect(res.extFields!.MSG_REGION).to.equal('DefaultRegion');
      expect(res.extFields!.TRACE_ON).to.equal('true');
      expect(tc.cluster!.brokers[0].topicConfigManager.selectTopicConfig(topic)?.writeQueueNums).to.equal(4);

      await waitFor(() => tc.cluster!.brokers[0].messageStore.getMaxOffsetInQueue(topic, 1) === 1);
      const pull = await client.invoke(brokerAddr, pullRequest('G1', topic, 1, 0), 5000);
      expect(pull.code, pull.remark ?? '').to.equal(ResponseCode.SUCCESS);
      const ph = PullMessageResponseHeader.decode(pull.extFields);
      expect(ph.nextBeginOffset).to.equal(1);
      expect(ph.maxOffset).to.equal(1);
      expect(ph.suggestWhichBrokerId).to.equal(0);
      const msgs = decodeMessages(pull.body!);
      expect(msgs).to.have.length(1);
      expect(msgs[0].body.toString()).to.equal(`hello ${way}`);
      expect(msgs[0].properties.TAGS).to.equal('a');
      expect(msgs[0].properties.CLUSTER).to.equal('DefaultCluster');
      expect(msgs[0].properties.WAIT).to.equal(undefined);
      expect(msgs[0].offsetMsgId).to.equal(h.msgId);
    });
  }

  it('sends a batch of 32 with SEND_BATCH_MESSAGE', async () => {
    const topic = randomName('TB');
    const body = encodeBatchBody(Array.from({ length: 32 }, (_, i) => ({ body: Buffer.from(`m${i}`), properties: { UNIQ_KEY: `u${i}` } })));
    const header = sendHeader(topic, {}, 0, { batch: true });
    const req = RemotingCommand.createRequest(RequestCode.SEND_BATCH_MESSAGE, SendMessageRequestHeaderV2.encode(toSendMessageRequestHeaderV2(header)), body);
    const res = await client.invoke(brokerAddr, req, 5000);
    expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
    const h = SendMessageResponseHeader.decode(res.extFields);
    expect(h.msgId.split(',')).to.have.length(32);
    expect(h.queueOffset).to.equal(0);
    await waitFor(() => tc.cluster!.brokers[0].messageStore.getMaxOffsetInQueue(topic, 0) === 32);
    const pull = await client.invoke(brokerAddr, pullRequest('G1', topic, 0, 0, { maxMsgNums: 64 }), 5000);
    expect(pull.code).to.equal(ResponseCode.SUCCESS);
    expect(decodeMessages(pull.body!).map((m) => m.body.toString())).to.deep.equal(Array.from({ length: 32 }, (_, i) => `m${i}`));
  });

  it('filters pulls by tag and answers the pull statuses as Java', async () => {
    const topic = randomName('TF');
    for (const tag of ['a', 'b', 'a', 'c']) {
      const r = await client.invoke(brokerAddr, sendRequest('V2', sendHeader(topic, { TAGS: tag }, 0), Buffer.from(tag)), 5000);
      expect(r.code).to.equal(ResponseCode.SUCCESS);
    }
    await waitFor(() => tc.cluster!.brokers[0].messageStore.getMaxOffsetInQueue(topic, 0) === 4);
    const pull = await client.invoke(brokerAddr, pullRequest('G1', topic, 0, 0, { subscription: 'a || c' }), 5000);
    expect(pull.code).to.equal(ResponseCode.SUCCESS);
    expect(decodeMessages(pull.body!).map((m) => m.body.toString())).to.deep.equal(['a', 'a', 'c']);
    const none = await client.invoke(brokerAddr, pullRequest('G1', topic, 0, 0, { subscription: 'zzz' }), 5000);
    expect(none.code).to.equal(ResponseCode.PULL_RETRY_IMMEDIATELY);
    expect(PullMessageResponseHeader.decode(none.extFields).nextBeginOffset).to.equal(4);
    const atEnd = await client.invoke(brokerAddr, pullRequest('G1', topic, 0, 4), 5000);
    expect(atEnd.code).to.equal(ResponseCode.PULL_NOT_FOUND);
    const badly = await client.invoke(brokerAddr, pullRequest('G1', topic, 0, 100), 5000);
    expect(badly.code).to.equal(ResponseCode.PULL_OFFSET_MOVED);
    // Java: past the end with the queue starting at 0 → start over at the min offset
    expect(PullMessageResponseHeader.decode(badly.extFields).nextBeginOffset).to.equal(0);
    const empty = await client.invoke(brokerAddr, pullRequest('G1', topic, 1, 0), 5000);
    expect(empty.code).to.equal(ResponseCode.PULL_NOT_FOUND);
    const unknownTopic = await client.invoke(brokerAddr, pullRequest('G1', randomName('NOPE'), 0, 0), 5000);
    expect(unknownTopic.code).to.equal(ResponseCode.TOPIC_NOT_EXIST);
    const badQueue = await client.invoke(brokerAddr, pullRequest('G1', topic, 99, 0), 5000);
    expect(badQueue.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(badQueue.remark).to.match(/^queueId\[99\] is illegal/);
  });

  it('commits offsets with the pull flag and UPDATE_CONSUMER_OFFSET, answers the offset queries', async () => {
    const topic = randomName('TO');
    const t0 = Date.now();
    for (let i = 0; i < 3; i++) await client.invoke(brokerAddr, sendRequest('V2', sendHeader(topic, {}, 0), Buffer.from(`x${i}`)), 5000);
    await waitFor(() => tc.cluster!.brokers[0].messageStore.getMaxOffsetInQueue(topic, 0) === 3);
    const q = (group: string) => client.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.QUERY_CONSUMER_OFFSET,
      QueryConsumerOffsetRequestHeader.encode({ consumerGroup: group, topic, queueId: 0 })), 5000);
    const fresh = await q('GO');
    expect(fresh.code).to.equal(ResponseCode.SUCCESS);
    expect(QueryConsumerOffsetResponseHeader.decode(fresh.extFields).offset).to.equal(0);
    const pull = await client.invoke(brokerAddr, pullRequest('GO', topic, 0, 1, { sysFlag: 0x4 | 0x1, commitOffset: 1 }), 5000);
    expect(pull.code).to.equal(ResponseCode.SUCCESS);
    expect(QueryConsumerOffsetResponseHeader.decode((await q('GO')).extFields).offset).to.equal(1);
    const upd = await client.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.UPDATE_CONSUMER_OFFSET,
      UpdateConsumerOffsetRequestHeader.encode({ consumerGroup: 'GO', topic, queueId: 0, commitOffset: 3 })), 5000);
    expect(upd.code).to.equal(ResponseCode.SUCCESS);
    expect(QueryConsumerOffsetResponseHeader.decode((await q('GO')).extFields).offset).to.equal(3);

    const max = await client.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_MAX_OFFSET, GetMaxOffsetRequestHeader.encode({ topic, queueId: 0 })), 5000);
    expect(GetMaxOffsetResponseHeader.decode(max.extFields).offset).to.equal(3);
    const min = await client.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_MIN_OFFSET, GetMinOffsetRequestHeader.encode({ topic, queueId: 0 })), 5000);
    expect(GetMinOffsetResponseHeader.decode(min.extFields).offset).to.equal(0);
    const search = await client.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
      SearchOffsetRequestHeader.encode({ topic, queueId: 0, timestamp: Date.now() + 60000 })), 5000);
    // Java's binary search answers the last entry for a time after every message
    expect(SearchOffsetResponseHeader.decode(search.extFields).offset).to.equal(2);
    const earliest = await client.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_EARLIEST_MSG_STORETIME,
      GetEarliestMsgStoretimeRequestHeader.encode({ topic, queueId: 0 })), 5000);
    expect(GetEarliestMsgStoretimeResponseHeader.decode(earliest.extFields).timestamp).to.be.within(t0 - 1000, Date.now());
    const all = await client.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_ALL_CONSUMER_OFFSET, null), 5000);
    expect(all.code).to.equal(ResponseCode.SUCCESS);
    expect(decodeConsumerOffsetSerializeWrapper(all.body!).offsetTable.get(`${topic}@GO`)?.get(0)).to.equal(3);
  });

  it('registers with the name server: an auto-created topic gets a route', async () => {
    const topic = randomName('TR');
    await client.invoke(brokerAddr, sendRequest('V2', sendHeader(topic), Buffer.from('r')), 5000);
    await waitFor(async () => {
      const r = await client.invoke(tc.namesrvAddr, RemotingCommand.createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, GetRouteInfoRequestHeader.encode({ topic })), 5000);
      if (r.code !== ResponseCode.SUCCESS) return false;
      const route = decodeTopicRouteData(r.body!);
      return route.brokerDatas[0]?.brokerAddrs.get(0) === brokerAddr && route.queueDatas[0]?.writeQueueNums === 4;
    }, 5000, 'route');
  });

  it('heartbeats register consumers; GET_CONSUMER_LIST_BY_GROUP lists them; retry topic created', async () => {
    const group = randomName('CG');
    const topic = randomName('TH');
    const hb = await client.invoke(brokerAddr, heartbeat('client-1', group, topic), 5000);
    expect(hb.code).to.equal(ResponseCode.SUCCESS);
    const broker = tc.cluster!.brokers[0];
    expect(broker.consumerManager.getConsumerGroupInfo(group)?.getAllClientId()).to.deep.equal(['client-1']);
    expect(broker.topicConfigManager.selectTopicConfig(`%RETRY%${group}`)?.readQueueNums).to.equal(1);
    expect(broker.subscriptionGroupManager.containsSubscriptionGroup(group)).to.equal(true);
  });
});
