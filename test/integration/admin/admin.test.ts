/**
 * DefaultMQAdminExt and `rocketmq-ts admin` against startCluster (our name server + broker in process), or the
 * cluster at ROCKETMQ_NAMESRV_ADDR.
 */
import { expect } from 'chai';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';
import { newClient, sendHeader, sendRequest } from '../broker/broker-helpers';
import type { RemotingClient } from '../../../lib/transport/remoting-client';
import { ResponseCode } from '../../../protocol/code/response-code';
import { SendMessageResponseHeader } from '../../../protocol/header/send-message-response-header';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { runAdmin } from '../../../lib/cli/admin';
import { MQClientError } from '../../../lib/errors';

describe('admin against a cluster', function () {
  this.timeout(30000);
  let tc: TestCluster;
  let admin: DefaultMQAdminExt;
  let client: RemotingClient;
  let brokerAddr: string;
  const topic = randomName('AdminTopic');

  before(async () => {
    tc = await getCluster();
    admin = new DefaultMQAdminExt({ namesrvAddr: tc.namesrvAddr, instanceName: randomName('admin') });
    await admin.start();
    client = newClient();
    const info = await admin.examineBrokerClusterInfo();
    brokerAddr = [...info.brokerAddrTable.values()][0].brokerAddrs.get(0)!;
  });
  after(async () => {
    await admin.shutdown();
    await client.shutdown();
    await tc.stop();
  });

  it('creates a topic on the broker; the route reaches the name server', async () => {
    await admin.createAndUpdateTopicConfig(brokerAddr, newTopicConfig(topic, { readQueueNums: 2, writeQueueNums: 2 }));
    await waitFor(async () => (await admin.fetchAllTopicList()).topicList.includes(topic), 10000, 'topic in name server');
    const route = await admin.examineTopicRouteInfo(topic);
    expect(route.queueDatas[0]).to.include({ readQueueNums: 2, writeQueueNums: 2 });
  });

  it('topic stats, query by key and view by offset msgId after a send', async () => {
    const res = await client.invoke(brokerAddr, sendRequest('V2', sendHeader(topic, { KEYS: 'order-42', UNIQ_KEY: 'AC110001000000000000000000000042' }, 1), Buffer.from('payload')), 5000);
    expect(res.code).to.equal(ResponseCode.SUCCESS);
    const offsetMsgId = SendMessageResponseHeader.decode(res.extFields).msgId;
    // A Java broker dispatches to the consume queue asynchronously: wait for the offset rather than read it once.
    await waitFor(async () => (await admin.examineTopicStats(topic)).offsetTable.find(([q]) => q.queueId === 1)?.[1].maxOffset === 1, 10000, 'queue 1 max offset 1');
    const viewed = await admin.viewMessage(offsetMsgId);
    expect(viewed.body.toString()).to.equal('payload');
    expect(viewed.offsetMsgId).to.equal(offsetMsgId);
    await waitFor(async () => {
      try {
        return (await admin.queryMessage(topic, 'order-42', 32, 0, Date.now() + 1000)).messageList.length === 1;
      } catch {
        return false;
      }
    }, 5000, 'message indexed');
  });

  it('subscription groups; a group without consumers has no connection', async () => {
    const group = randomName('AdminGroup');
    await admin.createAndUpdateSubscriptionGroupConfig(brokerAddr, newSubscriptionGroupConfig(group, { retryMaxTimes: 5 }));
    await admin.deleteSubscriptionGroup(brokerAddr, group, true);
    try {
      await admin.examineConsumerConnectionInfo(group, brokerAddr);
      expect.fail('expected an error');
    } catch (err) {
      expect(err).to.be.instanceOf(Error);
    }
  });

  it('broker runtime info and config', async () => {
    const stats = await admin.fetchBrokerRuntimeStats(brokerAddr);
    expect(stats.table.size).to.be.greaterThan(0);
    const config = await admin.getBrokerConfig(brokerAddr);
    expect(config.get('brokerName')).to.be.a('string');
    await admin.updateBrokerConfig(brokerAddr, { fileReservedTime: '48' });
    expect((await admin.getBrokerConfig(brokerAddr)).get('fileReservedTime')).to.equal('48');
  });

  it('KV config round trip on the name server', async () => {
    await admin.putKVConfig('ADMIN_TEST', 'k', 'v');
    expect(await admin.getKVConfig('ADMIN_TEST', 'k')).to.equal('v');
    await admin.deleteKVConfig('ADMIN_TEST', 'k');
    try {
      await admin.getKVConfig('ADMIN_TEST', 'k');
      expect.fail('expected QUERY_NOT_FOUND');
    } catch (err) {
      expect((err as MQClientError).responseCode).to.equal(ResponseCode.QUERY_NOT_FOUND);
    }
  });

  it('the CLI: clusterList, topicStatus, brokerStatus', async () => {
    let out = '';
    const run = (...argv: string[]) => runAdmin(argv, { out: (s) => { out += s; }, err: () => undefined, env: {} });
    expect(await run('clusterList', '-n', tc.namesrvAddr)).to.equal(0);
    expect(out).to.include(brokerAddr);
    out = '';
    expect(await run('topicStatus', '-n', tc.namesrvAddr, '-t', topic)).to.equal(0);
    expect(out.split('\n')[0]).to.match(/^#Broker Name\s+#QID\s+#Min Offset\s+#Max Offset\s+#Last Updated$/);
    out = '';
    expect(await run('brokerStatus', '-n', tc.namesrvAddr, '-b', brokerAddr)).to.equal(0);
    expect(out).to.match(/putTps\s*:/);
  });

  it('deletes the topic from the broker and the name server', async () => {
    await admin.deleteTopicInBroker([brokerAddr], topic);
    await admin.deleteTopicInNameServer(null, topic);
    expect((await admin.fetchAllTopicList()).topicList).to.not.include(topic);
  });
});
