/**
 * Controller mode (RIP-44), one broker process per replica (test/helpers/broker-child.js runs one
 * BrokerController of ours; test/helpers/javaref.ts Java's), the name server and our client in this process:
 *
 * - failover: a set of 2 of ours under our controller (in process), short timings (CONTROLLER_MODE_TEST_TIMINGS);
 *   a producer sends sync, one at a time, all along; the master's process is killed (SIGKILL) and the time to the
 *   first SEND_OK after the kill is taken (of a send begun after the killed process exited, so an answer it wrote
 *   just before dying does not count), p50 and max over `--kills` kills (default 20). The killed replica comes
 *   back with an empty store (a replica whose log went beyond the new master's would need truncation, which is not
 *   built yet), catches up and rejoins the SyncStateSet before the next kill.
 * - throughput: sync x16 and async x256 (1 KiB, 8 queues) of a 2-replica set with allAckInSyncStateSet, ours
 *   (under our controller) beside Java 5.3.3's (2 brokers under a Java 5.3.3 controller), each measured once both
 *   replicas are in the SyncStateSet; ours / Java per row; and, for scale, a 4.x SYNC_MASTER + SLAVE pair of ours
 *   (the same sends waiting for the slave, no controller).
 *
 *   Also Java's: 2 Java 5.3.3 brokers under a Java 5.3.3 controller with the same timings, `--java-kills` kills
 *   (default 5: a Java broker takes seconds to start again).
 *
 *   npm run bench -- controller [--kills N] [--java-kills N] [--sides ours,java] [--sync-messages N] [--async-messages N]
 *
 * No assertions.
 */
import './quiet-logs';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { NamesrvController } from '../lib/namesrv/namesrv-controller';
import { ControllerManager } from '../lib/controller/controller-manager';
import { CONTROLLER_MODE_TEST_TIMINGS } from '../lib/cluster';
import { DefaultMQAdminExt } from '../lib/admin/default-mq-admin-ext';
import { DefaultMQProducer } from '../lib/producer/default-mq-producer';
import { RemotingClient } from '../lib/transport/remoting-client';
import { RemotingCommand } from '../protocol/remoting-command';
import { RequestCode } from '../protocol/code/request-code';
import { GetReplicaInfoRequestHeader, GetReplicaInfoResponseHeader } from '../protocol/header';
import { decodeSyncStateSet } from '../protocol/body/sync-state-set';
import { createMessage } from '../protocol/message/message';
import { newTopicConfig } from '../protocol/body/topic-config';
import { freePort, javaSkipReason, startJavaBroker, startJavaController, type JavaBroker, type JavaController } from '../test/helpers/javaref';
import { spawnBrokerChild, stopBrokerChild } from '../test/helpers/broker-child-process';
import { type BenchResult, BenchUsageError, benchUsage, pct, readBenchOptions, runBenchScript, sendLoad } from './bench-util';
import { measureFailover, until, type FailoverFigures } from './failover';

const BODY = Buffer.alloc(1024, 0x61);
const QUEUES = 8;
const FILE = 256 * 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Load { msgPerSec: number; p50: number; p99: number; failed: number }
export interface ControllerBenchOptions { kills: number; javaKills: number; sides: ('ours' | 'java')[]; sync: number; async: number }

/** One broker of ours in a child process; resolves with its address once it printed READY. */
async function ourBroker(opts: Record<string, unknown>): Promise<{ child: ChildProcess; addr: string }> {
  const { child, addr } = await spawnBrokerChild(opts, { inheritStderr: true });
  return { child, addr };
}

const stopChild = stopBrokerChild;

/** The set's master id and SyncStateSet as a controller (ours or Java's) answers CONTROLLER_GET_REPLICA_INFO. */
async function replicaInfo(client: RemotingClient, controllerAddr: string, brokerName: string): Promise<{ masterBrokerId: number | null; syncStateSet: number[] }> {
  const res = await client.invoke(controllerAddr, RemotingCommand.createRequest(RequestCode.CONTROLLER_GET_REPLICA_INFO, GetReplicaInfoRequestHeader.encode({ brokerName })), 3000);
  if (res.code !== 0) return { masterBrokerId: null, syncStateSet: [] };
  return { masterBrokerId: GetReplicaInfoResponseHeader.decode(res.extFields).masterBrokerId ?? null, syncStateSet: decodeSyncStateSet(res.body).syncStateSet };
}

