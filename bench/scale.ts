/**
 * How cost grows with the size of what a cluster holds: `npm run bench -- scale`. Our name server and broker (each
 * its own process) beside Java 4.9.8's, in one run, with the same requests:
 *
 * - topics: admin creates up to each size (8 queues each, 8 creates in flight): create rate, broker and name-server
 *   CPU per create, RSS, the time until a new topic's route answers after its create was acknowledged, route lookup
 *   p50/p99; then the broker restarted on its store: time to serving again, and its RSS after;
 * - connections: that many clients, each with a consumer group of its own, heartbeating in rounds: round time,
 *   broker CPU per round, failures;
 * - queues: a topic of that many queues drained by one push consumer (our client against both brokers).
 *
 * A server that needs longer than `--budget` seconds for one size is not taken to the next. `--svg FILE` writes the
 * curves (cost against size, log axes). Options: --topics 1000,10000,50000 --conns 500,2000,5000 --queues 64,1024
 * --drain 20000 --budget 600 --only ours|java; `--from-log FILE` prints the tables and writes the SVG again from the
 * `scale: {...}` lines a run printed on stderr (several logs can be concatenated).
 * BENCH_BROKER_NODE_ARGS holds node flags for our broker process (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  ConsumeConcurrentlyStatus, DefaultMQAdminExt, DefaultMQProducer, DefaultMQPushConsumer, createMessage,
} from '../lib/index';
import { newTopicConfig } from '../protocol/body/topic-config';
import { RemotingClient } from '../lib/transport/remoting-client';
import { RequestCode } from '../protocol/code/request-code';
import { heartbeat } from '../test/integration/broker/broker-helpers';
import { freeBrokerPort, javaSkipReason, startJavaBroker, startJavaNamesrv, type JavaBroker, type JavaNamesrv } from '../test/helpers/javaref';
import { freePort } from '../lib/cluster';
import { BenchUsageError, type BenchResult, benchUsage, pct, readBenchOptions, runBenchScript } from './bench-util';
import { readCpuMicros, readRss } from './producer';

type Kind = 'ours' | 'java';

interface Servers {
  kind: Kind;
  namesrvAddr: string;
  brokerAddr: string;
  namesrvPid(): number;
  brokerPid(): number;
  /** Stops the broker (SIGTERM, as an operator would) and starts it on its store; ms until it serves again. */
  restartBroker(): Promise<number>;
  stop(): Promise<void>;
}

export interface ScaleOptions {
  topics: number[];
  conns: number[];
  queues: number[];
  drain: number;
  budgetSeconds: number;
  only: Kind | null;
  svg: string | null;
}

export interface TopicRow {
  kind: Kind;
  size: number;
  createsPerSec: number;
  brokerCpuMicrosPerCreate: number;
  namesrvCpuMicrosPerCreate: number;
  brokerRssMB: number;
  namesrvRssMB: number;
  routeVisibleMs: { p50: number; max: number };
  lookupMs: { p50: number; p99: number };
}

export interface RestartRow { kind: Kind; topics: number; restartMs: number; rssBeforeMB: number; rssAfterMB: number }
export interface ConnRow { kind: Kind; conns: number; roundMs: number; brokerCpuMsPerRound: number; failed: number; registerMs: number }
/**
 * CPU µs per message drained, of the broker process and of this process (the consumer), from the consumer's start
 * until the last message: on a shared machine the rate moves with the load, the CPU per message much less. The
 * broker's RSS once the last message arrived.
 */
export interface DrainRow {
  kind: Kind; queues: number; messages: number; msgPerSec: number;
  brokerCpuMicrosPerMsg?: number; clientCpuMicrosPerMsg?: number; brokerRssMB?: number;
}

const BROKER_NAME = 'scale-b';
const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForBroker(admin: DefaultMQAdminExt, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const info = await admin.examineBrokerClusterInfo();
      if (info.brokerAddrTable.has(BROKER_NAME)) {
        // and it takes requests (a Java broker registers before its processors run)
        await admin.examineTopicRouteInfo('TBW102');
        return;
      }
    } catch { /* not yet */ }
    if (Date.now() > deadline) throw new Error(`broker not registered after ${timeoutMs} ms`);
    await sleep(20);
  }
}

