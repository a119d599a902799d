/**
 * Mixed broker groups with the real Java 4.9.8 broker: our slave behind a Java SYNC_MASTER, and a Java slave behind
 * our SYNC_MASTER. Sends are acknowledged only once the other side's slave has them; after the master stops, a
 * consumer reads everything from the slave.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BrokerController } from '../../../lib/broker/broker-controller';
import { TEST_STORE_CONFIG, startCluster, type Cluster } from '../../../lib/cluster';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { SendStatus } from '../../../lib/client/send-result';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { decodeTopicConfigSerializeWrapper } from '../../../protocol/body/topic-config-serialize-wrapper';
import { createMessage } from '../../../protocol/message/message';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { randomName, waitFor } from '../../helpers/cluster';
import { freeBrokerPort, harnessLines, type JavaBroker, runHarness, runMqadmin, skipWithoutJava, startJavaBroker } from '../../helpers/javaref';

async function topicOn(addr: string, topic: string): Promise<boolean> {
  const rc = new RemotingClient({});
  try {
    const res = await rc.invoke(addr, RemotingCommand.createRequest(RequestCode.GET_ALL_TOPIC_CONFIG), 3000);
    return decodeTopicConfigSerializeWrapper(res.body!).topicConfigTable.has(topic);
  } catch {
    return false;
  } finally {
    await rc.shutdown();
  }
}

describe('ha: mixed groups with the Java 4.9.8 broker', function () {
  this.timeout(300_000);
  let cluster: Cluster | null = null;
  const javas: JavaBroker[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  skipWithoutJava('4.9.8');
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
    for (const j of javas.splice(0)) await j.stop();
    await cluster?.stop();
    cluster = null;
  });

  const producerOn = async (namesrvAddr: string) => {
    const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr, instanceName: randomName('p') });
    await p.start();
    cleanups.push(() => p.shutdown());
    return p;
  };

  it('our slave behind a Java SYNC_MASTER: sends wait for it; a Java consumer reads everything from it after the master stops', async () => {
    cluster = await startCluster({ brokers: 0 });
    const brokerName = randomName('mixA');
    const port = await freeBrokerPort();
    const master = await startJavaBroker('4.9.8', {
      namesrvAddr: cluster.namesrvAddr, brokerName, listenPort: port,
      conf: { brokerRole: 'SYNC_MASTER', brokerIP2: '127.0.0.1', flushDiskType: 'ASYNC_FLUSH' },
    });
    javas.push(master);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rmq-mix-slave-'));
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    const slave = new BrokerController({
      brokerConfig: { brokerName, brokerId: 1, brokerIP1: '127.0.0.1', namesrvAddr: cluster.namesrvAddr, listenPort: 0, storePathRootDir: dir },
      messageStoreConfig: { ...TEST_STORE_CONFIG, brokerRole: 'SLAVE', storePathRootDir: dir, mappedFileSizeCommitLog: 1024 * 1024 * 1024 },
      remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 },
      replication: { slaveSyncInitialDelayMillis: 100, slaveSyncIntervalMillis: 500 },
    });
    await slave.start();
    cleanups.push(() => slave.shutdown());
    await waitFor(() => slave.replication.haService.haClient.connected, 30_000, 'our slave connected to the Java master');
    const topic = randomName('MixT');
    const admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: randomName('a') });
    await admin.start();
    cleanups.push(() => admin.shutdown());
    await admin.createAndUpdateTopicConfig(master.addr, newTopicConfig(topic, { readQueueNums: 4, writeQueueNums: 4 }));
    const producer = await producerOn(cluster.namesrvAddr);
    await waitFor(async () => {
      try { await producer.send(createMessage(topic, 'warm')); return true; } catch { return false; }
    }, 30_000, 'route to the Java master');
    const n = 40;
    for (let i = 0; i < n; i++) {
      const r = await producer.send(createMessage(topic, `m${i}`, { keys: [`m${i}`] }));
      expect(r.sendStatus, `send ${i}`).to.equal(SendStatus.SEND_OK);
    }
    await waitFor(() => slave.topicConfigManager.selectTopicConfig(topic) !== undefined, 30_000, 'topic config copied from the Java master');
    const masterMax = slave.messageStore.getMaxPhyOffset();
    await master.stop('SIGTERM');
    javas.splice(javas.indexOf(master), 1);
    expect(slave.messageStore.getMaxPhyOffset()).to.equal(masterMax);
    // The Java 4.9.8 consumer finds only the slave in the route and reads from it.
    const res = await runHarness(['consume', '--namesrv', cluster.namesrvAddr, '--topic', topic, '--group', randomName('CG'),
      '--from', 'first', '--expect', String(n + 1), '--timeout', '90', '--quiet']);
    const consumed = harnessLines(res.stdout, 'CONSUMED');
    expect(consumed.length, res.stdout.slice(-2000) + res.stderr.slice(-2000)).to.equal(1);
    expect(consumed[0][1]).to.equal(`n=${n + 1}`);
  });

  it('a Java slave behind our SYNC_MASTER: sends wait for it; our consumer reads everything from it after our master stops', async () => {
    // A Java slave calls the master's VIP channel (listenPort - 2): give ours a port with that one free.
    cluster = await startCluster({
      brokers: 1, brokerRole: 'SYNC_MASTER', storeConfig: { mappedFileSizeCommitLog: 1024 * 1024 * 1024 },
      brokerConfig: { listenPort: await freeBrokerPort() },
    });
    const master = cluster.brokers[0];
    const brokerName = master.brokerConfig.brokerName;
    const slave = await startJavaBroker('4.9.8', {
      namesrvAddr: cluster.namesrvAddr, brokerName, brokerId: 1,
      conf: { brokerRole: 'SLAVE', brokerIP2: '127.0.0.1', flushDiskType: 'ASYNC_FLUSH' },
    });
    javas.push(slave);
    // The Java slave reports only after its first heartbeat interval (5 s).
    await waitFor(() => master.replication.haService.connectionCount === 1 &&
      [...master.replication.haService.connections].every((c) => c.slaveRequestOffset >= 0), 60_000, 'Java slave connected');
    const topic = randomName('MixT');
    const admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: randomName('a') });
    await admin.start();
    cleanups.push(() => admin.shutdown());
    await admin.createTopic('TBW102', topic, 4);
    const producer = await producerOn(cluster.namesrvAddr);
    const n = 40;
    for (let i = 0; i < n; i++) {
      const r = await producer.send(createMessage(topic, `m${i}`, { keys: [`m${i}`] }));
      expect(r.sendStatus, `send ${i}`).to.equal(SendStatus.SEND_OK);
    }
    await waitFor(() => topicOn(slave.addr, topic), 60_000, 'topic config copied by the Java slave (through our VIP channel)');
    await cluster.stopBroker(0);
    const seen = new Set<string>();
    const c = new DefaultMQPushConsumer({
      consumerGroup: randomName('CG'), namesrvAddr: cluster.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c'),
    });
    cleanups.push(() => c.shutdown());
    c.subscribe(topic, '*');
    c.registerMessageListener((msgs) => {
      for (const m of msgs) seen.add(m.body.toString());
      return 'CONSUME_SUCCESS';
    });
    await c.start();
    await waitFor(() => seen.size === n, 90_000, `all ${n} from the Java slave (${seen.size})`);
  });

  it('Java 4.9.8 clients on a master/slave pair of ours: SEND_OK from the SYNC_MASTER, then everything consumed from our slave', async () => {
    cluster = await startCluster({
      brokers: 1, slaves: 1, brokerRole: 'SYNC_MASTER',
      replication: { slaveSyncInitialDelayMillis: 100, slaveSyncIntervalMillis: 500 },
    });
    const master = cluster.brokers[0];
    const slave = cluster.slaves[0];
    await waitFor(() => master.replication.haService.connectionCount === 1, 30_000, 'our slave connected');
    const topic = randomName('MixT');
    const admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: randomName('a') });
    await admin.start();
    cleanups.push(() => admin.shutdown());
    await admin.createTopic('TBW102', topic, 4);
    const n = 30;
    const sent = await runHarness(['produce', '--namesrv', cluster.namesrvAddr, '--topic', topic, '--count', String(n), '--mode', 'sync', '--keys', 'k{i}', '--quiet']);
    expect(harnessLines(sent.stdout, 'SENT')[0]?.[1], sent.stdout.slice(-2000) + sent.stderr.slice(-2000)).to.equal(`ok=${n}`);
    expect(slave.messageStore.getMaxPhyOffset()).to.equal(master.messageStore.getMaxPhyOffset());
    await waitFor(() => slave.topicConfigManager.selectTopicConfig(topic) !== undefined, 30_000, 'topic config on the slave');
    // Java's mqadmin sees the group as it sees a Java pair: brokerIds 0 and 1, runtime info from both.
    const list = await runMqadmin('4.9.8', ['clusterList', '-n', cluster.namesrvAddr]);
    const bids = list.stdout.split('\n').filter((l) => l.includes(` ${master.brokerConfig.brokerName} `)).map((l) => l.trim().split(/\s+/)[2]).sort();
    expect(bids, list.stdout + list.stderr).to.deep.equal(['0', '1']);
    await cluster.stopBroker(0);
    const res = await runHarness(['consume', '--namesrv', cluster.namesrvAddr, '--topic', topic, '--group', randomName('CG'),
      '--from', 'first', '--expect', String(n), '--timeout', '90', '--quiet']);
    const consumed = harnessLines(res.stdout, 'CONSUMED');
    expect(consumed.length, res.stdout.slice(-2000) + res.stderr.slice(-2000)).to.equal(1);
    expect(consumed[0][1]).to.equal(`n=${n}`);
  });
});
