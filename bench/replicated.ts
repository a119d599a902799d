/**
 * Replicated groups, ours beside Java 4.9.8's, one broker process per peer (test/helpers/broker-child.js runs
 * one BrokerController of ours; test/helpers/javaref.ts one Java broker), our client in this process, 1 KiB bodies,
 * a topic of 8 queues, sync x16 and async x256 (as many sends in flight):
 * - DLedger, 3 peers (enableDLegerCommitLog, Java's default DLedger timings on both sides);
 * - SYNC_MASTER + SLAVE;
 * - a single ASYNC_MASTER.
 * Each group is started, measured (sync x16 then async x256) and stopped before the next, ours before Java's.
 * The DLedger groups then fail over `--kills` times (default 20; bench/failover.ts): the leader's process killed -9
 * under a sync producer, the time to the first SEND_OK of a send begun after it exited, the killed peer started again
 * on its store before the next kill. Prints msg/s with p50 / p99 and ours / Java per row, and the failover p50 / max.
 * No assertions.
 *
 *   npm run bench -- replicated [--groups dledger,master-slave,single] [--sides ours,java] [--sync-messages N]
 *     [--async-messages N] [--kills N]
 */
import './quiet-logs';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NamesrvController } from '../lib/namesrv/namesrv-controller';
import { DefaultMQAdminExt } from '../lib/admin/default-mq-admin-ext';
import { DefaultMQProducer } from '../lib/producer/default-mq-producer';
import { createMessage } from '../protocol/message/message';
import { newTopicConfig } from '../protocol/body/topic-config';
import { freePort, javaSkipReason, startJavaBroker, type JavaBroker } from '../test/helpers/javaref';
import { spawnBrokerChild, stopBrokerChild } from '../test/helpers/broker-child-process';
import { type BenchResult, benchUsage, pct, readBenchOptions, recordTargets, runBenchScript, sendLoad } from './bench-util';
import { drainOurs, preload } from './consumer';
import { measureFailover, until, type FailoverFigures } from './failover';

const BODY = Buffer.alloc(1024, 0x61);
const QUEUES = 8;
const FILE = 256 * 1024 * 1024;
/** The slave's drain: messages in the topic when it starts, a warm-up drain first, and the measured drains. */
const SLAVE_DRAIN = { messages: 100_000, warmup: 20_000, rounds: 3 };

export type GroupKind = 'dledger' | 'master-slave' | 'single';
const GROUP_TITLE: Record<GroupKind, string> = { dledger: 'DLedger, 3 peers', 'master-slave': 'SYNC_MASTER + SLAVE', single: 'single master' };

export interface Load { msgPerSec: number; p50: number; p99: number; failed: number }
export interface ReplicatedRow { group: GroupKind; scenario: string; ours?: Load; java?: Load }
/** A drain from the slave of the SYNC_MASTER + SLAVE group after its master stopped: msg/s of each measured drain. */
export interface SlaveDrain { rates: number[]; msgPerSec: number }

/** One broker process of a group that can be killed and started again on its store (the DLedger failover). */
interface Peer { addr: string; alive: boolean; start(): Promise<void>; kill(): Promise<void>; stop(): Promise<void> }

interface Group { brokerName: string; peers: Peer[]; stop(): Promise<void> }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One broker of ours in a child process; resolves once it printed READY. */
async function ourBroker(opts: Record<string, unknown>): Promise<{ child: ChildProcess; addr: string }> {
  // REPL_BENCH_NODE_ARGS: extra node options for our broker processes (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = (process.env.REPL_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return spawnBrokerChild(opts, { nodeArgs, inheritStderr: true });
}

