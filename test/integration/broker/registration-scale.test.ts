/**
 * What a topic create and a new consumer group cost at the name server, counted on the wire: each sends the changed
 * topic alone (never the whole table), at most one REGISTER_BROKER is in flight per name server, and a burst of
 * creates shares registrations instead of queueing one per create.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NamesrvController } from '../../../lib/namesrv/namesrv-controller';
import { startCluster, type Cluster } from '../../../lib/server';
import { DefaultMQAdminExt } from '../../../lib/index';
import { RequestCode } from '../../../protocol/code/request-code';
import type { RemotingCommand } from '../../../protocol/remoting-command';
import { decodeRegisterBrokerBody } from '../../../protocol/body/register-broker-body';
import { RegisterBrokerRequestHeader } from '../../../protocol/header/register-broker-request-header';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { RemotingClient } from '../../../lib/transport/remoting-client';
import { heartbeat } from './broker-helpers';
import { randomName, waitFor } from '../../helpers/cluster';

interface Seen {
  /** Topic counts of the REGISTER_BROKER bodies, in arrival order. */
  topicsPerRegistration: number[];
  inFlight: number;
  maxInFlight: number;
}

function countRegistrations(cluster: Cluster): Seen {
  const seen: Seen = { topicsPerRegistration: [], inFlight: 0, maxInFlight: 0 };
  cluster.namesrv.remotingServer.registerRPCHook({
    doBeforeRequest(_addr: string, request: RemotingCommand) {
      if (request.code !== RequestCode.REGISTER_BROKER) return;
      const h = RegisterBrokerRequestHeader.decode(request.extFields);
      const body = decodeRegisterBrokerBody(request.body!, h.compressed === true);
      seen.topicsPerRegistration.push(body.topicConfigSerializeWrapper.topicConfigTable.size);
      seen.inFlight++;
      seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
    },
    doAfterResponse(_addr: string, request: RemotingCommand) {
      if (request.code === RequestCode.REGISTER_BROKER) seen.inFlight--;
    },
  });
  return seen;
}