function spawnOurs(args: string[], home: string): ChildProcess {
  const main = path.join(__dirname, '..', 'lib', 'cli', 'main.js');
  // BENCH_BROKER_NODE_ARGS: node flags for our broker process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = args[0] === 'broker' ? (process.env.BENCH_BROKER_NODE_ARGS ?? '').split(' ').filter(Boolean) : [];
  const child = spawn(process.execPath, [...nodeArgs, main, ...args], {
    env: { ...process.env, HOME: home, ROCKETMQ_LOG_LEVEL: process.env.ROCKETMQ_LOG_LEVEL ?? 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  const t = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(t);
}

async function startOurs(admin: (addr: string) => Promise<DefaultMQAdminExt>): Promise<Servers> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-scale-'));
  const nsPort = await freePort();
  const namesrv = spawnOurs(['namesrv', '-p', String(nsPort)], tmp);
  const namesrvAddr = `127.0.0.1:${nsPort}`;
  const port = await freeBrokerPort();
  const brokerArgs = ['broker', '-n', namesrvAddr, `--listenPort=${port}`, `--brokerName=${BROKER_NAME}`, '--brokerIP1=127.0.0.1',
    `--storePathRootDir=${path.join(tmp, 'store')}`, `--storePathCommitLog=${path.join(tmp, 'store', 'commitlog')}`];
  let broker = spawnOurs(brokerArgs, tmp);
  const a = await admin(namesrvAddr);
  await waitForBroker(a, 30_000);
  return {
    kind: 'ours',
    namesrvAddr,
    brokerAddr: `127.0.0.1:${port}`,
    namesrvPid: () => namesrv.pid!,
    brokerPid: () => broker.pid!,
    async restartBroker() {
      await stopChild(broker);
      const t0 = performance.now();
      broker = spawnOurs(brokerArgs, tmp);
      await waitForBroker(a, 120_000);
      return performance.now() - t0;
    },
    async stop() {
      await stopChild(broker);
      await stopChild(namesrv);
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

async function startJava(admin: (addr: string) => Promise<DefaultMQAdminExt>): Promise<Servers> {
  const ns: JavaNamesrv = await startJavaNamesrv('4.9.8');
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-scale-java-'));
  const opts = { namesrvAddr: ns.addr, brokerName: BROKER_NAME, storeDir, heap: '-Xms1g -Xmx1g' };
  let broker: JavaBroker = await startJavaBroker('4.9.8', opts);
  const port = broker.port;
  const a = await admin(ns.addr);
  await waitForBroker(a, 60_000);
  return {
    kind: 'java',
    namesrvAddr: ns.addr,
    brokerAddr: broker.addr,
    namesrvPid: () => ns.child.pid!,
    brokerPid: () => broker.child.pid!,
    async restartBroker() {
      await broker.stop('SIGTERM');
      const t0 = performance.now();
      broker = await startJavaBroker('4.9.8', { ...opts, listenPort: port });
      await waitForBroker(a, 120_000);
      return performance.now() - t0;
    },
    async stop() {
      await broker.stop('SIGKILL');
      await ns.stop('SIGKILL');
      fs.rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

/** Runs `task(i)` for i in [from, to) with `inflight` at a time. */
async function pool(from: number, to: number, inflight: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = from;
  await Promise.all(Array.from({ length: inflight }, async () => {
    while (next < to) await task(next++);
  }));
}

async function routeVisibleMs(admin: DefaultMQAdminExt, s: Servers, prefix: string): Promise<number> {
  const topic = `${prefix}-probe-${Date.now().toString(36)}`;
  await admin.createAndUpdateTopicConfig(s.brokerAddr, newTopicConfig(topic, { readQueueNums: 8, writeQueueNums: 8 }));
  const t0 = performance.now();
  for (;;) {
    try {
      const r = await admin.examineTopicRouteInfo(topic);
      if (r.queueDatas.length > 0) return performance.now() - t0;
    } catch { /* not yet */ }
    if (performance.now() - t0 > 60_000) return Number.POSITIVE_INFINITY;
    await sleep(1);
  }
}

/** Creates topics on `s` up to `size`; false when the budget ran out first (the server is not taken further). */
async function topicStep(s: Servers, admin: DefaultMQAdminExt, created: { n: number }, size: number, o: ScaleOptions, rows: TopicRow[]): Promise<boolean> {
  const from = created.n;
  const bCpu = readCpuMicros(s.brokerPid());
  const nCpu = readCpuMicros(s.namesrvPid());
  const t0 = performance.now();
  const deadline = t0 + o.budgetSeconds * 1000;
  let over = false;
  await pool(from, size, 8, async (i) => {
    if (over) return;
    await admin.createAndUpdateTopicConfig(s.brokerAddr, newTopicConfig(`Scale-${i}`, { readQueueNums: 8, writeQueueNums: 8 }));
    created.n = Math.max(created.n, i + 1);
    if (performance.now() > deadline) over = true;
  });
  const n = size - from;
  const secs = (performance.now() - t0) / 1000;
  if (over) {
    process.stderr.write(`scale: ${s.kind} needed more than ${o.budgetSeconds} s for ${size} topics (at ${created.n}); not taken further\n`);
    return false;
  }
  const visible: number[] = [];
  for (let i = 0; i < 10; i++) visible.push(await routeVisibleMs(admin, s, `${s.kind}-${size}-${i}`));
  visible.sort((a, b) => a - b);
  const lookups: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    await admin.examineTopicRouteInfo(`Scale-${Math.floor(Math.random() * size)}`);
    lookups.push(performance.now() - t);
  }
  lookups.sort((a, b) => a - b);
  const row: TopicRow = {
    kind: s.kind, size, createsPerSec: n / secs,
    brokerCpuMicrosPerCreate: (readCpuMicros(s.brokerPid()) - bCpu) / n,
    namesrvCpuMicrosPerCreate: (readCpuMicros(s.namesrvPid()) - nCpu) / n,
    brokerRssMB: readRss(s.brokerPid()) / MB, namesrvRssMB: readRss(s.namesrvPid()) / MB,
    routeVisibleMs: { p50: pct(visible, 50), max: visible[visible.length - 1] },
    lookupMs: { p50: pct(lookups, 50), p99: pct(lookups, 99) },
  };
  rows.push(row);
  process.stderr.write(`scale: ${JSON.stringify(row)}\n`);
  return true;
}

/** One client per connection, as each client process has one; the broker's calls to them are answered. */
function newHeartbeatClient(): RemotingClient {
  const c = new RemotingClient();
  c.registerProcessor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, () => null);
  return c;
}

async function connStep(s: Servers, clients: RemotingClient[], n: number, rows: ConnRow[]): Promise<void> {
  const t0 = performance.now();
  while (clients.length < n) clients.push(newHeartbeatClient());
  let failed = 0;
  const round = () => pool(0, n, 256, async (i) => {
    try {
      const r = await clients[i].invoke(s.brokerAddr, heartbeat(`scale-${s.kind}-${i}`, `ScaleGroup-${i}`, 'TBW102'), 10_000);
      if (r.code !== 0) failed++;
    } catch {
      failed++;
    }
  });
  await round(); // new groups: the first heartbeat creates their retry topics
  const registerMs = performance.now() - t0;
  const times: number[] = [];
  const cpu0 = readCpuMicros(s.brokerPid());
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    await round();
    times.push(performance.now() - t);
  }
  const row: ConnRow = {
    kind: s.kind, conns: n, roundMs: times.sort((a, b) => a - b)[1],
    brokerCpuMsPerRound: (readCpuMicros(s.brokerPid()) - cpu0) / 3000, failed, registerMs,
  };
  rows.push(row);
  process.stderr.write(`scale: ${JSON.stringify(row)}\n`);
}

/** Sends `o.drain` messages to a new topic of `q` queues and drains them with one push consumer; `rows` null: not recorded. */
async function drainStep(s: Servers, admin: DefaultMQAdminExt, q: number, o: ScaleOptions, rows: DrainRow[] | null): Promise<void> {
  const topic = `ScaleDrain-${q}-${Date.now().toString(36)}`;
  await admin.createAndUpdateTopicConfig(s.brokerAddr, newTopicConfig(topic, { readQueueNums: q, writeQueueNums: q }));
  await routeVisibleMs(admin, s, `drain-${q}`);
  const producer = new DefaultMQProducer({ producerGroup: `ScaleP-${q}-${s.kind}`, namesrvAddr: s.namesrvAddr });
  await producer.start();
  const body = Buffer.alloc(1024, 7);
  // A busy broker answers SYSTEM_BUSY, which a 4.x producer does not retry: the load is sent again, as a user would.
  let refused = 0;
  await pool(0, o.drain, 256, async () => {
    for (;;) {
      try {
        await producer.send(createMessage(topic, body));
        return;
      } catch {
        if (++refused > o.drain) throw new Error(`scale: ${s.kind} refused more sends than the drain holds`);
        await sleep(10);
      }
    }
  });
  await producer.shutdown();
  let got = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => { done = r; });
  const consumer = new DefaultMQPushConsumer({
    consumerGroup: `ScaleC-${q}-${s.kind}-${Date.now().toString(36)}`, namesrvAddr: s.namesrvAddr,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  consumer.subscribe(topic, '*');
  let t0 = 0;
  consumer.registerMessageListener((msgs) => {
    if (t0 === 0) t0 = performance.now();
    got += msgs.length;
    if (got >= o.drain) done();
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  const brokerCpu0 = readCpuMicros(s.brokerPid());
  const clientCpu0 = process.cpuUsage();
  await consumer.start();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([finished, new Promise((r) => { timer = setTimeout(r, 300_000); })]);
  clearTimeout(timer);
  const clientCpu = process.cpuUsage(clientCpu0);
  const row: DrainRow = {
    kind: s.kind, queues: q, messages: got, msgPerSec: got / ((performance.now() - t0) / 1000),
    brokerCpuMicrosPerMsg: (readCpuMicros(s.brokerPid()) - brokerCpu0) / got,
    clientCpuMicrosPerMsg: (clientCpu.user + clientCpu.system) / got,
    brokerRssMB: readRss(s.brokerPid()) / MB,
  };
  await consumer.shutdown();
  if (!rows) return; // a warm-up
  rows.push(row);
  process.stderr.write(`scale: ${JSON.stringify(row)}\n`);
}

export interface ScaleResult {
  topics: TopicRow[];
  restarts: RestartRow[];
  conns: ConnRow[];
  drains: DrainRow[];
}

/**
 * Both server sets run side by side for the whole run and take each step in turn (ours, then Java, size by size),
 * so a change in the machine's speed during the run touches both alike.
 */
export async function runScale(o: ScaleOptions): Promise<ScaleResult> {
  const result: ScaleResult = { topics: [], restarts: [], conns: [], drains: [] };
  const kinds: Kind[] = [];
  if (o.only !== 'java') kinds.push('ours');
  const skip = javaSkipReason('4.9.8');
  if (o.only !== 'ours') {
    if (skip) process.stderr.write(`scale: the Java 4.9.8 servers are left out: ${skip}\n`);
    else kinds.push('java');
  }
  interface Run { s: Servers; admin: DefaultMQAdminExt; admins: DefaultMQAdminExt[]; created: { n: number }; going: boolean; clients: RemotingClient[] }
  const runs: Run[] = [];
  try {
    for (const kind of kinds) {
      const admins: DefaultMQAdminExt[] = [];
      const newAdmin = async (namesrvAddr: string) => {
        const a = new DefaultMQAdminExt({ namesrvAddr, instanceName: `scale-${kind}-${admins.length}`, timeoutMillis: 30_000 });
        await a.start();
        admins.push(a);
        return a;
      };
      const s = kind === 'ours' ? await startOurs(newAdmin) : await startJava(newAdmin);
      runs.push({ s, admin: admins[0], admins, created: { n: 0 }, going: true, clients: [] });
    }
    for (const size of o.topics) {
      for (const r of runs) if (r.going) r.going = await topicStep(r.s, r.admin, r.created, size, o, result.topics);
    }
    if (o.topics.length > 0) {
      for (const r of runs) {
        const rssBeforeMB = readRss(r.s.brokerPid()) / MB;
        const restartMs = await r.s.restartBroker();
        await sleep(2000);
        const row: RestartRow = { kind: r.s.kind, topics: r.created.n, restartMs, rssBeforeMB, rssAfterMB: readRss(r.s.brokerPid()) / MB };
        result.restarts.push(row);
        process.stderr.write(`scale: ${JSON.stringify(row)}\n`);
      }
    }
    const step = async (what: string, task: () => Promise<void>) => {
      try {
        await task();
      } catch (err) {
        process.stderr.write(`scale: ${what} failed: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    };
    for (const n of o.conns) for (const r of runs) await step(`${r.s.kind} ${n} connections`, () => connStep(r.s, r.clients, n, result.conns));
    for (const r of runs) await Promise.all(r.clients.splice(0).map((c) => c.shutdown()));
    // The clients run in this process: a first unrecorded drain on each server warms their code, or the first server
    // drained would pay for the JIT.
    if (o.queues.length > 0) {
      for (const r of runs) await step(`${r.s.kind} warm-up drain`, () => drainStep(r.s, r.admin, 8, { ...o, drain: Math.min(o.drain, 5000) }, null));
    }
    for (const q of o.queues) for (const r of runs) await step(`${r.s.kind} ${q}-queue drain`, () => drainStep(r.s, r.admin, q, o, result.drains));
  } finally {
    for (const r of runs) {
      await Promise.all(r.clients.map((c) => c.shutdown()));
      for (const a of r.admins) await a.shutdown();
      await r.s.stop();
    }
  }
  return result;
}

function ratio(ours: number | undefined, java: number | undefined): string {
  if (ours === undefined || java === undefined || !Number.isFinite(ours) || !Number.isFinite(java) || java === 0) return 'n/a';
  return `${(ours / java).toFixed(2)}x`;
}
const f0 = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(0));
const f1 = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(1));
const f2 = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? 'n/a' : v.toFixed(2));

/** Markdown tables, ours beside Java with the ratio ours / Java. */
export function formatScale(r: ScaleResult): string {
  const out: string[] = [];
  const sizes = [...new Set(r.topics.map((t) => t.size))];
  if (sizes.length > 0) {
    out.push('| topics | creates/s ours | Java | ours/Java | broker CPU µs/create ours | Java | name-server CPU µs/create ours | Java | route visible p50/max ms ours | Java | lookup p50/p99 ms ours | Java | broker RSS MB ours | Java | ours/Java |');
    out.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const size of sizes) {
      const o = r.topics.find((t) => t.kind === 'ours' && t.size === size);
      const j = r.topics.find((t) => t.kind === 'java' && t.size === size);
      out.push(`| ${size} | ${f0(o?.createsPerSec)} | ${f0(j?.createsPerSec)} | ${ratio(o?.createsPerSec, j?.createsPerSec)} | ${f0(o?.brokerCpuMicrosPerCreate)} | ${f0(j?.brokerCpuMicrosPerCreate)} | ${f0(o?.namesrvCpuMicrosPerCreate)} | ${f0(j?.namesrvCpuMicrosPerCreate)} | ${f1(o?.routeVisibleMs.p50)}/${f1(o?.routeVisibleMs.max)} | ${f1(j?.routeVisibleMs.p50)}/${f1(j?.routeVisibleMs.max)} | ${f2(o?.lookupMs.p50)}/${f2(o?.lookupMs.p99)} | ${f2(j?.lookupMs.p50)}/${f2(j?.lookupMs.p99)} | ${f0(o?.brokerRssMB)} | ${f0(j?.brokerRssMB)} | ${ratio(o?.brokerRssMB, j?.brokerRssMB)} |`);
    }
  }
  if (r.restarts.length > 0) {
    out.push('', '| server | topics | restart to serving ms | broker RSS MB after creates | after restart | ratio |', '|---|---:|---:|---:|---:|---:|');
    for (const x of r.restarts) out.push(`| ${x.kind} | ${x.topics} | ${f0(x.restartMs)} | ${f0(x.rssBeforeMB)} | ${f0(x.rssAfterMB)} | ${ratio(x.rssBeforeMB, x.rssAfterMB)} |`);
  }
  const conns = [...new Set(r.conns.map((c) => c.conns))];
  if (conns.length > 0) {
    out.push('', '| connections (a group each) | first round ms ours | Java | heartbeat round ms ours | Java | broker CPU ms/round ours | Java | ours/Java | failed ours | Java |', '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const n of conns) {
      const o = r.conns.find((c) => c.kind === 'ours' && c.conns === n);
      const j = r.conns.find((c) => c.kind === 'java' && c.conns === n);
      out.push(`| ${n} | ${f0(o?.registerMs)} | ${f0(j?.registerMs)} | ${f0(o?.roundMs)} | ${f0(j?.roundMs)} | ${f1(o?.brokerCpuMsPerRound)} | ${f1(j?.brokerCpuMsPerRound)} | ${ratio(o?.brokerCpuMsPerRound, j?.brokerCpuMsPerRound)} | ${o?.failed ?? 'n/a'} | ${j?.failed ?? 'n/a'} |`);
    }
  }
  const queues = [...new Set(r.drains.map((d) => d.queues))];
  if (queues.length > 0) {
    out.push('', '| queues | drain msg/s ours | Java | ours/Java | broker CPU µs/msg ours | Java | consumer CPU µs/msg against ours | Java | broker RSS MB after, ours | Java |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const q of queues) {
      const o = r.drains.find((d) => d.kind === 'ours' && d.queues === q);
      const j = r.drains.find((d) => d.kind === 'java' && d.queues === q);
      out.push(`| ${q} | ${f0(o?.msgPerSec)} | ${f0(j?.msgPerSec)} | ${ratio(o?.msgPerSec, j?.msgPerSec)} | ${f1(o?.brokerCpuMicrosPerMsg)} | ${f1(j?.brokerCpuMicrosPerMsg)} | ${f1(o?.clientCpuMicrosPerMsg)} | ${f1(j?.clientCpuMicrosPerMsg)} | ${f0(o?.brokerRssMB)} | ${f0(j?.brokerRssMB)} |`);
    }
  }
  return out.join('\n');
}

/** One log-log panel: x = size, y = metric, a line per server. */
function panel(title: string, points: Array<{ kind: Kind; x: number; y: number }>, x0: number, y0: number, w: number, h: number): string {
  const ok = points.filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.y));
  if (ok.length === 0) return '';
  const lx = ok.map((p) => Math.log10(p.x));
  const ly = ok.map((p) => Math.log10(p.y));
  const [xmin, xmax] = [Math.floor(Math.min(...lx)), Math.ceil(Math.max(...lx) + 1e-9)];
  const [ymin, ymax] = [Math.floor(Math.min(...ly)), Math.ceil(Math.max(...ly) + 1e-9)];
  const sx = (v: number) => x0 + 50 + ((Math.log10(v) - xmin) / Math.max(1, xmax - xmin)) * (w - 70);
  const sy = (v: number) => y0 + h - 30 - ((Math.log10(v) - ymin) / Math.max(1, ymax - ymin)) * (h - 60);
  const parts: string[] = [`<text x="${x0 + w / 2}" y="${y0 + 16}" text-anchor="middle" font-size="13">${title}</text>`];
  parts.push(`<rect x="${x0 + 50}" y="${y0 + 30}" width="${w - 70}" height="${h - 60}" fill="none" stroke="#999"/>`);
  for (let e = xmin; e <= xmax; e++) parts.push(`<text x="${sx(10 ** e)}" y="${y0 + h - 14}" text-anchor="middle" font-size="10">1e${e}</text>`);
  for (let e = ymin; e <= ymax; e++) parts.push(`<text x="${x0 + 46}" y="${sy(10 ** e) + 3}" text-anchor="end" font-size="10">1e${e}</text>`);
  const colors: Record<Kind, string> = { ours: '#d62728', java: '#1f77b4' };
  for (const kind of ['ours', 'java'] as const) {
    const ps = ok.filter((p) => p.kind === kind).sort((a, b) => a.x - b.x);
    if (ps.length === 0) continue;
    parts.push(`<polyline fill="none" stroke="${colors[kind]}" stroke-width="2" points="${ps.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ')}"/>`);
    for (const p of ps) parts.push(`<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="3" fill="${colors[kind]}"/>`);
  }
  return parts.join('\n');
}

/** The curves as an SVG: per-create CPU, create rate, route p99 and broker RSS against the topic count, heartbeat CPU against connections. */
export function scaleSvg(r: ScaleResult): string {
  const w = 360;
  const h = 260;
  const panels = [
    panel('broker CPU µs per create vs topics', r.topics.map((t) => ({ kind: t.kind, x: t.size, y: t.brokerCpuMicrosPerCreate })), 0, 0, w, h),
    panel('name-server CPU µs per create vs topics', r.topics.map((t) => ({ kind: t.kind, x: t.size, y: t.namesrvCpuMicrosPerCreate })), w, 0, w, h),
    panel('creates per second vs topics', r.topics.map((t) => ({ kind: t.kind, x: t.size, y: t.createsPerSec })), 2 * w, 0, w, h),
    panel('broker RSS MB vs topics', r.topics.map((t) => ({ kind: t.kind, x: t.size, y: t.brokerRssMB })), 0, h, w, h),
    panel('route lookup p99 ms vs topics', r.topics.map((t) => ({ kind: t.kind, x: t.size, y: t.lookupMs.p99 })), w, h, w, h),
    panel('broker CPU ms per heartbeat round vs connections', r.conns.map((c) => ({ kind: c.kind, x: c.conns, y: c.brokerCpuMsPerRound })), 2 * w, h, w, h),
  ];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${3 * w}" height="${2 * h + 24}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
${panels.join('\n')}
<text x="10" y="${2 * h + 16}" font-size="12"><tspan fill="#d62728">■ rocketmq-ts</tspan>  <tspan fill="#1f77b4">■ Java 4.9.8</tspan>  (log axes)</text>
</svg>
`;
}

export const SCALE_OPTIONS = {
  '--topics': 'value', '--conns': 'value', '--queues': 'value', '--drain': 'value', '--budget': 'value', '--only': 'value', '--svg': 'value',
  '--from-log': 'value',
} as const;

/** The options of the scale scenario; `ignoreUnknown` for the whole command line of bench/index.ts. */
export function parseScaleArgs(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): ScaleOptions & { fromLog: string | null } {
  const o = readBenchOptions(argv, SCALE_OPTIONS, how);
  const sizes = (name: string, d: number[]): number[] => {
    const v = o.string(name);
    if (v === undefined) return d;
    if (v === '' || v === 'none') return [];
    const n = v.split(',').map(Number);
    if (n.some((x) => !Number.isInteger(x) || x <= 0)) throw new BenchUsageError(`${name} takes whole numbers separated by commas (or none), not ${JSON.stringify(v)}`);
    return n;
  };
  return {
    topics: sizes('--topics', [1000, 10000, 50000]),
    conns: sizes('--conns', [500, 2000, 5000]),
    queues: sizes('--queues', [64, 1024]),
    drain: o.number('--drain') ?? 20000,
    budgetSeconds: o.number('--budget') ?? 600,
    only: o.list('--only', ['ours', 'java'] as const)?.[0] ?? null,
    svg: o.string('--svg') ?? null,
    fromLog: o.string('--from-log') ?? null,
  };
}

/** The `scale: {...}` lines a run printed on stderr, read back into a result (`--from-log FILE`: tables and SVG again). */
export function scaleResultFromLog(text: string): ScaleResult {
  const r: ScaleResult = { topics: [], restarts: [], conns: [], drains: [] };
  for (const line of text.split('\n')) {
    if (!line.startsWith('scale: {')) continue;
    const row = JSON.parse(line.slice('scale: '.length)) as Record<string, unknown>;
    if ('size' in row) r.topics.push(row as unknown as TopicRow);
    else if ('restartMs' in row) r.restarts.push(row as unknown as RestartRow);
    else if ('conns' in row) r.conns.push(row as unknown as ConnRow);
    else if ('queues' in row) r.drains.push(row as unknown as DrainRow);
  }
  return r;
}

export async function runScaleBench(argv: readonly string[] = [], how: { ignoreUnknown?: boolean } = { ignoreUnknown: true }): Promise<BenchResult[]> {
  const o = parseScaleArgs(argv, how);
  const r = o.fromLog !== null ? scaleResultFromLog(fs.readFileSync(o.fromLog, 'utf8')) : await runScale(o);
  process.stdout.write(`${formatScale(r)}\n`);
  if (o.svg) fs.writeFileSync(o.svg, scaleSvg(r));
  const rows: BenchResult[] = [];
  for (const t of r.topics) {
    rows.push({ name: `scale.${t.kind}.create-${t.size}`, opsPerSec: t.createsPerSec, meanMicros: 1e6 / t.createsPerSec, ops: t.size, note: `broker ${t.brokerCpuMicrosPerCreate.toFixed(0)} µs CPU/create, RSS ${t.brokerRssMB.toFixed(0)} MB` });
  }
  return rows;
}

if (require.main === module) {
  runBenchScript(benchUsage(SCALE_OPTIONS, {
    '--topics': 'N,N,...', '--conns': 'N,N,...', '--queues': 'N,N,...', '--budget': 'SECONDS', '--only': 'ours|java', '--svg': 'FILE', '--from-log': 'FILE',
  }), (argv) => runScaleBench(argv, {}));
}
