/**
 * Network chaos scenarios: the name server, each broker (or DLedger peer) and the clients on hosts of their own in
 * network namespaces (chaos/net/netns.ts), faults between hosts (partitions, isolation, SIGSTOP, kill -9), then a heal
 * and the checker (chaos/net/checker.ts) over what producers had acknowledged and consumers received.
 *
 * Layout: host `ns` 198.18.0.10 (name server :9876), `b0`.. from .11 (brokers :10911; DLedger peers :40911), `cl`
 * last (producers, consumers and the control client, chaos/net/client-child.ts). Brokers register every 10 s
 * (registerNameServerPeriod), DLedger keeps its default timings (heartbeat 2 s, 3 missed), as a Java 4.9.8 group.
 * Controller mode adds host `c0` after `ns` (one controller, :9878) and runs 2 brokers with enableControllerMode,
 * allAckInSyncStateSet and the short timings of startCluster's controller mode (heartbeat timeout 4 s).
 * DLedger groups have 3 peers, or 5 (the `dledger5-*` scenarios). `java: true` runs the DLedger peers as Java 4.9.8
 * brokers (../shared/javaref, `bash bin/broker.sh <conf>` inside each host, the same keys and DLedger's same default
 * timings) against our name server and clients, for the side-by-side comparison of `npm run chaos -- net <s> --java`.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ServerProcess, Worker, killAll, makeTempDir, removeDir } from '../procs';
import type { StoredRecord } from '../drain';
import { type CheckReport, FileTail, type FaultWindow, check, readAcks, readDeliveries, readStored } from './checker';
import type { MasterChange } from './client-child';
import { NetCluster, type NetFault, netTempPrefix } from './netns';
import { CONTROLLER_MODE_TEST_TIMINGS } from '../../lib/cluster';
import { JAVAREF_DIR, javaSkipReason } from '../../test/helpers/javaref';

export type NetMode = 'single' | 'sync' | 'async' | 'dledger' | 'controller';

export interface NetScenarioOptions {
  /** Length of the fault phase for the repeating scenarios, minutes (each scenario has a short default). */
  minutes?: number;
  producers?: number;
  /** Acknowledged sends awaited at each step (load flowing, after a failover, after the heal); default 100. */
  acks?: number;
  log?: (line: string) => void;
  keep?: boolean;
  /** DLedger scenarios: the peers are Java 4.9.8 brokers (see javaUnavailable()). */
  java?: boolean;
}

export interface NetScenarioResult {
  scenario: string;
  mode: NetMode;
  /** Whose brokers ran: ours, or Java 4.9.8's. */
  brokers: 'rocketmq-ts' | 'java-4.9.8';
  report: CheckReport;
  notes: string[];
  /** Loss / slow-link scenarios: what each level's rules did (packets dropped by the loss rules; tbf counters). */
  levels: LevelCounters[];
}

export interface LevelCounters {
  label: string;
  /** Packets the loss rules dropped, per host. */
  dropped: Record<string, number>;
  /** A slow link's tbf on the host's eth0: packets it held back over the rate (overlimits) and dropped. */
  tbf?: { host: string; sentPackets: number; overlimits: number; dropped: number };
}

const TOPIC = 'ChaosNetTopic';
const BROKER_NAME = 'chaos-broker';
const QUEUES = 4;

type ProducerProgress = { acked: number; failed: number; notOk: number; notOkByStatus?: Record<string, number>; sent: number; lastError: string };
type ConsumerProgress = { received: number };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const rand = (lo: number, hi: number): number => lo + Math.floor(Math.random() * (hi - lo + 1));

