/**
 * `rocketmq-ts admin`: option parsing, Java printf formatting, version names, and commands run against our
 * NamesrvController with a scripted broker registered in it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { encodeKVTable } from '../../../protocol/body/kv-table';
import { encodeRegisterBrokerBody } from '../../../protocol/body/register-broker-body';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { encodeTopicStatsTable } from '../../../protocol/body/topic-stats-table';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { bodyCrc32 } from '../../../protocol/message/compression';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { runAdmin } from '../../../lib/cli/admin';
import { javaFormat, frontStringAtLeast, prettyFastjson, parseDateYMDHMSS } from '../../../lib/cli/java-format';
import { getVersionDesc, versionOrdinal } from '../../../lib/client/mq-version';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { RemotingClient, RemotingServer } from '../../../lib/transport';

describe('Java printf subset and MQVersion', () => {
  it('formats like java.util.Formatter', () => {
    expect(javaFormat('%-6s|%6s|%-4d|%04d|%.2f|%9.2f|%2.2f%n', 'ab', 'cd', 7, 42, 1.005 + 0.0001, 3.14159, 0.5)).to.equal('ab    |    cd|7   |0042|1.01|     3.14|0.50\n');
    expect(javaFormat('%s %s %s', null, true, new Map([[0, 'a:1']]))).to.equal('null true {0=a:1}');
    expect(javaFormat('100%%')).to.equal('100%');
    expect(frontStringAtLeast('abcdef', 3)).to.equal('abc');
    expect(prettyFastjson('{"a":[1,2],"b":{},"c":"x,{y}"}')).to.equal('{\n\t"a":[\n\t\t1,\n\t\t2\n\t],\n\t"b":{},\n\t"c":"x,{y}"\n}');
    expect(parseDateYMDHMSS('2024-01-02#03:04:05:006')).to.equal(new Date(2024, 0, 2, 3, 4, 5, 6).getTime());
  });

  it('maps version ordinals to Java enum names', () => {
    expect(getVersionDesc(409)).to.equal('V4_9_8');
    expect(getVersionDesc(0)).to.equal('V3_0_0_SNAPSHOT');
    expect(getVersionDesc(15)).to.equal('V3_0_0_FINAL');
    expect(getVersionDesc(194)).to.equal('V3_9_1_SNAPSHOT');
    expect(versionOrdinal('V5_0_0')).to.equal(413);
    expect(getVersionDesc(611)).to.equal('V5_9_9');
    expect(getVersionDesc(612)).to.equal('HIGHER_VERSION');
    expect(getVersionDesc(5000)).to.equal('HIGHER_VERSION');
  });
});

describe('rocketmq-ts admin', () => {
  let tmp: string;
  let namesrv: NamesrvController;
  let broker: RemotingServer;
  let brokerAddr: string;
  let registrar: RemotingClient;
  let received: RemotingCommand[];

  async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await runAdmin(argv, { out: (s) => { out += s; }, err: (s) => { err += s; }, env: {} });
    return { code, out, err };
  }

  beforeEach(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'admin-cli-'));
    namesrv = new NamesrvController({
      listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(tmp, 'kvConfig.json'), configStorePath: path.join(tmp, 'namesrv.properties'),
    });
    await namesrv.start();
    received = [];
    broker = new RemotingServer({ listenPort: 0, bindAddress: '127.0.0.1' });
    brokerAddr = `127.0.0.1:${await broker.listen()}`;
    const answer = (code: number, body: Buffer | null = null) => broker.registerProcessor(code, (req) => {
      received.push(req);
      return RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null, null, body);
    });
    answer(RequestCode.UPDATE_AND_CREATE_TOPIC);
    answer(RequestCode.DELETE_TOPIC_IN_BROKER);
    answer(RequestCode.GET_BROKER_RUNTIME_INFO, encodeKVTable({ table: new Map([
      ['putTps', '12.5 10.0 9.0'], ['getTransferedTps', '3.0 1 1'], ['brokerVersionDesc', 'V4_9_8'], ['sendThreadPoolQueueSize', '0'],
      ['sendThreadPoolQueueHeadWaitTimeMills', '0'], ['pullThreadPoolQueueSize', '0'], ['pullThreadPoolQueueHeadWaitTimeMills', '0'],
      ['pageCacheLockTimeMills', '0'], ['commitLogDiskRatio', '0.25'],
    ]) }));
    answer(RequestCode.GET_TOPIC_STATS_INFO, encodeTopicStatsTable({ offsetTable: [
      [{ topic: 'TopicA', brokerName: 'broker-a', queueId: 1 }, { minOffset: 0, maxOffset: 5, lastUpdateTimestamp: 0 }],
      [{ topic: 'TopicA', brokerName: 'broker-a', queueId: 0 }, { minOffset: 2, maxOffset: 9, lastUpdateTimestamp: 0 }],
    ] }));
    registrar = new RemotingClient();
    const table = new Map(['TopicA', 'TBW102'].map((t) => [t, newTopicConfig(t, { readQueueNums: 4, writeQueueNums: 4 })]));
    const body = encodeRegisterBrokerBody({ topicConfigSerializeWrapper: { topicConfigTable: table, dataVersion: { timestamp: 1, counter: 1 } }, filterServerList: [] });
    const cmd = RemotingCommand.createRequest(RequestCode.REGISTER_BROKER, {
      brokerName: 'broker-a', brokerAddr, clusterName: 'C1', haServerAddr: '127.0.0.1:1', brokerId: '0', compressed: 'false', bodyCrc32: String(bodyCrc32(body)),
    }, body);
    cmd.version = 409;
    expect((await registrar.invoke(namesrv.address, cmd, 3000)).code).to.equal(ResponseCode.SUCCESS);
  });

  afterEach(async () => {
    await registrar.shutdown();
    await broker.shutdown();
    await namesrv.shutdown();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('lists commands, refuses unknown ones and missing options', async () => {
    expect((await run('help')).out).to.include('clusterList').and.include('resetOffsetByTime');
    expect((await run('nope')).code).to.equal(2);
    const r = await run('topicRoute', '-n', namesrv.address);
    expect(r.code).to.equal(2);
    expect(r.err).to.include('Missing required option: t');
    expect((await run('topicList')).err).to.include('No name server address');
  });

  it('topicList and topicRoute -l', async () => {
    const list = await run('topicList', '-n', namesrv.address);
    expect(list.code).to.equal(0);
    expect(list.out.split('\n').filter((l) => l)).to.have.members(['TopicA', 'TBW102']);
    const route = await run('topicRoute', '-n', namesrv.address, '-t', 'TopicA', '-l');
    const lines = route.out.split('\n');
    expect(lines[0]).to.equal(javaFormat('%-45s %-32s %-50s %-10s %-11s %-5s', '#ClusterName', '#BrokerName', '#BrokerAddrs', '#ReadQueue', '#WriteQueue', '#Perm'));
    expect(lines[1]).to.equal(javaFormat('%-45s %-32s %-50s %-10s %-11s %-5s', 'C1', 'broker-a', `{0=${brokerAddr}}`, 4, 4, 6));
    expect(lines[2]).to.equal('-'.repeat(158));
    const json = await run('topicRoute', '-n', namesrv.address, '-t', 'TopicA');
    expect(json.out).to.match(/^\{\n\t"brokerDatas":\[/);
  });

  it('clusterList prints mqadmin\'s columns', async () => {
    const r = await run('clusterList', '-n', namesrv.address);
    expect(r.code, r.err).to.equal(0);
    const [header, row] = r.out.split('\n');
    expect(header).to.equal('#Cluster Name     #Broker Name            #BID  #Addr                  #Version                #InTPS(LOAD)       #OutTPS(LOAD) #PCWait(ms) #Hour #SPACE');
    expect(row).to.equal(javaFormat('%-16s  %-22s  %-4s  %-22s %-16s %19s %19s %10s %5s %6s', 'C1', 'broker-a', 0, brokerAddr, 'V4_9_8',
      '    12.50(0,0ms)', '     3.00(0,0ms)', '0', '0.00', '0.2500'));
  });

  it('topicStatus sorts the queues', async () => {
    const r = await run('topicStatus', '-n', namesrv.address, '-t', 'TopicA');
    const lines = r.out.split('\n');
    expect(lines[1]).to.equal(javaFormat('%-32s  %-4d  %-20d  %-20d    %s', 'broker-a', 0, 2, 9, ''));
    expect(lines[2]).to.equal(javaFormat('%-32s  %-4d  %-20d  %-20d    %s', 'broker-a', 1, 0, 5, ''));
  });

  it('updateTopic -c creates on every master of the cluster; deleteTopic removes from brokers and name server', async () => {
    const r = await run('updateTopic', '-n', namesrv.address, '-c', 'C1', '-t', 'NewT', '-r', '2', '-w', '3', '-p', '6');
    expect(r.code, r.err).to.equal(0);
    expect(r.out).to.equal(`create topic to ${brokerAddr} success.\n`
      + 'TopicConfig [topicName=NewT, readQueueNums=2, writeQueueNums=3, perm=RW-, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false]');
    expect(received[0].extFields).to.include({ topic: 'NewT', readQueueNums: '2', writeQueueNums: '3', perm: '6' });
    const bad = await run('updateTopic', '-n', namesrv.address, '-c', 'NoCluster', '-t', 'X');
    expect(bad.code).to.equal(1);
    expect(bad.err).to.include('UpdateTopicSubCommand command failed').and.include('Make sure the specified clusterName exists');
    const del = await run('deleteTopic', '-n', namesrv.address, '-c', 'C1', '-t', 'TopicA');
    expect(del.out).to.equal('delete topic [TopicA] from cluster [C1] success.\ndelete topic [TopicA] from NameServer success.\n');
    expect((await run('topicList', '-n', namesrv.address)).out).to.equal('TBW102\n');
  });

  it('updateKvConfig / deleteKvConfig / wipeWritePerm', async () => {
    expect((await run('updateKvConfig', '-n', namesrv.address, '-s', 'NS', '-k', 'K', '-v', 'V')).out).to.equal('create or update kv config to namespace success.\n');
    expect((await run('deleteKvConfig', '-n', namesrv.address, '-s', 'NS', '-k', 'K')).out).to.equal('delete kv config from namespace success.\n');
    expect((await run('wipeWritePerm', '-n', namesrv.address, '-b', 'broker-a')).out)
      .to.equal(`wipe write perm of broker[broker-a] in name server[${namesrv.address}] OK, 2\n`);
  });

  it('brokerStatus prints the runtime table sorted by key', async () => {
    const r = await run('brokerStatus', '-n', namesrv.address, '-b', brokerAddr);
    const lines = r.out.split('\n').filter((l) => l);
    expect(lines[0]).to.equal(javaFormat('%-32s: %s', 'brokerVersionDesc', 'V4_9_8'));
    expect(lines).to.have.length(9);
  });
});
