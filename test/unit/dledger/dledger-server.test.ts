import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mock } from 'node:test';
import { DLedgerError, DLedgerResponseCode, DLedgerServer, type DLedgerConfig, type DLedgerEntry, decodeEntry, decodeIndexUnit } from '../../../lib/dledger';
import { freePort } from '../../helpers/javaref';
import { waitFor } from '../../helpers/cluster';

const FAST: Partial<DLedgerConfig> = {
  heartBeatTimeIntervalMs: 100, maxHeartBeatLeak: 3, minVoteIntervalMs: 50, maxVoteIntervalMs: 150, maxWaitAckTimeMs: 2000,
  mappedFileSizeForEntryData: 64 * 1024, mappedFileSizeForEntryIndex: 32 * 1024, bindAddress: '127.0.0.1',
};

class Recorder {
  applied: DLedgerEntry[] = [];
  async lastAppliedIndex() { return this.applied.length - 1; }
  async apply(e: DLedgerEntry) { this.applied.push(e); return e.index; }
}

describe('dledger: DLedgerServer (3 peers over real sockets and files)', function () {
  this.timeout(60000);
  let root: string;
  let peers: string;
  let servers: (DLedgerServer | null)[] = [];
  const machines: Recorder[] = [];

  const make = (i: number, extra: Partial<DLedgerConfig> = {}) => {
    machines[i] = new Recorder();
    return new DLedgerServer({ ...FAST, group: 'g', selfId: `n${i}`, peers, storeBaseDir: root, ...extra }, { stateMachine: machines[i] });
  };
  const leader = () => servers.find((s) => s?.isLeader) ?? null;
  const leaders = () => servers.filter((s) => s?.isLeader);

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'dledger-'));
    const ports = [await freePort(), await freePort(), await freePort()];
    peers = ports.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
    servers = [0, 1, 2].map((i) => make(i));
    await Promise.all(servers.map((s) => s!.start()));
  });
  afterEach(async () => {
    for (const s of servers) await s?.shutdown();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('elects one leader, replicates with a quorum commit, and applies in order on every peer', async () => {
    await waitFor(() => leaders().length === 1, 10000, 'a leader');
    const l = leader()!;
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => l.append(Buffer.from(`m${i}`))));
    expect(results.map((r) => r.index)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i));
    await waitFor(() => machines.every((m) => m.applied.length === 50), 10000, 'applied everywhere');
    for (const m of machines) expect(m.applied.map((e) => e.body.toString())).to.deep.equal(results.map((_, i) => `m${i}`));
    const follower = servers.find((s) => s && !s.isLeader)!;
    let prepared = 0;
    const refused = await follower.append(Buffer.from('x'), () => { prepared++; }).then(() => null, (e: Error) => e);
    expect(refused?.message).to.match(/not leader/);
    // a refused append is not prepared; an accepted one is, before it enters the log: the log holds what it wrote
    expect(prepared).to.equal(0);
    const r = await l.append(Buffer.from('before'), (b) => { prepared++; b.write('after!'); });
    expect(prepared).to.equal(1);
    await waitFor(() => machines.every((m) => m.applied.length === 51), 10000, 'the prepared entry applied everywhere');
    for (const m of machines) expect(m.applied[r.index].body.toString()).to.equal('after!');
    // Java's layout: data/ and index/ files with 20-digit names; index unit i at i * 32.
    const dir = path.join(root, `dledger-${follower.selfId}`);
    const data = await fs.readFile(path.join(dir, 'data', '00000000000000000000'));
    const idx = await fs.readFile(path.join(dir, 'index', '00000000000000000000'));
    const u = decodeIndexUnit(idx, 7 * 32);
    expect(u.index).to.equal(7);
    const e = decodeEntry(data, u.pos);
    expect(e.index).to.equal(7);
    expect(e.body.toString()).to.equal('m7');
  });

  it('elects a new leader after the leader stops; the old one rejoins as follower and catches up', async () => {
    await waitFor(() => leaders().length === 1, 10000, 'a leader');
    const old = leader()!;
    await old.append(Buffer.from('a'));
    const i = servers.indexOf(old);
    await old.shutdown();
    servers[i] = null;
    await waitFor(() => leaders().length === 1, 10000, 'a new leader');
    const l = leader()!;
    expect(l.currTerm).to.be.greaterThan(old.currTerm);
    await l.append(Buffer.from('b'));
    servers[i] = make(i);
    await servers[i]!.start();
    await waitFor(() => machines[i].applied.length === 2, 10000, 'old leader caught up');
    expect(servers[i]!.isLeader).to.equal(false);
    expect(machines[i].applied.map((e) => e.body.toString())).to.deep.equal(['a', 'b']);
  });

  it('a follower whose log ends before the leader\'s first entry (deleted meanwhile) has its log rebuilt there and catches up', async () => {
    await waitFor(() => leaders().length === 1, 10000, 'a leader');
    let l = leader()!;
    for (let k = 0; k < 10; k++) await l.append(Buffer.from(`early-${k}`));
    await waitFor(() => machines.every((m) => m.applied.length === 10), 10000, 'applied everywhere');
    const i = servers.findIndex((x) => x && !x.isLeader);
    await servers[i]!.shutdown();
    servers[i] = null;
    l = leader()!;
    // ~1 KiB entries in 64 KiB files: 5 files and more.
    for (let k = 0; k < 300; k++) await l.append(Buffer.alloc(1000, k % 256));
    const up = servers.filter((x): x is DLedgerServer => !!x);
    await waitFor(() => up.every((x) => x.appliedIndex === l.ledgerEndIndex), 10000, 'the two others applied');
    const old = new Date(Date.now() - 100 * 3600 * 1000);
    for (const x of up) {
      for (const f of x.store.dataFileList.files) await fs.utimes(f.file, old, old);
      // The disk above diskSpaceRatioToCheckExpired: the expired files go (all but the last).
      const r = await x.store.cleanSpace(Date.now(), x.appliedIndex, async () => 0.75);
      expect(r.count).to.be.greaterThan(3);
    }
    const begin = l.store.ledgerBeginIndex;
    expect(begin).to.be.greaterThan(10);
    servers[i] = make(i);
    const f = servers[i]!;
    await f.start();
    await l.append(Buffer.from('after'));
    await waitFor(() => f.store.ledgerEndIndex === l.ledgerEndIndex && f.appliedIndex === l.ledgerEndIndex, 10000, 'the follower caught up');
    expect(f.store.ledgerBeginIndex).to.equal(begin);
    expect(f.store.minOffset).to.equal(l.store.minOffset);
    expect((await f.store.get(l.ledgerEndIndex)).body.toString()).to.equal('after');
    expect((await f.store.get(begin)).body.equals((await l.store.get(begin)).body)).to.equal(true);
    // It applied its own first 10, then from the leader's first entry on.
    const applied = machines[i].applied.map((e) => e.index);
    expect(applied.slice(0, 10)).to.deep.equal(Array.from({ length: 10 }, (_, k) => k));
    expect(applied.slice(10)).to.deep.equal(Array.from({ length: l.ledgerEndIndex - begin + 1 }, (_, k) => begin + k));
    // A restart loads the rebuilt log.
    await f.shutdown();
    servers[i] = make(i);
    await servers[i]!.start();
    expect(servers[i]!.store.ledgerBeginIndex).to.equal(begin);
    expect(servers[i]!.store.ledgerEndIndex).to.equal(l.ledgerEndIndex);
    // A leader whose disk is full refuses appends with DISK_FULL (nothing enters the log).
    const endBefore = l.ledgerEndIndex;
    await l.store.cleanSpace(Date.now(), l.appliedIndex, async () => 0.96);
    const refused = await l.append(Buffer.from('refused')).then(() => null, (e: unknown) => e);
    expect(refused).to.be.instanceOf(DLedgerError);
    expect((refused as DLedgerError).code).to.equal(DLedgerResponseCode.DISK_FULL);
    expect(l.ledgerEndIndex).to.equal(endBefore);
    await l.store.cleanSpace(Date.now(), l.appliedIndex, async () => 0.2);
    await l.append(Buffer.from('ok again'));
  });

  it('truncates the uncommitted entries of a partitioned old leader on rejoin; committed ones stay', async () => {
    await waitFor(() => leaders().length === 1, 10000, 'a leader');
    const old = leader()!;
    await old.append(Buffer.from('committed'));
    const i = servers.indexOf(old);
    const others = servers.filter((s) => s !== old) as DLedgerServer[];
    // Partition: the two others stop; the old leader appends entries nobody else gets.
    const otherIdx = others.map((s) => servers.indexOf(s));
    for (const s of others) await s.shutdown();
    for (const k of otherIdx) servers[k] = null;
    const lost = [old.append(Buffer.from('u1')).catch((e: Error) => e), old.append(Buffer.from('u2')).catch((e: Error) => e)];
    await waitFor(() => old.ledgerEndIndex === 2, 5000, 'uncommitted appended');
    await old.shutdown();
    for (const r of await Promise.all(lost)) expect(r).to.be.instanceOf(Error);
    servers[i] = null;
    // The others come back and elect a leader among themselves, which appends new entries.
    for (const k of otherIdx) {
      servers[k] = make(k);
      await servers[k]!.start();
    }
    await waitFor(() => leaders().length === 1, 10000, 'a leader among the others');
    const results = await leader()!.append(Buffer.from('new'));
    expect(results.index).to.equal(1);
    servers[i] = make(i);
    await servers[i]!.start();
    await waitFor(() => machines[i].applied.length === 2 && servers[i]!.ledgerEndIndex === 1, 10000, 'old leader truncated and caught up');
    expect(machines[i].applied.map((e) => e.body.toString())).to.deep.equal(['committed', 'new']);
  });

  it('pushes an append to idle followers once the leader wrote it, without waiting for a timer', async () => {
    // Found by npm run chaos -- net: the pushers were woken before the leader's own write, found nothing to send and
    // slept until their idle timer (up to 1 s), so each append at low load took about a second to commit.
    await waitFor(() => leaders().length === 1, 10000, 'a leader');
    const l = leader()!;
    await l.append(Buffer.from('warm-up'));
    // The pushers are idle once both followers learnt the commit (their last push) and the answers are back.
    await waitFor(() => servers.every((s) => s!.committedIndex === 0), 10000, 'the followers knowing the commit');
    await new Promise((r) => setTimeout(r, 200));
    const realSetTimeout = setTimeout;
    // No timer fires from here on (heartbeats, pusher idle waits, elections): only the write's completion can move
    // the new entry to the followers.
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const outcome = await Promise.race([
        l.append(Buffer.from('no-timer')).then((r) => `committed at ${r.index}`),
        new Promise<string>((resolve) => realSetTimeout(() => resolve('not pushed without a timer'), 10_000)),
      ]);
      expect(outcome).to.equal('committed at 1');
    } finally {
      mock.timers.reset();
    }
  });
});

