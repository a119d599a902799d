/**
 * Request parity of the admin client: what our DefaultMQAdminExt sends for each mqadmin command of the 06-admin
 * capture (consumerProgress, topicStatus, brokerStatus, queryMsgByKey, topicList, getBrokerConfig, updateSubGroup,
 * updateKvConfig), compared with what the Java 4.9.8 mqadmin sent; the captured answers are replayed and decoded.
 *
 * Intended differences: mqadmin ran with its default ACL hook (AccessKey `rocketmq2` + Signature extFields); our
 * admin has no RPC hook here, so those two keys are left out of the comparison. mqadmin also sent
 * UNREGISTER_CLIENT of CLIENT_INNER_PRODUCER on exit (its MQClientInstance had started the inner producer); ours
 * is compared only for the requests of the commands.
 */
import { expect } from 'chai';
import { RequestCode } from '../../../protocol/code/request-code';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { javaExchanges, type ReplayCluster, type ReplayServer, startReplayCluster } from './replay-cluster';

const S = '06-admin';
const ACL_KEYS = new Set(['AccessKey', 'Signature']);

function keysOf(cmd: RemotingCommand): string[] {
  return Object.keys(cmd.extFields ?? {}).filter((k) => !ACL_KEYS.has(k)).sort();
}

function valuesOf(cmd: RemotingCommand): Record<string, string> {
  return Object.fromEntries(Object.entries(cmd.extFields ?? {}).filter(([k]) => !ACL_KEYS.has(k)));
}

