/**
 * Short network chaos scenarios across hosts in network namespaces (chaos/net; the long runs are
 * `npm run chaos -- net <scenario> --minutes M`): a DLedger group of 3 with its leader cut off from both followers but
 * reachable by the clients, and a SYNC_MASTER cut off from its slave; controller mode's master cut off; a DLedger group
 * of 5 with its leader cut off, and split by a bridge partition; a slave cut off again mid catch-up; controller mode
 * under 20 s of random faults. The checker's counts are the assertions: nothing
 * acknowledged lost, nothing consumed that was never sent, every acknowledged message consumed, no queue offset
 * acknowledged twice (split brain). Needs root and `ip netns`; skipped with a line saying why otherwise. Every
 * namespace and process is removed in the scenario's finally (and by NetCluster.removeLeftovers at the next start).
 */
import { expect } from 'chai';
import { NET_SCENARIOS, type NetScenarioResult } from '../../../chaos/net/scenarios';
import { formatReport } from '../../../chaos/net/checker';
import { expectNothingLost } from './expect-checked';
import { NS_PREFIX, destroyAllNetClusters, netnsUnavailable } from '../../../chaos/net/netns';
import { killAll } from '../../../chaos/procs';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const verbose = process.env.ROCKETMQ_CHAOS_VERBOSE === '1' ? (l: string) => process.stderr.write(`${l}\n`) : undefined;

describe('chaos-net: faults across hosts in network namespaces', function () {
  this.timeout(300_000);
  let why: string | null = null;

  before(function () {
    why = netnsUnavailable();
    if (why) {
      process.stdout.write(`      skipped: network namespaces unavailable here (${why})\n`);
      this.skip();
    }
  });

  after(async () => {
    await killAll();
    destroyAllNetClusters();
  });

  const expectClean = (r: NetScenarioResult): void => {
    const text = `${formatReport(r.scenario, r.report)}\n  ${r.notes.join('\n  ')}`;
    if (verbose) verbose(text);
    expectNothingLost(r.report, text);
    // Nothing of the run is left behind.
    const left = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').filter((l) => l.startsWith(`${NS_PREFIX}${process.pid}-`));
    expect(left).to.deep.equal([]);
  };

  it('DLedger 3, leader cut off from both followers (clients reach it): a new leader, the old one steps down, nothing acknowledged lost', async () => {
    const r = await NET_SCENARIOS['dledger-leader-isolated']({ acks: 40, log: verbose });
    expectClean(r);
    const f = r.report.faults[0];
    expect(f.newMasterMs, 'the name server names another master during the cut').to.not.equal(null);
    expect(f.masterMissingAfterHealMs, 'the name server keeps a master after the heal').to.equal(0);
  });

  it('SYNC_MASTER cut off from its slave (clients reach both): no SEND_OK without the slave, nothing acknowledged lost', async () => {
    const r = await NET_SCENARIOS['sync-master-isolated']({ acks: 40, log: verbose });
    expectClean(r);
  });

  it('controller mode, master cut off from the controller and the slave (clients reach it): a new master, nothing acknowledged lost', async () => {
    const r = await NET_SCENARIOS['controller-master-isolated']({ acks: 40, log: verbose });
    expectClean(r);
    expect(r.report.faults[0].newMasterMs, 'the name server names another master during the cut').to.not.equal(null);
  });

  it('DLedger 5, leader cut off from its 4 followers (clients reach it): a new leader among the 4, nothing acknowledged lost', async () => {
    const r = await NET_SCENARIOS['dledger5-leader-isolated']({ acks: 40, log: verbose });
    expectClean(r);
    expect(r.report.faults[0].newMasterMs, 'the name server names another master during the cut').to.not.equal(null);
  });

  it('DLedger 5, bridge partition (leader and a follower | two followers, the fifth peer reaching both): nothing acknowledged lost, no offset acknowledged twice', async () => {
    const r = await NET_SCENARIOS['dledger5-bridge']({ acks: 40, log: verbose });
    expectClean(r);
    expect(r.report.faults[0].masterMissingAfterHealMs, 'the name server keeps a master after the heal').to.equal(0);
  });

  it('SYNC_MASTER, the slave cut off for 15 s under load, then again mid catch-up: nothing acknowledged lost', async () => {
    const r = await NET_SCENARIOS['sync-slave-catchup-cut']({ acks: 40, log: verbose });
    expectClean(r);
    expect(r.report.faults.map((f) => f.label)).to.deep.equal(['b1|b0 (behind)', 'b1|b0 (mid catch-up)']);
  });

  it('DLedger 3, a follower\'s disk full for 20 s, then the leader\'s: nothing acknowledged lost, everything stored consumed, the disks unmounted', async () => {
    const r = await NET_SCENARIOS['dledger-disk-full']({ acks: 40, log: verbose });
    expectClean(r);
    expect(r.report.faults.map((f) => f.label.replace(/^b\d /, ''))).to.deep.equal(['disk full (follower)', 'disk full (leader)']);
    const mounts = readFileSync('/proc/mounts', 'utf8').split('\n').filter((l) => l.includes(`rmq-chaos-${NS_PREFIX}${process.pid}-`));
    expect(mounts).to.deep.equal([]);
  });

  it('controller mode, random faults for 20 s (splits with the controller, one-way cuts, SIGSTOP, kill -9): nothing acknowledged lost, no offset acknowledged twice', async () => {
    const r = await NET_SCENARIOS['controller-random']({ acks: 40, minutes: 1 / 3, log: verbose });
    expectClean(r);
    expect(r.report.faults.length, 'at least one fault injected').to.be.greaterThan(0);
  });
});
