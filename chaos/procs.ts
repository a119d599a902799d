/**
 * Child processes for the chaos suite: the name server and the broker run as `node dist/lib/cli/main.js namesrv|broker`,
 * producers and consumers as forked workers (chaos/producer-child.ts, chaos/consumer-child.ts). Every process started
 * here is remembered in one registry so that `killAll()` ends them all (by pid) even when a scenario throws.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** The repo's dist/ root (this file is dist/chaos/procs.js once built). */
export const DIST = path.resolve(__dirname, '..');
export const CLI = path.join(DIST, 'lib', 'cli', 'main.js');

const live = new Set<ChildProcess>();

/** SIGKILLs every child still alive (by pid) and waits for their exits. */
export async function killAll(): Promise<void> {
  const waits: Promise<unknown>[] = [];
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) {
      waits.push(once(child, 'exit'));
      try { child.kill('SIGKILL'); } catch { /* already gone */ }
      // A stopped process still dies of SIGKILL; SIGCONT is harmless.
      try { child.kill('SIGCONT'); } catch { /* already gone */ }
    }
  }
  await Promise.all(waits);
  live.clear();
}

function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Resolves with the first stdout line matching `re`, rejects if the child exits first. */
function waitForLine(child: ChildProcess, re: RegExp, what: string, stderrTail: () => string): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (chunk: Buffer): void => {
      buf += chunk.toString('utf8');
      const m = buf.match(re);
      if (m) {
        cleanup();
        resolve(m);
      }
    };
    const onExit = (code: number | null, signal: string | null): void => {
      cleanup();
      reject(new Error(`${what} exited (code ${code}, signal ${signal}) before booting: ${stderrTail()}`));
    };
    const cleanup = (): void => {
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * Where a child runs: `wrap` is a command prefix (chaos/net runs `ip netns exec <ns>`, which execs node in place, so the
 * child's pid is node's), `host` the address it is reached at (127.0.0.1 by default).
 */
export interface Placement {
  wrap?: string[];
  host?: string;
  /**
   * The program the args follow, instead of `node dist/lib/cli/main.js --log-format json <kind>` (chaos/net runs Java
   * 4.9.8 brokers as `bash .../broker.sh <conf>`, which execs java in place); its stdout must print the same boot line.
   */
  program?: string[];
  /** Extra environment of the process. */
  env?: Record<string, string>;
}

/** The kernel's ephemeral port range (net.ipv4.ip_local_port_range), or Linux's default when it cannot be read. */
function ephemeralRange(): [number, number] {
  try {
    const [lo, hi] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo > 0 && hi >= lo) return [lo, hi];
  } catch { /* not Linux */ }
  return [32768, 60999];
}

/** Whether `port` can be listened on, on every address (IPv6 and IPv4 where the host has IPv6, as the servers bind). */
function canListen(port: number): Promise<boolean> {
  const attempt = (host: string): Promise<boolean | 'no-family'> => new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EAFNOSUPPORT' || err.code === 'EADDRNOTAVAIL' ? 'no-family' : false));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
  return attempt('::').then((r) => (r === 'no-family' ? attempt('0.0.0.0').then((x) => x === true) : r));
}

/**
 * A port for a server that is killed and started again on it, with the ports a broker takes beside its listen port
 * (HA at +1, the fast channel at -2) free too. It lies below the ephemeral range: a port the kernel gave out for
 * port 0 may, once its server is killed, become the local port of any outgoing connection (a client reconnecting
 * elsewhere), and the restart then fails with "already in use" (seen in controller-master-kill with other work on the
 * machine). Nothing takes a port from below the range but an explicit bind.
 */
export async function portForRestarts(): Promise<number> {
  const [lo] = ephemeralRange();
  const from = Math.max(10_000, lo - 20_000);
  for (let i = 0; i < 200; i++) {
    const port = from + 2 + Math.floor(Math.random() * (lo - from - 4));
    if (await canListen(port) && await canListen(port + 1) && await canListen(port - 2)) return port;
  }
  return 0;
}

/** A server child (namesrv, broker or controller) that can be killed, paused and started again on the same port and store. */
export class ServerProcess {
  child: ChildProcess | null = null;
  port = 0;
  starts = 0;
  #stderr = '';

  constructor(readonly kind: 'namesrv' | 'broker' | 'controller', readonly argsFor: (port: number) => string[], readonly logFile?: string,
    readonly placement: Placement = {}) {}

  get addr(): string {
    return `${this.placement.host ?? '127.0.0.1'}:${this.port}`;
  }

