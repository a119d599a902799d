/**
 * The frame fuzzer against our name server and broker, both child processes (chaos/frame-fuzzer.ts does the work).
 */
import * as path from 'node:path';
import { RequestCode } from '../protocol/code/request-code';
import { type FuzzReport, fuzzServer, goldenRequestFrames } from './frame-fuzzer';
import { DIST, ServerProcess, killAll, makeTempDir, removeDir } from './procs';

export const GOLDEN_DIR = process.env.ROCKETMQ_GOLDEN_DIR ?? path.resolve(DIST, '..', 'test', 'fixtures', 'golden');

export interface FuzzRunResult {
  namesrv: FuzzReport;
  broker: FuzzReport;
  /** The servers were alive at the end. */
  namesrvAlive: boolean;
  brokerAlive: boolean;
}

export async function fuzzRun(opts: { frames: number; seed?: number; log?: (l: string) => void }): Promise<FuzzRunResult> {
  const dir = makeTempDir('fuzz');
  try {
    const namesrv = new ServerProcess('namesrv', (port) => ['-p', String(port), `--kvConfigPath=${path.join(dir, 'kvConfig.json')}`]);
    await namesrv.start();
    const broker = new ServerProcess('broker', (port) => [
      '-n', namesrv.addr, `--listenPort=${port}`, '--brokerIP1=127.0.0.1', '--brokerName=fuzz-broker',
      `--storePathRootDir=${path.join(dir, 'store')}`, '--mappedFileSizeCommitLog=16777216',
    ]);
    await broker.start();
    const frames = goldenRequestFrames(GOLDEN_DIR);
    const seed = opts.seed ?? 20240613;
    const half = Math.ceil(opts.frames / 2);
    const ns = await fuzzServer(namesrv.addr, frames, { count: half, seed, pid: namesrv.child!.pid, probeCode: RequestCode.GET_BROKER_CLUSTER_INFO });
    opts.log?.(`fuzz namesrv: ${formatFuzz(ns)}`);
    const br = await fuzzServer(broker.addr, frames, { count: opts.frames - half, seed: seed + 1, pid: broker.child!.pid, probeCode: RequestCode.GET_BROKER_RUNTIME_INFO });
    opts.log?.(`fuzz broker: ${formatFuzz(br)}`);
    return { namesrv: ns, broker: br, namesrvAlive: namesrv.alive, brokerAlive: broker.alive };
  } finally {
    await killAll();
    removeDir(dir);
  }
}

export function formatFuzz(r: FuzzReport): string {
  const mb = (b: number): string => `${(b / 1048576).toFixed(1)} MiB`;
  return `frames=${r.frames} answered=${r.answered} closed-without-answer=${r.closedOnly} hung=${r.hung} bad-responses=${r.badResponses.length}`
    + ` probes-failed=${r.probesFailed} largest-response=${mb(r.largestResponse)} rss ${mb(r.rssStart)} -> ${mb(r.rssEnd)}`;
}
