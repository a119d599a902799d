/**
 * Cold start of `rocketmq-ts start`: spawns it on free ports with a fresh store and polls, every 5 ms from the
 * moment of spawn, (1) the name server with GET_BROKER_CLUSTER_INFO (first answer of any kind), (2) the name
 * server with GET_ROUTEINFO_BY_TOPIC TBW102 until it succeeds (the broker has registered: a client can route) and
 * (3) the broker with GET_MAX_OFFSET TBW102/0 until it succeeds. Reports each time after spawn, median of N runs.
 *
 *   node dist/bench/cold-start.js [--runs N] [--node-args "--cpu-prof --cpu-prof-dir=/tmp/p"]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort } from '../lib/cluster';
import { RemotingCommand } from '../protocol/remoting-command';
import { RequestCode } from '../protocol/code/request-code';
import { ResponseCode } from '../protocol/code/response-code';
import { benchUsage, readBenchOptions, runBenchScript } from './bench-util';

export interface ColdStartRun {
  /** First response of the name server (GET_BROKER_CLUSTER_INFO), ms after spawn. */
  namesrvMs: number;
  /** First successful GET_ROUTEINFO_BY_TOPIC TBW102 (the broker has registered), ms after spawn. */
  routeMs: number;
  /** First successful GET_MAX_OFFSET on the broker, ms after spawn. */
  brokerMs: number;
}

const POLL_MILLIS = 5;


/**
 * Sends `request` to 127.0.0.1:port every POLL_MILLIS ms (reconnecting while refused) until `accept(response)`;
 * resolves with the time of that response (performance.now()).
 */
function pollUntil(port: number, request: () => RemotingCommand, accept: (r: RemotingCommand) => boolean, deadline: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let sock: net.Socket | null = null;
    let timer: NodeJS.Timeout | null = null;
    let pending: Buffer = Buffer.alloc(0);
    let opaque = 1;
    let done = false;
    const finish = (err: Error | null, t = 0): void => {
      done = true;
      if (timer) clearTimeout(timer);
      sock?.destroy();
      if (err) reject(err);
      else resolve(t);
    };
    const later = (fn: () => void): void => {
      if (done) return;
      if (performance.now() > deadline) {
        finish(new Error(`no answer on port ${port}`));
        return;
      }
      timer = setTimeout(fn, POLL_MILLIS);
    };
    const send = (): void => {
      const cmd = request();
      cmd.opaque = opaque++;
      sock!.write(cmd.encode());
    };
    const connect = (): void => {
      const s = net.connect(port, '127.0.0.1');
      sock = s;
      s.setNoDelay(true);
      s.once('connect', send);
      s.on('data', (d: Buffer) => {
        pending = pending.length ? Buffer.concat([pending, d]) : d;
        while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
          const len = pending.readInt32BE(0);
          const res = RemotingCommand.decode(pending.subarray(4, 4 + len));
          const t = performance.now();
          pending = pending.subarray(4 + len);
          if (accept(res)) finish(null, t);
          else later(send);
        }
      });
      s.once('error', () => undefined);
      s.once('close', () => {
        pending = Buffer.alloc(0);
        if (!done) later(connect);
      });
    };
    connect();
  });
}

export async function coldStartOnce(nodeArgs: readonly string[] = []): Promise<ColdStartRun> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rocketmq-ts-coldstart-'));
  const namesrvPort = await freePort();
  let brokerPort = await freePort();
  while (brokerPort === namesrvPort || brokerPort === namesrvPort - 1) brokerPort = await freePort();
  const main = path.join(__dirname, '..', 'lib', 'cli', 'main.js');
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, main, 'start', '--store', path.join(tmp, 'store'), '--namesrv-port', String(namesrvPort), '--broker-port', String(brokerPort)], {
    stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, HOME: tmp, ROCKETMQ_LOG_LEVEL: 'warn' },
  });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const deadline = t0 + 20_000;
    const [ns, route, broker] = await Promise.all([
      pollUntil(namesrvPort, () => RemotingCommand.createRequest(RequestCode.GET_BROKER_CLUSTER_INFO), () => true, deadline),
      pollUntil(namesrvPort, () => RemotingCommand.createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'TBW102' }), (r) => r.code === ResponseCode.SUCCESS, deadline),
      pollUntil(brokerPort, () => RemotingCommand.createRequest(RequestCode.GET_MAX_OFFSET, { topic: 'TBW102', queueId: '0' }), (r) => r.code === ResponseCode.SUCCESS, deadline),
    ]);
    return { namesrvMs: ns - t0, routeMs: route - t0, brokerMs: broker - t0 };
  } finally {
    child.kill('SIGTERM');
    await exited;
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function runColdStartBench(options: { runs?: number; nodeArgs?: readonly string[] } = {}): Promise<{ runs: ColdStartRun[]; median: ColdStartRun }> {
  const runs: ColdStartRun[] = [];
  for (let i = 0; i < (options.runs ?? 5); i++) runs.push(await coldStartOnce(options.nodeArgs));
  return {
    runs,
    median: { namesrvMs: median(runs.map((r) => r.namesrvMs)), routeMs: median(runs.map((r) => r.routeMs)), brokerMs: median(runs.map((r) => r.brokerMs)) },
  };
}

export function formatColdStart(r: { runs: ColdStartRun[]; median: ColdStartRun }): string {
  const f = (x: ColdStartRun, name: string): string => `${name.padEnd(8)}${x.namesrvMs.toFixed(0).padStart(12)}${x.routeMs.toFixed(0).padStart(12)}${x.brokerMs.toFixed(0).padStart(12)}`;
  return ['run      namesrv ms    route ms   broker ms', ...r.runs.map((x, i) => f(x, `#${i + 1}`)), f(r.median, 'median')].join('\n');
}

export const COLD_START_OPTIONS = { '--runs': 'value', '--node-args': 'value' } as const;

/** The options of the cold-start scenario; `ignoreUnknown` for the whole command line of bench/index.ts. */
export function parseColdStartArgs(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): { runs?: number; nodeArgs: string[] } {
  const o = readBenchOptions(argv, COLD_START_OPTIONS, how);
  return { runs: o.number('--runs'), nodeArgs: o.string('--node-args')?.split(' ').filter(Boolean) ?? [] };
}

if (require.main === module) {
  runBenchScript(benchUsage(COLD_START_OPTIONS, { '--node-args': '"NODE OPTIONS"' }), async (argv) => {
    const r = await runColdStartBench(parseColdStartArgs(argv));
    process.stdout.write(`${formatColdStart(r)}\n`);
  });
}