describe('compat: our admin client sends what mqadmin 4.9.8 sent (06-admin)', function () {
  this.timeout(20_000);
  let cluster: ReplayCluster;
  let admin: DefaultMQAdminExt;

  beforeEach(async () => {
    cluster = await startReplayCluster('03-consume');
    admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `admin-parity-${Math.random()}` });
    await admin.start();
  });
  afterEach(async () => {
    await admin.shutdown();
    await cluster.stop();
  });

  /** The one Java exchange of `code`; `server` answers ours with its captured response. */
  function java(code: number, server: ReplayServer): { request: RemotingCommand; response: RemotingCommand } {
    const all = javaExchanges(S, code);
    expect(all, `captured ${code}`).to.have.length.greaterThan(0);
    server.replay(code, all[0].response);
    return all[0];
  }

  function expectSameRequest(ours: RemotingCommand, j: RemotingCommand): void {
    expect(keysOf(ours), `keys of ${j.code}`).to.deep.equal(keysOf(j));
    expect(valuesOf(ours), `values of ${j.code}`).to.deep.equal(valuesOf(j));
    expect(ours.flag, `flag of ${j.code}`).to.equal(j.flag);
    expect(ours.language).to.equal('JAVA');
    expect((ours.body ?? Buffer.alloc(0)).length === 0, `body presence of ${j.code}`).to.equal((j.body ?? Buffer.alloc(0)).length === 0);
  }

  it('consumerProgress: route of %RETRY%CG_ALL, then GET_CONSUME_STATS with consumerGroup only', async () => {
    cluster.route('%RETRY%CG_ALL', S);
    const j = java(RequestCode.GET_CONSUME_STATS, cluster.broker);
    const stats = await admin.examineConsumeStats('CG_ALL');
    const routeAsk = cluster.namesrv.of(RequestCode.GET_ROUTEINFO_BY_TOPIC)[0];
    expect(routeAsk.extFields!.topic).to.equal('%RETRY%CG_ALL');
    expectSameRequest(cluster.broker.of(RequestCode.GET_CONSUME_STATS)[0], j.request);
    // The captured body (fastjson object keys) decodes: CapTopic's four queues and the retry queue.
    expect(stats.offsetTable.length).to.equal(5);
    const q3 = stats.offsetTable.find(([mq]) => mq.topic === 'CapTopic' && mq.queueId === 3)!;
    expect(q3[1]).to.include({ brokerOffset: 4, consumerOffset: 4 });
    expect(stats.consumeTps).to.equal(0);
  });

  it('topicStatus: GET_TOPIC_STATS_INFO with topic', async () => {
    cluster.route('CapTopic', S);
    const j = java(RequestCode.GET_TOPIC_STATS_INFO, cluster.broker);
    const stats = await admin.examineTopicStats('CapTopic');
    expectSameRequest(cluster.broker.of(RequestCode.GET_TOPIC_STATS_INFO)[0], j.request);
    const q0 = stats.offsetTable.find(([mq]) => mq.queueId === 0)!;
    expect(q0[1]).to.include({ minOffset: 0, maxOffset: 9 });
  });

  it('brokerStatus: GET_BROKER_RUNTIME_INFO with no extFields, the KV table decoded', async () => {
    const j = java(RequestCode.GET_BROKER_RUNTIME_INFO, cluster.broker);
    const table = await admin.fetchBrokerRuntimeStats(cluster.broker.addr);
    expectSameRequest(cluster.broker.of(RequestCode.GET_BROKER_RUNTIME_INFO)[0], j.request);
    const parsed = JSON.parse(j.response.body!.toString('utf8')) as { table: Record<string, string> };
    expect(table.table.get('brokerVersion')).to.equal(parsed.table.brokerVersion);
    expect(table.table.size).to.equal(Object.keys(parsed.table).length);
  });

  it('getBrokerConfig: GET_BROKER_CONFIG with no extFields, the properties body decoded', async () => {
    const j = java(RequestCode.GET_BROKER_CONFIG, cluster.broker);
    const config = await admin.getBrokerConfig(cluster.broker.addr);
    expectSameRequest(cluster.broker.of(RequestCode.GET_BROKER_CONFIG)[0], j.request);
    expect(config.get('brokerName')).to.equal('broker-cap');
    expect(config.get('listenPort')).to.equal('20911');
  });

  it('queryMsgByKey: QUERY_MESSAGE with every Java field, _UNIQUE_KEY_QUERY=false included', async () => {
    cluster.route('CapTopic', S);
    const j = java(RequestCode.QUERY_MESSAGE, cluster.broker);
    const result = await admin.queryMessage('CapTopic', 'key-1', 64, 0, Number(j.request.extFields!.endTimestamp));
    const ours = cluster.broker.of(RequestCode.QUERY_MESSAGE)[0];
    expect(keysOf(ours)).to.deep.equal(keysOf(j.request));
    expect(ours.extFields!._UNIQUE_KEY_QUERY).to.equal('false');
    for (const k of ['topic', 'key', 'maxNum', 'beginTimestamp']) expect(ours.extFields![k], k).to.equal(j.request.extFields![k]);
    // Java passes Long.MAX_VALUE; ours is the number the caller gave (2^63-1 does not fit a JS number exactly).
    expect(ours.extFields!.endTimestamp).to.match(/^\d+$/);
    expect(result.messageList).to.have.length(1);
    expect(result.messageList[0].properties.KEYS).to.equal('key-1');
    expect(result.indexLastUpdateTimestamp).to.equal(Number(j.response.extFields!.indexLastUpdateTimestamp));
  });

  it('topicList: GET_ALL_TOPIC_LIST_FROM_NAMESERVER with no extFields', async () => {
    const j = java(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, cluster.namesrv);
    const list = await admin.fetchAllTopicList();
    expectSameRequest(cluster.namesrv.of(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)[0], j.request);
    expect(list.topicList).to.include('CapTopic');
  });

  it('updateSubGroup: UPDATE_AND_CREATE_SUBSCRIPTIONGROUP body in fastjson key order with the same values', async () => {
    const j = java(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, cluster.broker);
    // mqadmin updateSubGroup starts from consumeBroadcastEnable=false, consumeFromMinEnable=false.
    await admin.createAndUpdateSubscriptionGroupConfig(cluster.broker.addr, newSubscriptionGroupConfig('SUBG_NEW', { consumeBroadcastEnable: false, consumeFromMinEnable: false }));
    const ours = cluster.broker.of(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP)[0];
    expectSameRequest(ours, j.request);
    expect(ours.body!.toString('utf8')).to.equal(j.request.body!.toString('utf8'));
  });

  it('updateKvConfig: PUT_KV_CONFIG with namespace, key, value', async () => {
    const j = java(RequestCode.PUT_KV_CONFIG, cluster.namesrv);
    await admin.putKVConfig('NS1', 'k1', 'v1');
    expectSameRequest(cluster.namesrv.of(RequestCode.PUT_KV_CONFIG)[0], j.request);
  });

});
