/**
 * The broker.conf keys Java's DLedgerCommitLog hands DLedger reach our DLedger server: `enableBatchPush` (false: one
 * entry a push, counted by the leader's pusher stats; ours defaults to true, many entries a push under a burst) and
 * `diskMaxUsedSpaceRatio` (as the ratio past which expired files go before their hour).
 */
import { expect } from 'chai';
import { startCluster, type Cluster } from '../../../lib/cluster';
import { DefaultMQProducer } from '../../../lib/index';
import { createMessage } from '../../../protocol/message/message';
import { randomName, sendUntilAccepted, waitFor } from '../../helpers/cluster';
import { settleDLedgerGroup } from './dledger-group';

// Short votes, but DLedger's default heartbeat leak (3 x 2 s): on a loaded machine shorter heartbeat timings can move
// the leadership in the middle of the burst, and the pushes counted are the leader's.
const TIMINGS = { minVoteIntervalMs: 50, maxVoteIntervalMs: 200 };

/** Sends `n` messages at once through the group's leader; returns the entries and APPEND pushes each follower got. */
async function burst(c: Cluster, n: number): Promise<Array<{ entries: number; pushes: number }>> {
  const leader = await settleDLedgerGroup(c);
  const server = leader.dledgerCommitLog!.server;
  const topic = randomName('DLB');
  const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: c.namesrvAddr, instanceName: randomName('p'), pollNameServerInterval: 100 });
  await p.start();
  try {
    await sendUntilAccepted(p, topic, 'first', 30_000);
    const before = server.pusherStats();
    const results = await Promise.all(Array.from({ length: n }, (_, i) => p.send(createMessage(topic, `b-${i}`))));
    expect(results.filter((r) => r.sendStatus === 'SEND_OK')).to.have.length(n);
    await waitFor(() => [...server.pusherStats().values()].every((s) => s.matchIndex === server.ledgerEndIndex), 30_000, 'every follower holding every entry');
    return [...server.pusherStats()].map(([id, s]) => ({
      entries: s.entriesPushed - before.get(id)!.entriesPushed,
      pushes: s.appendPushes - before.get(id)!.appendPushes,
    }));
  } finally {
    await p.shutdown();
  }
}

describe('dledger: the broker\'s enableBatchPush and diskMaxUsedSpaceRatio reach DLedger', function () {
  this.timeout(120_000);
  let cluster: Cluster | null = null;
  afterEach(async () => {
    await cluster?.stop();
    cluster = null;
  });

  it('enableBatchPush=false: one entry a push to every follower', async () => {
    cluster = await startCluster({ dledger: 3, dledgerConfig: TIMINGS, storeConfig: { enableBatchPush: false, diskMaxUsedSpaceRatio: 60 } });
    for (const b of cluster.brokers) {
      expect(b.dledgerCommitLog!.server.config.enableBatchPush).to.equal(false);
      expect(b.dledgerCommitLog!.server.config.diskSpaceRatioToCheckExpired).to.be.closeTo(0.6, 1e-9);
    }
    for (const f of await burst(cluster, 200)) {
      expect(f.entries).to.be.at.least(200);
      expect(f.pushes, 'APPEND pushes').to.equal(f.entries);
    }
  });

  it('by default (ours: true) a burst goes in batches', async () => {
    cluster = await startCluster({ dledger: 3, dledgerConfig: TIMINGS });
    expect(cluster.brokers[0].dledgerCommitLog!.server.config.enableBatchPush).to.equal(true);
    for (const f of await burst(cluster, 200)) {
      expect(f.entries).to.be.at.least(200);
      expect(f.pushes, 'APPEND pushes').to.be.below(f.entries);
    }
  });
});
