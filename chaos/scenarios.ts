/**
 * The chaos scenarios (OpenMessaging-Chaos style): a name server and a broker as child processes, producers and
 * consumers in other processes, a fault injected repeatedly under load, then a final drain that counts what was
 * acknowledged but is gone (lost) and what is there twice (duplicated).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DefaultMQAdminExt } from '../lib/admin/default-mq-admin-ext';
import { newTopicConfig } from '../protocol/body/topic-config';
import { drainTopic, readKeys, tally } from './drain';
import { ChaosProxy } from './tcp-proxy';
import { tearStore } from './torn';
import { fillDisk } from './fill-disk';
import { ServerProcess, Worker, killAll, makeTempDir, portForRestarts, removeDir } from './procs';
import { CONTROLLER_MODE_TEST_TIMINGS } from '../lib/cluster';
import { RemotingClient } from '../lib/transport/remoting-client';
import { RemotingCommand } from '../protocol/remoting-command';
import { RequestCode } from '../protocol/code/request-code';
import { GetMetaDataResponseHeader, GetReplicaInfoRequestHeader, GetReplicaInfoResponseHeader } from '../protocol/header';
import { decodeSyncStateSet } from '../protocol/body/sync-state-set';

export interface ScenarioOptions {
  cycles: number;
  /** Producer processes (default 4). */
  producers?: number;
  /** For `pause`: how long the broker stays stopped, ms (default 10 000; the issue's "GC pause" is 10–30 s). */
  pauseMs?: number;
  /** Acknowledgements to wait for between two faults (default 200). */
  acksPerCycle?: number;
  log?: (line: string) => void;
  /** Keep the temp dir (logs and store) for a post-mortem. */
  keep?: boolean;
}

export interface ScenarioResult {
  scenario: string;
  cycles: number;
  acknowledged: number;
  lost: number;
  duplicated: number;
  /** Keys lost (at most 20), for a post-mortem. */
  lostKeys: string[];
  /** Send failures seen by the producers (timeouts, broker down): expected under faults. */
  sendFailures: number;
  /** The promise holds: nothing acknowledged was lost. */
  promise: 'lost must be 0' | 'loss reported, not bounded to 0';
  notes: string[];
}

const TOPIC = 'ChaosTopic';

interface Cluster {
  dir: string;
  namesrv: ServerProcess;
  broker: ServerProcess;
}

interface BrokerNet {
  /** The address the broker advertises (brokerIP1) and the one it binds; differ when a proxy sits in between. */
  brokerIP1: string;
  bindAddress: string;
  port: number;
}

async function startCluster(dir: string, flushDiskType: 'SYNC_FLUSH' | 'ASYNC_FLUSH', net?: BrokerNet, storeRoot = path.join(dir, 'store'), extra: string[] = []): Promise<Cluster> {
  const namesrv = new ServerProcess('namesrv', (port) => ['-p', String(port), `--kvConfigPath=${path.join(dir, 'kvConfig.json')}`],
    path.join(dir, 'namesrv.log'));
  await namesrv.start();
  const broker = new ServerProcess('broker', (port) => [
    '-n', namesrv.addr, `--listenPort=${port}`, `--brokerIP1=${net?.brokerIP1 ?? '127.0.0.1'}`,
    `--bindAddress=${net?.bindAddress ?? '0.0.0.0'}`, '--brokerClusterName=ChaosCluster',
    '--brokerName=chaos-broker', `--storePathRootDir=${storeRoot}`, `--flushDiskType=${flushDiskType}`,
    '--mappedFileSizeCommitLog=16777216', '--registerNameServerPeriod=10000', ...extra,
  ], path.join(dir, 'broker.log'));
  if (net) broker.port = net.port;
  await broker.start();
  const admin = new DefaultMQAdminExt({ namesrvAddr: namesrv.addr, instanceName: `chaos-admin-${process.pid}` });
  await admin.start();
  try {
    await waitFor(async () => { await admin.createTopic('TBW102', TOPIC, 4); return true; }, 30_000, 'topic creation');
  } finally {
    await admin.shutdown();
  }
  return { dir, namesrv, broker };
}

