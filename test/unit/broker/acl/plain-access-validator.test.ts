import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RequestCode } from '../../../../protocol/code/request-code';
import { RemotingCommand } from '../../../../protocol/remoting-command';
import { encodeHeartbeatData } from '../../../../protocol/body/heartbeat-data';
import { AclClientRPCHook } from '../../../../lib/client/acl/acl-client-rpc-hook';
import { AclException } from '../../../../lib/errors';
import { PlainAccessValidator } from '../../../../lib/broker/acl/plain-access-validator';
import { setAclYamlPackageForTest } from '../../../../lib/broker/acl/plain-permission-manager';
import { checkPermission, parsePermFromString, Permission, checkResourcePerms } from '../../../../lib/broker/acl/permission';
import { getRemoteAddressStrategy } from '../../../../lib/broker/acl/remote-address-strategy';
import { frameIndex, goldenPath, readFrame } from '../../../helpers/golden';

const ACL_YML = `
globalWhiteRemoteAddresses:
  - 10.10.103.*
  - 192.168.0.{1,2}
accounts:
  - accessKey: RocketMQ
    secretKey: 12345678
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
      - topicP=PUB
    groupPerms:
      - groupA=DENY
      - groupB=PUB|SUB
      - groupC=SUB
  - accessKey: rocketmq2
    secretKey: 12345678
    whiteRemoteAddress: 192.168.1.*
    admin: true
  - accessKey: pubDefault
    secretKey: 87654321
    defaultTopicPerm: PUB
    defaultGroupPerm: DENY
`;

function tempHome(yml: string): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-acl-'));
  fs.mkdirSync(path.join(home, 'conf'));
  fs.writeFileSync(path.join(home, 'conf', 'plain_acl.yml'), yml);
  return home;
}

function signed(ak: string, sk: string, code: number, ext: Record<string, string>, body: Buffer | null = null): RemotingCommand {
  const req = RemotingCommand.createRequest(code, { ...ext }, body);
  new AclClientRPCHook({ accessKey: ak, secretKey: sk }).doBeforeRequest('x', req);
  return req;
}

function heartbeat(groups: Array<{ group: string; topics: string[] }>): Buffer {
  return encodeHeartbeatData({
    clientID: 'c1',
    producerDataSet: [],
    consumerDataSet: groups.map((g) => ({
      groupName: g.group, consumeType: 'CONSUME_PASSIVELY', messageModel: 'CLUSTERING', consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
      unitMode: false,
      subscriptionDataSet: g.topics.map((t) => ({ classFilterMode: false, topic: t, subString: '*', tagsSet: [], codeSet: [], subVersion: 1, expressionType: 'TAG' })),
    })),
  } as never);
}

