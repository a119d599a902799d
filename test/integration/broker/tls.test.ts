/**
 * A name server and a broker both in tls.server.mode=enforcing (the broker registers over TLS, as Java's
 * broker does when the mode is enforcing), with ACL on: our producer and consumer with useTLS and a signing hook
 * send and consume; a plain client is turned away. And the broker.conf keys that configure it.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { applyBrokerProperties } from '../../../lib/broker/broker-config';
import { TEST_STORE_CONFIG } from '../../../lib/cluster';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { AclClientRPCHook } from '../../../lib/client/acl/acl-client-rpc-hook';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { createMessage } from '../../../protocol/message/message';
import { randomName, waitFor } from '../../helpers/cluster';

describe('broker and name server over TLS (enforcing) with ACL', function () {
  this.timeout(60000);
  let root: string;
  let namesrv: NamesrvController;
  let broker: BrokerController;
  const closers: Array<() => Promise<void>> = [];

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-tls-cluster-'));
    fs.mkdirSync(path.join(root, 'conf'));
    fs.writeFileSync(path.join(root, 'conf', 'acl.yml'), `accounts:\n  - accessKey: tlsUser1\n    secretKey: tls-secret\n    defaultTopicPerm: PUB|SUB\n    defaultGroupPerm: SUB\n`);
    const conf = applyBrokerProperties(new Map([
      ['brokerName', 'broker-tls'], ['brokerIP1', '127.0.0.1'], ['listenPort', '0'], ['storePathRootDir', path.join(root, 'store')],
      ['aclEnable', 'true'], ['rocketmq.home.dir', root], ['rocketmq.acl.plain.file', 'conf/acl.yml'],
      ['tls.server.mode', 'enforcing'], ['tls.test.mode.enable', 'true'],
    ]));
    expect(conf.unknownKeys).to.deep.equal([]);
    expect(conf.remotingServerConfig.tls).to.deep.equal({ tlsMode: 'enforcing', tlsTestModeEnable: true });
    expect(conf.aclPlainFile).to.equal('conf/acl.yml');
    expect(conf.brokerConfig.rocketmqHome).to.equal(root);
    namesrv = new NamesrvController(
      { listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(root, 'kv.json'), configStorePath: path.join(root, 'ns.properties') },
      { tls: conf.remotingServerConfig.tls },
    );
    await namesrv.start();
    conf.brokerConfig.namesrvAddr = namesrv.address;
    broker = new BrokerController({
      brokerConfig: conf.brokerConfig,
      messageStoreConfig: { ...TEST_STORE_CONFIG, ...conf.messageStoreConfig },
      remotingServerConfig: { ...conf.remotingServerConfig, bindAddress: '127.0.0.1' },
      acl: { aclPlainFile: conf.aclPlainFile },
    });
    await broker.start();
  });

  after(async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
    await broker?.shutdown();
    await namesrv?.shutdown();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('the broker registered over TLS; signed TLS clients produce and consume; plain clients are closed', async () => {
    await waitFor(() => namesrv.routeInfoManager.queryBrokerTopicConfig(broker.brokerAddr) !== null, 10000, 'the broker registers over TLS');
    const hook = () => new AclClientRPCHook({ accessKey: 'tlsUser1', secretKey: 'tls-secret' });
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: namesrv.address, instanceName: randomName('i'), useTLS: true, rpcHook: hook() });
    await p.start();
    closers.push(() => p.shutdown());
    const topic = randomName('TlsTopic');
    const body = randomName('b');
    const r = await p.send(createMessage(topic, Buffer.from(body)));
    expect(r.sendStatus).to.equal('SEND_OK');
    const got: string[] = [];
    const c = new DefaultMQPushConsumer({
      consumerGroup: randomName('CG'), namesrvAddr: namesrv.address, instanceName: randomName('i'), useTLS: true, rpcHook: hook(),
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    c.subscribe(topic, '*');
    c.registerMessageListener(async (msgs) => {
      for (const m of msgs) got.push(m.body.toString());
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await c.start();
    closers.push(() => c.shutdown());
    await waitFor(() => got.includes(body), 30000, 'the TLS consumer receives the message');

    const plain = new RemotingClient({ connectTimeoutMillis: 2000 });
    closers.push(() => plain.shutdown());
    for (const addr of [namesrv.address, broker.brokerAddr]) {
      const err = await plain.invoke(addr, RemotingCommand.createRequest(RequestCode.GET_BROKER_CLUSTER_INFO, null), 3000).then(() => null, (e: Error) => e);
      expect(err, `plain request to ${addr}`).to.be.instanceOf(Error);
    }
  });
});