describe('broker registration: cost per change, not per table', function () {
  this.timeout(60000);
  let cluster: Cluster;
  let admin: DefaultMQAdminExt;
  let seen: Seen;
  let tableSize: number;

  before(async () => {
    // A compressed registration too: the name server decodes it as Java's.
    cluster = await startCluster({ brokerConfig: { compressedRegister: true } });
    admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr });
    await admin.start();
    const broker = cluster.brokers[0];
    // A broker with many topics: whatever a create sends must not grow with these.
    for (let i = 0; i < 2000; i++) {
      broker.topicConfigManager.updateTopicConfig(newTopicConfig(randomName('Bulk'), { readQueueNums: 8, writeQueueNums: 8 }));
    }
    await broker.registerBrokerAll(true, false, true);
    tableSize = broker.topicConfigManager.topicConfigTable.size;
    seen = countRegistrations(cluster);
  });
  after(async () => {
    await admin?.shutdown();
    await cluster?.stop();
  });

  it('an admin create registers the new topic alone, and its route answers as soon as the create is acknowledged', async () => {
    const before = seen.topicsPerRegistration.length;
    const broker = cluster.brokers[0];
    for (let i = 0; i < 20; i++) {
      const topic = randomName('Created');
      await admin.createAndUpdateTopicConfig(broker.brokerAddr, newTopicConfig(topic, { readQueueNums: 8, writeQueueNums: 8 }));
      // No wait: Java answers the create after the name servers have the topic.
      const route = await admin.examineTopicRouteInfo(topic);
      expect(route.queueDatas[0].writeQueueNums).to.equal(8);
    }
    const sent = seen.topicsPerRegistration.slice(before);
    expect(sent).to.deep.equal(new Array(20).fill(1));
    expect(broker.registration.stats.full, 'no whole-table registration per create').to.be.lessThan(3);
  });

  it('a burst of creates keeps one registration in flight and shares registrations', async () => {
    const before = seen.topicsPerRegistration.length;
    const broker = cluster.brokers[0];
    const topics = Array.from({ length: 200 }, () => randomName('Burst'));
    await Promise.all(topics.map((t) => admin.createAndUpdateTopicConfig(broker.brokerAddr, newTopicConfig(t, { readQueueNums: 4, writeQueueNums: 4 }))));
    const sent = seen.topicsPerRegistration.slice(before);
    expect(seen.maxInFlight).to.equal(1);
    expect(sent.reduce((a, b) => a + b, 0), 'every created topic sent once').to.equal(200);
    expect(sent.length, 'registrations shared').to.be.lessThan(200);
    expect(Math.max(...sent)).to.be.lessThan(tableSize);
    // Every route answers: a registration the name server took for a version it already held would have lost topics.
    for (const t of topics) expect((await admin.examineTopicRouteInfo(t)).queueDatas, t).to.have.length(1);
  });

  it('a new consumer group registers its retry topic alone', async () => {
    const before = seen.topicsPerRegistration.length;
    const client = new RemotingClient();
    try {
      const groups = Array.from({ length: 30 }, () => randomName('CG'));
      for (const g of groups) {
        const r = await client.invoke(cluster.brokers[0].brokerAddr, heartbeat(randomName('cid'), g, 'TopicTest'), 5000);
        expect(r.code).to.equal(0);
      }
      await waitFor(() => seen.topicsPerRegistration.length - before >= 1 && !cluster.brokers[0].registration.busy, 10000, 'registrations done');
      const sent = seen.topicsPerRegistration.slice(before);
      expect(sent.reduce((a, b) => a + b, 0)).to.equal(30);
      expect(Math.max(...sent)).to.be.lessThan(tableSize);
      const route = await admin.examineTopicRouteInfo(`%RETRY%${groups[29]}`);
      expect(route.queueDatas).to.have.length(1);
    } finally {
      await client.shutdown();
    }
  });

  it('a periodic registration that is not forced sends nothing while the name server is up to date', async () => {
    const broker = cluster.brokers[0];
    await waitFor(() => !broker.registration.busy, 5000, 'idle');
    const before = seen.topicsPerRegistration.length;
    const skipped = broker.registration.stats.skipped;
    await broker.registerBrokerAll(true, false, false);
    expect(seen.topicsPerRegistration.length).to.equal(before);
    expect(broker.registration.stats.skipped).to.equal(skipped + 1);
    // A change the name server missed (a topic put in the table by hand) makes it send the whole table.
    broker.topicConfigManager.updateTopicConfig(newTopicConfig(randomName('Missed'), { readQueueNums: 1, writeQueueNums: 1 }));
    await broker.registerBrokerAll(true, false, false);
    expect(seen.topicsPerRegistration.slice(before)).to.deep.equal([broker.topicConfigManager.topicConfigTable.size]);
  });

  it('updateBrokerConfig brokerPermission reaches the name server at once (a broker made read-only before maintenance)', async () => {
    const broker = cluster.brokers[0];
    const topic = randomName('ReadOnly');
    await admin.createAndUpdateTopicConfig(broker.brokerAddr, newTopicConfig(topic, { readQueueNums: 1, writeQueueNums: 1 }));
    const perm = () => cluster.namesrv.routeInfoManager.pickupTopicRouteData(topic)?.queueDatas[0]?.perm;
    expect(perm()).to.equal(6);
    try {
      // Answered once registered, as Java's; twice: the second one reuses the first one's narrowed table.
      await admin.updateBrokerConfig(broker.brokerAddr, { brokerPermission: '4' });
      expect(perm()).to.equal(4);
      await admin.updateBrokerConfig(broker.brokerAddr, { brokerPermission: '4' });
      expect(perm()).to.equal(4);
      // A topic created on a read-only broker registers read-only too.
      const later = randomName('ReadOnlyNew');
      await admin.createAndUpdateTopicConfig(broker.brokerAddr, newTopicConfig(later, { readQueueNums: 1, writeQueueNums: 1 }));
      expect(cluster.namesrv.routeInfoManager.pickupTopicRouteData(later)?.queueDatas[0]?.perm).to.equal(4);
    } finally {
      await admin.updateBrokerConfig(broker.brokerAddr, { brokerPermission: '6' });
    }
    expect(perm()).to.equal(6);
  });
});

describe('broker registration: a failed one is retried soon, not at the next period', function () {
  this.timeout(60000);

  it('registers the whole table with a name server that was down as soon as it answers again', async () => {
    const cluster = await startCluster({ brokerConfig: { registerNameServerPeriod: 600000 } });
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'rmq-ns-again-'));
    let again: NamesrvController | null = null;
    try {
      const broker = cluster.brokers[0];
      const port = cluster.namesrv.port;
      await cluster.namesrv.shutdown();
      const topic = randomName('WhileDown');
      await broker.topicConfigManager.updateTopicConfig(newTopicConfig(topic, { readQueueNums: 2, writeQueueNums: 2 }));
      const full = broker.registration.stats.full;
      await broker.registerIncrementBrokerData([topic]); // fails: nothing listens
      again = new NamesrvController({
        listenPort: port, bindAddress: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties'),
      });
      await again.start();
      const ns = again;
      await waitFor(() => ns.routeInfoManager.topicQueueTable.has(topic), 30000, 'the topic registered by the retry');
      expect(broker.registration.stats.full).to.be.greaterThan(full);
    } finally {
      await again?.shutdown();
      await cluster.stop();
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
  });
});
