/**
 * ACL and TLS against real Java 4.9.8 (../shared/javaref):
 * - the Java client (harness, AclClientRPCHook, -Dtls.enable=true in Java's test mode) against OUR name server and
 *   broker in tls.server.mode=enforcing with aclEnable=true: signed sends and consumes pass, a DENY topic and a
 *   wrong secret are refused with Java's answers;
 * - a Java broker (aclEnable=true, -Dtls.server.mode=enforcing) registering over TLS with OUR enforcing name server,
 *   and OUR producer / consumer (useTLS, AclClientRPCHook) against it: the Java broker accepts our signatures and
 *   refuses what ours refuses, with the same remarks.
 * Skips with the reason when java or the javaref folder is missing.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { TEST_STORE_CONFIG } from '../../../lib/cluster';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { AclClientRPCHook } from '../../../lib/client/acl/acl-client-rpc-hook';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { CreateTopicRequestHeader } from '../../../protocol/header/create-topic-request-header';
import { createMessage } from '../../../protocol/message/message';
import { randomName, waitFor } from '../../helpers/cluster';
import { harnessLines, javaSkipReason, makeRunDir, runHarness, runMqadmin, startJavaBroker, startJavaNamesrv, type JavaBroker } from '../../helpers/javaref';
import { sendHeader, sendRequest } from '../broker/broker-helpers';

const ACL_YML = `accounts:
  - accessKey: rocketmqts
    secretKey: 12345678
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - AclTopic=PUB|SUB
      - AclDeny=DENY
  - accessKey: rmqadmin
    secretKey: 87654321
    admin: true
  - accessKey: rocketmq2
    secretKey: 12345678
    admin: true
`;
const USER = { accessKey: 'rocketmqts', secretKey: '12345678' };
const ADMIN = { accessKey: 'rmqadmin', secretKey: '87654321' };
const TLS_CLIENT = '-Dtls.enable=true';
const DENY_REMARK = 'org.apache.rocketmq.acl.common.AclException: No default permission for topic:AclDeny, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:611)';

async function createTopics(addr: string, useTLS: boolean): Promise<void> {
  const admin = new RemotingClient({ useTLS });
  admin.registerRPCHook(new AclClientRPCHook(ADMIN));
  try {
    for (const topic of ['AclTopic', 'AclDeny']) {
      const h = CreateTopicRequestHeader.encode({
        topic, defaultTopic: 'TBW102', readQueueNums: 4, writeQueueNums: 4, perm: 6, topicFilterType: 'SINGLE_TAG', topicSysFlag: 0, order: false,
      });
      const res = await admin.invoke(addr, RemotingCommand.createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, h), 10000);
      expect(res.code, res.remark ?? '').to.equal(0);
    }
  } finally {
    await admin.shutdown();
  }
}

describe('Java 4.9.8 and rocketmq-ts: ACL and TLS both ways', function () {
  this.timeout(240000);
  const skip = javaSkipReason('4.9.8');
  let root: string;
  let namesrv: NamesrvController;
  const cleanups: Array<() => Promise<void>> = [];

  before(async function () {
    if (skip) {
      console.log(`      skipped: ${skip}`);
      this.skip();
    }
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-java-acl-'));
    namesrv = new NamesrvController(
      { listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(root, 'kv.json'), configStorePath: path.join(root, 'ns.properties') },
      { tls: { tlsMode: 'enforcing' } },
    );
    await namesrv.start();
  });

  after(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
    await namesrv?.shutdown();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  describe('the Java client against our enforcing-TLS, ACL broker', () => {
    let broker: BrokerController;

    before(async () => {
      const home = path.join(root, 'home');
      fs.mkdirSync(path.join(home, 'conf'), { recursive: true });
      fs.writeFileSync(path.join(home, 'conf', 'plain_acl.yml'), ACL_YML);
      broker = new BrokerController({
        brokerConfig: { brokerName: 'ts-acl', brokerIP1: '127.0.0.1', listenPort: 0, namesrvAddr: namesrv.address, aclEnable: true, rocketmqHome: home, storePathRootDir: path.join(root, 'ts-store') },
        messageStoreConfig: { ...TEST_STORE_CONFIG, storePathRootDir: path.join(root, 'ts-store') },
        remotingServerConfig: { bindAddress: '127.0.0.1', tls: { tlsMode: 'enforcing' } },
      });
      await broker.start();
      await createTopics(broker.brokerAddr, true);
      await waitFor(() => namesrv.routeInfoManager.pickupTopicRouteData('AclDeny') !== null, 20000, 'the topics reach the name server');
    });

    // Unregisters from the name server, so the next part's topics route to the Java broker only.
    after(() => broker?.shutdown());

    it('signed sends and consumes pass over TLS; DENY topic and wrong secret get the Java answers', async () => {
      const ns = namesrv.address;
      const common = ['--namesrv', ns, '--retries', '0', '--send-timeout-ms', '20000', '--group', randomName('PG')];
      const ok = await runHarness(['produce', ...common, '--topic', 'AclTopic', '--count', '3', '--access-key', USER.accessKey, '--secret-key', USER.secretKey], { javaOpts: TLS_CLIENT });
      expect(harnessLines(ok.stdout, 'OK'), ok.stdout + ok.stderr).to.have.length(3);

      // The harness prints the producer's outer exception; the broker's answer is in the client log.
      const refused = async (topic: string, secretKey: string): Promise<string> => {
        const runDir = makeRunDir('rmq-harness-acl-');
        try {
          const r = await runHarness(['produce', ...common, '--topic', topic, '--count', '1', '--access-key', USER.accessKey, '--secret-key', secretKey], { javaOpts: TLS_CLIENT, runDir });
          expect(harnessLines(r.stdout, 'OK'), r.stdout).to.have.length(0);
          expect(harnessLines(r.stdout, 'FAIL'), r.stdout).to.have.length(1);
          return fs.readFileSync(path.join(runDir, 'logs', 'rocketmqlogs', 'rocketmq_client.log'), 'utf8');
        } finally {
          fs.rmSync(runDir, { recursive: true, force: true });
        }
      };
      expect(await refused('AclDeny', USER.secretKey)).to.contain(`CODE: 1  DESC: ${DENY_REMARK}`);
      expect(await refused('AclTopic', 'wrong-secret')).to.contain(
        'CODE: 1  DESC: org.apache.rocketmq.acl.common.AclException: Check signature failed for accessKey=rocketmqts, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)',
      );

      const consumed = await runHarness(['consume', '--namesrv', ns, '--topic', 'AclTopic', '--group', randomName('CG'), '--from', 'first', '--expect', '3', '--timeout', '60',
        '--access-key', USER.accessKey, '--secret-key', USER.secretKey], { javaOpts: TLS_CLIENT });
      expect(harnessLines(consumed.stdout, 'RECV'), consumed.stdout + consumed.stderr).to.have.length.of.at.least(3);
    });

    it("Java's mqadmin (signed with tools.yml's rocketmq2) manages our broker's ACL over TLS", async () => {
      const addr = broker.brokerAddr;
      const opts = { javaOpts: TLS_CLIENT };
      const up = await runMqadmin('4.9.8', ['updateAclConfig', '-n', namesrv.address, '-b', addr, '-a', 'javaMade1', '-s', 'javaSecret1', '-i', 'PUB', '-t', 'AclTopic=SUB'], opts);
      expect(up.stdout, up.stdout + up.stderr).to.contain(`create or update plain access config to ${addr} success.`);
      const made = broker.accessValidator!.aclPlugEngine.getAllAclConfig().plainAccessConfigs.find((c) => c.accessKey === 'javaMade1');
      expect(made).to.include({ secretKey: 'javaSecret1', defaultTopicPerm: 'PUB', admin: false });
      expect(made!.topicPerms).to.deep.equal(['AclTopic=SUB']);

      const versions = await runMqadmin('4.9.8', ['clusterAclConfigVersion', '-n', namesrv.address, '-b', addr], opts);
      expect(versions.stdout, versions.stdout + versions.stderr).to.contain("get broker's plain access config version success.");
      expect(versions.stdout).to.contain(path.join(root, 'home', 'conf', 'plain_acl.yml'));

      const del = await runMqadmin('4.9.8', ['deleteAccessConfig', '-n', namesrv.address, '-b', addr, '-a', 'javaMade1'], opts);
      expect(del.stdout, del.stdout + del.stderr).to.contain(`delete plain access config account from ${addr} success.`);
      expect(broker.accessValidator!.aclPlugEngine.getAllAclConfig().plainAccessConfigs.some((c) => c.accessKey === 'javaMade1')).to.equal(false);

      const topic = await runMqadmin('4.9.8', ['updateTopic', '-n', namesrv.address, '-b', addr, '-t', 'MadeByJavaAdmin'], opts);
      expect(topic.stdout, topic.stdout + topic.stderr).to.contain('create topic to');
      expect(broker.topicConfigManager.selectTopicConfig('MadeByJavaAdmin')).to.not.equal(undefined);
    });

    it('a plain (non-TLS) Java client cannot reach the enforcing servers', async () => {
      const r = await runHarness(['produce', '--namesrv', namesrv.address, '--topic', 'AclTopic', '--count', '1', '--retries', '0', '--send-timeout-ms', '3000',
        '--access-key', USER.accessKey, '--secret-key', USER.secretKey], { timeoutMs: 120000 });
      expect(harnessLines(r.stdout, 'OK'), r.stdout).to.have.length(0);
    });
  });

  describe('our client against a Java broker with ACL and enforcing TLS, registered with our TLS name server', () => {
    let jb: JavaBroker;

    before(async () => {
      const runDir = makeRunDir('rmq-java-acl-broker-');
      fs.mkdirSync(path.join(runDir, 'rocketmq-4.9.8-home', 'conf'), { recursive: true });
      fs.writeFileSync(path.join(runDir, 'rocketmq-4.9.8-home', 'conf', 'plain_acl.yml'), ACL_YML);
      cleanups.push(async () => fs.rmSync(runDir, { recursive: true, force: true }));
      jb = await startJavaBroker('4.9.8', {
        namesrvAddr: namesrv.address, runDir, conf: { aclEnable: true },
        javaOpts: '-Dtls.server.mode=enforcing -Dtls.enable=true',
      });
      cleanups.push(() => jb.stop());
      await waitFor(() => namesrv.routeInfoManager.queryBrokerTopicConfig(jb.addr) !== null, 60000, 'the Java broker registers over TLS');
      await createTopics(jb.addr, true);
      await waitFor(() => namesrv.routeInfoManager.pickupTopicRouteData('AclDeny')?.brokerDatas.some((b) => b.brokerName === jb.brokerName) ?? false, 60000, 'the topics reach the name server');
    });

    it('accepts our signatures over TLS, and refuses what ours refuses with the same remarks', async () => {
      const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: namesrv.address, instanceName: randomName('i'), useTLS: true, rpcHook: new AclClientRPCHook(USER), retryTimesWhenSendFailed: 0 });
      await p.start();
      cleanups.push(() => p.shutdown());
      const body = randomName('java-bound');
      const r = await p.send(createMessage('AclTopic', Buffer.from(body)));
      expect(r.sendStatus).to.equal('SEND_OK');
      expect(r.messageQueue.brokerName).to.equal(jb.brokerName);

      const tlsRaw = new RemotingClient({ useTLS: true });
      cleanups.push(() => tlsRaw.shutdown());
      const unsigned = await tlsRaw.invoke(jb.addr, sendRequest('V2', sendHeader('AclTopic'), Buffer.from('x')), 10000);
      expect(unsigned.code).to.equal(1);
      expect(unsigned.remark).to.equal('org.apache.rocketmq.acl.common.AclException: No accessKey is configured, org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:664)');
      const signed = new RemotingClient({ useTLS: true });
      signed.registerRPCHook(new AclClientRPCHook(USER));
      cleanups.push(() => signed.shutdown());
      const deny = await signed.invoke(jb.addr, sendRequest('V2', sendHeader('AclDeny'), Buffer.from('x')), 10000);
      expect(deny.code).to.equal(1);
      expect(deny.remark).to.equal(DENY_REMARK);
      const admin = await signed.invoke(jb.addr, RemotingCommand.createRequest(RequestCode.UPDATE_BROKER_CONFIG, null, Buffer.from('x=y\n')), 10000);
      expect(admin.remark).to.equal('org.apache.rocketmq.acl.common.AclException: Need admin permission for request code=25, but accessKey=rocketmqts is not, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:581)');

      const got: string[] = [];
      const c = new DefaultMQPushConsumer({
        consumerGroup: randomName('CG'), namesrvAddr: namesrv.address, instanceName: randomName('i'), useTLS: true, rpcHook: new AclClientRPCHook(USER),
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      });
      c.subscribe('AclTopic', '*');
      c.registerMessageListener(async (msgs) => {
        for (const m of msgs) got.push(m.body.toString());
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      });
      await c.start();
      cleanups.push(() => c.shutdown());
      await waitFor(() => got.includes(body), 60000, 'our TLS consumer reads from the Java broker');
    });
  });
  describe('our broker registering over TLS with a Java name server in enforcing mode', () => {
    it('the Java name server routes our TLS clients to our broker', async () => {
      const jns = await startJavaNamesrv('4.9.8', { javaOpts: '-Dtls.server.mode=enforcing' });
      cleanups.push(() => jns.stop());
      const store = path.join(root, 'ts-store-2');
      const b = new BrokerController({
        brokerConfig: { brokerName: 'ts-behind-java-ns', brokerIP1: '127.0.0.1', listenPort: 0, namesrvAddr: jns.addr, storePathRootDir: store },
        messageStoreConfig: { ...TEST_STORE_CONFIG, storePathRootDir: store },
        remotingServerConfig: { bindAddress: '127.0.0.1', tls: { tlsMode: 'enforcing' } },
      });
      await b.start();
      cleanups.push(() => b.shutdown());
      const topic = randomName('ViaJavaNs');
      const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: jns.addr, instanceName: randomName('i'), useTLS: true });
      await p.start();
      cleanups.push(() => p.shutdown());
      const admin = new RemotingClient({ useTLS: true });
      cleanups.push(() => admin.shutdown());
      const h = CreateTopicRequestHeader.encode({
        topic, defaultTopic: 'TBW102', readQueueNums: 4, writeQueueNums: 4, perm: 6, topicFilterType: 'SINGLE_TAG', topicSysFlag: 0, order: false,
      });
      expect((await admin.invoke(b.brokerAddr, RemotingCommand.createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, h), 10000)).code).to.equal(0);
      let sent = false;
      await waitFor(async () => {
        sent = await p.send(createMessage(topic, Buffer.from('via java ns'))).then((r) => r.sendStatus === 'SEND_OK', () => false);
        return sent;
      }, 60000, 'a send routed by the Java name server');
      expect(b.messageStore.getMaxOffsetInQueue(topic, 0) + b.messageStore.getMaxOffsetInQueue(topic, 1)
        + b.messageStore.getMaxOffsetInQueue(topic, 2) + b.messageStore.getMaxOffsetInQueue(topic, 3)).to.be.greaterThan(0);
    });
  });
});
