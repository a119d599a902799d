import { expect } from 'chai';
import nock from 'nock';
import net from 'node:net';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { ClientConfig } from '../../../lib/client/client-config';
import type { MQConsumerInner } from '../../../lib/client/inner';
import { MQClientAPI } from '../../../lib/client/mq-client-api';
import { MQClientInstance } from '../../../lib/client/mq-client-instance';
import { MQClientManager } from '../../../lib/client/mq-client-manager';
import { TopAddressing, clearNewLine, getWSAddr } from '../../../lib/client/top-addressing';
import { MQClientError, TopicNotExistError } from '../../../lib/errors';
import { InstrumentationEmitter } from '../../../lib/instrumentation/emitter';
import type { ClientEvents } from '../../../lib/client/events';
import { type ScriptedCluster, startScriptedCluster } from '../../helpers/scripted-cluster';
import { waitFor } from '../transport/helpers';

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('lib/client MQClientAPI, MQClientInstance, MQClientManager', function () {
  this.timeout(10_000);
  let cluster: ScriptedCluster;
  const cleanups: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    cluster = await startScriptedCluster(1, { T: 2 });
  });

  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await cluster.stop();
    nock.cleanAll();
  });

  function api(namesrvAddr: string): MQClientAPI {
    const a = new MQClientAPI(new ClientConfig({ namesrvAddr, clientIP: '127.0.0.1' }));
    a.updateNameServerAddressList(namesrvAddr);
    cleanups.push(() => a.shutdown());
    return a;
  }

  it('gets a route, and TOPIC_NOT_EXIST as TopicNotExistError', async () => {
    const a = api(cluster.namesrvAddr);
    const route = await a.getTopicRouteInfoFromNameServer('T', 3000);
    expect(route.queueDatas[0].writeQueueNums).to.equal(2);
    expect(route.brokerDatas[0].brokerAddrs.get(0)).to.equal(cluster.brokers[0].addr);
    const err = await a.getTopicRouteInfoFromNameServer('Missing', 3000).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(TopicNotExistError);
    expect((err as TopicNotExistError).responseCode).to.equal(ResponseCode.TOPIC_NOT_EXIST);
  });

  it('skips a dead name server for the next one and keeps the live one chosen', async () => {
    const dead = `127.0.0.1:${await closedPort()}`;
    const a = api(`${dead};${cluster.namesrvAddr}`);
    for (let i = 0; i < 4; i++) await a.getTopicRouteInfoFromNameServer('T', 3000);
    expect(a.chosenNameServer).to.equal(cluster.namesrvAddr);
    expect(cluster.namesrvRequests).to.have.length(4);
  });

  it('without any name server, fails with NO_NAME_SERVER_EXCEPTION', async () => {
    const a = new MQClientAPI(new ClientConfig({ clientIP: '127.0.0.1' }, {}));
    cleanups.push(() => a.shutdown());
    const err = await a.getTopicRouteInfoFromNameServer('T', 1000).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(MQClientError);
    expect((err as MQClientError).responseCode).to.equal(10004);
  });

  it('fetches name servers over HTTP (Java URL, first line only) and applies them', async () => {
    expect(getWSAddr({})).to.equal('http://jmenv.tbsite.net:8080/rocketmq/nsaddr');
    expect(getWSAddr({ ROCKETMQ_NAMESRV_DOMAIN: 'ns.example:9000', ROCKETMQ_NAMESRV_DOMAIN_SUBGROUP: 'g' })).to.equal('http://ns.example:9000/rocketmq/g');
    expect(clearNewLine('  a;b\r\nc ')).to.equal('a;b');
    const scope = nock('http://jmenv.tbsite.net:8080').get('/rocketmq/nsaddr').reply(200, `${cluster.namesrvAddr}\n`);
    const a = new MQClientAPI(new ClientConfig({ clientIP: '127.0.0.1' }, {}), { wsAddr: getWSAddr({}) });
    cleanups.push(() => a.shutdown());
    expect(await a.fetchNameServerAddr()).to.equal(cluster.namesrvAddr);
    expect(a.getNameServerAddressList()).to.deep.equal([cluster.namesrvAddr]);
    scope.done();
    const route = await a.getTopicRouteInfoFromNameServer('T', 3000);
    expect(route.brokerDatas).to.have.length(1);
  });

  it('HTTP lookup: unit name suffix, and null on a non-200 answer', async () => {
    nock('http://ns.example:8080').get('/rocketmq/nsaddr-unit1').query({ nofix: '1' }).reply(200, '1.2.3.4:9876');
    expect(await new TopAddressing('http://ns.example:8080/rocketmq/nsaddr', 'unit1').fetchNSAddr()).to.equal('1.2.3.4:9876');
    nock('http://ns.example:8080').get('/rocketmq/nsaddr').reply(500, 'no');
    expect(await new TopAddressing('http://ns.example:8080/rocketmq/nsaddr').fetchNSAddr(false)).to.equal(null);
  });

  it('instance: route updates fill the broker table, emit client.route_updated, heartbeats reach the broker', async () => {
    const config = new ClientConfig({ namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: 'inst-test' });
    const instance = new MQClientInstance(config, config.buildMQClientId());
    cleanups.push(() => instance.shutdown());
    const emitter = new InstrumentationEmitter<ClientEvents>();
    const events: string[] = [];
    emitter.on('client.route_updated', (e) => events.push(e.payload.topic));
    instance.attachEmitter(emitter);
    await instance.start();
    const consumer = fakeConsumer('CG_1', 'T');
    expect(instance.registerConsumer('CG_1', consumer)).to.equal(true);
    expect(instance.registerConsumer('CG_1', consumer)).to.equal(false);
    expect(await instance.updateTopicRouteInfoFromNameServer('T')).to.equal(true);
    expect(await instance.updateTopicRouteInfoFromNameServer('T')).to.equal(false);
    expect(events).to.deep.equal(['T']);
    expect(consumer.subscribeInfo).to.have.length(2);
    expect(instance.findBrokerAddressInPublish('broker-a')).to.equal(cluster.brokers[0].addr);
    await instance.sendHeartbeatToAllBrokerWithLock();
    const hb = cluster.brokers[0].requests.find((r) => r.code === RequestCode.HEART_BEAT)!;
    const body = JSON.parse(hb.body!.toString()) as { clientID: string; consumerDataSet: Array<{ groupName: string }> };
    expect(body.clientID).to.equal(config.buildMQClientId());
    expect(body.consumerDataSet[0].groupName).to.equal('CG_1');
  });

  it('instance: a heartbeat asked for while one is in flight sends one more round, with the data as of the call', async () => {
    const config = new ClientConfig({ namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: 'inst-hb-rounds' });
    const instance = new MQClientInstance(config, config.buildMQClientId(), { rebalanceIntervalMillis: 60_000 });
    cleanups.push(() => instance.shutdown());
    await instance.start();
    const consumer = fakeConsumer('CG_HB', 'T');
    let subVersion = 1;
    consumer.subscriptions = () => [{ classFilterMode: false, topic: 'T', subString: '*', tagsSet: [], codeSet: [], subVersion, expressionType: 'TAG' }];
    instance.registerConsumer('CG_HB', consumer);
    await instance.updateTopicRouteInfoFromNameServer('T');
    // the broker holds the first heartbeat until the test lets it go
    const broker = cluster.brokers[0];
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const versions: number[] = [];
    broker.server.registerProcessor(RequestCode.HEART_BEAT, async (r) => {
      const body = JSON.parse(r.body!.toString()) as { consumerDataSet: Array<{ subscriptionDataSet: Array<{ subVersion: number }> }> };
      versions.push(body.consumerDataSet[0].subscriptionDataSet[0].subVersion);
      if (versions.length === 1) await gate;
      return RemotingCommand.createResponse(r, ResponseCode.SUCCESS);
    });
    const first = instance.sendHeartbeatToAllBrokerWithLock();
    await waitFor(() => versions.length === 1, 2000, 'the first heartbeat');
    subVersion = 2; // e.g. a rebalance changed the subscription's version while the first round is in flight
    let secondDone = false;
    const second = instance.sendHeartbeatToAllBrokerWithLock().then(() => { secondDone = true; });
    const third = instance.sendHeartbeatToAllBrokerWithLock();
    await new Promise((r) => setImmediate(r));
    expect(secondDone, 'settled before a round with version 2 was answered').to.equal(false);
    release();
    await Promise.all([first, second, third]);
    expect(versions).to.deep.equal([1, 2]);
  });

  it('dispatches NOTIFY_CONSUMER_IDS_CHANGED from the broker to a rebalance, and GET_CONSUMER_RUNNING_INFO to the consumer', async () => {
    const config = new ClientConfig({ namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: 'inst-notify' });
    const instance = new MQClientInstance(config, config.buildMQClientId(), { rebalanceIntervalMillis: 60_000 });
    cleanups.push(() => instance.shutdown());
    await instance.start();
    const consumer = fakeConsumer('CG_2', 'T');
    instance.registerConsumer('CG_2', consumer);
    await instance.updateTopicRouteInfoFromNameServer('T');
    await instance.sendHeartbeatToAllBrokerWithLock();
    const server = cluster.brokers[0].server;
    await waitFor(() => server.channels.length > 0);
    await server.invokeOneway(server.channels[0], RemotingCommand.createRequest(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, { consumerGroup: 'CG_2' }).markOneway());
    await waitFor(() => consumer.rebalances > 0, 2000, 'a rebalance');
    const info = await server.invoke(server.channels[0], RemotingCommand.createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, { consumerGroup: 'CG_2', clientId: 'x' }), 3000);
    expect(info.code).to.equal(ResponseCode.SUCCESS);
    const missing = await server.invoke(server.channels[0], RemotingCommand.createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, { consumerGroup: 'NOPE', clientId: 'x' }), 3000);
    expect(missing.code).to.equal(ResponseCode.SYSTEM_ERROR);
  });

  it('checkClientInBroker checks every SQL92 consumer, also those registered after one without subscriptions', async () => {
    const config = new ClientConfig({ namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: 'inst-check' });
    const instance = new MQClientInstance(config, config.buildMQClientId(), { rebalanceIntervalMillis: 60_000 });
    cleanups.push(() => instance.shutdown());
    await instance.start();
    const empty = fakeConsumer('CG_EMPTY', 'T');
    empty.subscriptions = () => [];
    const sql = fakeConsumer('CG_SQL', 'T');
    sql.subscriptions = () => [{ classFilterMode: false, topic: 'T', subString: 'a > 1', tagsSet: [], codeSet: [], subVersion: 1, expressionType: 'SQL92' }];
    instance.registerConsumer('CG_EMPTY', empty);
    instance.registerConsumer('CG_SQL', sql);
    await instance.updateTopicRouteInfoFromNameServer('T');
    const checked: string[] = [];
    cluster.brokers[0].server.registerProcessor(RequestCode.CHECK_CLIENT_CONFIG, (r) => {
      checked.push((JSON.parse(r.body!.toString()) as { group: string }).group);
      return RemotingCommand.createResponse(r, ResponseCode.SUCCESS);
    });
    await instance.checkClientInBroker();
    expect(checked).to.deep.equal(['CG_SQL']);
  });

  it('manager: one instance per client id, reference-counted', async () => {
    const manager = new MQClientManager();
    const c1 = new ClientConfig({ namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: 'mgr' });
    const c2 = new ClientConfig({ namesrvAddr: '127.0.0.1:1', clientIP: '127.0.0.1', instanceName: 'mgr' });
    const a = manager.acquire(c1);
    const b = manager.acquire(c2);
    expect(a).to.equal(b);
    expect(manager.refCount(a.clientId)).to.equal(2);
    await a.start();
    await manager.release(a);
    expect(a.isRunning).to.equal(true);
    await manager.release(b);
    expect(a.isRunning).to.equal(false);
    expect(manager.size).to.equal(0);
  });
});

function fakeConsumer(group: string, topic: string): MQConsumerInner & { rebalances: number; subscribeInfo: unknown[] } {
  const c = {
    rebalances: 0,
    subscribeInfo: [] as unknown[],
    groupName: () => group,
    messageModel: () => 'CLUSTERING' as const,
    consumeType: () => 'CONSUME_PASSIVELY' as const,
    consumeFromWhere: () => 'CONSUME_FROM_LAST_OFFSET' as const,
    subscriptions: () => [{ classFilterMode: false, topic, subString: '*', tagsSet: [], codeSet: [], subVersion: 1, expressionType: 'TAG' }],
    isUnitMode: () => false,
    doRebalance: () => { c.rebalances++; },
    persistConsumerOffset: () => undefined,
    updateTopicSubscribeInfo: (_t: string, mqs: unknown[]) => { c.subscribeInfo = mqs; },
    isSubscribeTopicNeedUpdate: () => false,
    consumerRunningInfo: () => ({ properties: new Map<string, string>(), subscriptionSet: [], mqTable: [], statusTable: new Map() }),
  };
  return c;
}