  get alive(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Starts the process and waits for its boot line: on the loopback, the first time on a free port below the kernel's
   * ephemeral range (portForRestarts), then on the port it got; placed in a host of its own, port 0 the first time.
   */
  async start(): Promise<void> {
    if (this.port === 0 && this.placement.host === undefined) this.port = await portForRestarts();
    const wrap = this.placement.wrap ?? [];
    const program = this.placement.program ?? [process.execPath, CLI, '--log-format', 'json', this.kind];
    const argv = [...program, ...this.argsFor(this.port)];
    // A session (and process group) of its own. Twice a broker stopped by a SIGSTOP fault died of SIGHUP half a
    // second later, in runs started in the background of a shell whose job had ended (the kernel sends SIGHUP, then
    // SIGCONT, to a process group with a stopped member when an exit leaves the group orphaned; a server has no
    // SIGHUP handler), and the run went on without it (a SYNC_MASTER refused sends for minutes, its slave gone).
    // Alone in a session of its own, what happens to the runner's process group does not reach it.
    const child = track(spawn([...wrap, ...argv][0], [...wrap, ...argv].slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, ROCKETMQ_LOG_FORMAT: 'json', ...this.placement.env },
    }));
    this.child = child;
    this.#stderr = '';
    const log = this.logFile ? fs.createWriteStream(this.logFile, { flags: 'a' }) : null;
    child.stderr!.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-4000);
      log?.write(chunk);
    });
    // The exit goes into the log too: a process that died mid-run says so (and how) beside its last lines.
    child.once('exit', (code, signal) => log?.end(`${JSON.stringify({ time: Date.now(), chaos: 'process exited', pid: child.pid, code, signal })}\n`));
    const re = this.kind === 'broker' ? /The broker\[[^,]*, [^\]]*:(\d+)\] boot success/ : /address=[^\s:]+:(\d+)/;
    const m = await waitForLine(child, re, this.kind, () => this.#stderr);
    this.port = Number(m[1]);
    this.starts++;
  }

  /** Sends `signal` and, for fatal ones, waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    if (signal === 'SIGSTOP' || signal === 'SIGCONT') {
      child.kill(signal);
      return;
    }
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  async stop(): Promise<void> {
    await this.kill('SIGTERM');
  }
}

/**
 * A forked worker speaking JSON over IPC: `{ type: 'progress', ... }` messages and a final `{ type: 'done', ... }`;
 * `request()` sends `{ type: 'req', id, op, args }` and resolves with the worker's `{ type: 'res', id, result }`.
 */
export class Worker<P extends object = Record<string, number>> {
  readonly child: ChildProcess;
  last: P | null = null;
  readonly #waiters: Array<{ pred: (p: P) => boolean; resolve: () => void; reject: (e: Error) => void }> = [];
  readonly #requests = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  #nextId = 1;
  readonly exited: Promise<void>;

  /** `script` is relative to dist/chaos; `wrap` as in Placement (node's IPC channel survives `ip netns exec`). */
  constructor(script: string, args: string[], wrap: string[] = []) {
    this.child = track(fork(path.join(DIST, 'chaos', script), args, {
      ...(wrap.length > 0 ? { execPath: wrap[0], execArgv: [...wrap.slice(1), process.execPath] } : {}),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // The clients' warnings (every refused connect while the broker is down) would drown the report.
      env: { ...process.env, ROCKETMQ_LOG_LEVEL: process.env.ROCKETMQ_LOG_LEVEL ?? 'silent' },
    }));
    this.child.on('message', (msg: { type: string; id?: number; result?: unknown; error?: string } & P) => {
      if (msg.type === 'res') {
        const r = this.#requests.get(msg.id!);
        this.#requests.delete(msg.id!);
        if (msg.error !== undefined) r?.reject(new Error(msg.error));
        else r?.resolve(msg.result);
        return;
      }
      if (msg.type !== 'progress' && msg.type !== 'done') return;
      this.last = msg;
      for (const w of this.#waiters.slice()) {
        if (w.pred(msg)) {
          this.#waiters.splice(this.#waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', () => {
        for (const w of this.#waiters.splice(0)) w.reject(new Error(`worker ${script} exited while awaited`));
        for (const r of this.#requests.values()) r.reject(new Error(`worker ${script} exited during a request`));
        this.#requests.clear();
        resolve();
      });
    });
  }

  /** Resolves once a progress report satisfies `pred` (checked on the last one first). */
  until(pred: (p: P) => boolean): Promise<void> {
    if (this.last && pred(this.last)) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiters.push({ pred, resolve, reject }));
  }

  /** Asks the worker to do `op` and resolves with its answer (rejects with its error). */
  request<T = unknown>(op: string, args: unknown = {}): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#requests.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ type: 'req', id, op, args });
    });
  }

  /** Asks the worker to finish (it answers with a final report and exits). */
  async finish(): Promise<P | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.send({ type: 'stop' });
      await this.exited;
    }
    return this.last;
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `rmq-chaos-${prefix}-`));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}