/** Retries `check` (which may throw) every 200 ms until it returns true; fails after `limitMs` with `what`. */
async function waitFor(check: () => Promise<boolean> | boolean, limitMs: number, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  let lastErr: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastErr ? `: ${(lastErr as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

type ProducerProgress = { acked: number; failed: number; notOk: number; notOkByStatus?: Record<string, number>; sent: number; lastError: string };
type ConsumerProgress = { received: number };

function startProducers(c: Pick<Cluster, 'dir' | 'namesrv'>, n: number, mode: 'sync' | 'async' = 'sync'): Worker<ProducerProgress>[] {
  return Array.from({ length: n }, (_, i) => new Worker<ProducerProgress>('producer-child.js',
    [c.namesrv.addr, TOPIC, String(i), path.join(c.dir, `acked-${i}.txt`), mode]));
}

const totalAcked = (ps: Worker<ProducerProgress>[]): number => ps.reduce((s, p) => s + (p.last?.acked ?? 0), 0);
const totalFailed = (ps: Worker<ProducerProgress>[]): number => ps.reduce((s, p) => s + (p.last?.failed ?? 0), 0);

/** Waits until the producers together acknowledged `more` messages beyond now (the load is flowing). */
async function ackedMore(ps: Worker<ProducerProgress>[], more: number, limitMs = 180_000): Promise<void> {
  const target = totalAcked(ps) + more;
  await waitFor(() => totalAcked(ps) >= target, limitMs, `${more} more acknowledged sends (at ${totalAcked(ps)}, want ${target})`);
}

async function finishAndCount(c: Pick<Cluster, 'dir'>, ps: Worker<ProducerProgress>[]): Promise<{ acked: Map<string, number>; failures: number }> {
  await Promise.all(ps.map((p) => p.finish()));
  const failures = totalFailed(ps);
  const acked = readKeys(ps.map((_, i) => path.join(c.dir, `acked-${i}.txt`)));
  return { acked, failures };
}

async function run(name: string, opts: ScenarioOptions, body: (c: { dir: string; log: (l: string) => void }) => Promise<ScenarioResult>): Promise<ScenarioResult> {
  const dir = makeTempDir(name);
  const log = opts.log ?? (() => undefined);
  try {
    return await body({ dir, log });
  } finally {
    await killAll();
    if (opts.keep) log(`kept ${dir}`);
    else removeDir(dir);
  }
}

/** kill -9 of the broker under producers sending sync; `flush` picks SYNC_FLUSH (no loss promised) or ASYNC_FLUSH. */
export function brokerKill(flush: 'SYNC_FLUSH' | 'ASYNC_FLUSH', opts: ScenarioOptions): Promise<ScenarioResult> {
  const name = flush === 'SYNC_FLUSH' ? 'broker-kill-sync' : 'broker-kill-async';
  return run(name, opts, async ({ dir, log }) => {
    const c = await startCluster(dir, flush);
    const ps = startProducers(c, opts.producers ?? 4);
    const per = opts.acksPerCycle ?? 200;
    for (let cycle = 1; cycle <= opts.cycles; cycle++) {
      // A random point in the load: between per/2 and per*1.5 acknowledgements after the last restart.
      await ackedMore(ps, Math.ceil(per / 2 + Math.random() * per));
      await c.broker.kill('SIGKILL');
      await c.broker.start();
      log(`${name} cycle ${cycle}/${opts.cycles}: acked=${totalAcked(ps)} failed=${totalFailed(ps)}`);
    }
    await ackedMore(ps, per);
    const { acked, failures } = await finishAndCount(c, ps);
    const t = tally(acked, await drainTopic(c.namesrv.addr, TOPIC));
    return {
      scenario: name, cycles: opts.cycles, ...t, sendFailures: failures,
      promise: flush === 'SYNC_FLUSH' ? 'lost must be 0' : 'loss reported, not bounded to 0',
      notes: [`broker started ${c.broker.starts} times`],
    };
  });
}

/** kill -9 of the name server: clients keep sending on cached routes; the broker re-registers when it returns. */
export function namesrvKill(opts: ScenarioOptions): Promise<ScenarioResult> {
  return run('namesrv-kill', opts, async ({ dir, log }) => {
    const c = await startCluster(dir, 'SYNC_FLUSH');
    const ps = startProducers(c, opts.producers ?? 2);
    const per = opts.acksPerCycle ?? 200;
    const admin = new DefaultMQAdminExt({ namesrvAddr: c.namesrv.addr, instanceName: `chaos-route-${process.pid}` });
    await admin.start();
    try {
      for (let cycle = 1; cycle <= opts.cycles; cycle++) {
        await ackedMore(ps, per);
        await c.namesrv.kill('SIGKILL');
        // With the name server gone, sends go on over the routes the clients have cached.
        await ackedMore(ps, per);
        await c.namesrv.start();
        // The broker registers again within registerNameServerPeriod (10 s at the least, as Java).
        await waitFor(async () => (await admin.examineTopicRouteInfo(TOPIC)).brokerDatas.length > 0, 60_000, 'the broker re-registering');
        log(`namesrv-kill cycle ${cycle}/${opts.cycles}: acked=${totalAcked(ps)} failed=${totalFailed(ps)}`);
      }
    } finally {
      await admin.shutdown();
    }
    await ackedMore(ps, per);
    const { acked, failures } = await finishAndCount(c, ps);
    const t = tally(acked, await drainTopic(c.namesrv.addr, TOPIC));
    return { scenario: 'namesrv-kill', cycles: opts.cycles, ...t, sendFailures: failures, promise: 'lost must be 0', notes: [] };
  });
}

/** SIGSTOP / SIGCONT of the broker (a long GC pause): clients time out, then everything recovers. */
export function brokerPause(opts: ScenarioOptions): Promise<ScenarioResult> {
  return run('broker-pause', opts, async ({ dir, log }) => {
    const c = await startCluster(dir, 'SYNC_FLUSH');
    const ps = startProducers(c, opts.producers ?? 4);
    const per = opts.acksPerCycle ?? 200;
    const pauseMs = opts.pauseMs ?? 10_000;
    for (let cycle = 1; cycle <= opts.cycles; cycle++) {
      await ackedMore(ps, per);
      const failedBefore = totalFailed(ps);
      await c.broker.kill('SIGSTOP');
      await new Promise((r) => setTimeout(r, pauseMs));
      const failedDuring = totalFailed(ps) - failedBefore;
      await c.broker.kill('SIGCONT');
      log(`broker-pause cycle ${cycle}/${opts.cycles}: ${pauseMs} ms stopped, ${failedDuring} sends failed meanwhile`);
    }
    await ackedMore(ps, per);
    const { acked, failures } = await finishAndCount(c, ps);
    const t = tally(acked, await drainTopic(c.namesrv.addr, TOPIC));
    return { scenario: 'broker-pause', cycles: opts.cycles, ...t, sendFailures: failures, promise: 'lost must be 0', notes: [`pause ${pauseMs} ms`] };
  });
}

/** Members of a consumer group killed (-9) and replaced under load: every acknowledged message is consumed. */
export function consumerKill(opts: ScenarioOptions): Promise<ScenarioResult> {
  return run('consumer-kill', opts, async ({ dir, log }) => {
    const c = await startCluster(dir, 'SYNC_FLUSH');
    const ps = startProducers(c, opts.producers ?? 2);
    const group = 'chaos_cg';
    let n = 0;
    const recvFiles: string[] = [];
    const startConsumer = (): Worker<ConsumerProgress> => {
      const file = path.join(dir, `received-${n}.txt`);
      recvFiles.push(file);
      return new Worker<ConsumerProgress>('consumer-child.js', [c.namesrv.addr, TOPIC, group, file, `c${n++}`]);
    };
    const consumers = [startConsumer(), startConsumer(), startConsumer()];
    const per = opts.acksPerCycle ?? 200;
    const received = (): number => consumers.reduce((s, w) => s + (w.last?.received ?? 0), 0);
    for (let cycle = 1; cycle <= opts.cycles; cycle++) {
      await ackedMore(ps, per);
      const victim = Math.floor(Math.random() * consumers.length);
      await consumers[victim].kill();
      consumers[victim] = startConsumer();
      const before = received();
      await waitFor(() => received() > before, 120_000, 'consumption after a member was replaced');
      log(`consumer-kill cycle ${cycle}/${opts.cycles}: acked=${totalAcked(ps)} received=${received()}`);
    }
    await ackedMore(ps, per);
    const { acked, failures } = await finishAndCount(c, ps);
    // Everything acknowledged must arrive at the surviving members.
    await waitFor(() => { const seen = readKeys(recvFiles); return [...acked.keys()].every((k) => seen.has(k)); }, 180_000,
      'the group to consume every acknowledged message');
    await Promise.all(consumers.map((w) => w.finish()));
    const t = tally(acked, readKeys(recvFiles));
    return { scenario: 'consumer-kill', cycles: opts.cycles, ...t, sendFailures: failures, promise: 'lost must be 0', notes: ['duplicates are redeliveries to the group'] };
  });
}

/**
 * Network faults between the clients and the broker through our TCP proxy (chaos/tcp-proxy.ts): the broker binds
 * 127.0.0.1:P and advertises 127.0.0.2:P, where the proxy listens. Each cycle: connections cut mid-frame with a RST,
 * then every open connection black-holed (half-open, no FIN), then 300 ms of delay each way.
 */
export function network(opts: ScenarioOptions): Promise<ScenarioResult> {
  return run('network', opts, async ({ dir, log }) => {
    const proxy = new ChaosProxy('127.0.0.2', '127.0.0.1');
    const port = await proxy.listen(0);
    proxy.targetPort = port;
    try {
      const c = await startCluster(dir, 'SYNC_FLUSH', { brokerIP1: '127.0.0.2', bindAddress: '127.0.0.1', port });
      const ps = startProducers(c, opts.producers ?? 4);
      const per = opts.acksPerCycle ?? 200;
      const notes: string[] = [];
      for (let cycle = 1; cycle <= opts.cycles; cycle++) {
        await ackedMore(ps, per);
        const cut = proxy.cutMidFrame();
        await ackedMore(ps, per);
        const blackholed = proxy.halfOpen();
        const t0 = Date.now();
        await ackedMore(ps, per);
        const halfOpenRecoveryMs = Date.now() - t0;
        proxy.delayMs = 300;
        await ackedMore(ps, Math.ceil(per / 4));
        proxy.delayMs = 0;
        const line = `cycle ${cycle}: ${cut} connections cut mid-frame, ${blackholed} black-holed (recovered in ${halfOpenRecoveryMs} ms), 300 ms delay passed`;
        notes.push(line);
        log(`network ${line}; acked=${totalAcked(ps)} failed=${totalFailed(ps)}`);
      }
      await ackedMore(ps, per);
      const { acked, failures } = await finishAndCount(c, ps);
      const t = tally(acked, await drainTopic(c.namesrv.addr, TOPIC));
      return { scenario: 'network', cycles: opts.cycles, ...t, sendFailures: failures, promise: 'lost must be 0', notes: notes.slice(-3) };
    } finally {
      await proxy.close();
    }
  });
}

/**
 * Torn writes: producers stop, the broker is killed -9, its store gets a half-written last record, a consume queue
 * cut mid-entry, a checkpoint of zeros and an index file cut short (chaos/torn.ts); it must start, serve every
 * acknowledged message, not serve the torn record (it would show as a duplicate) and take new writes.
 */
export function tornWrites(opts: ScenarioOptions): Promise<ScenarioResult> {
  return run('torn-writes', opts, async ({ dir, log }) => {
    const c = await startCluster(dir, 'SYNC_FLUSH');
    const per = opts.acksPerCycle ?? 200;
    const n = opts.producers ?? 2;
    const all: Worker<ProducerProgress>[] = [];
    const notes: string[] = [];
    let failures = 0;
    for (let cycle = 1; cycle <= opts.cycles; cycle++) {
      const ps = Array.from({ length: n }, (_, i) => new Worker<ProducerProgress>('producer-child.js',
        [c.namesrv.addr, TOPIC, String(all.length + i), path.join(c.dir, `acked-${all.length + i}.txt`), 'sync']));
      all.push(...ps);
      await ackedMore(ps, per);
      await Promise.all(ps.map((p) => p.finish()));
      failures += totalFailed(ps);
      await c.broker.kill('SIGKILL');
      const torn = tearStore(path.join(dir, 'store'));
      await c.broker.start();
      const line = `cycle ${cycle}: half record (${torn.tornRecordSize} B) at ${torn.commitLogTornAt}, cq ${torn.consumeQueueCut ?? 'none'}, checkpoint zeroed, index ${torn.indexCut ?? 'none'} cut`;
      notes.push(line);
      log(`torn-writes ${line}`);
    }
    // The broker takes writes again after the repairs.
    const after = new Worker<ProducerProgress>('producer-child.js', [c.namesrv.addr, TOPIC, String(all.length), path.join(c.dir, `acked-${all.length}.txt`), 'sync']);
    all.push(after);
    await ackedMore([after], per);
    await after.finish();
    failures += totalFailed([after]);
    const acked = readKeys(all.map((_, i) => path.join(c.dir, `acked-${i}.txt`)));
    const t = tally(acked, await drainTopic(c.namesrv.addr, TOPIC));
    return { scenario: 'torn-writes', cycles: opts.cycles, ...t, sendFailures: failures, promise: 'lost must be 0', notes: [...notes.slice(-2), 'duplicated must be 0 too: a torn record served would be one'] };
  });
}

/**
 * Disk full: the store on a tmpfs of its own (mounting needs root; skipped with a note otherwise). A filler file takes
 * the disk past Java's warning level (90 %): the broker marks the disk full and refuses sends with Java's
 * SERVICE_NOT_AVAILABLE answer, keeps serving reads; once the filler is gone it takes writes again, and after a restart
 * every acknowledged message is there (no damaged file).
 */
export function diskFull(opts: ScenarioOptions): Promise<ScenarioResult> {
  return run('disk-full', opts, async ({ dir, log }) => {
    const mnt = path.join(dir, 'disk');
    fs.mkdirSync(mnt);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', mnt], { stdio: 'ignore' });
    } catch {
      return { scenario: 'disk-full', cycles: 0, acknowledged: 0, lost: 0, duplicated: 0, lostKeys: [], sendFailures: 0, promise: 'lost must be 0',
        notes: ['skipped: cannot mount a tmpfs here (needs root)'] };
    }
    try {
      const c = await startCluster(dir, 'SYNC_FLUSH', undefined, path.join(mnt, 'store'), ['--cleanResourceInterval=500']);
      const ps = startProducers(c, opts.producers ?? 2);
      const per = opts.acksPerCycle ?? 200;
      const notes: string[] = [];
      const filler = path.join(mnt, 'filler');
      for (let cycle = 1; cycle <= opts.cycles; cycle++) {
        await ackedMore(ps, per);
        fillDisk(mnt, filler, 0.95);
        // The broker notices at its next cleanup pass and refuses sends.
        const failedBefore = totalFailed(ps);
        await waitFor(() => totalFailed(ps) >= failedBefore + 4, 60_000, 'sends refused on a full disk');
        const answer = ps.map((p) => p.last?.lastError ?? '').find((e) => e.includes('disk is full')) ?? ps[0].last?.lastError ?? '';
        // Reads go on: everything acknowledged so far is readable now.
        const ackedSoFar = readKeys(ps.map((_, i) => path.join(dir, `acked-${i}.txt`)));
        const seen = await drainTopic(c.namesrv.addr, TOPIC);
        const unreadable = [...ackedSoFar.keys()].filter((k) => !seen.has(k)).length;
        fs.rmSync(filler);
        await ackedMore(ps, per);
        notes.push(`cycle ${cycle}: refused with "${answer.slice(0, 160)}"; ${seen.size} read while full, ${unreadable} acknowledged unreadable`);
        log(`disk-full ${notes[notes.length - 1]}`);
        if (unreadable > 0) throw new Error(`${unreadable} acknowledged messages unreadable while the disk was full`);
      }
      const { acked, failures } = await finishAndCount(c, ps);
      await c.broker.stop();
      await c.broker.start();
      const t = tally(acked, await drainTopic(c.namesrv.addr, TOPIC));
      return { scenario: 'disk-full', cycles: opts.cycles, ...t, sendFailures: failures, promise: 'lost must be 0', notes: notes.slice(-2) };
    } finally {
      await killAll();
      try { execFileSync('umount', ['-l', mnt], { stdio: 'ignore' }); } catch { /* not mounted */ }
    }
  });
}

interface HaCluster extends Cluster {
  slave: ServerProcess;
}

/** A SYNC_MASTER master and its slave (brokerId 1, store of its own) in one broker group, the topic on both. */
async function startHaCluster(dir: string): Promise<HaCluster> {
  const c = await startCluster(dir, 'SYNC_FLUSH', undefined, path.join(dir, 'store-master'), ['--brokerRole=SYNC_MASTER']);
  const slave = new ServerProcess('broker', (port) => [
    '-n', c.namesrv.addr, `--listenPort=${port}`, '--brokerIP1=127.0.0.1', '--bindAddress=0.0.0.0', '--brokerClusterName=ChaosCluster',
    '--brokerName=chaos-broker', '--brokerId=1', '--brokerRole=SLAVE', `--storePathRootDir=${path.join(dir, 'store-slave')}`,
    '--flushDiskType=SYNC_FLUSH', '--mappedFileSizeCommitLog=16777216', '--registerNameServerPeriod=10000',
  ], path.join(dir, 'slave.log'));
  await slave.start();
  const admin = new DefaultMQAdminExt({ namesrvAddr: c.namesrv.addr, instanceName: `chaos-ha-admin-${process.pid}` });
  await admin.start();
  try {
    // The slave copies topic configs from its master every 10 s (SlaveSynchronize); create it there at once.
    await waitFor(async () => {
      await admin.createAndUpdateTopicConfig(slave.addr, newTopicConfig(TOPIC, { readQueueNums: 4, writeQueueNums: 4 }));
      const route = await admin.examineTopicRouteInfo(TOPIC);
      return route.brokerDatas.some((bd) => bd.brokerAddrs.has(1));
    }, 60_000, 'the slave registered with the topic');
  } finally {
    await admin.shutdown();
  }
  return { ...c, slave };
}

const notOkOf = (ps: Worker<ProducerProgress>[], status: string): number =>
  ps.reduce((s, p) => s + (p.last?.notOkByStatus?.[status] ?? 0), 0);
const totalNotOk = (ps: Worker<ProducerProgress>[]): number => ps.reduce((s, p) => s + (p.last?.notOk ?? 0), 0);

/**
 * kill -9 of a SYNC_MASTER master under producers sending sync: while it is down, every message acknowledged before
 * the kill is read from the slave; after it returns, nothing acknowledged is lost.
 */
export function haMasterKill(opts: ScenarioOptions): Promise<ScenarioResult> {
  return run('ha-master-kill', opts, async ({ dir, log }) => {
    const c = await startHaCluster(dir);
    const ps = startProducers(c, opts.producers ?? 4);
    const per = opts.acksPerCycle ?? 200;
    const notes: string[] = [];
    let readFromSlave = 0;
    for (let cycle = 1; cycle <= opts.cycles; cycle++) {
      await ackedMore(ps, Math.ceil(per / 2 + Math.random() * per));
      await c.broker.kill('SIGKILL');
      // Every key recorded as acknowledged by now was acknowledged before the kill: the slave must serve it.
      const ackedBefore = readKeys(ps.map((_, i) => path.join(dir, `acked-${i}.txt`)));
      const seen = await drainTopic(c.namesrv.addr, TOPIC);
      const unreadable = [...ackedBefore.keys()].filter((k) => !seen.has(k));
      readFromSlave = ackedBefore.size;
      if (unreadable.length > 0) {
        throw new Error(`cycle ${cycle}: ${unreadable.length} acknowledged messages not readable from the slave: ${unreadable.slice(0, 10).join(' ')}`);
      }
      await c.broker.start();
      const line = `cycle ${cycle}: ${ackedBefore.size} acknowledged read from the slave while the master was down`;
      notes.push(line);
      log(`ha-master-kill ${line}; acked=${totalAcked(ps)} failed=${totalFailed(ps)} notOk=${totalNotOk(ps)}`);
    }
    // SEND_OK again means the slave caught up with the restarted master.
    await ackedMore(ps, per);
    const { acked, failures } = await finishAndCount(c, ps);
    const t = tally(acked, await drainTopic(c.namesrv.addr, TOPIC));
    return {
      scenario: 'ha-master-kill', cycles: opts.cycles, ...t, sendFailures: failures, promise: 'lost must be 0',
      notes: [...notes.slice(-2), `last outage: ${readFromSlave} read from the slave`, `not SEND_OK: ${totalNotOk(ps)}`],
    };
  });
}

/**
 * kill -9 of the slave under SYNC_MASTER: sends are answered SLAVE_NOT_AVAILABLE / FLUSH_SLAVE_TIMEOUT (stored on the
 * master, not acknowledged) until the slave is back; nothing acknowledged is lost.
 */
export function haSlaveKill(opts: ScenarioOptions): Promise<ScenarioResult> {
  return run('ha-slave-kill', opts, async ({ dir, log }) => {
    const c = await startHaCluster(dir);
    const ps = startProducers(c, opts.producers ?? 4);
    const per = opts.acksPerCycle ?? 200;
    const notes: string[] = [];
    for (let cycle = 1; cycle <= opts.cycles; cycle++) {
      await ackedMore(ps, Math.ceil(per / 2 + Math.random() * per));
      const refusedBefore = totalNotOk(ps);
      await c.slave.kill('SIGKILL');
      // The master answers without the slave's acknowledgement.
      await waitFor(() => totalNotOk(ps) >= refusedBefore + 4, 60_000, 'sends answered SLAVE_NOT_AVAILABLE / FLUSH_SLAVE_TIMEOUT');
      await c.slave.start();
      const line = `cycle ${cycle}: ${totalNotOk(ps) - refusedBefore} sends not acknowledged while the slave was down`;
      notes.push(line);
      log(`ha-slave-kill ${line}; acked=${totalAcked(ps)} failed=${totalFailed(ps)}`);
    }
    await ackedMore(ps, per);
    const { acked, failures } = await finishAndCount(c, ps);
    const t = tally(acked, await drainTopic(c.namesrv.addr, TOPIC));
    return {
      scenario: 'ha-slave-kill', cycles: opts.cycles, ...t, sendFailures: failures, promise: 'lost must be 0',
      notes: [...notes.slice(-2), `SLAVE_NOT_AVAILABLE ${notOkOf(ps, 'SLAVE_NOT_AVAILABLE')}, FLUSH_SLAVE_TIMEOUT ${notOkOf(ps, 'FLUSH_SLAVE_TIMEOUT')}`],
    };
  });
}

interface ControllerCluster {
  dir: string;
  namesrv: ServerProcess;
  controllers: ServerProcess[];
  /** The controllers' addresses (the brokers' controllerAddr), fixed across restarts. */
  controllerAddrs: string[];
  replicas: ServerProcess[];
  admin: DefaultMQAdminExt;
  query: RemotingClient;
  close(): Promise<void>;
}

const CONTROLLER_BROKER_NAME = 'chaos-broker';

/**
 * Controller mode: a name server, `controllers` controller processes (one DLedger group) and `replicas` brokers of
 * one broker set with enableControllerMode and allAckInSyncStateSet (a SEND_OK means every replica of the SyncStateSet
 * holds the message), each its own process, with the short timings of startCluster's controller mode; the topic on
 * every replica. Resolves once a master is registered and every replica is in its SyncStateSet.
 */
async function startControllerCluster(dir: string, controllers: number, replicas: number): Promise<ControllerCluster> {
  const namesrv = new ServerProcess('namesrv', (port) => ['-p', String(port), `--kvConfigPath=${path.join(dir, 'kvConfig.json')}`], path.join(dir, 'namesrv.log'));
  await namesrv.start();
  const ports: number[] = [];
  // Below the ephemeral range, as a restarted server's port must be (see portForRestarts).
  for (let i = 0; i < controllers; i++) ports.push(await portForRestarts());
  const peers = ports.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
  const timing = (o: object): string[] => Object.entries(o).map(([k, v]) => `--${k}=${v}`);
  const cs = ports.map((_, i) => new ServerProcess('controller', () => [
    '--controllerDLegerGroup=chaos-controllers', `--controllerDLegerPeers=${peers}`, `--controllerDLegerSelfId=n${i}`,
    `--controllerStorePath=${path.join(dir, `controller-n${i}`)}`, `--configStorePath=${path.join(dir, `controller-n${i}.properties`)}`,
    '--mappedFileSize=4194304', ...timing(CONTROLLER_MODE_TEST_TIMINGS.controllerConfig),
  ], path.join(dir, `controller-n${i}.log`)));
  cs.forEach((c, i) => { c.port = ports[i]; });
  await Promise.all(cs.map((c) => c.start()));
  const controllerAddrs = ports.map((p) => `127.0.0.1:${p}`);
  const rs = Array.from({ length: replicas }, (_, i) => new ServerProcess('broker', (port) => [
    '-n', namesrv.addr, `--listenPort=${port}`, '--brokerIP1=127.0.0.1', '--brokerIP2=127.0.0.1', '--brokerClusterName=ChaosCluster',
    `--brokerName=${CONTROLLER_BROKER_NAME}`, `--storePathRootDir=${path.join(dir, `replica${i}`)}`, '--mappedFileSizeCommitLog=16777216',
    '--registerNameServerPeriod=10000', '--enableControllerMode=true', `--controllerAddr=${controllerAddrs.join(';')}`, '--allAckInSyncStateSet=true',
    ...timing(CONTROLLER_MODE_TEST_TIMINGS.brokerConfig), ...timing(CONTROLLER_MODE_TEST_TIMINGS.storeConfig),
  ], path.join(dir, `replica${i}.log`)));
  // One after the other: the first to ask for an election is the first master.
  for (const r of rs) await r.start();
  const admin = new DefaultMQAdminExt({ namesrvAddr: namesrv.addr, instanceName: `chaos-ctl-admin-${process.pid}` });
  await admin.start();
  const query = new RemotingClient();
  const c: ControllerCluster = {
    dir, namesrv, controllers: cs, controllerAddrs, replicas: rs, admin, query,
    async close() {
      await query.shutdown();
      await admin.shutdown();
    },
  };
  try {
    await waitFor(async () => (await routeMaster(c)) !== '' && (await syncStateOf(c)).syncStateSet.length === replicas, 120_000, 'a master and every replica in its SyncStateSet');
    for (const r of rs) await admin.createAndUpdateTopicConfig(r.addr, newTopicConfig(TOPIC, { readQueueNums: 4, writeQueueNums: 4 }));
  } catch (err) {
    await c.close();
    throw err;
  }
  return c;
}

/** The master's address at the name server ('' when none). */
async function routeMaster(c: ControllerCluster): Promise<string> {
  return (await c.admin.examineBrokerClusterInfo()).brokerAddrTable.get(CONTROLLER_BROKER_NAME)?.brokerAddrs.get(0) ?? '';
}

/** The set's master id and SyncStateSet, from whichever controller answers (a follower answers CONTROLLER_NOT_LEADER). */
async function syncStateOf(c: ControllerCluster): Promise<{ masterBrokerId: number | null; syncStateSet: number[] }> {
  for (const addr of c.controllerAddrs) {
    try {
      const res = await c.query.invoke(addr, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_REPLICA_INFO,
        GetReplicaInfoRequestHeader.encode({ brokerName: CONTROLLER_BROKER_NAME })), 2000);
      if (res.code === 0) return { masterBrokerId: GetReplicaInfoResponseHeader.decode(res.extFields).masterBrokerId ?? null, syncStateSet: decodeSyncStateSet(res.body).syncStateSet };
    } catch { /* down */ }
  }
  return { masterBrokerId: null, syncStateSet: [] };
}

/** The leading controller's address as an alive member sees it ('' when none leads). */
async function controllerLeader(c: ControllerCluster): Promise<string> {
  for (const [i, addr] of c.controllerAddrs.entries()) {
    if (!c.controllers[i].alive) continue;
    try {
      const res = await c.query.invoke(addr, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_METADATA_INFO, null), 2000);
      const h = GetMetaDataResponseHeader.decode(res.extFields);
      if (res.code === 0 && h.controllerLeaderAddress) return h.controllerLeaderAddress;
    } catch { /* down */ }
  }
  return '';
}

const REJOIN_HINT = 'a replica whose log went beyond the new master\'s (killed mid-write) is refused by the AutoSwitch HA client until truncation exists';

/** Waits until every replica is back in the SyncStateSet. */
async function allInSync(c: ControllerCluster, what: string): Promise<void> {
  await waitFor(async () => (await syncStateOf(c)).syncStateSet.length === c.replicas.length, 120_000, `${what} (${REJOIN_HINT})`);
}

/**
 * kill -9 of the controller-mode master under sync producers: the controller elects another replica of the
 * SyncStateSet, which registers as broker id 0; producers follow it. The old master comes back on its store as a
 * slave and rejoins the SyncStateSet before the next kill. With allAckInSyncStateSet nothing acknowledged is lost.
 */
export function controllerMasterKill(opts: ScenarioOptions): Promise<ScenarioResult> {
  return run('controller-master-kill', opts, async ({ dir, log }) => {
    const c = await startControllerCluster(dir, 1, 2);
    try {
      const ps = startProducers(c, opts.producers ?? 4);
      const per = opts.acksPerCycle ?? 200;
      const failovers: number[] = [];
      for (let cycle = 1; cycle <= opts.cycles; cycle++) {
        await ackedMore(ps, Math.ceil(per / 2 + Math.random() * per));
        const master = await routeMaster(c);
        const victim = c.replicas.find((r) => r.addr === master);
        if (!victim) throw new Error(`cycle ${cycle}: the name server's master ${master} is none of the replicas`);
        const t0 = Date.now();
        await victim.kill('SIGKILL');
        await waitFor(async () => { const m = await routeMaster(c); return m !== '' && m !== master; }, 60_000, 'a new master registered');
        failovers.push(Date.now() - t0);
        await ackedMore(ps, Math.ceil(per / 4));
        await victim.start();
        await allInSync(c, 'the old master back in the SyncStateSet');
        log(`controller-master-kill cycle ${cycle}/${opts.cycles}: new master registered ${failovers[failovers.length - 1]} ms after the kill; acked=${totalAcked(ps)} failed=${totalFailed(ps)} notOk=${totalNotOk(ps)}`);
      }
      await ackedMore(ps, per);
      const { acked, failures } = await finishAndCount(c, ps);
      const t = tally(acked, await drainTopic(c.namesrv.addr, TOPIC));
      const sorted = [...failovers].sort((a, b) => a - b);
      return {
        scenario: 'controller-master-kill', cycles: opts.cycles, ...t, sendFailures: failures, promise: 'lost must be 0',
        notes: [`kill -> new master at the name server: median ${sorted[Math.floor(sorted.length / 2)] ?? 0} ms, max ${sorted[sorted.length - 1] ?? 0} ms`,
          `not SEND_OK: ${totalNotOk(ps)}`],
      };
    } finally {
      await c.close();
    }
  });
}

