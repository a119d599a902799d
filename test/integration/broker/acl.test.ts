/**
 * A broker with aclEnable=true and a plain_acl.yml under its rocketmqHome, used by our producer, push consumer,
 * admin client and raw signed / unsigned requests: the permissions, the admin codes, hot reload of the file, a
 * malformed file, the aclConfig requests, and a fuzz of unsigned and mis-signed requests of every code.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCluster, type Cluster } from '../../../lib/cluster';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { AclClientRPCHook } from '../../../lib/client/acl/acl-client-rpc-hook';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { createMessage } from '../../../protocol/message/message';
import { CreateTopicRequestHeader } from '../../../protocol/header/create-topic-request-header';
import { GetBrokerAclConfigResponseHeader } from '../../../protocol/header/get-broker-acl-config-response-header';
import { randomName, waitFor } from '../../helpers/cluster';
import { sendHeader, sendRequest } from './broker-helpers';
import { runAdmin } from '../../../lib/cli/admin';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { MQBrokerError } from '../../../lib/errors';
import { benchProduce } from '../../../lib/cli/bench-produce';
import { PassThrough } from 'node:stream';
import { SimpleConsumer } from '../../../lib/consumer/simple-consumer';
import { MQClientAPI } from '../../../lib/client/mq-client-api';
import { ClientConfig } from '../../../lib/client/client-config';
import { ackMessage, popMessage } from '../../../lib/client/mq-client-api-pop';

const ACL_YML = `globalWhiteRemoteAddresses:
  - 10.10.103.*
accounts:
  - accessKey: userAAA1
    secretKey: secret-user
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - AclTopic=PUB|SUB
      - AclDeny=DENY
    groupPerms:
      - DenyGroup=DENY
  - accessKey: adminAAA
    secretKey: secret-admin
    admin: true
`;

const USER = { accessKey: 'userAAA1', secretKey: 'secret-user' };
const ADMIN = { accessKey: 'adminAAA', secretKey: 'secret-admin' };
const ACL_REMARK = /^org\.apache\.rocketmq\.acl\.common\.AclException: /;

describe('broker ACL (aclEnable=true) end to end', function () {
  this.timeout(60000);
  let home: string;
  let aclFile: string;
  let cluster: Cluster;
  let brokerAddr: string;
  let raw: RemotingClient;
  let signedUser: RemotingClient;
  let signedAdmin: RemotingClient;
  const closers: Array<() => Promise<void>> = [];

  before(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-acl-home-'));
    fs.mkdirSync(path.join(home, 'conf'));
    aclFile = path.join(home, 'conf', 'plain_acl.yml');
    fs.writeFileSync(aclFile, ACL_YML);
    cluster = await startCluster({ brokerConfig: { aclEnable: true, rocketmqHome: home } });
    brokerAddr = cluster.brokers[0].brokerAddr;
    raw = new RemotingClient();
    signedUser = new RemotingClient();
    signedUser.registerRPCHook(new AclClientRPCHook(USER));
    signedAdmin = new RemotingClient();
    signedAdmin.registerRPCHook(new AclClientRPCHook(ADMIN));
    for (const topic of ['AclTopic', 'AclDeny']) {
      const h = CreateTopicRequestHeader.encode({
        topic, defaultTopic: 'TBW102', readQueueNums: 4, writeQueueNums: 4, perm: 6, topicFilterType: 'SINGLE_TAG', topicSysFlag: 0, order: false,
      });
      const res = await signedAdmin.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, h), 5000);
      expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
    }
  });

  after(async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
    await raw?.shutdown();
    await signedUser?.shutdown();
    await signedAdmin?.shutdown();
    await cluster?.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  const engine = () => cluster.brokers[0].accessValidator!.aclPlugEngine;

  it('a signed producer sends to a PUB topic; a DENY topic and an unsigned producer are refused with Java answers', async () => {
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('i'), rpcHook: new AclClientRPCHook(USER), retryTimesWhenSendFailed: 0 });
    await p.start();
    closers.push(() => p.shutdown());
    const r = await p.send(createMessage('AclTopic', Buffer.from('hello acl'), { tags: 'T' }));
    expect(r.sendStatus).to.equal('SEND_OK');
    const err = await p.send(createMessage('AclDeny', Buffer.from('x'))).then(() => null, (e: Error) => e);
    expect(err, 'send to AclDeny must fail').to.not.equal(null);
    expect(String((err as { remark?: string }).remark ?? err!.message)).to.contain(
      'org.apache.rocketmq.acl.common.AclException: No default permission for topic:AclDeny, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)',
    );

    const unsigned = await raw.invoke(brokerAddr, sendRequest('V2', sendHeader('AclTopic'), Buffer.from('x')), 5000);
    expect(unsigned.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(unsigned.remark).to.equal('org.apache.rocketmq.acl.common.AclException: No accessKey is configured, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:664)');
    const wrong = new RemotingClient();
    wrong.registerRPCHook(new AclClientRPCHook({ accessKey: USER.accessKey, secretKey: 'not-the-secret' }));
    try {
      const res = await wrong.invoke(brokerAddr, sendRequest('V2', sendHeader('AclTopic'), Buffer.from('x')), 5000);
      expect(res.code).to.equal(ResponseCode.SYSTEM_ERROR);
      expect(res.remark).to.equal('org.apache.rocketmq.acl.common.AclException: Check signature failed for accessKey=userAAA1, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)');
    } finally {
      await wrong.shutdown();
    }
  });

  it('a signed push consumer consumes; a DENY group cannot even heartbeat', async () => {
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('i'), rpcHook: new AclClientRPCHook(USER) });
    await p.start();
    closers.push(() => p.shutdown());
    const body = randomName('body');
    await p.send(createMessage('AclTopic', Buffer.from(body)));
    const got: string[] = [];
    const c = new DefaultMQPushConsumer({
      consumerGroup: randomName('CG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('i'),
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', rpcHook: new AclClientRPCHook(USER),
    });
    c.subscribe('AclTopic', '*');
    c.registerMessageListener(async (msgs) => {
      for (const m of msgs) got.push(m.body.toString());
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await c.start();
    closers.push(() => c.shutdown());
    await waitFor(() => got.includes(body), 30000, 'the signed consumer receives the message');

    const hb = RemotingCommand.createRequest(RequestCode.GET_CONSUMER_LIST_BY_GROUP, { consumerGroup: 'DenyGroup' });
    const res = await signedUser.invoke(brokerAddr, hb, 5000);
    expect(res.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(res.remark).to.match(/No default permission for group:DenyGroup, .*checkPerm\(PlainPermissionManager\.java:611\)$/);
  });

  it('batches and the 5.x POP codes are checked like sends and pulls: PUB / SUB on the topic, SUB on the group', async () => {
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('i'), rpcHook: new AclClientRPCHook(USER), retryTimesWhenSendFailed: 0 });
    await p.start();
    closers.push(() => p.shutdown());
    const body = randomName('pop');
    const r = await p.send([createMessage('AclTopic', Buffer.from(body)), createMessage('AclTopic', Buffer.from(`${body}-2`))]);
    expect(r.sendStatus).to.equal('SEND_OK');
    const batchErr = await p.send([createMessage('AclDeny', Buffer.from('x')), createMessage('AclDeny', Buffer.from('y'))]).then(() => null, (e: Error) => e);
    expect(String((batchErr as { remark?: string } | null)?.remark ?? batchErr?.message)).to.contain('No default permission for topic:AclDeny');

    // a signed SimpleConsumer pops and acks a topic it may SUB
    const c = new SimpleConsumer({
      consumerGroup: randomName('CG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('i'), subscriptions: { AclTopic: '*' },
      awaitDuration: 500, initMode: 1, rpcHook: new AclClientRPCHook(USER),
    });
    await c.start();
    closers.push(() => c.shutdown());
    const got: string[] = [];
    await waitFor(async () => {
      for (const m of await c.receive(16, 10_000)) {
        got.push(m.body.toString());
        await c.ack(m);
      }
      return got.includes(body);
    }, 30000, 'the signed pop consumer receives and acks the message');

    // the same account may not pop a DENY topic, nor for a DENY group, nor ack there
    const api = new MQClientAPI(new ClientConfig({ namesrvAddr: cluster.namesrvAddr }), { rpcHook: new AclClientRPCHook(USER) });
    try {
      const pop = { queueId: -1, maxMsgNums: 1, invisibleTime: 1000, pollTime: 0, bornTime: Date.now(), initMode: 0 };
      const denyTopic = await popMessage(api, 'x', brokerAddr, { ...pop, consumerGroup: randomName('CG'), topic: 'AclDeny' }, 3000).catch((e: unknown) => e);
      expect(denyTopic).to.be.instanceOf(MQBrokerError);
      expect((denyTopic as MQBrokerError).responseCode).to.equal(ResponseCode.SYSTEM_ERROR);
      expect((denyTopic as MQBrokerError).remark).to.match(/No default permission for topic:AclDeny, .*checkPerm\(PlainPermissionManager\.java:611\)$/);
      const denyGroup = await popMessage(api, 'x', brokerAddr, { ...pop, consumerGroup: 'DenyGroup', topic: 'AclTopic' }, 3000).catch((e: unknown) => e);
      expect((denyGroup as MQBrokerError).remark).to.match(/No default permission for group:DenyGroup, /);
      // an ack answers the ACL refusal (the client, as Java's, reads every code but SUCCESS as NO_EXIST)
      const ackHeader = { consumerGroup: randomName('CG'), topic: 'AclDeny', queueId: '0', extraInfo: '0 1 2 3 x 0 0', offset: '0' };
      const ack = await signedUser.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.ACK_MESSAGE, ackHeader), 5000);
      expect(ack.code).to.equal(ResponseCode.SYSTEM_ERROR);
      expect(ack.remark).to.match(/No default permission for topic:AclDeny, /);
      expect((await ackMessage(api, brokerAddr, { ...ackHeader, queueId: 0, offset: 0 }, 3000)).status).to.equal('NO_EXIST');
    } finally {
      await api.shutdown();
    }
  });

  it('UPDATE_BROKER_CONFIG and topic deletion need an admin account; other admin reads need a signature', async () => {
    const update = () => RemotingCommand.createRequest(RequestCode.UPDATE_BROKER_CONFIG, null, Buffer.from('brokerPermission=6\n'));
    const anonymous = await raw.invoke(brokerAddr, update(), 5000);
    expect(anonymous.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(anonymous.remark).to.match(/No accessKey is configured/);
    const user = await signedUser.invoke(brokerAddr, update(), 5000);
    expect(user.code).to.equal(ResponseCode.SYSTEM_ERROR);
    expect(user.remark).to.equal('org.apache.rocketmq.acl.common.AclException: Need admin permission for request code=25, but accessKey=userAAA1 is not, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:581)');
    const admin = await signedAdmin.invoke(brokerAddr, update(), 5000);
    expect(admin.code, admin.remark ?? '').to.equal(ResponseCode.SUCCESS);
    const del = await signedUser.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.DELETE_TOPIC_IN_BROKER, { topic: 'AclTopic' }), 5000);
    expect(del.remark).to.match(/Need admin permission for request code=215/);
    expect(cluster.brokers[0].topicConfigManager.selectTopicConfig('AclTopic')).to.not.equal(undefined);
    const read = await signedUser.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_BROKER_CONFIG, null), 5000);
    expect(read.code).to.equal(ResponseCode.SUCCESS);
    // An unknown code passes the ACL first, as Java's default processor does.
    const unknownUnsigned = await raw.invoke(brokerAddr, RemotingCommand.createRequest(9999, null), 5000);
    expect(unknownUnsigned.code).to.equal(ResponseCode.SYSTEM_ERROR);
    const unknownSigned = await signedUser.invoke(brokerAddr, RemotingCommand.createRequest(9999, null), 5000);
    expect(unknownSigned.code).to.equal(ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
  });

  it('aclConfig requests: create an account, read versions and config, white-list an address, delete the account', async () => {
    const newAk = randomName('acct').slice(0, 20);
    const create = RemotingCommand.createRequest(RequestCode.UPDATE_AND_CREATE_ACL_CONFIG, {
      accessKey: newAk, secretKey: 'new-secret-1', admin: 'false', defaultTopicPerm: 'PUB', defaultGroupPerm: 'SUB', topicPerms: 'AclDeny=DENY,AclTopic=SUB',
    });
    const created = await signedAdmin.invoke(brokerAddr, create, 5000);
    expect(created.code, created.remark ?? '').to.equal(ResponseCode.SUCCESS);
    const fresh = new RemotingClient();
    fresh.registerRPCHook(new AclClientRPCHook({ accessKey: newAk, secretKey: 'new-secret-1' }));
    try {
      const ok = await fresh.invoke(brokerAddr, sendRequest('V2', sendHeader(randomName('AnyTopic')), Buffer.from('x')), 5000);
      expect(ok.code, ok.remark ?? '').to.equal(ResponseCode.SUCCESS);
      const sub = await fresh.invoke(brokerAddr, sendRequest('V2', sendHeader('AclTopic'), Buffer.from('x')), 5000);
      expect(sub.remark).to.match(/No default permission for topic:AclTopic/);

      const bad = await signedAdmin.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.UPDATE_AND_CREATE_ACL_CONFIG, { accessKey: 'short', secretKey: 'x' }), 5000);
      expect(bad.code).to.equal(ResponseCode.UPDATE_AND_CREATE_ACL_CONFIG_FAILED);
      expect(bad.remark).to.equal('The accessKey=short and secretKey=x cannot be null and length should longer than 6');

      const info = await signedUser.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_BROKER_CLUSTER_ACL_INFO, null), 5000);
      expect(info.code).to.equal(ResponseCode.SUCCESS);
      const h = GetBrokerAclConfigResponseHeader.decode(info.extFields);
      expect(JSON.parse(h.version).counter).to.be.greaterThan(0);
      expect(Object.keys(JSON.parse(h.allAclFileVersion!))).to.deep.equal([aclFile]);
      expect(h.brokerAddr).to.equal(brokerAddr);

      const all = await signedUser.invoke(brokerAddr, RemotingCommand.createRequest(54, null), 5000);
      const config = JSON.parse(all.body!.toString());
      expect(config.globalWhiteAddrs).to.deep.equal(['10.10.103.*']);
      expect(config.plainAccessConfigs.map((a: { accessKey: string }) => a.accessKey)).to.include.members(['userAAA1', 'adminAAA', newAk]);

      const white = await signedAdmin.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, {
        globalWhiteAddrs: '10.10.103.*,127.0.0.1', aclFileFullPath: aclFile,
      }), 5000);
      expect(white.code, white.remark ?? '').to.equal(ResponseCode.SUCCESS);
      const nowWhite = await raw.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_BROKER_CONFIG, null), 5000);
      expect(nowWhite.code).to.equal(ResponseCode.SUCCESS);
      const restore = await signedAdmin.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, {
        globalWhiteAddrs: '10.10.103.*', aclFileFullPath: aclFile,
      }), 5000);
      expect(restore.code).to.equal(ResponseCode.SUCCESS);
      const outside = await signedAdmin.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, {
        globalWhiteAddrs: '1.2.3.4', aclFileFullPath: '/etc/passwd',
      }), 5000);
      expect(outside.code).to.equal(ResponseCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED);

      const deleted = await signedAdmin.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.DELETE_ACL_CONFIG, { accessKey: newAk }), 5000);
      expect(deleted.code).to.equal(ResponseCode.SUCCESS);
      const gone = await fresh.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_BROKER_CONFIG, null), 5000);
      expect(gone.remark).to.equal(`org.apache.rocketmq.acl.common.AclException: No acl config for ${newAk}, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:668)`);
      const again = await signedAdmin.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.DELETE_ACL_CONFIG, { accessKey: newAk }), 5000);
      expect(again.code).to.equal(ResponseCode.DELETE_ACL_CONFIG_FAILED);
      expect(again.remark).to.equal(`The accesskey[${newAk}] corresponding to accessConfig has been deleted failed.`);
    } finally {
      await fresh.shutdown();
    }
  });

  it('DefaultMQAdminExt manages the ACL of a broker (signed by an admin account)', async () => {
    const admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: randomName('adm') }, { rpcHook: new AclClientRPCHook(ADMIN) });
    await admin.start();
    try {
      const before = await admin.examineBrokerClusterAclVersionInfo(brokerAddr);
      expect(before.brokerAddr).to.equal(brokerAddr);
      expect([...before.allAclConfigDataVersion.keys()]).to.deep.equal([aclFile]);
      await admin.createAndUpdatePlainAccessConfig(brokerAddr, { accessKey: 'viaAdmin1', secretKey: 'viaAdminSecret', defaultTopicPerm: 'SUB', topicPerms: ['AclTopic=PUB'] });
      const made = engine().getAllAclConfig().plainAccessConfigs.find((c) => c.accessKey === 'viaAdmin1');
      expect(made).to.include({ secretKey: 'viaAdminSecret', defaultTopicPerm: 'SUB', admin: false });
      const after = await admin.examineBrokerClusterAclVersionInfo(brokerAddr);
      expect(after.aclConfigDataVersion.counter).to.be.greaterThan(before.aclConfigDataVersion.counter);
      await admin.updateGlobalWhiteAddrConfig(brokerAddr, '10.10.103.*,10.10.104.*');
      expect(engine().getAllAclConfig().globalWhiteAddrs).to.deep.equal(['10.10.103.*', '10.10.104.*']);
      await admin.updateGlobalWhiteAddrConfig(brokerAddr, '10.10.103.*');
      await admin.deletePlainAccessConfig(brokerAddr, 'viaAdmin1');
      const err = await admin.deletePlainAccessConfig(brokerAddr, 'viaAdmin1').then(() => null, (e: Error) => e);
      expect(err).to.be.instanceOf(MQBrokerError);
      expect((err as MQBrokerError).responseCode).to.equal(ResponseCode.DELETE_ACL_CONFIG_FAILED);
    } finally {
      await admin.shutdown();
    }
  });

  it('hot reload: a changed file applies within the watch interval; a malformed one is reported and the old rules stay', async () => {
    const send = () => signedUser.invoke(brokerAddr, sendRequest('V2', sendHeader('AclTopic'), Buffer.from('x')), 5000);
    expect((await send()).code).to.equal(ResponseCode.SUCCESS);
    fs.writeFileSync(aclFile, fs.readFileSync(aclFile, 'utf8').replace('AclTopic=PUB|SUB', 'AclTopic=SUB'));
    // Java's AclFileWatchService looks every 5 s: the new rule is in force within one interval (plus the reload).
    await waitFor(async () => (await send()).code === ResponseCode.SYSTEM_ERROR, 15000, 'the reloaded rule refuses the send');
    expect((await send()).remark).to.match(/No default permission for topic:AclTopic/);

    const good = fs.readFileSync(aclFile, 'utf8');
    fs.writeFileSync(aclFile, `${good}\n  - accessKey: broken\n   secretKey: [unclosed\n`);
    const reloaded = await engine().checkFiles();
    expect(reloaded).to.equal(false);
    let loadError: Error | null = null;
    await engine().load().catch((e: Error) => {
      loadError = e;
    });
    expect(String(loadError)).to.match(/malformed ACL file .*plain_acl\.yml, line \d+/);
    // The rules in force are the last good ones.
    expect((await send()).remark).to.match(/No default permission for topic:AclTopic/);
    expect((await signedAdmin.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_BROKER_CONFIG, null), 5000)).code).to.equal(ResponseCode.SUCCESS);

    fs.writeFileSync(aclFile, good.replace('AclTopic=SUB', 'AclTopic=PUB|SUB'));
    expect(await engine().checkFiles()).to.equal(true);
    expect((await send()).code).to.equal(ResponseCode.SUCCESS);
  });

  it('CLI: admin and bench take --access-key / --secret-key and --tls', async () => {
    const out: string[] = [];
    const io = { out: (t: string) => { out.push(t); }, err: (t: string) => { out.push(t); } };
    const update = ['updateBrokerConfig', '-n', cluster.namesrvAddr, '-b', brokerAddr, '-k', 'maxDelayTime', '-v', '50'];
    expect(await runAdmin(update, io)).to.equal(1);
    expect(out.join('')).to.contain('No accessKey is configured');
    expect(await runAdmin([...update, '--access-key', USER.accessKey, '--secret-key', USER.secretKey], io)).to.equal(1);
    expect(await runAdmin([...update, '--access-key', ADMIN.accessKey, '--secret-key', ADMIN.secretKey, '--tls'], io)).to.equal(0);
    expect(cluster.brokers[0].brokerConfig.maxDelayTime).to.equal(50);
    expect(await runAdmin([...update, '--access-key', ADMIN.accessKey], io)).to.equal(2);
    const sink = new PassThrough();
    sink.resume();
    const bench = ['--namesrv', cluster.namesrvAddr, '--topic', 'AclTopic', '--count', '5', '--quiet'];
    expect(await benchProduce([...bench, '--access-key', USER.accessKey, '--secret-key', USER.secretKey, '--tls'], sink)).to.equal(0);
    expect(await benchProduce([...bench, '--tls'], sink)).to.equal(1);
  });

  it('fuzz: unsigned and mis-signed requests of every code are refused, and the broker stays up', async () => {
    const codes = [...new Set([...Object.values(RequestCode), 0, 54, 9999, -1, 32767])];
    const wrong = new RemotingClient();
    wrong.registerRPCHook(new AclClientRPCHook({ accessKey: USER.accessKey, secretKey: 'bad-secret' }));
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    try {
      for (const code of codes) {
        const ext: Record<string, string> = { topic: 'AclTopic', consumerGroup: `g${rnd() % 5}`, b: 'AclTopic', a: 'PG', clientID: 'c' };
        if (rnd() % 2) delete ext.topic;
        const body = rnd() % 3 === 0 ? Buffer.from(`{"garbage":${rnd()}`) : rnd() % 2 ? Buffer.alloc(rnd() % 64, rnd() % 256) : null;
        for (const [client, what] of [[raw, 'unsigned'], [wrong, 'mis-signed']] as const) {
          const res = await client.invoke(brokerAddr, RemotingCommand.createRequest(code, { ...ext }, body), 5000);
          expect(res.code, `${what} code ${code}: ${res.remark}`).to.equal(ResponseCode.SYSTEM_ERROR);
          expect(res.remark, `${what} code ${code}`).to.match(ACL_REMARK);
        }
      }
    } finally {
      await wrong.shutdown();
    }
    expect(cluster.brokers[0].isRunning).to.equal(true);
    const alive = await signedUser.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_BROKER_CONFIG, null), 5000);
    expect(alive.code).to.equal(ResponseCode.SUCCESS);
  });
});
