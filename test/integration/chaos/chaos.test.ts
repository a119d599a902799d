/**
 * Short versions of the chaos scenarios (chaos/scenarios.ts; the full runs are `npm run chaos`). Each runs the name
 * server and the broker as child processes with producer / consumer workers in others, injects its fault a few times
 * and counts. They wait on acknowledgement counts, never on speed; the only wall-clock figure is the length of the
 * SIGSTOP pause, which is the fault itself. Every child is killed and every temp dir removed in `run`'s finally.
 */
import { expect } from 'chai';
import { type ScenarioResult, SCENARIOS, formatResult } from '../../../chaos/scenarios';
import { killAll } from '../../../chaos/procs';
import { formatFuzz, fuzzRun } from '../../../chaos/fuzz-run';

const quiet = process.env.ROCKETMQ_CHAOS_VERBOSE === '1' ? (l: string) => process.stderr.write(`${l}\n`) : undefined;

describe('chaos (short versions of npm run chaos)', function () {
  this.timeout(240_000);

  after(() => killAll());

  const check = (r: ScenarioResult): void => {
    if (quiet) quiet(formatResult(r));
    expect(r.lost, formatResult(r)).to.equal(0);
    expect(r.acknowledged).to.be.greaterThan(0);
  };

  it('kill -9 of a SYNC_FLUSH broker under 4 sync producers: no acknowledged message lost', async () => {
    check(await SCENARIOS['broker-kill-sync']({ cycles: 3, producers: 4, acksPerCycle: 50, log: quiet }));
  });

  it('kill -9 of an ASYNC_FLUSH broker: the process dies, the page cache survives, nothing lost', async () => {
    // Only a machine crash loses ASYNC_FLUSH data not yet flushed; a process kill leaves written pages to the kernel.
    check(await SCENARIOS['broker-kill-async']({ cycles: 2, producers: 2, acksPerCycle: 50, log: quiet }));
  });

  it('kill -9 of the name server: sends go on over cached routes, the broker registers again', async () => {
    check(await SCENARIOS['namesrv-kill']({ cycles: 1, producers: 2, acksPerCycle: 50, log: quiet }));
  });

  it('consumer group members killed -9 and replaced: every acknowledged message consumed', async () => {
    check(await SCENARIOS['consumer-kill']({ cycles: 2, producers: 2, acksPerCycle: 50, log: quiet }));
  });

  it('SIGSTOP / SIGCONT of the broker: sends time out, then recover; nothing lost', async () => {
    const r = await SCENARIOS['broker-pause']({ cycles: 1, producers: 2, acksPerCycle: 50, pauseMs: 4000, log: quiet });
    check(r);
    expect(r.sendFailures, 'sends during a 4 s pause outlive the 3 s sendMsgTimeout').to.be.greaterThan(0);
  });

  it('network faults through our proxy (cut mid-frame, half-open, delay): clients recover, nothing lost', async () => {
    check(await SCENARIOS.network({ cycles: 1, producers: 2, acksPerCycle: 50, log: quiet }));
  });

  it('torn writes (half record, cut consume queue, zeroed checkpoint, cut index): starts, serves all, not the torn record', async () => {
    const r = await SCENARIOS['torn-writes']({ cycles: 1, producers: 2, acksPerCycle: 50, log: quiet });
    check(r);
    expect(r.duplicated, 'the half-written record must not be served').to.equal(0);
  });

  it('disk full (tmpfs): sends refused with SERVICE_NOT_AVAILABLE, reads served, writes resume, nothing lost', async function () {
    const r = await SCENARIOS['disk-full']({ cycles: 1, producers: 2, acksPerCycle: 50, log: quiet });
    if (r.notes[0]?.startsWith('skipped')) {
      process.stderr.write(`    disk-full ${r.notes[0]}\n`);
      this.skip();
    }
    check(r);
    expect(r.notes.join(' ')).to.include('CODE: 14');
  });

  it('kill -9 of a SYNC_MASTER master under sync producers: acknowledged messages read from the slave meanwhile, none lost', async () => {
    const r = await SCENARIOS['ha-master-kill']({ cycles: 1, producers: 2, acksPerCycle: 50, log: quiet });
    check(r);
    expect(r.notes.join(' ')).to.match(/\d+ acknowledged read from the slave/);
  });

  it('kill -9 of the slave under SYNC_MASTER: sends answered SLAVE_NOT_AVAILABLE meanwhile, none acknowledged lost', async () => {
    const r = await SCENARIOS['ha-slave-kill']({ cycles: 1, producers: 2, acksPerCycle: 50, log: quiet });
    check(r);
    const m = r.notes.join(' ').match(/SLAVE_NOT_AVAILABLE (\d+), FLUSH_SLAVE_TIMEOUT (\d+)/);
    expect(Number(m![1]) + Number(m![2]), 'sends answered without the slave').to.be.greaterThan(0);
  });

  it('controller mode, kill -9 of the slave under allAckInSyncStateSet: the SyncStateSet shrinks, sends resume, the slave rejoins; none lost', async () => {
    const r = await SCENARIOS['controller-slave-kill']({ cycles: 1, producers: 2, acksPerCycle: 50, log: quiet });
    check(r);
    expect(r.notes.join(' ')).to.match(/cycle 1: \d+ sends not acknowledged until the SyncStateSet shrank/);
  });

  // Pending until our controller-mode broker truncates a diverged log (the old master, killed mid-write, is refused by
  // the AutoSwitch HA client and never rejoins the SyncStateSet) and a new master recovers its queue-offset table on
  // changeToMaster (its first sends reuse queue offsets, so the drain does not read them): see docs/chaos.md.
  it.skip('controller mode, kill -9 of the master under sync producers: a new master, the old one rejoins; none lost', async () => {
    check(await SCENARIOS['controller-master-kill']({ cycles: 2, producers: 2, acksPerCycle: 50, log: quiet }));
  });

  // Pending for the queue-offset table of a new master (the last step kills the broker master), as above.
  it.skip('controller mode, kill -9 of the leading controller of 3: another leads, the master is kept, then fails over; none lost', async () => {
    check(await SCENARIOS['controller-kill']({ cycles: 1, producers: 2, acksPerCycle: 50, log: quiet }));
  });

  it('frame fuzzer (2000 mutated golden frames): every frame answered or its connection closed, probes answered', async () => {
    const r = await fuzzRun({ frames: 2000, log: quiet });
    for (const x of [r.namesrv, r.broker]) {
      expect(x.hung, formatFuzz(x)).to.equal(0);
      expect(x.badResponses, formatFuzz(x)).to.deep.equal([]);
      expect(x.probesFailed, formatFuzz(x)).to.equal(0);
      expect(x.answered + x.closedOnly).to.equal(1000);
    }
    expect(r.namesrvAlive && r.brokerAlive).to.equal(true);
  });
});
