/**
 * The real Java RocketMQ builds in ../shared/javaref (or $ROCKETMQ_JAVAREF), started as child processes for the
 * compatibility tests: name servers, brokers, mqadmin and the Java 4.9.8 client driver (harness.sh).
 *
 * Every process gets free ports found at run time and its own RMQ_RUN scratch folder under a temp dir; `stop()`
 * kills by pid and removes the folder. `javaSkipReason()` says why Java cannot run here (no `java`, no folder), so a
 * test can `this.skip()` with a clear line.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, markPortHandedOut, portHandedOut } from '../../lib/cluster';

export type JavaVersion = '4.9.8' | '5.3.3';

export const JAVAREF_DIR =
  process.env.ROCKETMQ_JAVAREF ?? path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'javaref');

let javaChecked: string | null | undefined;

/** Why the Java builds cannot run here (null when they can). */
export function javaSkipReason(version: JavaVersion = '4.9.8'): string | null {
  if (javaChecked === undefined) {
    try {
      execFileSync('java', ['-version'], { stdio: 'ignore' });
      javaChecked = null;
    } catch {
      javaChecked = 'no `java` on PATH';
    }
  }
  if (javaChecked) return `skipped: ${javaChecked} (the Java RocketMQ compatibility tests need Java 17)`;
  const bin = path.join(JAVAREF_DIR, version, 'bin', 'broker.sh');
  if (!fs.existsSync(bin)) return `skipped: no Java RocketMQ ${version} at ${JAVAREF_DIR} (set ROCKETMQ_JAVAREF)`;
  return null;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export { freePort };

async function portFree(port: number): Promise<boolean> {
  if (port <= 1024 || port >= 65535 || portHandedOut(port)) return false;
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '0.0.0.0', () => srv.close(() => resolve(true)));
  });
}

/** A port held by a listener of ours until release(): no other process, nor an outgoing connection, can take it. */
export interface HeldPort {
  readonly port: number;
  release(): Promise<void>;
}

/**
 * A port for a server of ours that Java processes must know before it starts: held until release() (call it just before
 * our server binds), so that neither a Java process's port checks nor its outgoing connections take it meanwhile.
 */
export async function holdPort(): Promise<HeldPort> {
  // Peers that already know the port connect to it meanwhile: reset them (they retry), so close() has none to wait for.
  const srv = net.createServer((socket) => socket.resetAndDestroy());
  srv.unref();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = srv.address() as net.AddressInfo;
  markPortHandedOut(port);
  let released: Promise<void> | null = null;
  return {
    port,
    release: () => (released ??= new Promise<void>((resolve) => srv.close(() => resolve()))),
  };
}

/**
 * A broker listen port p with p - 2 (Java's VIP channel) and p + 1 (HA) free too, and the extra offsets asked for.
 */
export async function freeBrokerPort(extraOffsets: readonly number[] = []): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const p = await freePort();
    const all = [p - 2, p + 1, ...extraOffsets.map((o) => p + o)];
    let ok = true;
    for (const q of all) if (!(await portFree(q))) { ok = false; break; }
    if (ok) {
      for (const q of all) markPortHandedOut(q);
      return p;
    }
  }
  // Neighbours keep being taken (a busy machine's outgoing connections use this range too): take a free port and let
  // startJavaBroker retry if the JVM then finds a neighbour in use.
  return freePort();
}