interface Env { root: string; ns: NamesrvController; admin: DefaultMQAdminExt; query: RemotingClient }

const masterAt = async (env: Env, brokerName: string): Promise<string> =>
  (await env.admin.examineBrokerClusterInfo()).brokerAddrTable.get(brokerName)?.brokerAddrs.get(0) ?? '';

/** Our controller in this process, with the short timings. */
async function ourController(root: string, tag: string): Promise<ControllerManager> {
  const cm = new ControllerManager({
    ...CONTROLLER_MODE_TEST_TIMINGS.controllerConfig,
    controllerDLegerGroup: `cg-${tag}`, controllerDLegerPeers: `n0-127.0.0.1:${await freePort()}`, controllerDLegerSelfId: 'n0',
    controllerStorePath: path.join(root, `controller-${tag}`), configStorePath: path.join(root, `controller-${tag}.properties`),
    mappedFileSize: 4 * 1024 * 1024, controllerBindAddress: '127.0.0.1',
  }, { logger: pino({ level: 'silent' }) });  // its "failed to elect" lines when the set is stopped at the end
  await cm.start();
  await until(() => cm.isLeaderState, 30_000, 'our controller to lead');
  return cm;
}

/** broker.conf of one replica of ours: controller mode, allAckInSyncStateSet, short timings or Java's. */
function ourReplicaOpts(env: Env, brokerName: string, controllerAddr: string, dir: string, short: boolean): Record<string, unknown> {
  return {
    brokerConfig: {
      brokerName, brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', brokerIP2: '127.0.0.1', namesrvAddr: env.ns.address, storePathRootDir: dir,
      enableControllerMode: true, controllerAddr, ...(short ? CONTROLLER_MODE_TEST_TIMINGS.brokerConfig : {}),
    },
    messageStoreConfig: { storePathRootDir: dir, mappedFileSizeCommitLog: FILE, allAckInSyncStateSet: true, ...(short ? CONTROLLER_MODE_TEST_TIMINGS.storeConfig : {}) },
    ...(short ? { replicasManager: CONTROLLER_MODE_TEST_TIMINGS.replicasManager } : {}),
  };
}

/** A side's replicas for the failover: start one (a fresh store each time), kill one -9, stop all. */
interface FailoverSide { controllerAddr: string; start(): Promise<string>; kill(addr: string): Promise<void>; close(): Promise<void> }

/** The same short timings on a Java 5.3.3 broker (its broker.conf keys are Java's). */
const JAVA_SHORT_TIMINGS = { ...CONTROLLER_MODE_TEST_TIMINGS.brokerConfig, ...CONTROLLER_MODE_TEST_TIMINGS.storeConfig };

async function failoverSide(env: Env, side: 'ours' | 'java', brokerName: string): Promise<FailoverSide> {
  let n = 0;
  if (side === 'ours') {
    const cm = await ourController(env.root, 'fo');
    const replicas = new Map<string, ChildProcess>();
    return {
      controllerAddr: cm.address,
      async start() {
        const { child, addr } = await ourBroker(ourReplicaOpts(env, brokerName, cm.address, path.join(env.root, `fo-${n++}`), true));
        replicas.set(addr, child);
        return addr;
      },
      async kill(addr) {
        await stopChild(replicas.get(addr)!, 'SIGKILL');
        replicas.delete(addr);
      },
      async close() {
        for (const c of replicas.values()) await stopChild(c);
        await cm.shutdown();
      },
    };
  }
  const port = await freePort();
  const jc = await startJavaController({
    controllerDLegerGroup: 'jcg-fo', controllerDLegerPeers: `n0-127.0.0.1:${port}`, controllerDLegerSelfId: 'n0', controllerStorePath: path.join(env.root, 'jcontroller-fo'),
    scanNotActiveBrokerInterval: CONTROLLER_MODE_TEST_TIMINGS.controllerConfig.scanNotActiveBrokerInterval,
  });
  const replicas = new Map<string, JavaBroker>();
  return {
    controllerAddr: jc.addr,
    async start() {
      const runDir = path.join(env.root, `jfo-${n++}`);
      await fs.mkdir(runDir, { recursive: true });
      const b = await startJavaBroker('5.3.3', {
        namesrvAddr: env.ns.address, runDir, storeDir: path.join(runDir, 'store'), brokerName, heap: '-Xms256m -Xmx512m',
        conf: { enableControllerMode: true, controllerAddr: jc.addr, allAckInSyncStateSet: true, brokerIP2: '127.0.0.1', mappedFileSizeCommitLog: 16 * 1024 * 1024, ...JAVA_SHORT_TIMINGS },
      });
      replicas.set(b.addr, b);
      return b.addr;
    },
    async kill(addr) {
      await replicas.get(addr)!.stop('SIGKILL');
      replicas.delete(addr);
    },
    async close() {
      for (const b of replicas.values()) await b.stop().catch(() => undefined);
      await jc.stop().catch(() => undefined);
    },
  };
}

