/**
 * The name server over real sockets: registration and data versions, unregistration, expiry, a broker's
 * connection closing, KV config persistence, unknown codes and malformed requests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { decodeClusterInfo } from '../../../protocol/body/cluster-info';
import { decodeDataVersion, encodeDataVersion, type DataVersion } from '../../../protocol/body/data-version';
import { decodeKVTable } from '../../../protocol/body/kv-table';
import { encodeRegisterBrokerBody } from '../../../protocol/body/register-broker-body';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { decodeTopicList } from '../../../protocol/body/topic-list';
import { decodeTopicRouteData } from '../../../protocol/body/topic-route-data';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { type ExtFields, RemotingCommand } from '../../../protocol/remoting-command';
import { bodyCrc32 as javaCrc32 } from '../../../protocol/message/compression';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import type { NamesrvConfig } from '../../../lib/namesrv/namesrv-config';
import { parseNamesrvArgs, namesrvConfigFromArgs } from '../../../lib/cli/namesrv';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { waitFor } from '../../helpers/wait-for';

interface BrokerSpec {
  brokerName: string;
  brokerAddr: string;
  brokerId?: number;
  topics: Array<{ name: string; perm?: number; queues?: number; sysFlag?: number }>;
  dataVersion: DataVersion;
  compressed?: boolean;
  haServerAddr?: string;
}

function registerRequest(b: BrokerSpec, version = 409): RemotingCommand {
  const table = new Map(b.topics.map((t) => [t.name, newTopicConfig(t.name, {
    perm: t.perm ?? 6, readQueueNums: t.queues ?? 4, writeQueueNums: t.queues ?? 4, topicSysFlag: t.sysFlag ?? 0,
  })]));
  const body = encodeRegisterBrokerBody({ topicConfigSerializeWrapper: { topicConfigTable: table, dataVersion: b.dataVersion }, filterServerList: [] }, b.compressed === true);
  const cmd = RemotingCommand.createRequest(RequestCode.REGISTER_BROKER, {
    brokerName: b.brokerName, brokerAddr: b.brokerAddr, clusterName: 'C1', haServerAddr: b.haServerAddr ?? `${b.brokerAddr}1`,
    brokerId: String(b.brokerId ?? 0), compressed: String(b.compressed === true), bodyCrc32: String(javaCrc32(body)),
  }, body);
  cmd.version = version;
  return cmd;
}

describe('NamesrvController', () => {
  let tmp: string;
  let namesrv: NamesrvController;
  let clients: RemotingClient[];

  async function start(config: Partial<NamesrvConfig> = {}): Promise<void> {
    namesrv = new NamesrvController({
      listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(tmp, 'kv', 'kvConfig.json'),
      configStorePath: path.join(tmp, 'namesrv.properties'), ...config,
    });
    await namesrv.start();
  }
  function client(): RemotingClient {
    const c = new RemotingClient();
    clients.push(c);
    return c;
  }
  function call(c: RemotingClient, code: number, ext: ExtFields | null = null, body: Buffer | null = null, version?: number): Promise<RemotingCommand> {
    const cmd = RemotingCommand.createRequest(code, ext, body);
    if (version !== undefined) cmd.version = version;
    return c.invoke(namesrv.address, cmd, 3000);
  }
  const route = (c: RemotingClient, topic: string) => call(c, RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic });

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'namesrv-'));
    clients = [];
  });
  afterEach(async () => {
    for (const c of clients) await c.shutdown();
    await namesrv?.shutdown();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('start and shutdown are idempotent and expose the bound address', async () => {
    await start();
    await Promise.all([namesrv.start(), namesrv.start()]);
    expect(namesrv.port).to.be.greaterThan(0);
    expect(namesrv.address).to.equal(`127.0.0.1:${namesrv.port}`);
    await Promise.all([namesrv.shutdown(), namesrv.shutdown()]);
    expect(namesrv.isRunning).to.equal(false);
  });

  it('registers, applies a topic change only with a new data version, answers QUERY_DATA_VERSION', async () => {
    await start();
    const broker = client();
    const c = client();
    const v1 = { timestamp: 1000, counter: 1 };
    expect((await broker.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.1:10911', topics: [{ name: 'T1' }], dataVersion: v1 }), 3000)).code).to.equal(0);
    let r = decodeTopicRouteData((await route(c, 'T1')).body as Buffer);
    expect(r.queueDatas).to.deep.equal([{ brokerName: 'b1', perm: 6, readQueueNums: 4, writeQueueNums: 4, topicSysFlag: 0 }]);
    expect([...r.brokerDatas[0].brokerAddrs]).to.deep.equal([[0, '10.0.0.1:10911']]);
    // Same data version, different content: Java ignores the topic table.
    await broker.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.1:10911', topics: [{ name: 'T1', queues: 8 }], dataVersion: v1 }), 3000);
    r = decodeTopicRouteData((await route(c, 'T1')).body as Buffer);
    expect(r.queueDatas[0].readQueueNums).to.equal(4);
    // A new data version: applied (compressed body this time).
    const v2 = { timestamp: 2000, counter: 2 };
    await broker.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.1:10911', topics: [{ name: 'T1', queues: 8 }, { name: 'T2' }], dataVersion: v2, compressed: true }), 3000);
    r = decodeTopicRouteData((await route(c, 'T1')).body as Buffer);
    expect(r.queueDatas[0].readQueueNums).to.equal(8);
    expect((await route(c, 'T2')).code).to.equal(0);
    const q = await call(broker, RequestCode.QUERY_DATA_VERSION, { brokerName: 'b1', brokerAddr: '10.0.0.1:10911', clusterName: 'C1', brokerId: '0' }, encodeDataVersion(v2));
    expect(q.extFields?.changed).to.equal('false');
    expect(decodeDataVersion(q.body as Buffer)).to.deep.equal(v2);
    const q2 = await call(broker, RequestCode.QUERY_DATA_VERSION, { brokerName: 'b1', brokerAddr: '10.0.0.1:10911', clusterName: 'C1', brokerId: '0' }, encodeDataVersion(v1));
    expect(q2.extFields?.changed).to.equal('true');
  });

  it('answers old clients with fastjson keys and 5.x clients asking acceptStandardJsonOnly with standard JSON', async () => {
    await start();
    const broker = client();
    await broker.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.1:10911', topics: [{ name: 'T1' }], dataVersion: { timestamp: 1, counter: 0 } }), 3000);
    const old = await call(broker, RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'T1' }, null, 373);
    expect(old.body?.toString()).to.contain('"brokerAddrs":{0:"10.0.0.1:10911"}');
    const std = await call(broker, RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'T1', acceptStandardJsonOnly: 'true' }, null, 373);
    expect(std.body?.toString()).to.contain('"brokerAddrs":{"0":"10.0.0.1:10911"}');
    expect(JSON.parse(std.body?.toString() as string).queueDatas[0].brokerName).to.equal('b1');
  });

  it('adds orderTopicConf when orderMessageEnable, from the ORDER_TOPIC_CONFIG namespace', async () => {
    await start({ orderMessageEnable: true });
    const c = client();
    await c.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.1:10911', topics: [{ name: 'O1' }], dataVersion: { timestamp: 1, counter: 0 } }), 3000);
    expect(decodeTopicRouteData((await route(c, 'O1')).body as Buffer).orderTopicConf).to.equal(undefined);
    await call(c, RequestCode.PUT_KV_CONFIG, { namespace: 'ORDER_TOPIC_CONFIG', key: 'O1', value: 'b1:4' });
    expect(decodeTopicRouteData((await route(c, 'O1')).body as Buffer).orderTopicConf).to.equal('b1:4');
  });

  it('unregisters a broker, wipes and adds write perm, lists and deletes topics', async () => {
    await start();
    const c = client();
    await c.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.1:10911', topics: [{ name: 'T1' }, { name: 'U1', sysFlag: 1 }], dataVersion: { timestamp: 1, counter: 0 } }), 3000);
    await c.invoke(namesrv.address, registerRequest({ brokerName: 'b2', brokerAddr: '10.0.0.2:10911', topics: [{ name: 'T1' }], dataVersion: { timestamp: 1, counter: 0 } }), 3000);
    expect(decodeTopicRouteData((await route(c, 'T1')).body as Buffer).brokerDatas.map((b) => b.brokerName).sort()).to.deep.equal(['b1', 'b2']);
    const wipe = await call(c, RequestCode.WIPE_WRITE_PERM_OF_BROKER, { brokerName: 'b1' });
    expect(wipe.extFields?.wipeTopicCount).to.equal('2');
    let qd = decodeTopicRouteData((await route(c, 'T1')).body as Buffer).queueDatas.find((q) => q.brokerName === 'b1');
    expect(qd?.perm).to.equal(4);
    expect((await call(c, RequestCode.ADD_WRITE_PERM_OF_BROKER, { brokerName: 'b1' })).extFields?.addTopicCount).to.equal('2');
    qd = decodeTopicRouteData((await route(c, 'T1')).body as Buffer).queueDatas.find((q) => q.brokerName === 'b1');
    expect(qd?.perm).to.equal(6);
    expect(decodeTopicList((await call(c, RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)).body as Buffer).topicList.sort()).to.deep.equal(['T1', 'U1']);
    expect(decodeTopicList((await call(c, RequestCode.GET_UNIT_TOPIC_LIST)).body as Buffer).topicList).to.deep.equal(['U1']);
    expect(decodeTopicList((await call(c, RequestCode.GET_TOPICS_BY_CLUSTER, { cluster: 'C1' })).body as Buffer).topicList.sort()).to.deep.equal(['T1', 'U1']);
    const sys = decodeTopicList((await call(c, RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_NS)).body as Buffer);
    expect(sys.topicList.sort()).to.deep.equal(['C1', 'b1', 'b2']);
    expect(sys.brokerAddr).to.be.a('string');

    expect((await call(c, RequestCode.UNREGISTER_BROKER, { brokerName: 'b2', brokerAddr: '10.0.0.2:10911', clusterName: 'C1', brokerId: '0' })).code).to.equal(0);
    expect(decodeTopicRouteData((await route(c, 'T1')).body as Buffer).brokerDatas.map((b) => b.brokerName)).to.deep.equal(['b1']);
    expect([...decodeClusterInfo((await call(c, RequestCode.GET_BROKER_CLUSTER_INFO)).body as Buffer).clusterAddrTable.get('C1') ?? []]).to.deep.equal(['b1']);
    expect((await call(c, RequestCode.DELETE_TOPIC_IN_NAMESRV, { topic: 'T1', clusterName: 'C1' })).code).to.equal(0);
    expect((await route(c, 'T1')).code).to.equal(ResponseCode.TOPIC_NOT_EXIST);
  });

  it('removes a broker at once when its connection closes', async () => {
    await start();
    const broker = new RemotingClient();
    await broker.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.1:10911', topics: [{ name: 'T1' }], dataVersion: { timestamp: 1, counter: 0 } }), 3000);
    const c = client();
    expect((await route(c, 'T1')).code).to.equal(0);
    await broker.shutdown();
    await waitFor(async () => (await route(c, 'T1')).code === ResponseCode.TOPIC_NOT_EXIST, 5000, 'the route to disappear');
    expect(namesrv.routeInfoManager.brokerLiveTable.size).to.equal(0);
    expect(namesrv.routeInfoManager.clusterAddrTable.size).to.equal(0);
  });

  it('expires a silent broker after brokerChannelExpiredTime (short timers) and closes its channel', async () => {
    await start({ scanNotActiveBrokerInterval: 30, brokerChannelExpiredTime: 150 });
    const broker = client();
    let closed = false;
    broker.on('close', () => { closed = true; });
    await broker.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.1:10911', topics: [{ name: 'T1' }], dataVersion: { timestamp: 1, counter: 0 } }), 3000);
    const c = client();
    expect((await route(c, 'T1')).code).to.equal(0);
    await waitFor(async () => (await route(c, 'T1')).code === ResponseCode.TOPIC_NOT_EXIST, 5000, 'expiry');
    await waitFor(async () => closed, 5000, 'the broker channel to close');
  });

  it('slave registration answers the master address and HA address', async () => {
    await start();
    const c = client();
    const m = await c.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.1:10911', haServerAddr: '10.0.0.1:10912', topics: [{ name: 'T1' }], dataVersion: { timestamp: 1, counter: 0 } }), 3000);
    expect(m.extFields ?? {}).to.deep.equal({});
    const s = await c.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.3:10911', brokerId: 1, topics: [{ name: 'T1' }], dataVersion: { timestamp: 1, counter: 0 } }), 3000);
    expect(s.extFields).to.deep.equal({ masterAddr: '10.0.0.1:10911', haServerAddr: '10.0.0.1:10912' });
  });

  it('ignores a master registration whose state version is older than the registered master\'s (Java 5.x), takes a newer one', async () => {
    await start();
    const c = client();
    const master = () => namesrv.routeInfoManager.brokerAddrTable.get('b1')?.brokerAddrs.get(0);
    // the new leader (term 7) registered; the old one (term 6), resumed after a pause, still registers as master
    await c.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.2:10911', topics: [{ name: 'T1' }], dataVersion: { timestamp: 2, counter: 1, stateVersion: 7 } }), 3000);
    const stale = await c.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.1:10911', topics: [{ name: 'T1' }], dataVersion: { timestamp: 1, counter: 5, stateVersion: 6 } }), 3000);
    expect(stale.code).to.equal(ResponseCode.SUCCESS);
    expect(master()).to.equal('10.0.0.2:10911');
    expect(namesrv.routeInfoManager.brokerLiveTable.has('10.0.0.1:10911')).to.equal(false);
    // the same term or a newer one replaces it (a 4.x broker sends none: 0, as before)
    await c.invoke(namesrv.address, registerRequest({ brokerName: 'b1', brokerAddr: '10.0.0.3:10911', topics: [{ name: 'T1' }], dataVersion: { timestamp: 3, counter: 1, stateVersion: 8 } }), 3000);
    expect(master()).to.equal('10.0.0.3:10911');
    await c.invoke(namesrv.address, registerRequest({ brokerName: 'b2', brokerAddr: '10.0.1.1:10911', topics: [{ name: 'T2' }], dataVersion: { timestamp: 1, counter: 0 } }), 3000);
    await c.invoke(namesrv.address, registerRequest({ brokerName: 'b2', brokerAddr: '10.0.1.2:10911', topics: [{ name: 'T2' }], dataVersion: { timestamp: 1, counter: 0 } }), 3000);
    expect(namesrv.routeInfoManager.brokerAddrTable.get('b2')?.brokerAddrs.get(0)).to.equal('10.0.1.2:10911');
  });

  it('KV config: put, get, list, delete; persisted in Java format with a .bak; reloaded after a restart', async () => {
    await start();
    const c = client();
    expect((await call(c, RequestCode.PUT_KV_CONFIG, { namespace: 'NS1', key: 'k1', value: 'v1' })).code).to.equal(0);
    expect((await call(c, RequestCode.PUT_KV_CONFIG, { namespace: 'NS1', key: 'k2', value: 'v2' })).code).to.equal(0);
    expect((await call(c, RequestCode.GET_KV_CONFIG, { namespace: 'NS1', key: 'k1' })).extFields?.value).to.equal('v1');
    const missing = await call(c, RequestCode.GET_KV_CONFIG, { namespace: 'NS1', key: 'nope' });
    expect(missing.code).to.equal(ResponseCode.QUERY_NOT_FOUND);
    expect(missing.remark).to.equal('No config item, Namespace: NS1 Key: nope');
    expect([...decodeKVTable((await call(c, RequestCode.GET_KVLIST_BY_NAMESPACE, { namespace: 'NS1' })).body as Buffer).table]).to.deep.equal([['k1', 'v1'], ['k2', 'v2']]);
    expect((await call(c, RequestCode.GET_KVLIST_BY_NAMESPACE, { namespace: 'NONE' })).remark).to.equal('No config item, Namespace: NONE');
    expect((await call(c, RequestCode.DELETE_KV_CONFIG, { namespace: 'NS1', key: 'k2' })).code).to.equal(0);
    const file = path.join(tmp, 'kv', 'kvConfig.json');
    expect(fs.readFileSync(file, 'utf8')).to.equal('{"configTable":{"NS1":{"k1":"v1"}}}');
    expect(fs.readFileSync(`${file}.bak`, 'utf8')).to.equal('{"configTable":{"NS1":{"k1":"v1","k2":"v2"}}}');
    expect(fs.existsSync(`${file}.tmp`)).to.equal(false);
    await c.shutdown();
    await namesrv.shutdown();
    await start();
    const c2 = client();
    expect((await call(c2, RequestCode.GET_KV_CONFIG, { namespace: 'NS1', key: 'k1' })).extFields?.value).to.equal('v1');
    expect((await call(c2, RequestCode.GET_KV_CONFIG, { namespace: 'NS1', key: 'k2' })).code).to.equal(ResponseCode.QUERY_NOT_FOUND);
  });

  it('reloads a kvConfig.json written by Java', async () => {
    fs.mkdirSync(path.join(tmp, 'kv'));
    fs.writeFileSync(path.join(tmp, 'kv', 'kvConfig.json'), '{"configTable":{"ORDER_TOPIC_CONFIG":{"OrderTopic":"broker-cap:2"}}}');
    await start();
    const r = await call(client(), RequestCode.GET_KV_CONFIG, { namespace: 'ORDER_TOPIC_CONFIG', key: 'OrderTopic' });
    expect(r.extFields?.value).to.equal('broker-cap:2');
  });

  it('UPDATE_NAMESRV_CONFIG refuses blacklisted keys, applies and persists others; GET_NAMESRV_CONFIG lists them', async () => {
    await start();
    const c = client();
    const refused = await call(c, RequestCode.UPDATE_NAMESRV_CONFIG, null, Buffer.from('kvConfigPath=/etc/x\n'));
    expect(refused.code).to.equal(ResponseCode.NO_PERMISSION);
    expect(refused.remark).to.equal('Can not update config in black list.');
    expect((await call(c, RequestCode.UPDATE_NAMESRV_CONFIG, null, Buffer.from('orderMessageEnable=true\n'))).code).to.equal(0);
    expect(namesrv.config.orderMessageEnable).to.equal(true);
    expect(fs.readFileSync(path.join(tmp, 'namesrv.properties'), 'utf8')).to.contain('orderMessageEnable=true\n');
    expect((await call(c, RequestCode.GET_NAMESRV_CONFIG)).body?.toString()).to.contain('orderMessageEnable=true\n');
  });

  it('answers unknown codes REQUEST_CODE_NOT_SUPPORTED and malformed requests SYSTEM_ERROR, and stays up', async () => {
    await start();
    const c = client();
    const unknown = await call(c, 9999);
    expect(unknown.code).to.equal(ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    expect(unknown.remark).to.equal(' request type 9999 not supported');
    const ext = { brokerName: 'b1', brokerAddr: '10.0.0.1:10911', clusterName: 'C1', haServerAddr: 'x', brokerId: '0', compressed: 'false', bodyCrc32: '0' };
    const bad = await call(c, RequestCode.REGISTER_BROKER, ext, Buffer.from('{"topicConfigSerializeWrapper":{'));
    expect(bad.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(bad.remark).to.contain('Failed to decode RegisterBrokerBody');
    const badZip = await call(c, RequestCode.REGISTER_BROKER, { ...ext, compressed: 'true' }, Buffer.from('not deflate'));
    expect(badZip.code).to.equal(ResponseCode.SYSTEM_ERROR);
    const crc = await call(c, RequestCode.REGISTER_BROKER, { ...ext, bodyCrc32: '12345' }, Buffer.from('{}'));
    expect(crc.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(crc.remark).to.equal('crc32 not match');
    const noTopic = await call(c, RequestCode.GET_ROUTEINFO_BY_TOPIC, {});
    expect(noTopic.code).to.equal(ResponseCode.SYSTEM_ERROR);
    const badVersion = await call(c, RequestCode.QUERY_DATA_VERSION, { brokerName: 'b1', brokerAddr: 'a', clusterName: 'C1', brokerId: '0' }, Buffer.from('[1,'));
    expect(badVersion.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect((await call(c, RequestCode.GET_BROKER_CLUSTER_INFO)).code).to.equal(0);
    expect(namesrv.routeInfoManager.brokerAddrTable.size).to.equal(0);
  });

  it('CLI arguments: -c properties file, -p port, --option=value', async () => {
    const file = path.join(tmp, 'namesrv.properties');
    fs.writeFileSync(file, 'listenPort=19999\norderMessageEnable=true\nkvConfigPath=/data/kv.json\n');
    const args = parseNamesrvArgs(['-c', file, '-p', '0', '--scanNotActiveBrokerInterval=500']);
    const config = await namesrvConfigFromArgs(args);
    expect(config.listenPort).to.equal(0);
    expect(config.orderMessageEnable).to.equal(true);
    expect(config.kvConfigPath).to.equal('/data/kv.json');
    expect(config.scanNotActiveBrokerInterval).to.equal(500);
    expect(() => parseNamesrvArgs(['-x'])).to.throw('unknown option');
    await namesrvConfigFromArgs(parseNamesrvArgs(['--nope=1'])).then(() => expect.fail('accepted'), (err: Error) => expect(err.message).to.contain('nope'));
  });
});