describe('dledger: the entry pusher is woken by the leader\'s write, pipelines and batches (counted)', function () {
  this.timeout(120000);
  let root: string;
  let servers: DLedgerServer[] = [];
  // Heartbeats once a second and followers that tolerate ten missed ones: a pusher that waits for a paced turn
  // (the heartbeat interval, or a one-second timer) shows up as heartbeats counted during the appends.
  const SLOW_BEAT: Partial<DLedgerConfig> = { ...FAST, heartBeatTimeIntervalMs: 1000, maxHeartBeatLeak: 10, maxWaitAckTimeMs: 30000 };

  const start = async (extra: Partial<DLedgerConfig> = {}): Promise<DLedgerServer> => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'dledger-push-'));
    const ports = [await freePort(), await freePort(), await freePort()];
    const peers = ports.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
    servers = [0, 1, 2].map((i) => new DLedgerServer({ ...SLOW_BEAT, group: 'g', selfId: `n${i}`, peers, storeBaseDir: root, ...extra }, { stateMachine: new Recorder() }));
    await Promise.all(servers.map((s) => s.start()));
    await waitFor(() => servers.filter((s) => s.isLeader).length === 1 && servers.every((s) => s.leaderId !== null), 10000, 'a leader known to all');
    return servers.find((s) => s.isLeader)!;
  };
  afterEach(async () => {
    for (const s of servers) await s.shutdown();
    servers = [];
    await fs.rm(root, { recursive: true, force: true });
  });

  it('a lone sync producer\'s appends each go out on the leader\'s write: no entry waits for a timer or a heartbeat', async () => {
    const l = await start();
    const followers = servers.filter((s) => s !== l);
    // Let the dispatchers settle (COMPARE done, first idle COMMIT sent) before counting.
    await l.append(Buffer.from('warm-up'));
    await waitFor(() => followers.every((f) => f.committedIndex === 0), 10000, 'warm-up committed on the followers');
    const before = l.pusherStats();
    let beats = 0;
    for (const f of followers) {
      const orig = f.handleHeartBeat.bind(f);
      f.handleHeartBeat = (req) => {
        beats++;
        return orig(req);
      };
    }
    const N = 20;
    for (let i = 0; i < N; i++) await l.append(Buffer.from(`m${i}`));
    // Ten appends a heartbeat would mean one entry in ten waited for a paced turn; the fixed pusher needs none.
    expect(beats, 'heartbeats the followers got during the appends').to.be.below(N / 4);
    for (const [id, after] of l.pusherStats()) {
      const b = before.get(id)!;
      expect(after.entriesPushedByTimer - b.entriesPushedByTimer, `${id}: entries pushed by a timer turn`).to.equal(0);
      expect(after.entriesPushed - b.entriesPushed, `${id}: entries pushed`).to.equal(N);
      expect(after.appendPushes - b.appendPushes, `${id}: APPEND pushes`).to.equal(N);
    }
    // Each follower learns the commit of the last entry by a COMMIT push, not by the next heartbeat.
    await waitFor(() => followers.every((f) => f.committedIndex === N), 10000, 'the last commit on the followers');
    expect(beats).to.be.below(N / 4);
  });

  it('an append no quorum acknowledges fails with WAIT_QUORUM_ACK_TIMEOUT (the maintain loop checks the deadlines)', async () => {
    const l = await start({ maxWaitAckTimeMs: 200 });
    await l.append(Buffer.from('ok'));
    for (const f of servers.filter((s) => s !== l)) await f.shutdown();
    const errs = await Promise.all([0, 1, 2].map((i) => l.append(Buffer.from(`lost${i}`)).then(() => null, (e: unknown) => e)));
    for (const e of errs) expect((e as DLedgerError).code).to.equal(DLedgerResponseCode.WAIT_QUORUM_ACK_TIMEOUT);
    expect(l.isLeader).to.equal(true);
  });

  it('a leader refuses appends while its disk is full (DISK_FULL) and takes them again once space is back, without a cleanup run', async () => {
    const l = await start();
    await l.append(Buffer.from('before'));
    // The disk of every peer reads full; the maintain loop's disk check (every 100 ms, Java's CleanSpaceService) sees it.
    let full = true;
    const statfs = fs.statfs;
    const fake = mock.method(fs, 'statfs', async (p: string) => {
      const st = await statfs(p);
      return full ? { ...st, bfree: 0, bavail: 0 } : st;
    });
    try {
      await waitFor(async () => {
        const e = await l.append(Buffer.from('x')).then(() => null, (err: unknown) => err);
        return (e as DLedgerError | null)?.code === DLedgerResponseCode.DISK_FULL;
      }, 10000, 'appends refused with DISK_FULL');
      full = false;
      await waitFor(async () => (await l.append(Buffer.from('after')).then(() => true, () => false)), 10000, 'appends taken again');
    } finally {
      fake.mock.restore();
    }
  });

  it('pipelines pushes up to maxInflightPushNum and batches what piles up behind them; every entry goes out once', async () => {
    const l = await start({ maxInflightPushNum: 4 });
    const N = 600;
    const results = await Promise.all(Array.from({ length: N }, (_, i) => l.append(Buffer.alloc(512, i % 251))));
    expect(results.map((r) => r.index)).to.deep.equal(Array.from({ length: N }, (_, i) => i));
    for (const [id, st] of l.pusherStats()) {
      expect(st.entriesPushed, `${id}: entries pushed`).to.equal(N);
      expect(st.appendPushes, `${id}: APPEND pushes (batched)`).to.be.below(N);
      expect(st.maxInflight, `${id}: pushes in flight at once`).to.be.within(2, 4);
      expect(st.entriesPushedByTimer, `${id}: entries pushed by a timer turn`).to.equal(0);
    }
    await waitFor(() => servers.every((s) => s.committedIndex === N - 1 && s.appliedIndex === N - 1), 20000, 'all applied everywhere');
  });
});