/**
 * kill -9 of the slave under allAckInSyncStateSet: sends wait for it until the master drops it from the SyncStateSet
 * (haMaxTimeSlaveNotCatchup), then are acknowledged by the master alone; the slave comes back, catches up and rejoins.
 */
export function controllerSlaveKill(opts: ScenarioOptions): Promise<ScenarioResult> {
  return run('controller-slave-kill', opts, async ({ dir, log }) => {
    const c = await startControllerCluster(dir, 1, 2);
    try {
      const ps = startProducers(c, opts.producers ?? 4);
      const per = opts.acksPerCycle ?? 200;
      const notes: string[] = [];
      for (let cycle = 1; cycle <= opts.cycles; cycle++) {
        await ackedMore(ps, Math.ceil(per / 2 + Math.random() * per));
        const master = await routeMaster(c);
        const victim = c.replicas.find((r) => r.addr !== master)!;
        const before = totalNotOk(ps) + totalFailed(ps);
        await victim.kill('SIGKILL');
        await waitFor(async () => (await syncStateOf(c)).syncStateSet.length === c.replicas.length - 1, 60_000, 'the master shrinking its SyncStateSet');
        await ackedMore(ps, Math.ceil(per / 4));
        const refused = totalNotOk(ps) + totalFailed(ps) - before;
        await victim.start();
        await allInSync(c, 'the slave back in the SyncStateSet');
        if ((await routeMaster(c)) !== master) throw new Error(`cycle ${cycle}: the master changed on a slave kill`);
        notes.push(`cycle ${cycle}: ${refused} sends not acknowledged until the SyncStateSet shrank`);
        log(`controller-slave-kill ${notes[notes.length - 1]}; acked=${totalAcked(ps)}`);
      }
      await ackedMore(ps, per);
      const { acked, failures } = await finishAndCount(c, ps);
      const t = tally(acked, await drainTopic(c.namesrv.addr, TOPIC));
      return {
        scenario: 'controller-slave-kill', cycles: opts.cycles, ...t, sendFailures: failures, promise: 'lost must be 0',
        notes: [...notes.slice(-2), `FLUSH_SLAVE_TIMEOUT ${notOkOf(ps, 'FLUSH_SLAVE_TIMEOUT')}, SLAVE_NOT_AVAILABLE ${notOkOf(ps, 'SLAVE_NOT_AVAILABLE')}`],
      };
    } finally {
      await c.close();
    }
  });
}