/** kill -9 of the master under a sync producer, `kills` times: kill -> first SEND_OK (bench/failover.ts). */
async function failover(env: Env, kills: number, log: (l: string) => void, side: 'ours' | 'java' = 'ours'): Promise<FailoverFigures> {
  const brokerName = `${side}-failover`;
  const set = await failoverSide(env, side, brokerName);
  const replicas = new Set<string>();
  const startReplica = async (): Promise<string> => {
    const addr = await set.start();
    replicas.add(addr);
    return addr;
  };
  const producer = new DefaultMQProducer({
    producerGroup: `PG_CTL_FO_${side}`, namesrvAddr: env.ns.address, instanceName: `ctl-bench-fo-${side}`, pollNameServerInterval: 100, sendMsgTimeout: 3000,
  });
  const topic = `CtlBenchFailover_${side}`;
  const inSync = async (): Promise<boolean> => (await replicaInfo(env.query, set.controllerAddr, brokerName)).syncStateSet.length === 2;
  try {
    for (let i = 0; i < 2; i++) await startReplica();
    await until(async () => (await masterAt(env, brokerName)) !== '' && await inSync(), 60_000, 'a master and 2 replicas in sync');
    for (const addr of replicas) await env.admin.createAndUpdateTopicConfig(addr, newTopicConfig(topic, { readQueueNums: 4, writeQueueNums: 4 }));
    await producer.start();
    return await measureFailover({
      producer, topic, body: BODY, kills, log, label: `${side} controller`,
      group: {
        masterAt: () => masterAt(env, brokerName),
        has: (addr) => replicas.has(addr),
        async kill(addr) {
          await set.kill(addr);
          replicas.delete(addr);
        },
        async restore() {
          // back with an empty store: it gets a new controller id, catches up and joins the SyncStateSet
          const back = await startReplica();
          await env.admin.createAndUpdateTopicConfig(back, newTopicConfig(topic, { readQueueNums: 4, writeQueueNums: 4 }));
          await until(inSync, 120_000, 'the returning replica in the SyncStateSet');
        },
      },
    });
  } finally {
    await producer.shutdown().catch(() => undefined);
    await set.close();
  }
}

interface Group { brokerName: string; controllerAddr: string; stop(): Promise<void> }

async function startOursSet(env: Env): Promise<Group> {
  const brokerName = 'ours-controller';
  const cm = await ourController(env.root, 'tp');
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const c of children.reverse()) await stopChild(c);
    await cm.shutdown();
  };
  try {
    // one after the other: the first is the first master
    for (const i of [0, 1]) children.push((await ourBroker(ourReplicaOpts(env, brokerName, cm.address, path.join(env.root, `ours-r${i}`), false))).child);
  } catch (err) {
    await stop();
    throw err;
  }
  return { brokerName, controllerAddr: cm.address, stop };
}

