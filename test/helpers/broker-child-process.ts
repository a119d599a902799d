/**
 * Our broker in a child process (test/helpers/broker-child.ts), for tests and benchmarks that kill -9 it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

export interface BrokerChild {
  readonly child: ChildProcess;
  /** The broker's address, as it printed it. */
  readonly addr: string;
  /** What it printed so far (stdout, and stderr unless inherited; the last 200,000 characters). */
  output(): string;
}

export interface BrokerChildOptions {
  /** Extra node options (e.g. `--cpu-prof`). */
  nodeArgs?: readonly string[];
  /** The child's log level (ROCKETMQ_LOG_LEVEL); 'error' unless told. */
  logLevel?: string;
  /** stderr passed through to ours instead of kept in output(). */
  inheritStderr?: boolean;
  /** How long it may take to print READY (30 s unless told). */
  startTimeoutMillis?: number;
}

const PROGRAM = path.join(__dirname, 'broker-child.js');

/** Starts one broker of ours (BrokerController options as JSON) in a child process; resolves once it is READY. */
export function spawnBrokerChild(brokerOptions: object, o: BrokerChildOptions = {}): Promise<BrokerChild> {
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), PROGRAM, JSON.stringify(brokerOptions)], {
    stdio: ['ignore', 'pipe', o.inheritStderr ? 'inherit' : 'pipe'], env: { ...process.env, ROCKETMQ_LOG_LEVEL: o.logLevel ?? 'error' },
  });
  let out = '';
  const keep = (d: string) => { out = (out + d).slice(-200_000); };
  child.stdout!.setEncoding('utf8').on('data', keep);
  child.stderr?.setEncoding('utf8').on('data', keep);
  return new Promise<BrokerChild>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`broker child not READY in ${o.startTimeoutMillis ?? 30_000} ms:\n${out}`));
    }, o.startTimeoutMillis ?? 30_000);
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`broker child exited ${code ?? signal} before READY:\n${out}`));
    };
    child.stdout!.on('data', () => {
      const m = /READY (\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({ child, addr: m[1], output: () => out });
    });
    child.once('exit', onExit);
  });
}

/** Stops a broker child with `signal` (SIGTERM: a clean shutdown, SIGKILL after `forceAfterMillis`); waits for its exit. */
export async function stopBrokerChild(c: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', forceAfterMillis = 15_000): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill(signal);
  const t = setTimeout(() => c.kill('SIGKILL'), forceAfterMillis);
  await exited;
  clearTimeout(t);
}