describe('lib/broker/acl PlainAccessValidator', () => {
  let home: string;
  let validator: PlainAccessValidator;
  const check = (req: RemotingCommand, addr = '127.0.0.1:5555'): string | null => {
    try {
      validator.validate(validator.parse(req, addr));
      return null;
    } catch (err) {
      expect(err).to.be.instanceOf(AclException);
      return (err as AclException).javaExceptionDesc;
    }
  };
  const ok = (req: RemotingCommand, addr?: string) => expect(check(req, addr)).to.equal(null);
  const refused = (req: RemotingCommand, message: string, addr?: string) => {
    const remark = check(req, addr);
    expect(remark, 'expected a refusal').to.be.a('string');
    expect(remark).to.match(new RegExp(`^org\\.apache\\.rocketmq\\.acl\\.common\\.AclException: ${message.replace(/[|.*+?()[\]{}^$\\]/g, '\\$&')}, org\\.apache\\.rocketmq\\.acl\\.plain\\.`));
  };

  beforeEach(async () => {
    home = tempHome(ACL_YML);
    validator = new PlainAccessValidator({ fileHome: home });
    await validator.aclPlugEngine.load();
  });
  afterEach(async () => {
    await validator.shutdown();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('answers the golden 08-acl requests exactly as the Java 4.9.8 broker did', async () => {
    await validator.shutdown();
    const h = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-acl-golden-'));
    fs.mkdirSync(path.join(h, 'conf'));
    fs.copyFileSync(goldenPath('frames', '08-acl', 'plain_acl.yml'), path.join(h, 'conf', 'plain_acl.yml'));
    validator = new PlainAccessValidator({ fileHome: h });
    await validator.aclPlugEngine.load();
    const entries = frameIndex('08-acl').filter((e) => e.serverPort === 20911);
    let refusals = 0;
    let passes = 0;
    for (const e of entries.filter((x) => x.dir === 'c2s')) {
      const req = RemotingCommand.decodeFrame(readFrame('08-acl', e.file));
      const conn = e.file.split('/')[0];
      const respEntry = entries.find((r) => r.dir === 's2c' && r.file.startsWith(conn + '/') && r.header.opaque === req.opaque && ((r.header.flag as number) & 1) === 1);
      const remark = check(req);
      if (!respEntry) continue; // oneway
      const resp = RemotingCommand.decodeFrame(readFrame('08-acl', respEntry.file));
      if (resp.code === 1 && resp.remark?.startsWith('org.apache.rocketmq.acl')) {
        expect(remark, e.file).to.equal(resp.remark);
        refusals++;
      } else {
        expect(remark, e.file).to.equal(null);
        passes++;
      }
    }
    expect(refusals).to.equal(7);
    expect(passes).to.be.greaterThan(20);
    fs.rmSync(h, { recursive: true, force: true });
  });

  it('PUB: a send needs PUB on the topic (explicit, then the default topic perm)', () => {
    const send = (ak: string, sk: string, topic: string) => signed(ak, sk, RequestCode.SEND_MESSAGE_V2, { a: 'PG', b: topic, c: 'TBW102' }, Buffer.from('x'));
    ok(send('RocketMQ', '12345678', 'topicB'));
    ok(send('RocketMQ', '12345678', 'topicP'));
    refused(send('RocketMQ', '12345678', 'topicA'), 'No default permission for topic:topicA');
    refused(send('RocketMQ', '12345678', 'topicC'), 'No default permission for topic:topicC');
    refused(send('RocketMQ', '12345678', 'other'), 'No default permission for topic:other');
    ok(send('pubDefault', '87654321', 'anyTopic'));
    ok(signed('RocketMQ', '12345678', RequestCode.SEND_MESSAGE, { producerGroup: 'PG', topic: 'topicB' }));
    refused(signed('RocketMQ', '12345678', RequestCode.SEND_MESSAGE, { producerGroup: 'PG', topic: 'topicC' }), 'No default permission for topic:topicC');
  });

  it('retry groups: a send to %RETRY% needs SUB on the group, as do send-back, unregister and the consumer list', () => {
    const retrySend = (group: string) => signed('RocketMQ', '12345678', RequestCode.SEND_MESSAGE_V2, { a: group, b: `%RETRY%${group}` });
    ok(retrySend('groupB'));
    ok(retrySend('groupC'));
    ok(retrySend('groupX')); // defaultGroupPerm SUB
    refused(retrySend('groupA'), 'No default permission for group:groupA');
    refused(signed('RocketMQ', '12345678', RequestCode.CONSUMER_SEND_MSG_BACK, { group: 'groupA', offset: '1' }), 'No default permission for group:groupA');
    ok(signed('RocketMQ', '12345678', RequestCode.CONSUMER_SEND_MSG_BACK, { group: 'groupB', offset: '1' }));
    refused(signed('RocketMQ', '12345678', RequestCode.UNREGISTER_CLIENT, { clientID: 'c', consumerGroup: 'groupA' }), 'No default permission for group:groupA');
    ok(signed('RocketMQ', '12345678', RequestCode.UNREGISTER_CLIENT, { clientID: 'c', producerGroup: 'groupA' }));
    refused(signed('RocketMQ', '12345678', RequestCode.GET_CONSUMER_LIST_BY_GROUP, { consumerGroup: 'groupA' }), 'No default permission for group:groupA');
    refused(signed('pubDefault', '87654321', RequestCode.GET_CONSUMER_LIST_BY_GROUP, { consumerGroup: 'g' }), 'No default permission for group:g');
  });

  it('SUB: pull, query, offsets and heartbeats need SUB on topics and groups', () => {
    const pull = (topic: string, group: string) => signed('RocketMQ', '12345678', RequestCode.PULL_MESSAGE, { topic, consumerGroup: group, queueId: '0' });
    ok(pull('topicB', 'groupB'));
    ok(pull('topicC', 'groupC'));
    refused(pull('topicP', 'groupB'), 'No default permission for topic:topicP');
    refused(pull('topicB', 'groupA'), 'No default permission for group:groupA');
    // Both fail: Java's HashMap order decides which one is reported.
    refused(pull('topicA', 'groupA'), 'No default permission for topic:topicA');
    ok(signed('RocketMQ', '12345678', RequestCode.QUERY_MESSAGE, { topic: 'topicC', key: 'k' }));
    refused(signed('RocketMQ', '12345678', RequestCode.QUERY_MESSAGE, { topic: 'topicA', key: 'k' }), 'No default permission for topic:topicA');
    const upd = (topic: string, group: string) => signed('RocketMQ', '12345678', RequestCode.UPDATE_CONSUMER_OFFSET, { topic, consumerGroup: group, queueId: '1', commitOffset: '5' });
    ok(upd('topicC', 'groupC'));
    refused(upd('topicP', 'groupC'), 'No default permission for topic:topicP');
    refused(signed('RocketMQ', '12345678', RequestCode.UPDATE_CONSUMER_OFFSET, { topic: 't', consumerGroup: 'g' }), 'the custom field <queueId> is null');
    ok(signed('RocketMQ', '12345678', RequestCode.HEART_BEAT, {}, heartbeat([{ group: 'groupB', topics: ['topicB', 'topicC'] }])));
    refused(signed('RocketMQ', '12345678', RequestCode.HEART_BEAT, {}, heartbeat([{ group: 'groupB', topics: ['topicB', 'topicA'] }])), 'No default permission for topic:topicA');
    ok(signed('RocketMQ', '12345678', RequestCode.HEART_BEAT, {}, heartbeat([])));
  });

  it('codes 4.9.8 did not check: a batch needs PUB on its topic, and the 5.x POP codes SUB on the topic and the group', () => {
    const batch = (topic: string) => signed('RocketMQ', '12345678', RequestCode.SEND_BATCH_MESSAGE, { a: 'PG', b: topic, c: 'TBW102' }, Buffer.from('x'));
    ok(batch('topicB'));
    refused(batch('topicC'), 'No default permission for topic:topicC');
    refused(batch('other'), 'No default permission for topic:other');
    ok(signed('RocketMQ', '12345678', RequestCode.SEND_BATCH_MESSAGE, { a: 'groupB', b: '%RETRY%groupB' }));
    refused(signed('RocketMQ', '12345678', RequestCode.SEND_BATCH_MESSAGE, { a: 'groupA', b: '%RETRY%groupA' }), 'No default permission for group:groupA');
    for (const code of [RequestCode.POP_MESSAGE, RequestCode.PEEK_MESSAGE, RequestCode.ACK_MESSAGE, RequestCode.CHANGE_MESSAGE_INVISIBLETIME,
      RequestCode.NOTIFICATION, RequestCode.POLLING_INFO]) {
      const pop = (topic: string, group: string) => signed('RocketMQ', '12345678', code, { topic, consumerGroup: group, queueId: '-1', extraInfo: '0 1 2' });
      ok(pop('topicB', 'groupB'));
      ok(pop('topicC', 'groupX')); // defaultGroupPerm SUB
      refused(pop('topicP', 'groupB'), 'No default permission for topic:topicP');
      refused(pop('other', 'groupB'), 'No default permission for topic:other');
      refused(pop('topicB', 'groupA'), 'No default permission for group:groupA');
      // a pop of the group's retry topic is the group's
      ok(pop('%RETRY%groupB_topicA', 'groupB'));
      refused(pop('%RETRY%groupA_topicB', 'groupA'), 'No default permission for group:groupA');
      refused(signed('RocketMQ', '12345678', code, { topic: 'topicB' }), 'the custom field <consumerGroup> is null');
      refused(signed('pubDefault', '87654321', code, { topic: 'anyTopic', consumerGroup: 'g' }), 'No default permission for group:g');
      ok(signed('rocketmq2', '12345678', code, { topic: 'topicA', consumerGroup: 'groupA' }));
    }
  });

  it('DENY: an explicit DENY or a DENY default refuses even what another perm would allow', () => {
    expect(checkPermission(Permission.PUB, Permission.DENY | Permission.PUB)).to.equal(false);
    expect(checkPermission(Permission.ANY, Permission.SUB)).to.equal(true);
    expect(checkPermission(Permission.ANY, Permission.DENY)).to.equal(false);
    expect(parsePermFromString(null)).to.equal(Permission.DENY);
    expect(parsePermFromString(' SUB|PUB ')).to.equal(Permission.PUB | Permission.SUB);
    expect(parsePermFromString('READ')).to.equal(Permission.DENY);
    expect(() => checkResourcePerms(['a=READ'])).to.throw(AclException, /expected permissions/);
    expect(() => checkResourcePerms(['a'])).to.throw(AclException, /Res=Perm/);
  });

  it('admin-only codes need an admin account; other codes need only the signature', () => {
    for (const code of [RequestCode.UPDATE_AND_CREATE_TOPIC, RequestCode.UPDATE_BROKER_CONFIG, RequestCode.DELETE_TOPIC_IN_BROKER,
      RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, RequestCode.DELETE_SUBSCRIPTIONGROUP]) {
      refused(signed('RocketMQ', '12345678', code, { topic: 'x' }), `Need admin permission for request code=${code}, but accessKey=RocketMQ is not`);
      ok(signed('rocketmq2', '12345678', code, { topic: 'x' }));
    }
    ok(signed('RocketMQ', '12345678', RequestCode.GET_BROKER_CONFIG, {}));
    ok(signed('RocketMQ', '12345678', RequestCode.UPDATE_AND_CREATE_ACL_CONFIG, { accessKey: 'zzzzzzzz' }));
    // An admin without resource perms passes every resource.
    ok(signed('rocketmq2', '12345678', RequestCode.PULL_MESSAGE, { topic: 'topicA', consumerGroup: 'groupA' }));
  });

  it('signatures: unsigned, unknown key, wrong secret, tampered field or body are refused', () => {
    refused(RemotingCommand.createRequest(RequestCode.SEND_MESSAGE_V2, { a: 'PG', b: 'topicB' }), 'No accessKey is configured');
    refused(RemotingCommand.createRequest(RequestCode.GET_BROKER_CONFIG, null), 'No accessKey is configured');
    refused(signed('nobody77', '12345678', RequestCode.GET_BROKER_CONFIG, {}), 'No acl config for nobody77');
    refused(signed('RocketMQ', 'wrongsecret', RequestCode.GET_BROKER_CONFIG, {}), 'Check signature failed for accessKey=RocketMQ');
    const req = signed('RocketMQ', '12345678', RequestCode.SEND_MESSAGE_V2, { a: 'PG', b: 'topicB' }, Buffer.from('abc'));
    req.extFields!.b = 'topicC';
    refused(req, 'Check signature failed for accessKey=RocketMQ');
    const req2 = signed('RocketMQ', '12345678', RequestCode.SEND_MESSAGE_V2, { a: 'PG', b: 'topicB' }, Buffer.from('abc'));
    req2.body = Buffer.from('abd');
    refused(req2, 'Check signature failed for accessKey=RocketMQ');
    // _UNIQUE_KEY_QUERY is not part of the content the broker checks.
    const q = signed('RocketMQ', '12345678', RequestCode.QUERY_MESSAGE, { topic: 'topicC', key: 'k' });
    q.extFields!._UNIQUE_KEY_QUERY = 'true';
    ok(q);
    // RMQ_SYS_TRACE_TOPIC PUB skips the permission check.
    ok(signed('RocketMQ', '12345678', RequestCode.SEND_MESSAGE_V2, { a: 'PG', b: 'RMQ_SYS_TRACE_TOPIC' }));
  });

  it('white addresses: an account white address skips signature and perms; the global list skips everything', () => {
    const bad = signed('rocketmq2', 'wrong-secret', RequestCode.UPDATE_BROKER_CONFIG, {});
    ok(bad, '192.168.1.77:3333');
    refused(bad, 'Check signature failed for accessKey=rocketmq2', '192.168.2.77:3333');
    const unsigned = RemotingCommand.createRequest(RequestCode.DELETE_TOPIC_IN_BROKER, { topic: 'x' });
    ok(unsigned, '10.10.103.5:1');
    ok(unsigned, '192.168.0.2:1');
    refused(unsigned, 'No accessKey is configured', '192.168.0.3:1');
    refused(unsigned, 'No accessKey is configured', '10.10.104.5:1');
  });

  it('address patterns as RemoteAddressStrategyFactory reads them', () => {
    const m = (pattern: string, ip: string) => getRemoteAddressStrategy(pattern).match(ip);
    expect(m('*', '1.2.3.4')).to.equal(true);
    expect(m('', '1.2.3.4')).to.equal(false);
    expect(m('1.2.3.4', '1.2.3.4')).to.equal(true);
    expect(m('1.2.3.4', '1.2.3.5')).to.equal(false);
    expect(m('1.2.3.4,1.2.3.5', '1.2.3.5')).to.equal(true);
    expect(m('192.168.*.*', '192.168.9.1')).to.equal(true);
    expect(m('192.168.1-10.*', '192.168.10.1')).to.equal(true);
    expect(m('192.168.1-10.*', '192.168.11.1')).to.equal(false);
    expect(m('192.168.1.{1,2}', '192.168.1.2')).to.equal(true);
    expect(m('::1', '0:0:0:0:0:0:0:1')).to.equal(true);
    expect(m('1050:0000:0000:0000:0005:0600:300c:*', '1050::5:600:300c:326b')).to.equal(true);
    expect(() => getRemoteAddressStrategy('1.2.3')).to.throw(AclException);
    expect(() => getRemoteAddressStrategy('192.168.300-1.*')).to.throw(AclException);
  });

  it('an unparsable request is refused with the parse frame, not a crash', () => {
    const hb = signed('RocketMQ', '12345678', RequestCode.HEART_BEAT, {}, Buffer.from('{not json'));
    expect(check(hb)).to.match(/^org\.apache\.rocketmq\.acl\.common\.AclException: .*, org\.apache\.rocketmq\.acl\.plain\.PlainAccessValidator\.parse\(PlainAccessValidator\.java:134\)$/);
    refused(signed('RocketMQ', '12345678', RequestCode.UNREGISTER_CLIENT, {}), 'the custom field <clientID> is null');
  });
  it('without js-yaml (a server-side package, not installed with the SDK) loading is an AclException naming it', async () => {
    const other = new PlainAccessValidator({ fileHome: home });
    try {
      setAclYamlPackageForTest('rocketmq-ts-no-such-yaml-package');
      let err: unknown;
      await other.aclPlugEngine.load().catch((e: unknown) => { err = e; });
      expect(err).to.be.instanceOf(AclException);
      expect((err as Error).message).to.contain('npm install rocketmq-ts-no-such-yaml-package');
    } finally {
      setAclYamlPackageForTest();
      await other.shutdown();
    }
    // and with it again, the same files load
    await validator.aclPlugEngine.load();
    ok(signed('RocketMQ', '12345678', RequestCode.UNREGISTER_CLIENT, { clientID: 'c', producerGroup: 'PG' }));
  });
});