async function startJavaSet(env: Env): Promise<Group> {
  const brokerName = 'java-controller';
  const port = await freePort();
  let jc: JavaController | null = null;
  const brokers: JavaBroker[] = [];
  const stop = async () => {
    for (const b of brokers.reverse()) await b.stop().catch(() => undefined);
    await jc?.stop().catch(() => undefined);
  };
  try {
    jc = await startJavaController({
      controllerDLegerGroup: 'jcg', controllerDLegerPeers: `n0-127.0.0.1:${port}`, controllerDLegerSelfId: 'n0', controllerStorePath: path.join(env.root, 'jcontroller'),
    });
    for (const i of [0, 1]) {
      const runDir = path.join(env.root, `java-r${i}`);
      await fs.mkdir(runDir, { recursive: true });
      brokers.push(await startJavaBroker('5.3.3', {
        namesrvAddr: env.ns.address, runDir, storeDir: path.join(runDir, 'store'), brokerName,
        conf: { enableControllerMode: true, controllerAddr: jc.addr, allAckInSyncStateSet: true, brokerIP2: '127.0.0.1', mappedFileSizeCommitLog: FILE },
      }));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { brokerName, controllerAddr: jc.addr, stop };
}

/** A 4.x SYNC_MASTER + SLAVE pair of ours (no controller), the baseline of a replicated send. */
async function startOursSyncPair(env: Env): Promise<Group> {
  const brokerName = 'ours-sync-pair';
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const c of children.reverse()) await stopChild(c);
  };
  const base = (dir: string) => ({ brokerName, brokerClusterName: 'DefaultCluster', brokerIP1: '127.0.0.1', namesrvAddr: env.ns.address, storePathRootDir: dir });
  try {
    const m = path.join(env.root, 'pair-m');
    const sl = path.join(env.root, 'pair-s');
    children.push((await ourBroker({ brokerConfig: base(m), messageStoreConfig: { storePathRootDir: m, mappedFileSizeCommitLog: FILE, brokerRole: 'SYNC_MASTER' } })).child);
    children.push((await ourBroker({ brokerConfig: { ...base(sl), brokerId: 1 }, messageStoreConfig: { storePathRootDir: sl, mappedFileSizeCommitLog: FILE, brokerRole: 'SLAVE' } })).child);
  } catch (err) {
    await stop();
    throw err;
  }
  return { brokerName, controllerAddr: '', stop };
}

async function measureSet(env: Env, side: 'ours' | 'java' | 'pair', counts: { sync: number; async: number }, log: (l: string) => void): Promise<Map<string, Load>> {
  const group = side === 'ours' ? await startOursSet(env) : side === 'java' ? await startJavaSet(env) : await startOursSyncPair(env);
  const producer = new DefaultMQProducer({ producerGroup: `PG_CTL_${side}`, namesrvAddr: env.ns.address, instanceName: `ctl-bench-${side}`, pollNameServerInterval: 1000, sendMsgTimeout: 10_000 });
  const out = new Map<string, Load>();
  try {
    await until(async () => {
      if (side === 'pair') return ((await env.admin.examineBrokerClusterInfo()).brokerAddrTable.get(group.brokerName)?.brokerAddrs.size ?? 0) === 2;
      const info = await replicaInfo(env.query, group.controllerAddr, group.brokerName);
      return info.syncStateSet.length === 2 && (await masterAt(env, group.brokerName)) !== '';
    }, 180_000, `${side}: a master and both replicas in the SyncStateSet`);
    const master = await masterAt(env, group.brokerName);
    const topic = `CtlBench_${side}`;
    await env.admin.createAndUpdateTopicConfig(master, newTopicConfig(topic, { readQueueNums: QUEUES, writeQueueNums: QUEUES }));
    await producer.start();
    for (let i = 0; i < 500; i++) {
      for (let tries = 0; ; tries++) {
        const ok = await producer.send(createMessage(topic, BODY)).then((r) => r.sendStatus === 'SEND_OK', () => false);
        if (ok) break;
        if (tries > 200) throw new Error(`${side}: warm-up sends fail`);
        await sleep(100);
      }
    }
    const info = side === 'pair' ? { syncStateSet: [0, 1] } : await replicaInfo(env.query, group.controllerAddr, group.brokerName);
    if (info.syncStateSet.length !== 2) throw new Error(`${side}: the SyncStateSet shrank to ${JSON.stringify(info.syncStateSet)} during the warm-up`);
    for (const [scenario, concurrency, messages] of [['sync x16', 16, counts.sync], ['async x256', 256, counts.async]] as const) {
      const r = await sendLoad(producer, topic, BODY, concurrency, messages);
      out.set(scenario, { msgPerSec: messages / r.seconds, p50: pct(r.latencies, 50), p99: pct(r.latencies, 99), failed: r.failed });
      log(`  ${side === 'pair' ? 'ours SYNC_MASTER + SLAVE' : `${side} controller set`} ${scenario}: ${Math.round(messages / r.seconds)} msg/s, p50 ${pct(r.latencies, 50).toFixed(1)} ms, p99 ${pct(r.latencies, 99).toFixed(1)} ms, ${r.failed} failed`);
    }
  } finally {
    await producer.shutdown().catch(() => undefined);
    await group.stop();
  }
  return out;
}