/**
 * kill -9 of the leading controller of a group of 3 under sync producers: the brokers keep serving, another
 * controller leads (on the same log) and the killed one comes back and catches up. After the last cycle the group
 * still fails the set over: the master is killed and the new leader elects the other replica.
 */
export function controllerKill(opts: ScenarioOptions): Promise<ScenarioResult> {
  return run('controller-kill', opts, async ({ dir, log }) => {
    const c = await startControllerCluster(dir, 3, 2);
    try {
      const ps = startProducers(c, opts.producers ?? 4);
      const per = opts.acksPerCycle ?? 200;
      const notes: string[] = [];
      for (let cycle = 1; cycle <= opts.cycles; cycle++) {
        await ackedMore(ps, Math.ceil(per / 2 + Math.random() * per));
        const leader = await controllerLeader(c);
        const i = c.controllerAddrs.indexOf(leader);
        if (i < 0) throw new Error(`cycle ${cycle}: no controller leads (${leader})`);
        const master = await routeMaster(c);
        const t0 = Date.now();
        await c.controllers[i].kill('SIGKILL');
        await waitFor(async () => { const l = await controllerLeader(c); return l !== '' && l !== leader; }, 60_000, 'another controller leading');
        const took = Date.now() - t0;
        await ackedMore(ps, Math.ceil(per / 4));
        await c.controllers[i].start();
        // the new leader holds the set as the old one did
        const st = await syncStateOf(c);
        if (st.syncStateSet.length !== c.replicas.length || (await routeMaster(c)) !== master) {
          throw new Error(`cycle ${cycle}: the set changed on a controller kill: ${JSON.stringify(st)}, master ${await routeMaster(c)} (was ${master})`);
        }
        notes.push(`cycle ${cycle}: a new controller leader in ${took} ms, the master kept`);
        log(`controller-kill ${notes[notes.length - 1]}; acked=${totalAcked(ps)} failed=${totalFailed(ps)}`);
      }
      // the group still fails the broker set over
      const master = await routeMaster(c);
      await c.replicas.find((r) => r.addr === master)!.kill('SIGKILL');
      await waitFor(async () => { const m = await routeMaster(c); return m !== '' && m !== master; }, 60_000, 'a new master elected by the new controller leader');
      await ackedMore(ps, per);
      const { acked, failures } = await finishAndCount(c, ps);
      const t = tally(acked, await drainTopic(c.namesrv.addr, TOPIC));
      return {
        scenario: 'controller-kill', cycles: opts.cycles, ...t, sendFailures: failures, promise: 'lost must be 0',
        notes: [...notes.slice(-2), 'then the broker master killed: failed over by the new controller leader'],
      };
    } finally {
      await c.close();
    }
  });
}

export const SCENARIOS: Record<string, (opts: ScenarioOptions) => Promise<ScenarioResult>> = {
  'broker-kill-sync': (o) => brokerKill('SYNC_FLUSH', o),
  'broker-kill-async': (o) => brokerKill('ASYNC_FLUSH', o),
  'namesrv-kill': namesrvKill,
  'consumer-kill': consumerKill,
  'broker-pause': brokerPause,
  network,
  'torn-writes': tornWrites,
  'disk-full': diskFull,
  'ha-master-kill': haMasterKill,
  'ha-slave-kill': haSlaveKill,
  'controller-master-kill': controllerMasterKill,
  'controller-slave-kill': controllerSlaveKill,
  'controller-kill': controllerKill,
};

export function formatResult(r: ScenarioResult): string {
  return `${r.scenario}: cycles=${r.cycles}, acknowledged=${r.acknowledged}, lost=${r.lost}, duplicated=${r.duplicated}`
    + ` (send failures ${r.sendFailures}; ${r.promise}${r.notes.length ? `; ${r.notes.join('; ')}` : ''})`
    + (r.lost > 0 ? `\n  lost keys (first 20): ${r.lostKeys.join(' ')}` : '');
}


