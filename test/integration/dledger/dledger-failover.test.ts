import { expect } from 'chai';
import { startCluster, type Cluster } from '../../../lib/cluster';
import { DefaultMQProducer, DefaultLitePullConsumer } from '../../../lib/index';
import { createMessage, setDelayTimeLevel } from '../../../protocol/message/message';
import { SendStatus } from '../../../lib/client/send-result';
import { randomName, waitFor } from '../../helpers/cluster';
import type { BrokerController } from '../../../lib/broker/broker-controller';

const FAST = { heartBeatTimeIntervalMs: 100, maxHeartBeatLeak: 3, minVoteIntervalMs: 50, maxVoteIntervalMs: 200, maxWaitAckTimeMs: 2000 };

describe('dledger: a 3-peer broker group (startCluster({ dledger: 3 }))', function () {
  this.timeout(480_000);
  let cluster: Cluster;
  let producer: DefaultMQProducer | null = null;
  let consumer: DefaultLitePullConsumer | null = null;

  const master = (): BrokerController | undefined => cluster.brokers.find((b) => b.isRunning && b.dledgerCommitLog?.server.isLeader && b.messageStoreConfig.brokerRole !== 'SLAVE');

  beforeEach(async () => {
    cluster = await startCluster({ dledger: 3, dledgerConfig: FAST });
  });
  afterEach(async () => {
    await producer?.shutdown();
    await consumer?.shutdown();
    producer = null;
    consumer = null;
    await cluster.stop();
  });

  it('serves as one master with two slaves; followers refuse writes; sends survive 20 leader kills with no acknowledged message lost', async () => {
    await waitFor(() => !!master(), 20_000, 'a master');
    const m = master()!;
    expect(m.brokerConfig.brokerId).to.equal(0);
    // it registered as master with the term it leads in as its state version (a stale older leader is ignored)
    const term = m.dledgerCommitLog!.server.currTerm;
    await waitFor(() => cluster.namesrv.routeInfoManager.brokerLiveTable.get(m.brokerAddr)?.dataVersion.stateVersion === term, 20_000, 'the master registered with its term');
    for (const b of cluster.brokers) if (b !== m) expect(b.messageStoreConfig.brokerRole).to.equal('SLAVE');
    const slaves = cluster.brokers.filter((b) => b !== m);
    expect(slaves.map((b) => b.brokerConfig.brokerId).sort()).to.deep.equal(
      cluster.brokers.map((b) => Number(b.messageStoreConfig.dLegerSelfId.slice(1)) + 1).filter((id) => id !== Number(m.messageStoreConfig.dLegerSelfId.slice(1)) + 1).sort());
    // A follower refuses a put.
    const refused = await slaves[0].messageStore.putMessage({
      topic: 'T', queueId: 0, flag: 0, body: Buffer.from('x'), propertiesString: '', bornTimestamp: Date.now(), bornHost: { host: '127.0.0.1', port: 1 },
      sysFlag: 0, reconsumeTimes: 0, preparedTransactionOffset: 0,
    });
    expect(refused.putMessageStatus).to.not.equal('PUT_OK');

    const topic = randomName('DL');
    producer = new DefaultMQProducer({
      producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('p'), sendMsgTimeout: 3000,
      pollNameServerInterval: 100, retryTimesWhenSendFailed: 2,
    });
    await producer.start();
    const acked: string[] = [];
    let failed = 0;
    let seq = 0;
    let lastOk = 0;
    let sending = true;
    const sender = (async () => {
      while (sending) {
        const body = `m${seq++}`;
        try {
          const r = await producer!.send(createMessage(topic, body));
          if (r.sendStatus === SendStatus.SEND_OK) {
            acked.push(body);
            lastOk = Date.now();
          } else failed++;
        } catch {
          failed++;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    })();
    await waitFor(() => acked.length > 0, 30_000, 'a first send');
    const failover: number[] = [];
    for (let k = 0; k < 20; k++) {
      const leader = master();
      expect(leader, `a master before kill ${k}`).to.not.equal(undefined);
      const i = cluster.brokers.indexOf(leader!);
      const killedAt = Date.now();
      await cluster.stopBroker(i);
      await waitFor(() => lastOk > killedAt && !!master(), 30_000, `a new master after kill ${k}`).catch((err) => {
        throw new Error(`${err.message}: ${JSON.stringify(cluster.brokers.map((b) => {
          const s = b.dledgerCommitLog!.server;
          return { running: b.isRunning, role: s.role, brokerRole: b.messageStoreConfig.brokerRole, end: s.ledgerEndIndex, committed: s.committedIndex, applied: s.appliedIndex, term: s.currTerm };
        }))}`);
      });
      failover.push(lastOk - killedAt);
      const back = await cluster.startBroker(i);
      await waitFor(() => {
        const now = master();
        const s = back.dledgerCommitLog!.server;
        return !!now && s.leaderId !== null && s.appliedIndex >= now.dledgerCommitLog!.server.committedIndex - 5;
      }, 30_000, `peer ${i} caught up`);
    }
    sending = false;
    await sender;
    // after 20 elections the master registered with a newer term than the first
    const last = master()!;
    const lastTerm = last.dledgerCommitLog!.server.currTerm;
    expect(lastTerm).to.be.greaterThan(term);
    await waitFor(() => cluster.namesrv.routeInfoManager.brokerLiveTable.get(last.brokerAddr)?.dataVersion.stateVersion === lastTerm, 20_000, 'the last master registered with its term');
    failover.sort((a, b) => a - b);
    console.log(`      failover (kill → first ok send) over ${failover.length} kills: p50 ${failover[failover.length >> 1]} ms, max ${failover[failover.length - 1]} ms; acked ${acked.length}, failed ${failed}`);

    consumer = new DefaultLitePullConsumer({
      consumerGroup: randomName('CG'), namesrvAddr: cluster.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c'),
      pollNameServerInterval: 100,
    });
    consumer.subscribe(topic, '*');
    await consumer.start();
    const seen = new Map<string, number>();
    const want = new Set(acked);
    // A give-up limit, not a timing: the sends of 20 kill cycles (50,000 or more on a fast run) take a while to drain.
    const deadline = Date.now() + 180_000;
    while ([...want].some((b) => !seen.has(b)) && Date.now() < deadline) {
      for (const msg of await consumer.poll(500)) {
        const b = msg.body!.toString();
        seen.set(b, (seen.get(b) ?? 0) + 1);
      }
    }
    const lost = acked.filter((b) => !seen.has(b));
    const duplicates = [...seen.values()].filter((n) => n > 1).length;
    console.log(`      consumed ${seen.size} distinct, ${duplicates} duplicates, ${lost.length} acknowledged lost`);
    expect(lost).to.deep.equal([]);
  });

  it('delivers a delayed message from the leader (the schedule service runs on the master)', async () => {
    await waitFor(() => !!master(), 20_000, 'a master');
    const topic = randomName('DLD');
    producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('p'), pollNameServerInterval: 100 });
    await producer.start();
    const msg = createMessage(topic, 'later');
    setDelayTimeLevel(msg, 1);
    const sentAt = Date.now();
    await producer.send(msg);
    consumer = new DefaultLitePullConsumer({
      consumerGroup: randomName('CG'), namesrvAddr: cluster.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c'), pollNameServerInterval: 100,
    });
    consumer.subscribe(topic, '*');
    await consumer.start();
    const got: string[] = [];
    const deadline = Date.now() + 30_000;
    while (got.length === 0 && Date.now() < deadline) for (const m of await consumer.poll(500)) got.push(m.body!.toString());
    expect(got).to.deep.equal(['later']);
    expect(Date.now() - sentAt).to.be.at.least(900);
  });
});