export interface ControllerBenchReport {
  failover: FailoverFigures | null;
  javaFailover: FailoverFigures | null;
  rows: { scenario: string; ours?: Load; java?: Load; pair?: Load }[];
  javaSkipped: string | null;
}

export async function runController(opts: ControllerBenchOptions, log: (l: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<ControllerBenchReport> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'bench-controller-'));
  const ns = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(root, 'kv.json'), configStorePath: path.join(root, 'ns.properties') });
  let admin: DefaultMQAdminExt | null = null;
  const query = new RemotingClient();
  const skip = opts.sides.includes('java') ? javaSkipReason('5.3.3') : 'not asked for';
  if (skip && opts.sides.includes('java')) log(`controller: the Java 5.3.3 set is left out: ${skip}`);
  const report: ControllerBenchReport = { failover: null, javaFailover: null, rows: [], javaSkipped: skip };
  try {
    await ns.start();
    admin = new DefaultMQAdminExt({ namesrvAddr: ns.address, instanceName: 'ctl-bench-admin' });
    await admin.start();
    const env: Env = { root, ns, admin, query };
    if (opts.kills > 0 && opts.sides.includes('ours')) report.failover = await failover(env, opts.kills, log);
    if (opts.javaKills > 0 && !skip) report.javaFailover = await failover(env, opts.javaKills, log, 'java');
    const ours = opts.sides.includes('ours') ? await measureSet(env, 'ours', opts, log) : new Map<string, Load>();
    const java = skip ? new Map<string, Load>() : await measureSet(env, 'java', opts, log);
    const pair = opts.sides.includes('ours') ? await measureSet(env, 'pair', opts, log) : new Map<string, Load>();
    for (const scenario of ['sync x16', 'async x256']) report.rows.push({ scenario, ours: ours.get(scenario), java: java.get(scenario), pair: pair.get(scenario) });
  } finally {
    await query.shutdown();
    await admin?.shutdown().catch(() => undefined);
    await ns.shutdown();
    await fs.rm(root, { recursive: true, force: true });
  }
  return report;
}

export function formatController(r: ControllerBenchReport): string {
  const cell = (l?: Load) => (l ? `${Math.round(l.msgPerSec).toLocaleString('en-US')} (${l.p50.toFixed(1)} / ${l.p99.toFixed(1)})${l.failed ? ` ${l.failed} failed` : ''}` : 'n/a');
  const lines: string[] = [];
  if (r.failover) {
    lines.push(`failover (kill -9 of the master -> first SEND_OK), 2 replicas of ours, short timings: p50 ${r.failover.p50.toFixed(0)} ms, max ${r.failover.max.toFixed(0)} ms over ${r.failover.times.length} kills`);
  }
  if (r.javaFailover) {
    lines.push(`failover, 2 Java 5.3.3 brokers under a Java 5.3.3 controller, the same timings: p50 ${r.javaFailover.p50.toFixed(0)} ms, max ${r.javaFailover.max.toFixed(0)} ms over ${r.javaFailover.times.length} kills`);
  }
  lines.push(...[
    ['2-replica set, allAckInSyncStateSet', 'ours msg/s (p50 / p99 ms)', 'Java 5.3.3 msg/s (p50 / p99 ms)', 'ours / Java', 'ours 4.x SYNC_MASTER + SLAVE msg/s (p50 / p99 ms)'],
    ...r.rows.map((row) => [row.scenario, cell(row.ours), cell(row.java), row.ours && row.java ? (row.ours.msgPerSec / row.java.msgPerSec).toFixed(2) : 'n/a', cell(row.pair)]),
  ].map((cols) => `| ${cols.join(' | ')} |`));
  return lines.join('\n');
}

