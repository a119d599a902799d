import { expect } from 'chai';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';
import { heartbeat, newClient, pullRequest, sendHeader, sendRequest } from './broker-helpers';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { GetConsumerListByGroupRequestHeader } from '../../../protocol/header/get-consumer-list-by-group-request-header';
import { UnregisterClientRequestHeader } from '../../../protocol/header/unregister-client-request-header';
import { QueryConsumerOffsetRequestHeader } from '../../../protocol/header/query-consumer-offset-request-header';
import { QueryConsumerOffsetResponseHeader } from '../../../protocol/header/query-consumer-offset-response-header';
import { UpdateConsumerOffsetRequestHeader } from '../../../protocol/header/update-consumer-offset-request-header';
import { NotifyConsumerIdsChangedRequestHeader } from '../../../protocol/header/notify-consumer-ids-changed-request-header';
import { decodeGetConsumerListByGroupResponseBody } from '../../../protocol/body/get-consumer-list-by-group-response-body';
import { decodeMessages } from '../../../protocol/message/message-decoder';

describe('broker: membership, long polling, restarts, bad requests', function () {
  this.timeout(30000);
  let tc: TestCluster;
  let client: RemotingClient;
  const addr = () => tc.cluster!.brokers[0].brokerAddr;

  before(async () => {
    tc = await getCluster();
    client = newClient();
  });
  after(async () => {
    await client.shutdown();
    await tc.stop();
  });

  it('NOTIFY_CONSUMER_IDS_CHANGED reaches the other members when one joins and when one leaves', async () => {
    const group = randomName('CG');
    const topic = randomName('T');
    const a = new RemotingClient();
    const b = new RemotingClient();
    const notified: string[] = [];
    a.registerProcessor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, (req) => {
      notified.push(NotifyConsumerIdsChangedRequestHeader.decode(req.extFields).consumerGroup);
      return null;
    });
    try {
      expect((await a.invoke(addr(), heartbeat('client-a', group, topic), 5000)).code).to.equal(ResponseCode.SUCCESS);
      await waitFor(() => notified.length === 1, 3000, 'own registration notice');
      expect((await b.invoke(addr(), heartbeat('client-b', group, topic), 5000)).code).to.equal(ResponseCode.SUCCESS);
      await waitFor(() => notified.length === 2, 3000, 'notice of b joining');
      const list = await a.invoke(addr(), RemotingCommand.createRequest(RequestCode.GET_CONSUMER_LIST_BY_GROUP,
        GetConsumerListByGroupRequestHeader.encode({ consumerGroup: group })), 5000);
      expect(decodeGetConsumerListByGroupResponseBody(list.body!).consumerIdList.sort()).to.deep.equal(['client-a', 'client-b']);
      // a repeated heartbeat changes nothing: no notice
      await b.invoke(addr(), heartbeat('client-b', group, topic), 5000);
      await new Promise((r) => setTimeout(r, 100));
      expect(notified).to.have.length(2);
      // b's connection closes: a is told
      await b.shutdown();
      await waitFor(() => notified.length === 3, 3000, 'notice of b leaving');
      expect(notified.every((g) => g === group)).to.equal(true);
      expect(tc.cluster!.brokers[0].consumerManager.getConsumerGroupInfo(group)?.getAllClientId()).to.deep.equal(['client-a']);
      // UNREGISTER_CLIENT removes the last member and the group
      const un = await a.invoke(addr(), RemotingCommand.createRequest(RequestCode.UNREGISTER_CLIENT,
        UnregisterClientRequestHeader.encode({ clientID: 'client-a', consumerGroup: group })), 5000);
      expect(un.code).to.equal(ResponseCode.SUCCESS);
      expect(tc.cluster!.brokers[0].consumerManager.getConsumerGroupInfo(group)).to.equal(undefined);
      const empty = await a.invoke(addr(), RemotingCommand.createRequest(RequestCode.GET_CONSUMER_LIST_BY_GROUP,
        GetConsumerListByGroupRequestHeader.encode({ consumerGroup: group })), 5000);
      expect(empty.code).to.equal(ResponseCode.SYSTEM_ERROR);
    } finally {
      await a.shutdown();
      await b.shutdown();
    }
  });

  it('holds a suspended pull and answers it on a matching arrival, not before', async () => {
    const topic = randomName('TL');
    await client.invoke(addr(), sendRequest('V2', sendHeader(topic, { TAGS: 'x' }, 0), Buffer.from('first')), 5000);
    await waitFor(() => tc.cluster!.brokers[0].messageStore.getMaxOffsetInQueue(topic, 0) === 1);
    // With the periodic re-check (every 5 s) switched off, a held pull is answered either by the arrival of a
    // matching message or when its suspend time runs out: an answer before the suspend time is the arrival's.
    const hold = tc.cluster!.brokers[0].pullRequestHoldService;
    const periodicCheck = hold.checkHoldRequest;
    hold.checkHoldRequest = () => undefined;
    try {
      const suspendTimeoutMillis = 10000;
      const started = Date.now();
      let answeredAt = 0;
      const held = client.invoke(addr(), pullRequest('GL', topic, 0, 1, { sysFlag: 0x4 | 0x2, suspendTimeoutMillis, subscription: 'wanted' }), 15000)
        .then((r) => { answeredAt = Date.now(); return r; });
      await waitFor(() => hold.size === 1, 3000, 'pull held');
      // a message with another tag does not answer it
      await client.invoke(addr(), sendRequest('V2', sendHeader(topic, { TAGS: 'other' }, 0), Buffer.from('other')), 5000);
      await new Promise((r) => setTimeout(r, 300));
      expect(answeredAt).to.equal(0);
      const sentAt = Date.now();
      await client.invoke(addr(), sendRequest('V2', sendHeader(topic, { TAGS: 'wanted' }, 0), Buffer.from('wanted')), 5000);
      const res = await held;
      expect(res.code).to.equal(ResponseCode.SUCCESS);
      expect(answeredAt).to.be.at.least(sentAt);
      expect(answeredAt - started, 'answered by the arrival, before the suspend time ran out').to.be.below(suspendTimeoutMillis);
      expect(answeredAt - started).to.be.at.least(300);
      expect(decodeMessages(res.body!).map((m) => m.body.toString())).to.deep.equal(['wanted']);
    } finally {
      hold.checkHoldRequest = periodicCheck;
    }
  });

  it('answers a held pull with PULL_NOT_FOUND when its suspend time runs out', async () => {
    const topic = randomName('TT');
    await client.invoke(addr(), sendRequest('V2', sendHeader(topic, {}, 0), Buffer.from('m')), 5000);
    const t0 = Date.now();
    const res = await client.invoke(addr(), pullRequest('GT', topic, 0, 1, { sysFlag: 0x4 | 0x2, suspendTimeoutMillis: 400 }), 5000);
    expect(res.code).to.equal(ResponseCode.PULL_NOT_FOUND);
    expect(Date.now() - t0).to.be.at.least(390);
  });

  it('keeps committed offsets and messages across a broker restart', async () => {
    const topic = randomName('TP');
    await client.invoke(addr(), sendRequest('V2', sendHeader(topic, {}, 0), Buffer.from('persist')), 5000);
    await client.invoke(addr(), RemotingCommand.createRequest(RequestCode.UPDATE_CONSUMER_OFFSET,
      UpdateConsumerOffsetRequestHeader.encode({ consumerGroup: 'GP', topic, queueId: 0, commitOffset: 1 })), 5000);
    await tc.cluster!.restartBroker(0);
    const q = await client.invoke(addr(), RemotingCommand.createRequest(RequestCode.QUERY_CONSUMER_OFFSET,
      QueryConsumerOffsetRequestHeader.encode({ consumerGroup: 'GP', topic, queueId: 0 })), 5000);
    expect(q.code).to.equal(ResponseCode.SUCCESS);
    expect(QueryConsumerOffsetResponseHeader.decode(q.extFields).offset).to.equal(1);
    const pull = await client.invoke(addr(), pullRequest('GP', topic, 0, 0), 5000);
    expect(pull.code).to.equal(ResponseCode.SUCCESS);
    expect(decodeMessages(pull.body!)[0].body.toString()).to.equal('persist');
    expect(tc.cluster!.brokers[0].topicConfigManager.selectTopicConfig(topic)).to.not.equal(undefined);
  });

  it('answers bad requests with Java codes and stays up', async () => {
    // missing required header fields
    const missing = await client.invoke(addr(), RemotingCommand.createRequest(RequestCode.SEND_MESSAGE_V2, { a: 'PG', b: 'T' }, Buffer.from('x')), 5000);
    expect(missing.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(missing.remark).to.match(/ProtocolError/);
    const missingPull = await client.invoke(addr(), RemotingCommand.createRequest(RequestCode.PULL_MESSAGE, { topic: 'x' }), 5000);
    expect(missingPull.code).to.equal(ResponseCode.SYSTEM_ERROR);
    // unknown topic with auto-creation refused (default topic unknown)
    const unknown = await client.invoke(addr(), sendRequest('V2', sendHeader(randomName('U'), {}, 0, { defaultTopic: 'NO_SUCH_DEFAULT' }), Buffer.from('x')), 5000);
    expect(unknown.code).to.equal(ResponseCode.TOPIC_NOT_EXIST);
    expect(unknown.remark).to.match(/^topic\[.*\] not exist, apply first please!/);
    // system topic
    const sys = await client.invoke(addr(), sendRequest('V2', sendHeader('SCHEDULE_TOPIC_XXXX'), Buffer.from('x')), 5000);
    expect(sys.code).to.equal(ResponseCode.NO_PERMISSION);
    // illegal topic name
    const bad = await client.invoke(addr(), sendRequest('V2', sendHeader('bad topic!'), Buffer.from('x')), 5000);
    expect(bad.code).to.equal(ResponseCode.SYSTEM_ERROR);
    // queue id out of range
    const topic = randomName('TQ');
    await client.invoke(addr(), sendRequest('V2', sendHeader(topic), Buffer.from('x')), 5000);
    const q = await client.invoke(addr(), sendRequest('V2', sendHeader(topic, {}, 50), Buffer.from('x')), 5000);
    expect(q.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(q.remark).to.match(/^request queueId\[50\] is illegal/);
    // oversize body (above maxMessageSize 4 MiB)
    const big = await client.invoke(addr(), sendRequest('V2', sendHeader(topic), Buffer.alloc(4 * 1024 * 1024 + 1)), 10000);
    expect(big.code).to.equal(ResponseCode.MESSAGE_ILLEGAL);
    // unknown code
    const unk = await client.invoke(addr(), RemotingCommand.createRequest(9999, null), 5000);
    expect(unk.code).to.equal(ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    // still serving
    const ok = await client.invoke(addr(), sendRequest('V2', sendHeader(topic), Buffer.from('after')), 5000);
    expect(ok.code).to.equal(ResponseCode.SUCCESS);
  });
});
