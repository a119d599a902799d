/**
 * Packet loss and slow links across hosts in network namespaces (chaos/net/netns.ts loss / slowLink / delay) and the
 * short version of the `dledger-loss` scenario (`npm run chaos -- net dledger-loss --minutes M` is the long one):
 * random loss of 5 %, 15 % then 30 % on the DLedger leader's host and the clients' host, then healed. The checker's
 * counts are the assertions (nothing acknowledged lost, every acknowledged message consumed, nothing never sent, no
 * offset acknowledged twice), with the loss rules' own counters showing the loss was there; no timing is asserted.
 * Needs root, `ip netns` and iptables with the statistic match (Debian package iptables); skipped with a line saying
 * why otherwise.
 */
import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { NET_SCENARIOS } from '../../../chaos/net/scenarios';
import { formatReport } from '../../../chaos/net/checker';
import { expectNothingLost } from './expect-checked';
import { NS_PREFIX, NetCluster, NetFaultUnavailableError, destroyAllNetClusters, netFaultsUnavailable, netnsUnavailable } from '../../../chaos/net/netns';
import { killAll } from '../../../chaos/procs';

const verbose = process.env.ROCKETMQ_CHAOS_VERBOSE === '1' ? (l: string) => process.stderr.write(`${l}\n`) : undefined;

/** Tries a TCP connect from inside `from` to addr:port; 'ok' when the server's greeting arrived, else the failure. */
function tryConnect(c: NetCluster, from: string, addr: string, port: number): string {
  const js = `const s=require('net').connect(${port},'${addr}');s.setTimeout(1500,()=>{process.stdout.write('timeout');process.exit(0)});`
    + `s.on('data',()=>{process.stdout.write('ok');process.exit(0)});s.on('error',(e)=>{process.stdout.write(e.code);process.exit(0)})`;
  return execFileSync('ip', ['netns', 'exec', c.host(from).ns, process.execPath, '-e', js], { encoding: 'utf8' });
}

describe('chaos-net: packet loss and slow links across hosts in network namespaces', function () {
  this.timeout(300_000);

  before(function () {
    const why = netnsUnavailable() ?? netFaultsUnavailable().loss;
    if (why) {
      process.stdout.write(`      skipped: network namespaces or iptables loss unavailable here (${why})\n`);
      this.skip();
    }
  });

  after(async () => {
    await killAll();
    destroyAllNetClusters();
  });

  it('loss drops what it should and heal() takes it away; slowLink caps with tbf; delay needs sch_netem or says why', async () => {
    const c = new NetCluster(['a', 'b']);
    let server: ChildProcess | null = null;
    try {
      const a = c.host('a');
      server = spawn('ip', ['netns', 'exec', a.ns, process.execPath, '-e',
        `require('net').createServer((s)=>s.end('hi')).listen(7000,'${a.addr}',()=>process.stdout.write('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        server!.stdout!.once('data', () => resolve());
        server!.once('exit', (code) => reject(new Error(`server exited ${code}`)));
      });
      expect(tryConnect(c, 'b', a.addr, 7000)).to.equal('ok');
      expect(() => c.loss('a', 0)).to.throw(RangeError);
      c.loss('a', 100, { direction: 'in' });
      expect(c.cuts).to.deep.equal(['a loss in 100%']);
      expect(tryConnect(c, 'b', a.addr, 7000)).to.equal('timeout');
      expect(c.lossDropped('a')).to.be.greaterThan(0);
      c.heal();
      expect(c.cuts).to.deep.equal([]);
      expect(tryConnect(c, 'b', a.addr, 7000)).to.equal('ok');

      if (!netFaultsUnavailable().slowLink) {
        c.slowLink('a', 64);
        expect(c.qdiscStats('a')?.kind).to.equal('tbf');
        expect(() => c.slowLink('a', 64)).to.throw(/already has a tbf fault/);
        expect(tryConnect(c, 'b', a.addr, 7000)).to.equal('ok');
        c.heal();
        expect(c.qdiscStats('a')).to.equal(null);
        expect(execFileSync('ip', ['netns', 'exec', a.ns, 'tc', 'qdisc', 'show', 'dev', 'eth0'], { encoding: 'utf8' })).to.not.contain('tbf');
      }
      const noNetem = netFaultsUnavailable().delay;
      if (noNetem) {
        expect(() => c.delay('a', 100)).to.throw(NetFaultUnavailableError, noNetem);
      } else {
        c.delay('a', 50, 10);
        expect(tryConnect(c, 'b', a.addr, 7000)).to.equal('ok');
        c.heal();
      }
    } finally {
      server?.kill('SIGKILL');
      c.destroy();
    }
    const left = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').filter((l) => l.startsWith(`${NS_PREFIX}${process.pid}-`));
    expect(left).to.deep.equal([]);
  });

  it('DLedger 3, loss of 5 %, 15 %, 30 % on the leader and the clients in turn: nothing acknowledged lost, every acknowledged message consumed', async () => {
    const r = await NET_SCENARIOS['dledger-loss']({ acks: 40, minutes: 0.4, log: verbose });
    const text = `${formatReport(r.scenario, r.report)}\n  ${r.levels.map((l) => `${l.label}: ${JSON.stringify(l.dropped)}`).join('\n  ')}\n  ${r.notes.join('\n  ')}`;
    if (verbose) verbose(text);
    expectNothingLost(r.report, text);
    // Each level was in place and dropped packets (the rules' own counters), on the leader's host and the clients'.
    expect(r.report.faults.map((f) => f.label.replace(/^b\d\+/, '')), text).to.deep.equal(['cl loss 5%', 'cl loss 15%', 'cl loss 30%']);
    expect(r.levels.map((l) => l.label), text).to.deep.equal(['loss 5%', 'loss 15%', 'loss 30%']);
    for (const l of r.levels) expect(Object.values(l.dropped).reduce((s, n) => s + n, 0), `${l.label}\n${text}`).to.be.greaterThan(0);
    expect(r.report.before, text).to.not.equal(null);
    const left = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').filter((l) => l.startsWith(`${NS_PREFIX}${process.pid}-`));
    expect(left).to.deep.equal([]);
  });
});
