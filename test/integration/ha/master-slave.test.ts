import { expect } from 'chai';
import fs from 'node:fs/promises';
import path from 'node:path';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { ResponseCode } from '../../../protocol/code/response-code';
import { createMessage } from '../../../protocol/message/message';
import { SendStatus } from '../../../lib/client/send-result';
import { randomName, waitFor } from '../../helpers/cluster';
import { consumerEnv, expectAll, type ConsumerEnv } from '../consumer/consumer-helpers';
import { sendHeader, sendRequest } from '../broker/broker-helpers';
import type { BrokerController } from '../../../lib/broker/broker-controller';

async function commitLog(b: BrokerController): Promise<Buffer> {
  const store = b.messageStore;
  const parts: Buffer[] = [];
  let at = Math.max(0, store.getMinPhyOffset());
  while (at < store.getMaxPhyOffset()) {
    const r = await store.commitLog.getData(at);
    if (!r) break;
    parts.push(Buffer.from(r.data));
    at += r.data.length;
  }
  return Buffer.concat(parts);
}

describe('ha: a master/slave broker group in process (startCluster({ slaves: 1 }))', function () {
  this.timeout(120000);
  let env: ConsumerEnv;
  afterEach(async () => {
    await env?.stop();
  });

  it('SYNC_MASTER: registers both, sends are acknowledged once on the slave, the slave refuses writes and copies metadata', async () => {
    env = await consumerEnv({
      brokers: 1, slaves: 1, brokerRole: 'SYNC_MASTER',
      replication: { slaveSyncInitialDelayMillis: 50, slaveSyncIntervalMillis: 100 },
    });
    const cluster = env.tc.cluster!;
    const [master] = cluster.brokers;
    const [slave] = cluster.slaves;
    expect(slave.brokerConfig.brokerId).to.equal(1);
    const topic = randomName('HA');
    await env.createTopic(topic, 4);
    // The name server answered the slave's registration with the master's addresses.
    await waitFor(() => slave.replication.slaveSynchronize.masterAddr === master.brokerAddr, 20000, 'slave learns the master');
    expect(slave.replication.haService.haClient.masterAddress).to.equal(`127.0.0.1:${master.replication.haListenPort}`);
    await waitFor(() => master.replication.haService.connectionCount === 1, 20000, 'slave connected');
    const route = await env.admin.examineTopicRouteInfo(topic);
    expect([...route.brokerDatas[0].brokerAddrs.keys()].sort()).to.deep.equal([0, 1]);
    for (let i = 0; i < 30; i++) {
      const r = await env.producer.send(createMessage(topic, `m${i}`, { keys: [`m${i}`] }));
      expect(r.sendStatus).to.equal(SendStatus.SEND_OK);
      expect(r.messageQueue.brokerName).to.equal(master.brokerConfig.brokerName);
    }
    expect(slave.messageStore.getMaxPhyOffset()).to.equal(master.messageStore.getMaxPhyOffset());
    expect((await commitLog(slave)).equals(await commitLog(master))).to.equal(true);
    // Metadata copied from the master: topics, consumer offsets, subscription groups, delay offsets.
    await waitFor(() => slave.topicConfigManager.selectTopicConfig(topic) !== undefined, 20000, 'topic config copied');
    const group = randomName('CG');
    master.consumerOffsetManager.commitOffset('test', group, topic, 2, 7);
    master.subscriptionGroupManager.updateSubscriptionGroupConfig(newSubscriptionGroupConfig(group, { whichBrokerWhenConsumeSlowly: 1 }));
    master.scheduleMessageService.offsetTable.set(3, 11);
    await waitFor(() => slave.consumerOffsetManager.queryOffset(group, topic, 2) === 7, 20000, 'offsets copied');
    await waitFor(() => slave.subscriptionGroupManager.subscriptionGroupTable.has(group), 20000, 'subscription group copied');
    await waitFor(async () => {
      try {
        return (await fs.readFile(path.join(slave.messageStoreConfig.storePathRootDir, 'config', 'delayOffset.json'), 'utf8')).includes('3:11');
      } catch {
        return false;
      }
    }, 20000, 'delay offsets copied');
    // Writes to the slave are refused with Java's remark.
    const rc = new RemotingClient({});
    try {
      const res = await rc.invoke(slave.brokerAddr, sendRequest('V2', sendHeader(topic), Buffer.from('x')), 5000);
      expect(res.code).to.equal(ResponseCode.SERVICE_NOT_AVAILABLE);
      expect(res.remark).to.match(/^service not available now\. It may be caused by one of the following reasons: the broker's disk is full \[CL: .* CQ: .* INDEX: .*\], messages are put to the slave, message store has been shut down, etc\.$/);
    } finally {
      await rc.shutdown();
    }
  });

  it('the slave stopped -> SLAVE_NOT_AVAILABLE; restarted -> it catches up and sends are SEND_OK again', async () => {
    env = await consumerEnv({ brokers: 1, slaves: 1, brokerRole: 'SYNC_MASTER', storeConfig: { haSendHeartbeatInterval: 200 } });
    const cluster = env.tc.cluster!;
    const master = cluster.brokers[0];
    const topic = randomName('HA');
    await env.createTopic(topic, 2);
    await waitFor(() => master.replication.haService.connectionCount === 1, 20000, 'slave connected');
    expect((await env.producer.send(createMessage(topic, 'a'))).sendStatus).to.equal(SendStatus.SEND_OK);
    await cluster.slaves[0].shutdown();
    await waitFor(() => master.replication.haService.connectionCount === 0, 20000, 'slave gone');
    expect((await env.producer.send(createMessage(topic, 'b'))).sendStatus).to.equal(SendStatus.SLAVE_NOT_AVAILABLE);
    const slave = await cluster.restartSlave(0);
    await waitFor(() => slave.messageStore.getMaxPhyOffset() === master.messageStore.getMaxPhyOffset(), 30000, 'catch-up');
    expect((await env.producer.send(createMessage(topic, 'c'))).sendStatus).to.equal(SendStatus.SEND_OK);
    expect((await commitLog(slave)).equals(await commitLog(master))).to.equal(true);
  });

  it('the master killed while a consumer runs: it finishes from the slave, then returns to the master without loss', async () => {
    env = await consumerEnv({
      brokers: 1, slaves: 1, brokerRole: 'ASYNC_MASTER', storeConfig: { haSendHeartbeatInterval: 200 },
      replication: { slaveSyncInitialDelayMillis: 50, slaveSyncIntervalMillis: 100 },
    });
    const cluster = env.tc.cluster!;
    let master = cluster.brokers[0];
    const slave = cluster.slaves[0];
    const topic = randomName('HA');
    const group = randomName('CG');
    await env.createTopic(topic, 4);
    await waitFor(() => master.replication.haService.connectionCount === 1, 20000, 'slave connected');
    const n = 200;
    await env.sendMany(topic, n, 'm', { batch: 10 });
    await waitFor(() => slave.messageStore.getMaxPhyOffset() === master.messageStore.getMaxPhyOffset(), 20000, 'replicated');
    // The slave serves a topic once SlaveSynchronize copied its config (as with Java).
    await waitFor(() => slave.topicConfigManager.selectTopicConfig(topic) !== undefined, 20000, 'topic config on the slave');
    const seen = new Map<string, number>();
    const c = env.consumer(group, { pollNameServerInterval: 200, persistConsumerOffsetInterval: 200, pullBatchSize: 8 });
    c.subscribe(topic, '*');
    let paused = true;
    c.registerMessageListener(async (msgs) => {
      for (const m of msgs) {
        const k = m.body.toString();
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
      // Hold the first deliveries until the master is down, so most messages come from the slave.
      if (paused) await waitFor(() => !paused, 60000, 'master stopped');
      return 'CONSUME_SUCCESS' as const;
    });
    await c.start();
    await waitFor(() => seen.size > 0, 20000, 'first messages');
    await cluster.stopBroker(0);
    paused = false;
    await waitFor(() => seen.size === n, 60000, `all ${n} from the slave (${seen.size})`);
    expectAll(seen, 'm', n);
    // Offsets were committed to the slave while the master was away.
    await waitFor(() => {
      let sum = 0;
      for (let q = 0; q < 4; q++) sum += Math.max(0, slave.consumerOffsetManager.queryOffset(group, topic, q));
      return sum === n;
    }, 20000, 'offsets on the slave');
    // The master comes back: new messages are sent there and consumed, and offsets reach it.
    master = await cluster.startBroker(0);
    await waitFor(() => master.replication.haService.connectionCount === 1, 30000, 'slave reconnected');
    await waitFor(async () => {
      try {
        return (await env.producer.send(createMessage(topic, 'again'))).sendStatus === SendStatus.SEND_OK;
      } catch {
        return false;
      }
    }, 30000, 'send to the returned master');
    await waitFor(() => seen.has('again'), 30000, 'message after the master returned');
    await waitFor(() => {
      let sum = 0;
      for (let q = 0; q < 4; q++) sum += Math.max(0, master.consumerOffsetManager.queryOffset(group, topic, q));
      return sum >= n + 1;
    }, 30000, 'offsets back on the master');
  });

  it('reads move to the slave when the master\'s message is no longer in memory (slaveReadEnable)', async () => {
    env = await consumerEnv({
      brokers: 1, slaves: 1, brokerRole: 'ASYNC_MASTER',
      brokerConfig: { slaveReadEnable: true },
      // 0 %: no message counts as in memory on the master.
      storeConfig: { accessMessageInMemoryMaxRatio: 0 },
    });
    const cluster = env.tc.cluster!;
    const master = cluster.brokers[0];
    const slave = cluster.slaves[0];
    const topic = randomName('HA');
    await env.createTopic(topic, 2);
    await waitFor(() => master.replication.haService.connectionCount === 1, 20000, 'slave connected');
    await env.sendMany(topic, 40, 'm', { batch: 5 });
    await waitFor(() => slave.messageStore.getMaxPhyOffset() === master.messageStore.getMaxPhyOffset(), 20000, 'replicated');
    let slaveReads = 0;
    const orig = slave.messageStore.getMessage.bind(slave.messageStore);
    slave.messageStore.getMessage = (...args: Parameters<typeof orig>) => {
      if (args[1] === topic) slaveReads++;
      return orig(...args);
    };
    const seen = new Map<string, number>();
    const c = env.consumer(randomName('CG'), { pullBatchSize: 4 });
    c.subscribe(topic, '*');
    c.registerMessageListener((msgs) => {
      for (const m of msgs) seen.set(m.body.toString(), (seen.get(m.body.toString()) ?? 0) + 1);
      return 'CONSUME_SUCCESS';
    });
    await c.start();
    await waitFor(() => seen.size === 40, 30000, 'all consumed');
    expect(slaveReads).to.be.greaterThan(0);
    // Messages in memory again (ratio 100 %): the answers send the consumer back to the master (brokerId 0).
    let masterReads = 0;
    const origMaster = master.messageStore.getMessage.bind(master.messageStore);
    master.messageStore.getMessage = (...args: Parameters<typeof origMaster>) => {
      if (args[1] === topic) masterReads++;
      return origMaster(...args);
    };
    master.messageStore.config.accessMessageInMemoryMaxRatio = 100;
    slave.messageStore.config.accessMessageInMemoryMaxRatio = 100;
    await env.sendMany(topic, 20, 'n', { batch: 5 });
    await waitFor(() => [...seen.keys()].filter((k) => k.startsWith('n')).length === 20, 30000, 'second round consumed');
    await waitFor(() => masterReads > 0, 30000, 'pulls back on the master');
  });

  it('a master down: the producer sends to the other broker group (queues without a master leave the route)', async () => {
    env = await consumerEnv({ brokers: 2, slaves: 1, brokerRole: 'ASYNC_MASTER' });
    const cluster = env.tc.cluster!;
    const topic = randomName('HA');
    await env.createTopic(topic, 4);
    await waitFor(async () => (await env.admin.examineTopicRouteInfo(topic)).brokerDatas.length === 2, 20000, 'both groups in the route');
    const before = new Set<string>();
    for (let i = 0; i < 16; i++) before.add((await env.producer.send(createMessage(topic, `a${i}`))).messageQueue.brokerName);
    expect(before.size).to.equal(2);
    await cluster.stopBroker(0);
    const down = cluster.brokers[0].brokerConfig.brokerName;
    // Until its route is refreshed a send may first try the stopped master; retries move it to the other group.
    for (let i = 0; i < 20; i++) {
      const r = await env.producer.send(createMessage(topic, `b${i}`));
      expect(r.sendStatus).to.equal(SendStatus.SEND_OK);
      expect(r.messageQueue.brokerName).to.not.equal(down);
    }
  });
});