async function waitFor(checkFn: () => Promise<boolean> | boolean, limitMs: number, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  let lastErr: unknown;
  for (;;) {
    try {
      if (await checkFn()) return;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastErr ? `: ${(lastErr as Error).message}` : ''}`);
    await sleep(250);
  }
}

/** A running cluster of hosts with the servers, the clients and the fault log. */
export class NetRun {
  readonly brokers: ServerProcess[] = [];
  readonly brokerHosts: string[] = [];
  namesrv!: ServerProcess;
  /** Controller mode: the controller on host c0. */
  controller: ServerProcess | null = null;
  ctl!: Worker<{ ready: number }>;
  readonly producers: Worker<ProducerProgress>[] = [];
  readonly consumers: Worker<ConsumerProgress>[] = [];
  readonly faults: FaultWindow[] = [];
  readonly notes: string[] = [];
  readonly levels: LevelCounters[] = [];
  #open: { label: string; start: number } | null = null;
  acks = 100;
  /** Store dirs with a tmpfs of their own (cfg.diskMiB), unmounted at the end. */
  readonly mounts: string[] = [];
  /** Files filling a host's disk (fillDisk), removed by heal(). */
  readonly #fillers: string[] = [];

  constructor(readonly net: NetCluster, readonly dir: string, readonly mode: NetMode, readonly orderly: boolean, readonly log: (l: string) => void,
    readonly java = false) {}

  get nsAddr(): string {
    return `${this.net.host('ns').addr}:9876`;
  }

  get ackFiles(): string[] {
    return this.producers.map((_, i) => path.join(this.dir, `acked-${i}.txt`));
  }

  acked(): number {
    return this.producers.reduce((s, p) => s + (p.last?.acked ?? 0), 0);
  }

  /** Waits until the producers together acknowledged `more` messages beyond now. */
  async ackedMore(more: number, limitMs = 180_000): Promise<void> {
    const target = this.acked() + more;
    await waitFor(() => this.acked() >= target, limitMs, `${more} more acknowledged sends (at ${this.acked()}, want ${target})`);
  }

  async route(): Promise<Record<string, string>> {
    const r = await this.ctl.request<Array<[string, Record<string, string>]>>('route', { topic: TOPIC });
    return r.find(([n]) => n === BROKER_NAME)?.[1] ?? {};
  }

  /** The host whose broker the name server names master (brokerId 0), or null. */
  async masterHost(): Promise<string | null> {
    const addr = (await this.route())['0'];
    if (!addr) return null;
    const ip = addr.split(':')[0];
    return this.brokerHosts.find((h) => this.net.host(h).addr === ip) ?? null;
  }

  /** Starts a fault (`apply` now) and records its window until `heal()`. */
  fault(label: string, apply: () => void): void {
    if (this.#open) this.heal();
    apply();
    this.#open = { label, start: Date.now() };
    this.log(`fault ${label}: ${this.net.cuts.join(', ') || 'processes'} (acked ${this.acked()})`);
  }

  /** The store dir of a broker host. */
  storeDir(host: string): string {
    return path.join(this.dir, `store-${host}`);
  }

  /**
   * Fills the disk of `host` (its store's tmpfs, cfg.diskMiB) but for 64-128 KiB, until heal() removes the fillers.
   */
  fillDisk(host: string): void {
    const dir = this.storeDir(host);
    if (!this.mounts.includes(dir)) throw new Error(`fillDisk: ${host} has no disk of its own (cfg.diskMiB)`);
    // The broker writes meanwhile: fill with as many files as it takes, each as large as still fits.
    let want = 0;
    for (let i = 0; i < 40; i++) {
      const st = fs.statfsSync(dir);
      const free = st.bavail * st.bsize - 64 * 1024;
      if (free <= 64 * 1024) return;
      if (want <= 0 || want > free) want = free;
      const file = path.join(dir, `chaos-filler-${this.#fillers.length}`);
      try {
        execFileSync('fallocate', ['-l', String(want), file], { stdio: 'ignore' });
        this.#fillers.push(file);
      } catch {
        fs.rmSync(file, { force: true });
        want = Math.floor(want / 2);
      }
    }
  }

  heal(): void {
    for (const f of this.#fillers.splice(0)) fs.rmSync(f, { force: true });
    this.net.heal();
    for (const h of this.brokerHosts) this.net.signal(h, 'SIGCONT');
    if (this.#open) {
      this.faults.push({ ...this.#open, end: Date.now() });
      this.log(`healed ${this.#open.label} after ${Date.now() - this.#open.start} ms (acked ${this.acked()})`);
      this.#open = null;
    }
  }
}

function brokerArgs(run: NetRun, i: number): string[] {
  const h = run.net.host(run.brokerHosts[i]);
  const args = [
    '-n', run.nsAddr, '--listenPort=10911', `--brokerIP1=${h.addr}`, '--brokerClusterName=ChaosNetCluster',
    `--brokerName=${BROKER_NAME}`, `--storePathRootDir=${path.join(run.dir, `store-${run.brokerHosts[i]}`)}`,
    '--flushDiskType=ASYNC_FLUSH', '--mappedFileSizeCommitLog=16777216', '--registerNameServerPeriod=10000',
  ];
  if (run.mode === 'sync' || run.mode === 'async') {
    args.push(i === 0 ? `--brokerRole=${run.mode === 'sync' ? 'SYNC_MASTER' : 'ASYNC_MASTER'}` : '--brokerRole=SLAVE');
    args.push(`--brokerId=${i}`);
  }
  if (run.mode === 'controller') {
    const timing = (o: object): string[] => Object.entries(o).map(([k, v]) => `--${k}=${v}`);
    args.push('--enableControllerMode=true', `--controllerAddr=${run.net.host('c0').addr}:9878`, '--allAckInSyncStateSet=true', `--brokerIP2=${h.addr}`,
      ...timing(CONTROLLER_MODE_TEST_TIMINGS.brokerConfig), ...timing(CONTROLLER_MODE_TEST_TIMINGS.storeConfig));
  }
  if (run.mode === 'dledger') {
    const peers = run.brokerHosts.map((b, j) => `n${j}-${run.net.host(b).addr}:40911`).join(';');
    args.push('--enableDLegerCommitLog=true', `--dLegerGroup=${BROKER_NAME}`, `--dLegerPeers=${peers}`, `--dLegerSelfId=n${i}`);
  }
  return args;
}

/** The Java 4.9.8 broker script the `java` runs start inside each host. */
const JAVA_BROKER = path.join(JAVAREF_DIR, '4.9.8', 'bin', 'broker.sh');

/** Why the `java` runs cannot be made here (no `java`, no ../shared/javaref/4.9.8), or null. */
export function javaUnavailable(): string | null {
  return javaSkipReason('4.9.8');
}

/**
 * A Java 4.9.8 DLedger peer's broker.conf: the keys brokerArgs gives ours (DLedger's timings left at their defaults
 * in both), its RocketMQ home and logs under `<dir>/java-<host>` (RMQ_RUN).
 */
function javaBrokerConf(run: NetRun, i: number): string {
  const hostName = run.brokerHosts[i];
  const h = run.net.host(hostName);
  const store = path.join(run.dir, `store-${hostName}`);
  const conf: Record<string, string | number | boolean> = {
    brokerClusterName: 'ChaosNetCluster', brokerName: BROKER_NAME, listenPort: 10911, namesrvAddr: run.nsAddr, brokerIP1: h.addr,
    storePathRootDir: store, storePathCommitLog: path.join(store, 'commitlog'), flushDiskType: 'ASYNC_FLUSH',
    mappedFileSizeCommitLog: 16777216, registerNameServerPeriod: 10000, autoCreateTopicEnable: true,
    enableDLegerCommitLog: true, dLegerGroup: BROKER_NAME, dLegerSelfId: `n${i}`,
    dLegerPeers: run.brokerHosts.map((b, j) => `n${j}-${run.net.host(b).addr}:40911`).join(';'),
  };
  fs.mkdirSync(path.join(run.dir, `java-${hostName}`), { recursive: true });
  const file = path.join(run.dir, `java-${hostName}`, 'broker.conf');
  fs.writeFileSync(file, Object.entries(conf).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  return file;
}

/** Sets up hosts, servers, topic, producers and consumers; runs `body`; heals, drains and checks. */
async function runNet(name: string, mode: NetMode, opts: NetScenarioOptions, body: (run: NetRun) => Promise<void>,
  cfg: { orderly?: boolean; peers?: number; diskMiB?: number } = {}): Promise<NetScenarioResult> {
  const log = opts.log ?? (() => undefined);
  const java = opts.java === true;
  if (java && mode !== 'dledger') throw new Error(`${name}: the Java comparison runs DLedger groups only`);
  if (java) {
    const why = javaUnavailable();
    if (why) throw new Error(`${name}: Java 4.9.8 brokers unavailable: ${why}`);
  }
  const nBrokers = mode === 'single' ? 1 : mode === 'dledger' ? cfg.peers ?? 3 : 2;
  const brokerHosts = Array.from({ length: nBrokers }, (_, i) => `b${i}`);
  const net = new NetCluster(['ns', ...(mode === 'controller' ? ['c0'] : []), ...brokerHosts, 'cl']);
  const dir = makeTempDir(netTempPrefix(java ? `java-${name}` : name));
  const run = new NetRun(net, dir, mode, cfg.orderly ?? false, log, java);
  run.brokerHosts.push(...brokerHosts);
  run.acks = opts.acks ?? 100;
  try {
    const ns = net.host('ns');
    run.namesrv = new ServerProcess('namesrv', () => ['-p', '9876', `--kvConfigPath=${path.join(dir, 'kvConfig.json')}`],
      path.join(dir, 'namesrv.log'), { wrap: ns.wrap, host: ns.addr });
    run.namesrv.port = 9876;
    await run.namesrv.start();
    if (mode === 'controller') {
      const c0 = net.host('c0');
      run.controller = new ServerProcess('controller', () => [
        '--controllerDLegerGroup=chaos-controllers', `--controllerDLegerPeers=n0-${c0.addr}:9878`, '--controllerDLegerSelfId=n0',
        `--controllerStorePath=${path.join(dir, 'controller')}`, `--configStorePath=${path.join(dir, 'controller.properties')}`, '--mappedFileSize=4194304',
        ...Object.entries(CONTROLLER_MODE_TEST_TIMINGS.controllerConfig).map(([k, v]) => `--${k}=${v}`),
      ], path.join(dir, 'controller.log'), { wrap: c0.wrap, host: c0.addr });
      run.controller.port = 9878;
      await run.controller.start();
    }
    if (cfg.diskMiB) {
      // Each broker host's store on a disk of its own: a tmpfs of diskMiB (fillDisk fills it).
      for (const h of brokerHosts) {
        const d = run.storeDir(h);
        fs.mkdirSync(d, { recursive: true });
        execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${cfg.diskMiB}m`, 'tmpfs', d]);
        run.mounts.push(d);
      }
    }
    for (let i = 0; i < nBrokers; i++) {
      const h = net.host(brokerHosts[i]);
      const b = java
        ? new ServerProcess('broker', () => [javaBrokerConf(run, i)], path.join(dir, `broker-${h.name}.log`), {
          wrap: h.wrap, host: h.addr, program: ['bash', JAVA_BROKER],
          env: { RMQ_RUN: path.join(dir, `java-${h.name}`), BROKER_HEAP: nBrokers > 3 ? '-Xms256m -Xmx384m' : '-Xms384m -Xmx512m' },
        })
        : new ServerProcess('broker', () => brokerArgs(run, i), path.join(dir, `broker-${h.name}.log`), { wrap: h.wrap, host: h.addr });
      b.port = 10911;
      run.brokers.push(b);
    }
    // Controller mode: one after the other, the first to ask for an election is the first master.
    if (mode === 'controller') for (const b of run.brokers) await b.start();
    else await Promise.all(run.brokers.map((b) => b.start()));
    const cl = net.host('cl');
    run.ctl = new Worker<{ ready: number }>('net/client-child.js', [run.nsAddr], cl.wrap);
    await run.ctl.until((p) => p.ready === 1);
    await waitFor(async () => {
      await run.ctl.request('createTopic', { topic: TOPIC, queues: QUEUES, order: run.orderly, brokerAddrs: run.brokers.map((b) => b.addr), skipSlaves: java });
      const r = await run.route();
      // a controller-mode slave registers with its controller id (2)
      if (mode === 'controller') return r['0'] !== undefined && Object.keys(r).length === 2;
      return r['0'] !== undefined && (mode !== 'sync' && mode !== 'async' ? true : r['1'] !== undefined);
    }, 120_000, 'the topic on every broker and a master in the route');
    // Java 4.9.8's followers took no topic (a slave refuses it): they copy the master's topic table every 10 s
    // (SlaveSynchronize), which a follower must have done before it can be elected and take the sends.
    if (java) await sleep(12_000);
    await run.ctl.request('watchRoute', { topic: TOPIC, intervalMs: 200 });
    const nProducers = opts.producers ?? 2;
    for (let i = 0; i < nProducers; i++) {
      run.producers.push(new Worker<ProducerProgress>('producer-child.js',
        [run.nsAddr, TOPIC, String(i), path.join(dir, `acked-${i}.txt`), run.orderly ? 'orderly' : 'sync'], cl.wrap));
    }
    run.consumers.push(new Worker<ConsumerProgress>('consumer-child.js',
      [run.nsAddr, TOPIC, 'chaos_net_cg', path.join(dir, 'received-0.txt'), 'c0', run.orderly ? 'orderly' : 'concurrently'], cl.wrap));
    await run.ackedMore(run.acks);
    log(`${name}: ${mode} cluster${java ? ' (Java 4.9.8 brokers)' : ''} up, master ${await run.masterHost()}, load flowing`);

    await body(run);

    run.heal();
    // Every server still running (a kill -9 fault restarts its broker): one that died on its own is a failure.
    const servers: Array<[string, ServerProcess | null]> = [['name server', run.namesrv], ['controller', run.controller],
      ...run.brokers.map((b, i): [string, ServerProcess] => [`broker ${run.brokerHosts[i]}`, b])];
    const died = servers.filter(([, p]) => p !== null && !p.alive)
      .map(([what, p]) => `${what} exited (${p!.child?.signalCode ?? `code ${p!.child?.exitCode}`})`);
    // Writes come back after the heal (the promise of every mode here).
    await run.ackedMore(run.acks, 180_000);
    await Promise.all(run.producers.map((p) => p.finish()));
    const endMs = Date.now();
    const acks = readAcks(run.ackFiles);
    const recvFile = path.join(dir, 'received-0.txt');
    // Let the group consume everything acknowledged that is stored (the checker reports what it never got). The
    // deliveries file is read on from where the last poll stopped: a long run's millions of lines are read once.
    const waiting = new Set(acks.map((a) => a.key));
    const tail = new FileTail(recvFile);
    await waitFor(() => {
      for (let lines = tail.newLines(); lines.length > 0; lines = tail.newLines()) {
        for (const line of lines) waiting.delete(line.slice(0, line.indexOf('\t')));
      }
      return waiting.size === 0;
    }, 90_000, 'the group consuming every acknowledged message').catch((err: Error) => run.notes.push(err.message));
    waiting.clear();
    await Promise.all(run.consumers.map((c) => c.finish()));
    // The name server may have dropped the brokers after the heal (a connection closed during the cut, its close
    // arriving late: see docs/chaos.md); the checker reports that from the timeline, the drain waits for the route.
    await waitFor(async () => (await run.route())['0'] !== undefined, 90_000, 'a master in the route before the drain');
    const timeline = await run.ctl.request<MasterChange[]>('timeline');
    let stored: StoredRecord[] = [];
    for (let attempt = 1; ; attempt++) {
      try {
        // The drain reads some 15-20 thousand messages a second on a busy 2-core machine: a long run's millions
        // need more than 120 s.
        const file = path.join(dir, 'stored.txt');
        await run.ctl.request<number>('drain', { topic: TOPIC, deadlineMs: Math.max(120_000, acks.length / 5), file });
        stored = readStored(file);
        break;
      } catch (err) {
        if (attempt === 3) throw err;
        run.notes.push(`drain attempt ${attempt} failed: ${(err as Error).message.split('\n')[0]}`);
        await sleep(2000);
      }
    }
    await run.ctl.finish();
    const sent = new Map(run.producers.map((p, i) => [String(i), p.last?.sent ?? 0]));
    const report = check({
      acks, deliveries: [readDeliveries(recvFile)], stored, sent, promise: mode === 'async' ? 'async' : 'sync',
      orderly: run.orderly, faults: run.faults, timeline, brokerName: BROKER_NAME, endMs,
    });
    report.failures.push(...died);
    const notOk: Record<string, number> = {};
    for (const p of run.producers) for (const [k, v] of Object.entries(p.last?.notOkByStatus ?? {})) notOk[k] = (notOk[k] ?? 0) + v;
    run.notes.push(`send failures ${run.producers.reduce((s, p) => s + (p.last?.failed ?? 0), 0)}, answers not SEND_OK ${JSON.stringify(notOk)}`);
    return { scenario: name, mode, brokers: java ? 'java-4.9.8' : 'rocketmq-ts', report, notes: run.notes, levels: run.levels };
  } finally {
    await killAll();
    net.destroy();
    for (const m of run.mounts) {
      try {
        // --keep: the store on the host's own disk (a tmpfs, gone with the mount) copied beside it first.
        if (opts.keep) execFileSync('cp', ['-a', m, `${m}-kept`]);
        execFileSync('umount', ['-l', m]);
      } catch (err) {
        log(`umount ${m} failed: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    if (opts.keep) {
      // Out of the prefix the next run's removeLeftovers clears.
      const kept = path.join(path.dirname(dir), path.basename(dir).replace(netTempPrefix(''), 'net-kept-'));
      fs.renameSync(dir, kept);
      log(`kept ${kept}`);
    } else removeDir(dir);
  }
}

/**
 * The name server cut off from every broker (clients reach all), 15 s or --minutes (3 outlasts the name server's
 * 120 s expiry of a silent broker).
 */
function namesrvCut(mode: 'single' | 'dledger') {
  return (opts: NetScenarioOptions): Promise<NetScenarioResult> => runNet(`${mode}-namesrv-cut`, mode, opts, async (run) => {
    const holdMs = opts.minutes ? opts.minutes * 60_000 : 15_000;
    run.fault(`ns|${run.brokerHosts.join(',')}`, () => run.net.partition(['ns'], run.brokerHosts));
    await sleep(holdMs);
    run.notes.push(`route during the cut: master ${(await run.masterHost()) ?? 'none'}`);
    run.heal();
  });
}

/** Master/slave: the master cut off from the slave, both reachable by clients and the name server. */
function masterSlaveCut(mode: 'sync' | 'async') {
  return (opts: NetScenarioOptions): Promise<NetScenarioResult> => runNet(`${mode}-master-isolated`, mode, opts, async (run) => {
    const until = Date.now() + (opts.minutes ?? 0) * 60_000;
    do {
      run.fault('b0|b1', () => run.net.partition(['b0'], ['b1']));
      await sleep(opts.minutes ? rand(10_000, 30_000) : 15_000);
      run.heal();
      await run.ackedMore(Math.ceil(run.acks / 2));
    } while (Date.now() < until);
  });
}

/**
 * SYNC_MASTER / ASYNC_MASTER + SLAVE: the slave cut off from its master for 15 s under load (it falls behind: the
 * master stores what it is sent meanwhile), then, 0.3-0.8 s into its catch-up after the heal, cut off again for 10 s;
 * --minutes repeats the pair.
 */
function slaveCatchUpCut(mode: 'sync' | 'async') {
  return (opts: NetScenarioOptions): Promise<NetScenarioResult> => runNet(`${mode}-slave-catchup-cut`, mode, opts, async (run) => {
    const until = Date.now() + (opts.minutes ?? 0) * 60_000;
    do {
      run.fault('b1|b0 (behind)', () => run.net.partition(['b1'], ['b0']));
      await sleep(15_000);
      run.heal();
      await sleep(rand(300, 800));
      run.fault('b1|b0 (mid catch-up)', () => run.net.partition(['b1'], ['b0']));
      await sleep(10_000);
      run.heal();
      await run.ackedMore(Math.ceil(run.acks / 2));
    } while (Date.now() < until);
  });
}

/**
 * DLedger 5, a bridge partition: the leader and one follower on one side, two followers on the other, the fifth peer
 * (the bridge) reaching both sides; clients and the name server reach everyone. Each side can make a quorum with the
 * bridge. 20 s, or faults of 10-30 s with a new bridge each for --minutes.
 */
function dledgerBridge(opts: NetScenarioOptions): Promise<NetScenarioResult> {
  return runNet('dledger5-bridge', 'dledger', opts, async (run) => {
    const until = Date.now() + (opts.minutes ?? 0) * 60_000;
    do {
      const leader = await run.masterHost();
      const others = run.brokerHosts.filter((h) => h !== leader).sort(() => Math.random() - 0.5);
      const bridge = others[0];
      const a = [...(leader ? [leader] : []), others[1]];
      const b = others.slice(2);
      run.fault(`${a.join(',')}|${b.join(',')} (bridge ${bridge})`, () => run.net.partition(a, b));
      await sleep(opts.minutes ? rand(10_000, 30_000) : 20_000);
      run.notes.push(`bridge ${bridge}: master ${(await run.masterHost()) ?? 'none'} at the end of the fault`);
      run.heal();
      await run.ackedMore(Math.ceil(run.acks / 2));
    } while (Date.now() < until);
  }, { peers: 5 });
}

/**
 * DLedger 3, each peer's store on a 512 MiB disk of its own: a follower's disk full for 20 s, healed, then the
 * leader's for 20 s (--minutes repeats the pair).
 */
function dledgerDiskFull(opts: NetScenarioOptions): Promise<NetScenarioResult> {
  return runNet('dledger-disk-full', 'dledger', opts, async (run) => {
    const until = Date.now() + (opts.minutes ?? 0) * 60_000;
    do {
      const leader = await run.masterHost();
      const follower = run.brokerHosts.find((h) => h !== leader)!;
      run.fault(`${follower} disk full (follower)`, () => run.fillDisk(follower));
      await sleep(20_000);
      run.heal();
      await run.ackedMore(Math.ceil(run.acks / 2));
      const l2 = await run.masterHost();
      if (!l2) throw new Error('no master after the follower\'s disk was freed');
      run.fault(`${l2} disk full (leader)`, () => run.fillDisk(l2));
      await sleep(20_000);
      run.notes.push(`the leader's disk full: master ${(await run.masterHost()) ?? 'none'} at the end`);
      run.heal();
      await run.ackedMore(Math.ceil(run.acks / 2));
    } while (Date.now() < until);
  }, { diskMiB: 512 });
}

/** `dledger-...` for a group of 3, `dledger5-...` for 5. */
const dledgerName = (peers: number, rest: string): string => `dledger${peers === 3 ? '' : peers}-${rest}`;

/**
 * DLedger 3 or 5: the leader cut off from all its followers, reachable by clients and the name server. `orderly`: the
 * topic is orderly, each producer sends to one queue through a selector, the consumer is orderly; the checker adds
 * order.
 */
function dledgerLeaderIsolated(orderly: boolean, peers = 3) {
  return (opts: NetScenarioOptions): Promise<NetScenarioResult> => runNet(dledgerName(peers, orderly ? 'orderly-leader-isolated' : 'leader-isolated'), 'dledger', opts, async (run) => {
    const until = Date.now() + (opts.minutes ?? 0) * 60_000;
    do {
      const leader = await run.masterHost();
      if (!leader) throw new Error('no master before the fault');
      const followers = run.brokerHosts.filter((h) => h !== leader);
      run.fault(`${leader}|${followers.join(',')}`, () => run.net.partition([leader], followers));
      await waitFor(async () => { const m = await run.masterHost(); return m !== null && m !== leader; }, 90_000, 'a new master in the name server');
      run.notes.push(`new master ${await run.masterHost()} after isolating ${leader}`);
      // Writes go on at the new leader while the old one is still cut off.
      await run.ackedMore(Math.ceil(run.acks / 2));
      run.heal();
      await run.ackedMore(Math.ceil(run.acks / 2));
    } while (Date.now() < until);
  }, { orderly, peers });
}

/**
 * DLedger 3 or 5: `count` random peers off the network (link down), then back: a minority (1 of 3, 2 of 5) leaves a
 * quorum, a majority (2 of 3, 3 of 5) none.
 */
function dledgerIsolate(count: number, peers = 3) {
  const name = dledgerName(peers, count < peers / 2 ? 'minority' : 'majority');
  return (opts: NetScenarioOptions): Promise<NetScenarioResult> => runNet(name, 'dledger', opts, async (run) => {
    const until = Date.now() + (opts.minutes ?? 0) * 60_000;
    do {
      const victims = [...run.brokerHosts].sort(() => Math.random() - 0.5).slice(0, count);
      run.fault(`${victims.join('+')} isolated`, () => { for (const v of victims) run.net.isolate(v); });
      await sleep(opts.minutes ? rand(10_000, 30_000) : 15_000);
      run.heal();
      await run.ackedMore(Math.ceil(run.acks / 2));
    } while (Date.now() < until);
  }, { peers });
}

/**
 * Random faults every 10–30 s for --minutes (default 1): a random split of the name server (and controller mode's
 * controller) and the brokers into two sides (60 %), a one-way cut between two random hosts (15 %), a SIGSTOP of a
 * broker host (15 %) or a kill -9 and restart of one (10 %); each held 10–30 s, then healed, with a few seconds of
 * calm before the next.
 */
function randomFaults(mode: 'sync' | 'dledger' | 'controller', peers = 3) {
  const name = mode === 'dledger' ? dledgerName(peers, 'random') : `${mode}-random`;
  return (opts: NetScenarioOptions): Promise<NetScenarioResult> => runNet(name, mode, opts, async (run) => {
    const until = Date.now() + (opts.minutes ?? 1) * 60_000;
    const all = ['ns', ...(mode === 'controller' ? ['c0'] : []), ...run.brokerHosts];
    while (Date.now() < until) {
      const dice = Math.random();
      if (dice < 0.6) {
        const shuffled = [...all].sort(() => Math.random() - 0.5);
        const cut = rand(1, shuffled.length - 1);
        const a = shuffled.slice(0, cut);
        const b = shuffled.slice(cut);
        run.fault(`${a.join(',')}|${b.join(',')}`, () => run.net.partition(a, b));
      } else if (dice < 0.75) {
        const [a, b] = [...all].sort(() => Math.random() - 0.5);
        run.fault(`${a}->${b} one-way`, () => run.net.partition([a], [b], { oneWay: true }));
      } else if (dice < 0.9) {
        const h = run.brokerHosts[rand(0, run.brokerHosts.length - 1)];
        run.fault(`${h} SIGSTOP`, () => { run.net.signal(h, 'SIGSTOP'); });
      } else {
        const i = rand(0, run.brokers.length - 1);
        await run.brokers[i].kill('SIGKILL');
        run.fault(`${run.brokerHosts[i]} kill -9`, () => undefined);
        await sleep(rand(3_000, 10_000));
        await run.brokers[i].start();
      }
      await sleep(rand(10_000, 30_000));
      run.heal();
      await sleep(5_000);
    }
  }, { peers });
}

/**
 * Controller mode: the master cut off from the controller and the other replica, reachable by the clients and the
 * name server. The controller stops hearing its heartbeats (the connection does not close: the packets are dropped)
 * and, after controllerHeartBeatTimeoutMills, elects the replica of the SyncStateSet; the isolated master cannot
 * have a send acknowledged by every replica of its SyncStateSet (allAckInSyncStateSet) nor shrink it without the
 * controller, so nothing it acknowledges alone may be lost. Healed once the new master took writes.
 */
function controllerMasterIsolated(opts: NetScenarioOptions): Promise<NetScenarioResult> {
  return runNet('controller-master-isolated', 'controller', opts, async (run) => {
    const until = Date.now() + (opts.minutes ?? 0) * 60_000;
    do {
      const master = await run.masterHost();
      if (!master) throw new Error('no master before the fault');
      const others = ['c0', ...run.brokerHosts.filter((h) => h !== master)];
      const t0 = Date.now();
      run.fault(`${master}|${others.join(',')}`, () => run.net.partition([master], others));
      await waitFor(async () => { const m = await run.masterHost(); return m !== null && m !== master; }, 90_000, 'a new master in the name server');
      run.notes.push(`new master ${await run.masterHost()} in the name server ${Date.now() - t0} ms after isolating ${master}`);
      await run.ackedMore(Math.ceil(run.acks / 2));
      run.heal();
      await run.ackedMore(Math.ceil(run.acks / 2));
    } while (Date.now() < until);
  });
}

/**
 * SYNC_MASTER + SLAVE: the slave's processes stopped (SIGSTOP) for 25 s as soon as the load flows, longer than the
 * master's haHousekeepingInterval (20 s), then resumed. The master answers SLAVE_NOT_AVAILABLE once it drops the
 * silent slave; sends are acknowledged again once the resumed slave connects and catches up; nothing acknowledged is
 * lost and every server is still running at the end.
 */
function syncSlaveStopped(opts: NetScenarioOptions): Promise<NetScenarioResult> {
  return runNet('sync-slave-stopped', 'sync', opts, async (run) => {
    const until = Date.now() + (opts.minutes ?? 0) * 60_000;
    do {
      run.fault('b1 SIGSTOP', () => { run.net.signal('b1', 'SIGSTOP'); });
      await sleep(25_000);
      run.heal();
      await run.ackedMore(Math.ceil(run.acks / 2));
    } while (Date.now() < until);
  });
}

/** The loss levels of the loss scenarios, in turn. */
export const LOSS_LEVELS = [5, 15, 30];
/** The slow-link scenario's caps of the leader's link, in turn, kbit/s. */
export const SLOW_LINK_KBIT = [1024, 128, 32];

/**
 * Stretch per level: 15 s, or --minutes M split over the levels. Before the first level 10 s of calm load, the figures
 * each level is compared with.
 */
function levelMs(opts: NetScenarioOptions, levels: number): number {
  return opts.minutes ? (opts.minutes * 60_000) / levels : 15_000;
}

/**
 * DLedger 3 / SYNC_MASTER + SLAVE: random loss of 5 %, 15 % then 30 % of the packets both ways (iptables statistic
 * match) on the master's host and on the clients' host at once, each for a stretch, then healed. The master is looked
 * up at each level (a leader that lost its role under loss hands the fault on to the new one). Nothing acknowledged may
 * be lost; the checker's figures per level are the acknowledged sends per second and their latency against the calm
 * stretch before.
 */
function lossLevels(mode: 'sync' | 'dledger') {
  return (opts: NetScenarioOptions): Promise<NetScenarioResult> => runNet(`${mode}-loss`, mode, opts, async (run) => {
    const stretch = levelMs(opts, LOSS_LEVELS.length);
    let target = await run.masterHost();
    if (!target) throw new Error('no master before the fault');
    await sleep(10_000);
    for (const pct of LOSS_LEVELS) {
      target = (await run.masterHost().catch(() => null)) ?? target;
      const hosts = [target, 'cl'];
      run.fault(`${hosts.join('+')} loss ${pct}%`, () => { for (const h of hosts) run.net.loss(h, pct); });
      await sleep(stretch);
      run.levels.push({ label: `loss ${pct}%`, dropped: Object.fromEntries(hosts.map((h) => [h, run.net.lossDropped(h)])) });
      run.log(`loss ${pct}%: dropped ${JSON.stringify(run.levels[run.levels.length - 1].dropped)} (acked ${run.acked()})`);
    }
    run.heal();
  });
}

/**
 * DLedger 3: the leader's link capped both ways (tbf) at 1024, 128 then 32 kbit/s, each for a stretch, then healed:
 * replication and the clients' traffic share the cap, packets queue behind each other (up to 1 s), then drop.
 */
function dledgerSlowLink(opts: NetScenarioOptions): Promise<NetScenarioResult> {
  return runNet('dledger-slow-link', 'dledger', opts, async (run) => {
    const stretch = levelMs(opts, SLOW_LINK_KBIT.length);
    let leader = await run.masterHost();
    if (!leader) throw new Error('no master before the fault');
    await sleep(10_000);
    for (const kbit of SLOW_LINK_KBIT) {
      leader = (await run.masterHost().catch(() => null)) ?? leader;
      const host = leader;
      run.fault(`${host} link ${kbit} kbit/s`, () => run.net.slowLink(host, kbit));
      await sleep(stretch);
      const q = run.net.qdiscStats(host);
      run.levels.push({ label: `link ${kbit} kbit/s`, dropped: {}, tbf: q ? { host, sentPackets: q.sentPackets, overlimits: q.overlimits, dropped: q.dropped } : undefined });
      run.log(`${host} link ${kbit} kbit/s: tbf ${JSON.stringify(q)} (acked ${run.acked()})`);
    }
    run.heal();
  });
}

export const NET_SCENARIOS: Record<string, (opts: NetScenarioOptions) => Promise<NetScenarioResult>> = {
  'single-namesrv-cut': namesrvCut('single'),
  'dledger-namesrv-cut': namesrvCut('dledger'),
  'sync-master-isolated': masterSlaveCut('sync'),
  'async-master-isolated': masterSlaveCut('async'),
  'dledger-leader-isolated': dledgerLeaderIsolated(false),
  'dledger-orderly-leader-isolated': dledgerLeaderIsolated(true),
  'dledger-minority': dledgerIsolate(1),
  'dledger-majority': dledgerIsolate(2),
  'dledger-random': randomFaults('dledger'),
  'sync-random': randomFaults('sync'),
  'dledger5-leader-isolated': dledgerLeaderIsolated(false, 5),
  'dledger5-minority': dledgerIsolate(2, 5),
  'dledger5-majority': dledgerIsolate(3, 5),
  'dledger5-random': randomFaults('dledger', 5),
  'dledger5-bridge': dledgerBridge,
  'dledger-disk-full': dledgerDiskFull,
  'sync-slave-catchup-cut': slaveCatchUpCut('sync'),
  'sync-slave-stopped': syncSlaveStopped,
  'async-slave-catchup-cut': slaveCatchUpCut('async'),
  'controller-master-isolated': controllerMasterIsolated,
  'controller-random': randomFaults('controller'),
  'dledger-loss': lossLevels('dledger'),
  'sync-loss': lossLevels('sync'),
  'dledger-slow-link': dledgerSlowLink,
};

/** The faults beyond partitions a scenario needs (netFaultsUnavailable() says whether this machine has them). */
export const NET_SCENARIO_NEEDS: Record<string, NetFault> = {
  'dledger-loss': 'loss',
  'sync-loss': 'loss',
  'dledger-slow-link': 'slowLink',
};