export const CONTROLLER_OPTIONS = { '--kills': 'value', '--java-kills': 'value', '--sides': 'value', '--sync-messages': 'value', '--async-messages': 'value' } as const;

/** The options of the controller scenario; `ignoreUnknown` for the whole command line of bench/index.ts. */
export function parseControllerOptions(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): ControllerBenchOptions {
  const o = readBenchOptions(argv, CONTROLLER_OPTIONS, how);
  const num = (name: string, def: number): number => {
    const n = o.number(name) ?? def;
    if (!Number.isInteger(n) || n < 0) throw new BenchUsageError(`${name} needs a whole number, got ${o.string(name) ?? n}`);
    return n;
  };
  return {
    kills: num('--kills', 20),
    javaKills: num('--java-kills', 5),
    sides: o.list('--sides', ['ours', 'java'] as const) ?? ['ours', 'java'],
    sync: num('--sync-messages', Number(process.env.CONTROLLER_BENCH_SYNC ?? 8000)),
    async: num('--async-messages', Number(process.env.CONTROLLER_BENCH_ASYNC ?? 30000)),
  };
}

export async function runControllerBench(argv: readonly string[] = [], how: { ignoreUnknown?: boolean } = { ignoreUnknown: true }): Promise<BenchResult[]> {
  const report = await runController(parseControllerOptions(argv, how));
  process.stdout.write(`${formatController(report)}\n`);
  const out: BenchResult[] = [];
  if (report.javaFailover) {
    const mean = report.javaFailover.times.reduce((s, x) => s + x, 0) / Math.max(1, report.javaFailover.times.length);
    out.push({
      name: 'controller.failover.java.kill-to-first-send', opsPerSec: 1000 / mean, meanMicros: mean * 1000, ops: report.javaFailover.times.length,
      note: `p50 ${report.javaFailover.p50.toFixed(0)} ms, max ${report.javaFailover.max.toFixed(0)} ms over ${report.javaFailover.times.length} master kills (Java 5.3.3, short timings)`,
    });
  }
  if (report.failover) {
    const mean = report.failover.times.reduce((s, x) => s + x, 0) / Math.max(1, report.failover.times.length);
    out.push({
      name: 'controller.failover.kill-to-first-send', opsPerSec: 1000 / mean, meanMicros: mean * 1000, ops: report.failover.times.length,
      note: `p50 ${report.failover.p50.toFixed(0)} ms, max ${report.failover.max.toFixed(0)} ms over ${report.failover.times.length} master kills (short timings)`,
    });
  }
  for (const row of report.rows) {
    for (const side of ['ours', 'java', 'pair'] as const) {
      const l = row[side];
      if (!l) continue;
      out.push({
        name: side === 'pair' ? `controller.baseline-sync-master-slave.ours.${row.scenario.replace(' ', '-')}` : `controller.2-replicas.${side}.${row.scenario.replace(' ', '-')}`, opsPerSec: l.msgPerSec, meanMicros: 1e6 / l.msgPerSec, ops: 0,
        note: `p50 ${l.p50.toFixed(2)} ms, p99 ${l.p99.toFixed(2)} ms${side === 'ours' && row.java ? `, ours/Java ${(l.msgPerSec / row.java.msgPerSec).toFixed(2)}` : ''}`,
      });
    }
  }
  return out;
}

if (require.main === module) {
  runBenchScript(benchUsage(CONTROLLER_OPTIONS, { '--sides': 'ours,java' }), (argv) => runControllerBench(argv, {}));
}