async function startOurs(kind: GroupKind, namesrvAddr: string, root: string): Promise<Group> {
  const brokerName = `ours-${kind}`;
  const base = (dir: string) => ({ brokerName, brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr, storePathRootDir: dir });
  const store = (dir: string) => ({ storePathRootDir: dir, mappedFileSizeCommitLog: FILE });
  const peers: Peer[] = [];
  const stop = async () => {
    for (const p of [...peers].reverse()) await p.stop();
  };
  const peer = async (opts: Record<string, unknown>): Promise<void> => {
    let child: ChildProcess | null = null;
    const p: Peer = {
      addr: '',
      alive: false,
      async start() {
        const b = await ourBroker(opts);
        child = b.child;
        p.addr = b.addr;
        p.alive = true;
      },
      async kill() {
        if (child) await stopBrokerChild(child, 'SIGKILL');
        p.alive = false;
      },
      async stop() {
        if (child) await stopBrokerChild(child);
        p.alive = false;
      },
    };
    peers.push(p);
    await p.start();
  };
  try {
    if (kind === 'dledger') {
      const ports = [await freePort(), await freePort(), await freePort()];
      const dLegerPeers = ports.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
      await Promise.all([0, 1, 2].map(async (i) => {
        const dir = path.join(root, `${brokerName}-n${i}`);
        await peer({
          brokerConfig: base(dir),
          messageStoreConfig: { ...store(dir), enableDLegerCommitLog: true, dLegerGroup: brokerName, dLegerPeers, dLegerSelfId: `n${i}` },
        });
      }));
    } else {
      const dir = path.join(root, `${brokerName}-m`);
      await peer({ brokerConfig: base(dir), messageStoreConfig: { ...store(dir), brokerRole: kind === 'single' ? 'ASYNC_MASTER' : 'SYNC_MASTER' } });
      if (kind === 'master-slave') {
        const sdir = path.join(root, `${brokerName}-s`);
        await peer({ brokerConfig: { ...base(sdir), brokerId: 1 }, messageStoreConfig: { ...store(sdir), brokerRole: 'SLAVE' } });
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { brokerName, peers, stop };
}

async function startJava(kind: GroupKind, namesrvAddr: string, root: string): Promise<Group> {
  const brokerName = `java-${kind}`;
  const peers: Peer[] = [];
  const stop = async () => {
    for (const p of [...peers].reverse()) await p.stop();
  };
  const one = async (id: number, tag: string, conf: Record<string, string | number | boolean>) => {
    const runDir = path.join(root, `${brokerName}-${tag}`);
    await fs.mkdir(runDir, { recursive: true });
    let b: JavaBroker | null = null;
    const p: Peer = {
      addr: '',
      alive: false,
      async start() {
        // Started again on the same port and store after a kill.
        b = await startJavaBroker('4.9.8', {
          namesrvAddr, runDir, storeDir: path.join(runDir, 'store'), brokerName, brokerId: id, conf: { mappedFileSizeCommitLog: FILE, ...conf },
          ...(b ? { listenPort: (b as JavaBroker).port } : {}),
        });
        p.addr = b.addr;
        p.alive = true;
      },
      async kill() {
        await b?.stop('SIGKILL');
        p.alive = false;
      },
      async stop() {
        await b?.stop().catch(() => undefined);
        p.alive = false;
      },
    };
    peers.push(p);
    await p.start();
  };
  try {
    if (kind === 'dledger') {
      const ports = [await freePort(), await freePort(), await freePort()];
      const dLegerPeers = ports.map((p, i) => `n${i}-127.0.0.1:${p}`).join(';');
      for (const i of [0, 1, 2]) await one(i + 1, `n${i}`, { enableDLegerCommitLog: true, dLegerGroup: brokerName, dLegerPeers, dLegerSelfId: `n${i}` });
    } else {
      await one(0, 'm', { brokerRole: kind === 'single' ? 'ASYNC_MASTER' : 'SYNC_MASTER' });
      if (kind === 'master-slave') await one(1, 's', { brokerRole: 'SLAVE' });
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { brokerName, peers, stop };
}

/** The master's address of `brokerName` once the name server knows it (a DLedger group's leader), and its slaves. */
async function waitForMaster(admin: DefaultMQAdminExt, brokerName: string, slaves: number): Promise<string> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const info = await admin.examineBrokerClusterInfo().catch(() => null);
    const addrs = info?.brokerAddrTable.get(brokerName)?.brokerAddrs;
    if (addrs?.get(0) && addrs.size >= 1 + slaves) return addrs.get(0)!;
    await sleep(200);
  }
  throw new Error(`no master for ${brokerName} in 120 s`);
}

async function measureGroup(kind: GroupKind, side: 'ours' | 'java', namesrvAddr: string, root: string, counts: { sync: number; async: number },
  kills: number): Promise<{ loads: Map<string, Load>; failover?: FailoverFigures; slaveDrain?: SlaveDrain }> {
  const group = side === 'ours' ? await startOurs(kind, namesrvAddr, root) : await startJava(kind, namesrvAddr, root);
  const admin = new DefaultMQAdminExt({ namesrvAddr, instanceName: `repl-admin-${side}-${kind}` });
  const producer = new DefaultMQProducer({ producerGroup: `PG_REPL_${side}_${kind}`, namesrvAddr, instanceName: `repl-${side}-${kind}`, pollNameServerInterval: 1000, sendMsgTimeout: 10_000 });
  const out = new Map<string, Load>();
  let failover: FailoverFigures | undefined;
  let slaveDrain: SlaveDrain | undefined;
  try {
    await admin.start();
    const master = await waitForMaster(admin, group.brokerName, kind === 'master-slave' ? 1 : 0);
    const topic = `Repl_${side}_${kind.replace('-', '_')}`;
    await admin.createAndUpdateTopicConfig(master, newTopicConfig(topic, { readQueueNums: QUEUES, writeQueueNums: QUEUES }));
    await producer.start();
    // Warm-up (routes, connections, JIT): 500 sends, each retried until it is accepted.
    for (let i = 0; i < 500; i++) {
      for (let tries = 0; ; tries++) {
        const ok = await producer.send(createMessage(topic, BODY)).then((r) => r.sendStatus === 'SEND_OK', () => false);
        if (ok) break;
        if (tries > 200) throw new Error(`${side} ${kind}: warm-up sends fail`);
        await sleep(100);
      }
    }
    let acked = 500;
    for (const [scenario, concurrency, messages] of [['sync x16', 16, counts.sync], ['async x256', 256, counts.async]] as const) {
      const r = await sendLoad(producer, topic, BODY, concurrency, messages);
      acked += messages - r.failed;
      out.set(scenario, { msgPerSec: messages / r.seconds, p50: pct(r.latencies, 50), p99: pct(r.latencies, 99), failed: r.failed });
      process.stderr.write(`  ${side} ${GROUP_TITLE[kind]} ${scenario}: ${Math.round(messages / r.seconds)} msg/s, p50 ${pct(r.latencies, 50).toFixed(1)} ms, p99 ${pct(r.latencies, 99).toFixed(1)} ms, ${r.failed} failed\n`);
    }
    if (kind === 'dledger' && kills > 0) failover = await dledgerFailover(group, admin, namesrvAddr, topic, kills, side);
    if (kind === 'master-slave') {
      if (acked < SLAVE_DRAIN.messages) await preload(producer, topic, SLAVE_DRAIN.messages - acked, BODY);
      await producer.shutdown();
      slaveDrain = await drainFromSlave(group, admin, namesrvAddr, topic, Math.max(acked, SLAVE_DRAIN.messages), side);
    }
  } finally {
    await producer.shutdown().catch(() => undefined);
    await admin.shutdown().catch(() => undefined);
    await group.stop();
  }
  return { loads: out, failover, slaveDrain };
}

/**
 * The master of a SYNC_MASTER + SLAVE group stopped (it unregisters from the name server), then new push consumers
 * of ours drain the topic from the slave, the only broker left in the route: a warm-up drain of part of it, then
 * `SLAVE_DRAIN.rounds` drains of all of it, each by a new group from the first offset. Time from the consumer's start
 * to its last message, as the matrix's drain.
 */
async function drainFromSlave(group: Group, admin: DefaultMQAdminExt, namesrvAddr: string, topic: string, count: number,
  side: 'ours' | 'java'): Promise<SlaveDrain> {
  await group.peers[0].stop();
  await until(async () => {
    const addrs = (await admin.examineBrokerClusterInfo().catch(() => null))?.brokerAddrTable.get(group.brokerName)?.brokerAddrs;
    return !!addrs && !addrs.has(0) && addrs.has(1);
  }, 60_000, `${side} SYNC_MASTER + SLAVE: the stopped master gone from the name server`);
  const within = <T>(p: Promise<T>, what: string): Promise<T> => Promise.race([p,
    sleep(120_000).then(() => { throw new Error(`${side} slave drain: ${what} not done in 120 s`); })]);
  await within(drainOurs(namesrvAddr, topic, SLAVE_DRAIN.warmup), 'the warm-up');
  const rates: number[] = [];
  for (let i = 0; i < SLAVE_DRAIN.rounds; i++) {
    const ms = await within(drainOurs(namesrvAddr, topic, count), `drain ${i + 1}`);
    rates.push(count / (ms / 1000));
  }
  const msgPerSec = [...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)];
  process.stderr.write(`  ${side} SYNC_MASTER + SLAVE drain of ${count} from the slave: ${rates.map((r) => Math.round(r)).join(', ')} msg/s (median ${Math.round(msgPerSec)})\n`);
  return { rates, msgPerSec };
}

/**
 * The leader's process killed -9 `kills` times under a sync producer (bench/failover.ts); the killed peer is started
 * again on its store and the group is whole (a master and two slaves at the name server) before the next kill.
 */
async function dledgerFailover(group: Group, admin: DefaultMQAdminExt, namesrvAddr: string, topic: string, kills: number,
  side: 'ours' | 'java'): Promise<FailoverFigures> {
  const addrs = async () => (await admin.examineBrokerClusterInfo().catch(() => null))?.brokerAddrTable.get(group.brokerName)?.brokerAddrs;
  let killed: Peer | null = null;
  // Routes polled every 100 ms, as the controller bench's producer: the time measured is the group's, not the poll's.
  const producer = new DefaultMQProducer({
    producerGroup: `PG_REPL_FO_${side}`, namesrvAddr, instanceName: `repl-fo-${side}`, pollNameServerInterval: 100, sendMsgTimeout: 3000,
  });
  await producer.start();
  try {
    return await measureFailover({
    producer, topic, body: BODY, kills, label: `${side} DLedger`, failoverLimitMs: 120_000,
    log: (l) => process.stderr.write(`${l}\n`),
    group: {
      masterAt: async () => (await addrs())?.get(0) ?? '',
      has: (addr) => group.peers.some((p) => p.alive && p.addr === addr),
      async kill(addr) {
        killed = group.peers.find((p) => p.addr === addr) ?? null;
        await killed?.kill();
      },
      async restore() {
        await killed?.start();
        await until(async () => {
          const a = await addrs();
          return !!a?.get(0) && a.size >= 3 && group.peers.every((p) => [...a.values()].includes(p.addr));
        }, 120_000, `${side} DLedger: the restarted peer back at the name server`);
      },
    },
    });
  } finally {
    await producer.shutdown().catch(() => undefined);
  }
}

export interface ReplicatedReport {
  rows: ReplicatedRow[];
  failover: { ours?: FailoverFigures; java?: FailoverFigures };
  slaveDrain: { ours?: SlaveDrain; java?: SlaveDrain };
}

export async function runReplicated(opts: { groups?: GroupKind[]; sides?: ('ours' | 'java')[]; sync?: number; async?: number; kills?: number } = {}): Promise<ReplicatedReport> {
  const sides = opts.sides ?? ['ours', 'java'];
  const groups = opts.groups ?? ['dledger', 'master-slave', 'single'];
  const counts = { sync: opts.sync ?? Number(process.env.REPL_BENCH_SYNC ?? 8000), async: opts.async ?? Number(process.env.REPL_BENCH_ASYNC ?? 30000) };
  const kills = opts.kills ?? 20;
  const skip = javaSkipReason('4.9.8');
  if (skip) process.stderr.write(`replicated: the Java groups are left out: ${skip}\n`);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-repl-'));
  const ns = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(root, 'kv.json'), configStorePath: path.join(root, 'ns.properties') });
  const report: ReplicatedReport = { rows: [], failover: {}, slaveDrain: {} };
  try {
    await ns.start();
    for (const kind of groups) {
      const ours = sides.includes('ours') ? await measureGroup(kind, 'ours', ns.address, root, counts, kills) : undefined;
      const java = skip || !sides.includes('java') ? undefined : await measureGroup(kind, 'java', ns.address, root, counts, kills);
      for (const scenario of ['sync x16', 'async x256']) report.rows.push({ group: kind, scenario, ours: ours?.loads.get(scenario), java: java?.loads.get(scenario) });
      if (kind === 'dledger') report.failover = { ours: ours?.failover, java: java?.failover };
      if (kind === 'master-slave') report.slaveDrain = { ours: ours?.slaveDrain, java: java?.slaveDrain };
    }
  } finally {
    await ns.shutdown();
    await fs.rm(root, { recursive: true, force: true });
  }
  return report;
}

