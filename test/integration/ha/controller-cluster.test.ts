/**
 * startCluster({ controller: true }) over real sockets: a controller (its own, or inside the name server) and one
 * broker set in controller mode with allAckInSyncStateSet. The master is elected and registered as broker id 0, the
 * others follow it and are in its SyncStateSet; a SEND_OK means every replica holds the message. The master is
 * shut down: the controller elects another, which registers as broker id 0, and a producer's sends succeed again;
 * every message acknowledged before the failover is read back from the topic. The old master comes back
 * (Cluster.startBroker) as a slave and rejoins the SyncStateSet.
 * The new master continues the queue offsets (it waits for its dispatch and rebuilds its queue-offset table, as
 * Java's changeToMaster), so what it acknowledges is read back too.
 */
import { expect } from 'chai';
import { startCluster, type Cluster } from '../../../lib/server';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { SendStatus } from '../../../lib/client/send-result';
import { ClusterStartTimeoutError, ConfigError } from '../../../lib/errors';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { createMessage } from '../../../protocol/message/message';
import { drainTopic } from '../../../chaos/drain';
import { randomName } from '../../helpers/cluster';
import { registerLeftover } from '../../helpers/root-hooks';
import { waitFor } from '../../helpers/wait-for';

describe('ha: a controller-mode broker set in process (startCluster({ controller: true }))', function () {
  this.timeout(180_000);
  let cluster: Cluster | null = null;
  let producer: DefaultMQProducer | null = null;
  let admin: DefaultMQAdminExt | null = null;
  let removeLeftover: (() => void) | null = null;

  afterEach(async () => {
    await producer?.shutdown();
    producer = null;
    await admin?.shutdown();
    admin = null;
    removeLeftover?.();
    await cluster?.stop();
    cluster = null;
  });

  const start = async (options: Parameters<typeof startCluster>[0]): Promise<Cluster> => {
    cluster = await startCluster(options);
    const c = cluster;
    removeLeftover = registerLeftover(() => c.stop());
    return c;
  };

  const route = (c: Cluster): Map<number, string> => c.namesrv.routeInfoManager.brokerAddrTable.get('broker-a')?.brokerAddrs ?? new Map();

  /** Sends until `n` were acknowledged (failures during a failover are retried); returns the acknowledged keys. */
  const sendAcked = async (topic: string, n: number, label: string): Promise<string[]> => {
    const acked: string[] = [];
    let seq = 0;
    await waitFor(async () => {
      const key = `${label}-${seq++}`;
      try {
        const r = await producer!.send(createMessage(topic, key, { keys: [key] }));
        if (r.sendStatus === SendStatus.SEND_OK) acked.push(key);
      } catch { /* the route still names the old master */ }
      return acked.length >= n;
    }, 60_000, `${n} acknowledged sends (${label})`, 50);
    return acked;
  };

  /** Returns what was acknowledged after the failover and what the drain read. */
  const failover = async (c: Cluster, replicas: number): Promise<{ after: string[]; seen: Map<string, number>; queueOffsets: number[] }> => {
    const master = c.master()!;
    expect(master).to.not.equal(null);
    const masterIdx = c.brokers.indexOf(master);
    const epoch = master.replicasManager!.masterEpoch;
    const topic = randomName('CCT');
    admin = new DefaultMQAdminExt({ namesrvAddr: c.namesrvAddr, instanceName: randomName('adm') });
    await admin.start();
    // On every replica: a slave copies topics from its master only every few seconds.
    for (const b of c.brokers) await admin.createAndUpdateTopicConfig(b.brokerAddr, newTopicConfig(topic, { readQueueNums: 4, writeQueueNums: 4 }));
    producer = new DefaultMQProducer({
      producerGroup: randomName('PG'), namesrvAddr: c.namesrvAddr, instanceName: randomName('p'), sendMsgTimeout: 3000, pollNameServerInterval: 200,
    });
    await producer.start();
    const before = await sendAcked(topic, 30, 'before');
    // allAckInSyncStateSet: each SEND_OK waited for every replica of the SyncStateSet
    for (const b of c.brokers) expect(b.messageStore.getMaxPhyOffset(), b.brokerAddr).to.equal(master.messageStore.getMaxPhyOffset());

    await c.stopBroker(masterIdx);
    await waitFor(() => c.master() !== null && c.master() !== master, 30_000, 'a new master elected');
    const next = c.master()!;
    expect(next.replicasManager!.masterEpoch).to.be.greaterThan(epoch);
    expect(next.brokerConfig.brokerId).to.equal(0);
    await waitFor(() => route(c).get(0) === next.brokerAddr, 30_000, 'the new master registered as broker id 0');
    const after = await sendAcked(topic, 30, 'after');
    // the remaining replicas (the old master is down) hold what was acknowledged before
    const seen = await drainTopic(c.namesrvAddr, topic, 60_000);
    for (const k of before) expect(seen.has(k), k).to.equal(true);
    expect(c.brokers.filter((b) => b.isRunning)).to.have.length(replicas - 1);
    return { after, seen, queueOffsets: [0, 1, 2, 3].map((q) => next.messageStore.getMaxOffsetInQueue(topic, q)) };
  };

  it('a controller and 2 replicas: master id 0, slave in the SyncStateSet, fails over when the master stops', async () => {
    const c = await start({ controller: true, replicas: 2 });
    expect(c.controller).to.not.equal(null);
    expect(c.controllers).to.deep.equal([c.controller]);
    expect(c.controllerAddr).to.equal(c.controller!.address);
    expect(c.namesrv.controllerManager).to.equal(null);
    expect(c.brokers).to.have.length(2);
    const master = c.master()!;
    const slave = c.brokers.find((b) => b !== master)!;
    // the first broker to start asked first and was elected
    expect(master).to.equal(c.brokers[0]);
    expect(master.brokerConfig.enableControllerMode).to.equal(true);
    expect(master.messageStoreConfig.allAckInSyncStateSet).to.equal(true);
    expect(master.brokerConfig.controllerAddr).to.equal(c.controllerAddr);
    expect(master.replicasManager!.brokerControllerId).to.equal(1);
    expect(slave.replicasManager!.brokerControllerId).to.equal(2);
    expect(slave.messageStoreConfig.brokerRole).to.equal('SLAVE');
    expect(master.replicasManager!.syncStateSet.syncStateSet).to.deep.equal([1, 2]);
    expect(c.controller!.controller.replicasInfoManager.syncStateSetInfoTable.get('broker-a')?.masterBrokerId).to.equal(1);
    await waitFor(() => route(c).get(2) === slave.brokerAddr, 30_000, 'the slave registered as broker id 2');
    expect(route(c).get(0)).to.equal(master.brokerAddr);
    await failover(c, 2);
    // the old master back on its port and store (startBroker): it keeps its id and follows the new master as a slave
    const back = await c.startBroker(0);
    await waitFor(() => back.replicasManager?.state === 'RUNNING' && back.messageStoreConfig.brokerRole === 'SLAVE', 30_000, 'the old master back as a slave');
    expect(back.replicasManager!.brokerControllerId).to.equal(1);
    expect(back.brokerAddr).to.equal(master.brokerAddr);
    await waitFor(() => c.master()?.replicasManager?.syncStateSet.syncStateSet.length === 2, 60_000, 'the old master back in the SyncStateSet');
    expect(c.master()).to.equal(slave);
  });

  it('the controller inside the name server (enableControllerInNamesrv) and 3 replicas', async () => {
    const c = await start({ controller: true, controllerInNamesrv: true, replicas: 3 });
    expect(c.namesrv.controllerManager).to.not.equal(null);
    expect(c.controller).to.equal(c.namesrv.controllerManager);
    expect(c.namesrv.config.enableControllerInNamesrv).to.equal(true);
    expect(c.master()!.replicasManager!.syncStateSet.syncStateSet).to.deep.equal([1, 2, 3]);
    await failover(c, 3);
  });

  it('after a failover the new master continues the queue offsets: what it acknowledged is read back', async () => {
    const c = await start({ controller: true, replicas: 2 });
    const { after, seen, queueOffsets } = await failover(c, 2);
    for (const k of after) expect(seen.has(k), k).to.equal(true);
    // 30 before + 30 after over 4 queues
    expect(queueOffsets.reduce((a, b) => a + b, 0)).to.equal(60);
  });

  it('a group of 3 controllers: the leading controller stops, another leads with the same state and still fails the master over', async () => {
    const c = await start({ controller: true, controllers: 3, replicas: 2 });
    expect(c.controllers).to.have.length(3);
    expect(c.controllerAddr.split(';')).to.deep.equal(c.controllers.map((x) => x.address));
    expect(c.master()!.brokerConfig.controllerAddr).to.equal(c.controllerAddr);
    const leader = c.controllerLeader()!;
    const leaderIdx = c.controllers.indexOf(leader);
    const masterId = c.master()!.replicasManager!.brokerControllerId;
    await c.stopController(leaderIdx);
    await waitFor(() => c.controllerLeader() !== null, 30_000, 'another controller to lead');
    const next = c.controllerLeader()!;
    expect(next).to.not.equal(leader);
    // the state came through the controllers' DLedger log
    expect(next.controller.replicasInfoManager.syncStateSetInfoTable.get('broker-a')?.masterBrokerId).to.equal(masterId);
    // the brokers heartbeat the new leader: it sees the master go and elects the other replica
    await failover(c, 2);
    expect(c.controllerLeader()!.controller.replicasInfoManager.syncStateSetInfoTable.get('broker-a')?.masterBrokerId).to.not.equal(masterId);
    // the stopped controller comes back on its port and store and follows
    const back = await c.startController(leaderIdx);
    await waitFor(() => back.controller.replicasInfoManager.syncStateSetInfoTable.get('broker-a')?.masterBrokerId !== masterId, 30_000, 'the controller back with the new state');
    expect(c.controllers.filter((x) => x.isLeaderState)).to.have.length(1);
  });

  it('refuses controller mode with dledger or slaves, a replica or controller count below 1, and several controllers inside the name server', async () => {
    for (const bad of [{ controller: true, dledger: 3 }, { controller: true, slaves: 1 }, { controller: true, replicas: 0 }, { controller: true, controllers: 0 },
      { controller: true, controllers: 3, controllerInNamesrv: true }]) {
      let err: unknown = null;
      try {
        const c = await startCluster(bad);
        await c.stop();
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(bad)).to.be.instanceOf(ConfigError);
    }
    // the timeout error is a typed one too
    expect(new ClusterStartTimeoutError('x', 5)).to.have.property('limitMillis', 5);
  });
});