/** A started Java process. */
export interface JavaProcess {
  readonly child: ChildProcess;
  readonly runDir: string;
  /** What the process printed so far (stdout and stderr). */
  output(): string;
  /** SIGKILL (default) or SIGTERM, then wait for the exit. Idempotent. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const live = new Set<JavaProcess>();

/** Kills every Java process this module started that is still running (for after/afterEach hooks). */
export async function stopAllJava(): Promise<void> {
  await Promise.all([...live].map((p) => p.stop()));
}

process.once('exit', () => {
  for (const p of live) {
    try { p.child.kill('SIGKILL'); } catch { /* already gone */ }
  }
});

/** A fresh RMQ_RUN scratch folder. */
export function makeRunDir(prefix = 'rmqjava-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

interface SpawnOptions {
  runDir?: string;
  env?: Record<string, string>;
  /** Resolve once the output matches (e.g. /boot success/); else resolve at once. */
  readyPattern?: RegExp;
  readyTimeoutMs?: number;
  /** Remove runDir on stop (default true when this call created it). */
  removeRunDir?: boolean;
}

function spawnJava(script: string, args: string[], opts: SpawnOptions): Promise<JavaProcess> {
  const created = !opts.runDir;
  const runDir = opts.runDir ?? makeRunDir();
  const removeRunDir = opts.removeRunDir ?? created;
  const child = spawn('bash', [script, ...args], {
    env: { ...process.env, RMQ_RUN: runDir, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => { out += d; });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { out += d; });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let stopped: Promise<void> | undefined;
  const proc: JavaProcess = {
    child,
    runDir,
    output: () => out,
    stop(signal: NodeJS.Signals = 'SIGKILL') {
      if (!stopped) {
        stopped = (async () => {
          if (child.exitCode === null && child.signalCode === null) {
            try { child.kill(signal); } catch { /* gone */ }
          }
          await exited;
          live.delete(proc);
          if (removeRunDir) fs.rmSync(runDir, { recursive: true, force: true });
        })();
      }
      return stopped;
    },
  };
  live.add(proc);
  if (!opts.readyPattern) return Promise.resolve(proc);
  const pattern = opts.readyPattern;
  const timeoutMs = opts.readyTimeoutMs ?? 60_000;
  return new Promise<JavaProcess>((resolve, reject) => {
    const fail = (why: string) => {
      cleanup();
      void proc.stop().then(() => reject(new Error(`${path.basename(script)} ${args.join(' ')}: ${why}\n${out.slice(-2000)}`)));
    };
    const onData = () => { if (pattern.test(out)) { cleanup(); resolve(proc); } };
    const onExit = () => fail('exited before it was ready');
    const timer = setTimeout(() => fail(`not ready after ${timeoutMs} ms`), timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
    onData();
  });
}

/** JAVA_OPT_EXT for the scripts (Java system properties such as -Dtls.enable=true). */
function javaOptsEnv(javaOpts: string | undefined): Record<string, string> {
  return javaOpts ? { JAVA_OPT_EXT: javaOpts } : {};
}

function bin(version: JavaVersion, name: string): string {
  return path.join(JAVAREF_DIR, version, 'bin', name);
}

export interface JavaNamesrv extends JavaProcess {
  readonly port: number;
  readonly addr: string;
}

/** A Java name server on a free port. */
export async function startJavaNamesrv(version: JavaVersion = '4.9.8', opts: { runDir?: string; javaOpts?: string } = {}): Promise<JavaNamesrv> {
  const port = await freePort();
  const p = await spawnJava(bin(version, 'namesrv.sh'), [String(port)], {
    runDir: opts.runDir,
    env: javaOptsEnv(opts.javaOpts),
    readyPattern: /boot success/,
  });
  return Object.assign(p, { port, addr: `127.0.0.1:${port}` });
}

export interface JavaBrokerOptions {
  namesrvAddr: string;
  brokerName?: string;
  brokerClusterName?: string;
  brokerId?: number;
  /** Listen port (default: a free one with its -2 and +1 neighbours free). */
  listenPort?: number;
  /** The store root (default: `<runDir>/store`). */
  storeDir?: string;
  /** Extra broker.conf lines (key → value); they override the defaults below. */
  conf?: Record<string, string | number | boolean>;
  runDir?: string;
  /** Java heap (default 512m-768m: several JVMs share this machine). */
  heap?: string;
  readyTimeoutMs?: number;
  /** Extra JVM options (JAVA_OPT_EXT), e.g. `-Dtls.server.mode=enforcing`. */
  javaOpts?: string;
}

export interface JavaBroker extends JavaProcess {
  readonly port: number;
  readonly addr: string;
  readonly storeDir: string;
  readonly brokerName: string;
  readonly confPath: string;
}

/** A Java broker (4.9.8 or 5.3.3) registered with `namesrvAddr`; resolves once it printed "boot success". */
export async function startJavaBroker(version: JavaVersion, opts: JavaBrokerOptions): Promise<JavaBroker> {
  // A free port can be taken by another process before the JVM binds it (or its -2 / +1 neighbours): try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startJavaBrokerOnce(version, opts);
    } catch (err) {
      if (opts.listenPort !== undefined || attempt >= 3 || !/Address already in use/.test(String(err))) throw err;
    }
  }
}

async function startJavaBrokerOnce(version: JavaVersion, opts: JavaBrokerOptions): Promise<JavaBroker> {
  const port = opts.listenPort ?? (await freeBrokerPort());
  const created = !opts.runDir;
  const runDir = opts.runDir ?? makeRunDir('rmqbroker-');
  const storeDir = opts.storeDir ?? path.join(runDir, 'store');
  const brokerName = opts.brokerName ?? `jb-${port}`;
  const conf: Record<string, string | number | boolean> = {
    brokerClusterName: opts.brokerClusterName ?? 'DefaultCluster',
    brokerName,
    brokerId: opts.brokerId ?? 0,
    listenPort: port,
    namesrvAddr: opts.namesrvAddr,
    brokerIP1: '127.0.0.1',
    storePathRootDir: storeDir,
    storePathCommitLog: path.join(storeDir, 'commitlog'),
    autoCreateTopicEnable: true,
    enablePropertyFilter: true,
    transactionCheckInterval: 3000,
    ...(version === '5.3.3' ? { bindAddress: '127.0.0.1' } : {}),
    ...opts.conf,
  };
  const confPath = path.join(runDir, `broker-${port}.conf`);
  fs.writeFileSync(confPath, Object.entries(conf).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  const heap = opts.heap ?? '-Xms512m -Xmx768m';
  const p = await spawnJava(bin(version, 'broker.sh'), [confPath], {
    runDir,
    removeRunDir: created,
    env: { BROKER_HEAP: heap, ...javaOptsEnv(opts.javaOpts) },
    readyPattern: /boot success/,
    readyTimeoutMs: opts.readyTimeoutMs ?? 90_000,
  });
  return Object.assign(p, { port, addr: `127.0.0.1:${port}`, storeDir, brokerName, confPath });
}

export interface JavaController extends JavaProcess {
  readonly port: number;
  readonly addr: string;
}

/**
 * A Java 5.3.3 controller (ControllerStartup, through test/java/run-controller-533.sh) with the given
 * controller.conf keys; resolves once it printed "boot success". `port` is its DLedger peer port (from the peers).
 */
export async function startJavaController(conf: Record<string, string | number | boolean>, opts: { runDir?: string; readyTimeoutMs?: number } = {}): Promise<JavaController> {
  const created = !opts.runDir;
  const runDir = opts.runDir ?? makeRunDir('rmqcontroller-');
  const confPath = path.join(runDir, 'controller.conf');
  fs.writeFileSync(confPath, Object.entries(conf).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  const self = String(conf.controllerDLegerSelfId);
  const peer = String(conf.controllerDLegerPeers).split(';').find((p) => p.startsWith(`${self}-`));
  if (!peer) throw new Error(`controllerDLegerSelfId ${self} is not in controllerDLegerPeers`);
  const addr = peer.slice(self.length + 1);
  const p = await spawnJava(path.join(JAVA_DRIVERS, 'run-controller-533.sh'), [JAVAREF_DIR, confPath], {
    runDir, removeRunDir: created, readyPattern: /boot success/, readyTimeoutMs: opts.readyTimeoutMs ?? 90_000,
  });
  return Object.assign(p, { port: Number(addr.slice(addr.lastIndexOf(':') + 1)), addr });
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runToEnd(script: string, args: string[], opts: { runDir?: string; timeoutMs?: number; env?: Record<string, string> }): Promise<RunResult> {
  const created = !opts.runDir;
  const runDir = opts.runDir ?? makeRunDir('rmqtool-');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script, ...args], {
      env: { ...process.env, RMQ_RUN: runDir, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(script)} ${args.join(' ')}: timed out after ${opts.timeoutMs} ms\n${stdout.slice(-2000)}${stderr.slice(-2000)}`));
    }, opts.timeoutMs ?? 120_000);
    child.once('error', (err) => { clearTimeout(timer); reject(err); });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (created) fs.rmSync(runDir, { recursive: true, force: true });
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs Java's mqadmin (`mqadmin.sh <command> ...`) to its end. */
export function runMqadmin(version: JavaVersion, args: string[], opts: { runDir?: string; timeoutMs?: number; javaOpts?: string } = {}): Promise<RunResult> {
  return runToEnd(bin(version, 'mqadmin.sh'), args, { ...opts, env: javaOptsEnv(opts.javaOpts) });
}

/** Starts Java's mqadmin for a command that runs until stopped (clusterRT, startMonitoring); resolves once its output matches. */
export function startMqadmin(version: JavaVersion, args: string[], opts: { runDir?: string; readyPattern?: RegExp; readyTimeoutMs?: number } = {}): Promise<JavaProcess> {
  return spawnJava(bin(version, 'mqadmin.sh'), args, { runDir: opts.runDir, readyPattern: opts.readyPattern, readyTimeoutMs: opts.readyTimeoutMs });
}

const HARNESS = (): string => path.join(JAVAREF_DIR, '4.9.8', 'harness', 'bin', 'harness.sh');

/**
 * The Java client the driver runs on: 4.9.8 (harness.sh) or 5.3.3 (test/java/run-harness-533.sh: the same driver
 * classes on the 5.3.3 client jars).
 */
export type HarnessClient = '4.9.8' | '5.3.3';

function harnessCommand(client: HarnessClient, args: string[]): [string, string[]] {
  return client === '4.9.8' ? [HARNESS(), args] : [path.join(JAVA_DRIVERS, 'run-harness-533.sh'), [JAVAREF_DIR, ...args]];
}

/** Null when the driver can run on `client`'s jars, else why not. */
export function harnessSkipReason(client: HarnessClient = '4.9.8'): string | null {
  const skip = javaSkipReason('4.9.8') ?? (client === '5.3.3' ? javaSkipReason('5.3.3') : null);
  if (skip) return skip;
  if (!fs.existsSync(path.join(JAVAREF_DIR, '4.9.8', 'harness', 'classes'))) return `skipped: no Java client driver at ${path.join(JAVAREF_DIR, '4.9.8', 'harness')}`;
  return null;
}

/** Runs the Java client driver (`produce|consume|txn|bench-produce|bench-consume ...`) to its end. */
export function runHarness(args: string[], opts: { runDir?: string; timeoutMs?: number; heap?: string; javaOpts?: string; client?: HarnessClient } = {}): Promise<RunResult> {
  const [script, argv] = harnessCommand(opts.client ?? '4.9.8', args);
  return runToEnd(script, argv, { ...opts, env: { HARNESS_HEAP: opts.heap ?? '-Xms128m -Xmx512m', ...javaOptsEnv(opts.javaOpts) } });
}

/** Starts the Java client driver in the background (a consumer to run beside ours); `output()` grows as it prints. */
export function startHarness(args: string[], opts: { runDir?: string; readyPattern?: RegExp; heap?: string; client?: HarnessClient } = {}): Promise<JavaProcess> {
  const [script, argv] = harnessCommand(opts.client ?? '4.9.8', args);
  return spawnJava(script, argv, {
    runDir: opts.runDir,
    readyPattern: opts.readyPattern,
    env: { HARNESS_HEAP: opts.heap ?? '-Xms128m -Xmx512m' },
  });
}

/** The harness's result lines of one kind (`OK`, `RECV`, `TXN`, ...), split on spaces. */
export function harnessLines(stdout: string, kind: string): string[][] {
  return stdout.split('\n').filter((l) => l.startsWith(kind + ' ')).map((l) => l.trim().split(' '));
}

/** test/java/: the single-file Java drivers for client calls the 4.9.8 harness has no command for, and their launcher. */
const JAVA_DRIVERS = path.resolve(__dirname, '..', '..', '..', 'test', 'java');
const RUN_JAVA_SOURCE = (): string => path.join(JAVA_DRIVERS, 'run-java-source.sh');

/** A driver of test/java/ by file name, or a path as given. */
function driverSource(sourceFile: string): string {
  return path.isAbsolute(sourceFile) ? sourceFile : path.join(JAVA_DRIVERS, sourceFile);
}

/**
 * Runs a single-file Java driver of test/java/ (Java's source launcher, which compiles it on each run: a few seconds)
 * on the client jars of the Java `version` build, to its end.
 */
export function runJavaSource(version: JavaVersion, sourceFile: string, args: string[], opts: { runDir?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return runToEnd(RUN_JAVA_SOURCE(), [path.join(JAVAREF_DIR, version), driverSource(sourceFile), ...args], opts);
}

/** Starts a single-file Java driver of test/java/ in the background; `output()` grows as it prints. */
export function startJavaSource(version: JavaVersion, sourceFile: string, args: string[], opts: { runDir?: string; readyPattern?: RegExp; readyTimeoutMs?: number } = {}): Promise<JavaProcess> {
  return spawnJava(RUN_JAVA_SOURCE(), [path.join(JAVAREF_DIR, version), driverSource(sourceFile), ...args], opts);
}

/** test/java/ReplyTraceDriver.java (`request|reply|produce|consume ...`, see its header) on the Java 4.9.8 client. */
export function runJavaDriver(args: string[], opts: { runDir?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return runJavaSource('4.9.8', 'ReplyTraceDriver.java', args, opts);
}

/** Starts test/java/ReplyTraceDriver.java in the background (e.g. `reply`, which prints STARTED once consuming). */
export function startJavaDriver(args: string[], opts: { runDir?: string; readyPattern?: RegExp; readyTimeoutMs?: number } = {}): Promise<JavaProcess> {
  return startJavaSource('4.9.8', 'ReplyTraceDriver.java', args, opts);
}

const TOOL533_SRC = (): string => path.join(JAVA_DRIVERS, 'Rmq533Tool.java');
let tool533: { dir: string } | { skip: string } | undefined;

/**
 * Compiles test/java/Rmq533Tool.java (a Java 5.3.3 client/codec driver: `codec`, `produce`, `consume`, see
 * its header) with `javac` against ../shared/javaref/5.3.3's jars, once per process. Null when ready, else the
 * reason to skip (no javac, no 5.3.3 client jar, a compile error).
 */
export function java533ToolSkipReason(): string | null {
  if (!tool533) tool533 = compileTool533();
  return 'skip' in tool533 ? tool533.skip : null;
}

function compileTool533(): { dir: string } | { skip: string } {
  const javaSkip = javaSkipReason('5.3.3');
  if (javaSkip) return { skip: javaSkip };
  const lib = path.join(JAVAREF_DIR, '5.3.3', 'lib');
  if (!fs.existsSync(path.join(lib, 'rocketmq-client.jar'))) return { skip: `skipped: no rocketmq-client.jar in ${lib}` };
  try {
    execFileSync('javac', ['-version'], { stdio: 'ignore' });
  } catch {
    return { skip: 'skipped: no `javac` on PATH (the Java 5.3.3 client driver is compiled at test time)' };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq533tool-'));
  const cp = `${lib}/*:${lib}/deb/*`;
  try {
    execFileSync('javac', ['-nowarn', '-d', dir, '-cp', cp, TOOL533_SRC()], { stdio: 'pipe' });
  } catch (e) {
    fs.rmSync(dir, { recursive: true, force: true });
    return { skip: `skipped: javac failed on Rmq533Tool.java: ${String((e as { stderr?: Buffer }).stderr ?? e).slice(0, 500)}` };
  }
  // A launcher in the same shape as the javaref scripts (exec java, RMQ_RUN as user.home), so spawnJava / runToEnd apply.
  fs.writeFileSync(path.join(dir, 'tool.sh'), [
    '#!/usr/bin/env bash',
    `exec java -Xms64m -Xmx256m -Duser.home="\${RMQ_RUN:-/tmp}" -Drocketmq.client.logRoot="\${RMQ_RUN:-/tmp}/logs" -cp '${cp}:${dir}' Rmq533Tool "$@"`,
    '',
  ].join('\n'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return { dir };
}

function tool533Script(): string {
  const reason = java533ToolSkipReason();
  if (reason) throw new Error(reason);
  return path.join((tool533 as { dir: string }).dir, 'tool.sh');
}

/** Runs the Java 5.3.3 driver (`codec ...`, `produce ...`, `consume ...`) to its end. */
export function runJava533Tool(args: string[], opts: { runDir?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return runToEnd(tool533Script(), args, opts);
}

/** Starts the Java 5.3.3 driver in the background (a consumer); `output()` grows as it prints. */
export function startJava533Tool(args: string[], opts: { runDir?: string; readyPattern?: RegExp } = {}): Promise<JavaProcess> {
  return spawnJava(tool533Script(), args, { runDir: opts.runDir, readyPattern: opts.readyPattern });
}

/** Mocha, inside a describe: skips the suite, printing why, when `java` or the Java `version` build is absent. */
export function skipWithoutJava(version: JavaVersion = '4.9.8'): void {
  before(function () {
    const why = javaSkipReason(version);
    if (why) {
      process.stderr.write(`      ${why}\n`);
      this.skip();
    }
  });
}

/** A Java name server and broker for one suite (useJavaCluster). */
export interface JavaClusterHandle {
  readonly ns: JavaNamesrv;
  readonly broker: JavaBroker;
}

/**
 * Mocha, inside a describe: a Java name server + broker of `version`, started before the suite and stopped after it;
 * the suite is skipped (saying why) without Java. Read `ns` / `broker` from the handle inside the tests.
 */
export function useJavaCluster(version: JavaVersion, broker: Omit<JavaBrokerOptions, 'namesrvAddr'> = {}): JavaClusterHandle {
  const state: { ns?: JavaNamesrv; broker?: JavaBroker } = {};
  skipWithoutJava(version);
  before(async () => {
    state.ns = await startJavaNamesrv(version);
    state.broker = await startJavaBroker(version, { ...broker, namesrvAddr: state.ns.addr });
  });
  after(async () => {
    await state.broker?.stop();
    await state.ns?.stop();
  });
  return {
    get ns(): JavaNamesrv { return state.ns!; },
    get broker(): JavaBroker { return state.broker!; },
  };
}