export function formatReplicated(report: ReplicatedReport): string {
  const cell = (l?: Load) => (l ? `${Math.round(l.msgPerSec).toLocaleString('en-US')} (${l.p50.toFixed(1)} / ${l.p99.toFixed(1)})${l.failed ? ` ${l.failed} failed` : ''}` : 'n/a');
  const table = [
    ['group', 'scenario', 'ours msg/s (p50 / p99 ms)', 'Java 4.9.8 msg/s (p50 / p99 ms)', 'ours / Java', 'p99 ours <= Java'],
    ...report.rows.map((r) => [
      GROUP_TITLE[r.group], r.scenario, cell(r.ours), cell(r.java),
      r.ours && r.java ? (r.ours.msgPerSec / r.java.msgPerSec).toFixed(2) : 'n/a',
      r.ours && r.java ? (r.ours.p99 <= r.java.p99 ? 'yes' : 'no') : 'n/a',
    ]),
  ];
  const sd = report.slaveDrain;
  if (sd.ours || sd.java) {
    const dr = (d?: SlaveDrain) => (d ? `${Math.round(d.msgPerSec).toLocaleString('en-US')} (median of ${d.rates.length})` : 'n/a');
    table.push([GROUP_TITLE['master-slave'], 'drain from the slave, master stopped', dr(sd.ours), dr(sd.java),
      sd.ours && sd.java ? (sd.ours.msgPerSec / sd.java.msgPerSec).toFixed(2) : 'n/a', '']);
  }
  const { ours, java } = report.failover;
  if (ours || java) {
    const fo = (f?: FailoverFigures) => (f ? `p50 ${f.p50.toFixed(0)} / max ${f.max.toFixed(0)} ms (${f.times.length} kills)` : 'n/a');
    table.push([GROUP_TITLE.dledger, 'failover: kill -9 of the leader -> first SEND_OK', fo(ours), fo(java),
      ours && java ? (ours.p50 / java.p50).toFixed(2) : 'n/a', ours && java ? (ours.max <= java.max ? 'yes (max)' : 'no (max)') : 'n/a']);
  }
  return table.map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/**
 * The targets of docs/performance.md against one run, `holds` or `misses` with the figures: the DLedger group at
 * least Java's rate with a p99 at most Java's, the SYNC_MASTER pair and the single master at least Java's rate, the
 * slave's drain at least Java's. Rows without both sides are left out.
 */
export function replicatedTargets(report: ReplicatedReport): string[] {
  const out: string[] = [];
  const verdict = (ok: boolean, what: string, figures: string): string => `${ok ? 'holds ' : 'misses'}  ${what}: ${figures}`;
  for (const kind of ['dledger', 'master-slave', 'single'] as const) {
    const rows = report.rows.filter((r) => r.group === kind && r.ours && r.java);
    if (rows.length === 0) continue;
    const figs = rows.map((r) => ({ scenario: r.scenario, ratio: r.ours!.msgPerSec / r.java!.msgPerSec, p99: [r.ours!.p99, r.java!.p99] }));
    const withP99 = kind === 'dledger';
    const ok = figs.every((f) => f.ratio >= 1.0 && (!withP99 || f.p99[0] <= f.p99[1]));
    out.push(verdict(ok, `${GROUP_TITLE[kind]}: ours >= 1.0x Java 4.9.8's${withP99 ? ', p99 <= Java\'s' : ''}`, figs.map((f) =>
      `${f.scenario} ${f.ratio.toFixed(2)}x${withP99 ? ` (p99 ${f.p99[0].toFixed(1)} / ${f.p99[1].toFixed(1)} ms)` : ''}`).join(', ')));
  }
  const { ours, java } = report.slaveDrain;
  if (ours && java) out.push(verdict(ours.msgPerSec >= java.msgPerSec, 'a slave\'s drain >= 1.0x Java 4.9.8\'s', `${(ours.msgPerSec / java.msgPerSec).toFixed(2)}x`));
  return out;
}

export async function runReplicatedBench(argv: readonly string[] = [], how: { ignoreUnknown?: boolean } = { ignoreUnknown: true }): Promise<BenchResult[]> {
  const report = await runReplicated(parseReplicatedArgs(argv, how));
  process.stdout.write(`${formatReplicated(report)}\n`);
  const targets = replicatedTargets(report);
  if (targets.length > 0) process.stdout.write(`\ntargets:\n${targets.map((t) => `  ${t}`).join('\n')}\n`);
  recordTargets(targets);
  const results: BenchResult[] = report.rows.flatMap((r) => (['ours', 'java'] as const).filter((s) => r[s]).map((s) => ({
    name: `replicated.${r.group}.${s}.${r.scenario.replace(' ', '-')}`, opsPerSec: r[s]!.msgPerSec, meanMicros: 1e6 / r[s]!.msgPerSec, ops: 0,
    note: `p50 ${r[s]!.p50.toFixed(2)} ms, p99 ${r[s]!.p99.toFixed(2)} ms${r.ours && r.java && s === 'ours' ? `, ours/Java ${(r.ours.msgPerSec / r.java.msgPerSec).toFixed(2)}` : ''}`,
  })));
  for (const s of ['ours', 'java'] as const) {
    const f = report.failover[s];
    if (!f || f.times.length === 0) continue;
    const mean = f.times.reduce((a, b) => a + b, 0) / f.times.length;
    results.push({
      name: `replicated.dledger.${s}.failover.kill-to-first-send`, opsPerSec: 1000 / mean, meanMicros: mean * 1000, ops: f.times.length,
      note: `p50 ${f.p50.toFixed(0)} ms, max ${f.max.toFixed(0)} ms over ${f.times.length} leader kills (Java's default DLedger timings)`,
    });
  }
  return results;
}

/** --groups dledger,master-slave,single --sides ours,java --sync-messages N --async-messages N --kills N (0: no failover). */
export const REPLICATED_OPTIONS = { '--groups': 'value', '--sides': 'value', '--sync-messages': 'value', '--async-messages': 'value', '--kills': 'value' } as const;

/** The options of the replicated scenario; `ignoreUnknown` for the whole command line of bench/index.ts. */
export function parseReplicatedArgs(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): Parameters<typeof runReplicated>[0] {
  const o = readBenchOptions(argv, REPLICATED_OPTIONS, how);
  return {
    groups: o.list<GroupKind>('--groups', ['dledger', 'master-slave', 'single']),
    sides: o.list('--sides', ['ours', 'java'] as const),
    sync: o.number('--sync-messages'), async: o.number('--async-messages'), kills: o.number('--kills'),
  };
}

if (require.main === module) {
  runBenchScript(benchUsage(REPLICATED_OPTIONS, { '--groups': 'dledger,master-slave,single', '--sides': 'ours,java' }),
    (argv) => runReplicatedBench(argv, {}));
}
