import { expect } from 'chai';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';
import { newClient, sendHeader, sendRequest } from './broker-helpers';
import type { RemotingClient } from '../../../lib/transport/remoting-client';
import { ResponseCode } from '../../../protocol/code/response-code';
import { RequestCode } from '../../../protocol/code/request-code';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { MQClientError } from '../../../lib/errors';
import { ResetOffsetRequestHeader } from '../../../protocol/header/reset-offset-request-header';
import { GetConsumerStatusRequestHeader } from '../../../protocol/header/get-consumer-status-request-header';
import { decodeGetConsumerStatusBody } from '../../../protocol/body/get-consumer-status-body';
import { decodeResetOffsetBody } from '../../../protocol/body/reset-offset-body';
import type { BrokerController } from '../../../lib/broker/broker-controller';

describe('broker: offset reset, consumer status and running info through live consumers', function () {
  this.timeout(60000);
  let tc: TestCluster;
  let sender: RemotingClient;
  let admin: DefaultMQAdminExt;
  let broker: BrokerController;
  let brokerAddr: string;
  const consumers: DefaultMQPushConsumer[] = [];

  before(async function () {
    tc = await getCluster();
    if (!tc.cluster) {
      await tc.stop();
      this.skip();
    }
    broker = tc.cluster.brokers[0];
    brokerAddr = broker.brokerAddr;
    sender = newClient();
    admin = new DefaultMQAdminExt({ namesrvAddr: tc.namesrvAddr, instanceName: randomName('admin') });
    await admin.start();
  });
  after(async () => {
    await Promise.all(consumers.map((c) => c.shutdown()));
    await admin?.shutdown();
    await sender?.shutdown();
    await tc?.stop();
  });

  async function send(topic: string, n: number, prefix: string): Promise<void> {
    for (let i = 0; i < n; i++) {
      const res = await sender.invoke(brokerAddr, sendRequest('V2', sendHeader(topic, { TAGS: 'a' }, i % 4), Buffer.from(`${prefix}${i}`)), 5000);
      expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
    }
  }

  async function startConsumer(topic: string, group: string, seen: string[]): Promise<DefaultMQPushConsumer> {
    const c = new DefaultMQPushConsumer({
      consumerGroup: group, namesrvAddr: tc.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('i'),
      persistConsumerOffsetInterval: 200,
    });
    consumers.push(c);
    c.subscribe(topic, '*');
    c.registerMessageListener((msgs) => {
      for (const m of msgs) seen.push(m.body.toString());
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await c.start();
    return c;
  }

  const committed = (group: string, topic: string) => [0, 1, 2, 3].map((q) => broker.consumerOffsetManager.queryOffset(group, topic, q));

  it('resetOffsetByTimestamp moves a running push consumer back: the messages since the time are delivered again', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    await send(topic, 8, 'old');
    // the store answers the offset whose store time is nearest the timestamp (Java's getOffsetInQueueByTime): the old
    // messages 2 s before it, the new ones right after (nearer unless sending them takes this machine 2 s)
    await new Promise((r) => setTimeout(r, 2000));
    const resetTo = Date.now();
    await send(topic, 8, 'new');
    const seen: string[] = [];
    await startConsumer(topic, group, seen);
    await waitFor(() => seen.length === 16, 20000, '16 messages');
    await waitFor(() => committed(group, topic).every((o) => o === 4), 10000, 'offsets committed');

    const table = await admin.resetOffsetByTimestamp(topic, group, resetTo, true);
    expect(table.map(([mq, o]) => [mq.queueId, o]).sort()).to.deep.equal([[0, 2], [1, 2], [2, 2], [3, 2]]);
    await waitFor(() => seen.length === 24, 20000, 'the 8 new messages again');
    const again = seen.slice(16).sort();
    expect(again).to.deep.equal(Array.from({ length: 8 }, (_, i) => `new${i}`).sort());
    await new Promise((r) => setTimeout(r, 300));
    expect(seen.length).to.equal(24);
  });

  it('without isForce an offset is only moved back, never forward', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    await send(topic, 8, 'm');
    const seen: string[] = [];
    await startConsumer(topic, group, seen);
    await waitFor(() => seen.length === 8, 20000, '8 messages');
    await waitFor(() => committed(group, topic).every((o) => o === 2), 10000, 'offsets committed');
    // the max offset (timestamp -1) is not lower than the committed one: kept
    const res = await sender.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
      ResetOffsetRequestHeader.encode({ topic, group, timestamp: 0, isForce: false })), 5000);
    expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
    expect(decodeResetOffsetBody(res.body!).offsetTable.map(([, o]) => o)).to.deep.equal([0, 0, 0, 0]);
    await waitFor(() => seen.length === 16, 20000, 'redelivered from 0');
    const res2 = await sender.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
      ResetOffsetRequestHeader.encode({ topic, group, timestamp: -1, isForce: false })), 5000);
    expect(res2.code).to.equal(ResponseCode.SUCCESS);
    for (const [, o] of decodeResetOffsetBody(res2.body!).offsetTable) expect(o).to.be.at.most(2);
  });

  it('CONSUMER_NOT_ONLINE when the group has offsets but no consumer; SYSTEM_ERROR for an unknown topic or group', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    await send(topic, 4, 'm');
    for (let q = 0; q < 4; q++) broker.consumerOffsetManager.commitOffset('test', group, topic, q, 1);
    const err = await admin.resetOffsetByTimestamp(topic, group, 0).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(MQClientError);
    expect((err as MQClientError).responseCode).to.equal(ResponseCode.CONSUMER_NOT_ONLINE);
    expect((err as MQClientError).message).to.contain(`Consumer not online, so can not reset offset, Group: ${group} Topic: ${topic} Timestamp: 0`);
    const noTopic = await sender.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
      ResetOffsetRequestHeader.encode({ topic: randomName('none'), group, timestamp: 0, isForce: true })), 5000);
    expect(noTopic.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(noTopic.remark).to.match(/^\[reset-offset\] reset offset failed, no topic in this broker/);
    const noGroup = await sender.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
      ResetOffsetRequestHeader.encode({ topic, group: 'nobody', timestamp: 0, isForce: true })), 5000);
    expect(noGroup.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(noGroup.remark).to.equal('THe consumer group <nobody> not exist');
  });

  it('INVOKE_BROKER_TO_GET_CONSUMER_STATUS gathers each consumer\'s offsets by client id; GET_CONSUMER_RUNNING_INFO reaches the client', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    await send(topic, 8, 'm');
    const seen: string[] = [];
    await startConsumer(topic, group, seen);
    await waitFor(() => seen.length === 8, 20000, '8 messages');
    const clientId = broker.consumerManager.getConsumerGroupInfo(group)!.getAllClientId()[0];
    const res = await sender.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
      GetConsumerStatusRequestHeader.encode({ topic, group })), 5000);
    expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
    const body = decodeGetConsumerStatusBody(res.body!);
    expect([...body.consumerTable.keys()]).to.deep.equal([clientId]);
    const offsets = body.consumerTable.get(clientId)!.map(([mq, o]) => [mq.queueId, o]).sort();
    expect(offsets).to.deep.equal([[0, 2], [1, 2], [2, 2], [3, 2]]);
    const other = await sender.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
      GetConsumerStatusRequestHeader.encode({ topic, group, clientAddr: 'someone-else' })), 5000);
    expect(decodeGetConsumerStatusBody(other.body!).consumerTable.size).to.equal(0);
    const none = await sender.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
      GetConsumerStatusRequestHeader.encode({ topic, group: 'nobody' })), 5000);
    expect(none.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(none.remark).to.equal('No Any Consumer online in the consumer group: [nobody]');

    const info = await admin.getConsumerRunningInfo(group, clientId, false);
    expect(info.properties.get('PROP_CONSUME_TYPE')).to.equal('CONSUME_PASSIVELY');
    expect(info.subscriptionSet.map((s) => s.topic)).to.include(topic);
    expect(info.mqTable.filter(([mq]) => mq.topic === topic).length).to.equal(4);
  });
});
