/**
 * `npm run soak -- --minutes 60 [--rate 200] [--producers 2] [--consumers 2]`: a steady produce + consume load on
 * the bundled name server and broker, run in this process so that their heap and event-loop lag can be read; the
 * producers and consumers are worker processes (chaos/producer-child.ts, chaos/consumer-child.ts). Every minute: RSS,
 * heap used and total, external memory (Buffers), event-loop delay (p50/p99/max) and throughput. At the end: producers stop, the group must consume every
 * acknowledged message (lost must be 0), and the RSS after warm-up (the second minute) is compared with the last.
 */
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startCluster } from '../lib/cluster';
import { DefaultMQAdminExt } from '../lib/admin/default-mq-admin-ext';
import { configureRootLogger } from '../lib/logger';
import { readKeys, tally } from './drain';
import { Worker, killAll, makeTempDir, removeDir } from './procs';

type P = { acked: number; failed: number };
type C = { received: number };

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '60' }, rate: { type: 'string', default: '200' },
      producers: { type: 'string', default: '2' }, consumers: { type: 'string', default: '2' },
      'interval-s': { type: 'string', default: '60' },
    },
  });
  const minutes = Number(values.minutes);
  const intervalMs = Number(values['interval-s']) * 1000;
  const dir = makeTempDir('soak');
  const logger = configureRootLogger({ level: 'warn' });
  const cluster = await startCluster({
    logger,
    brokerConfig: { storePathRootDir: path.join(dir, 'store') },
    storeConfig: { storePathRootDir: path.join(dir, 'store'), mappedFileSizeCommitLog: 64 * 1024 * 1024 },
  });
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const topic = 'SoakTopic';
  const ps: Worker<P>[] = [];
  const cs: Worker<C>[] = [];
  try {
    const admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: `soak-admin-${process.pid}` });
    await admin.start();
    await admin.createTopic('TBW102', topic, 4);
    await admin.shutdown();
    for (let i = 0; i < Number(values.consumers); i++) {
      cs.push(new Worker<C>('consumer-child.js', [cluster.namesrvAddr, topic, 'soak_cg', path.join(dir, `received-${i}.txt`), `c${i}`]));
    }
    for (let i = 0; i < Number(values.producers); i++) {
      ps.push(new Worker<P>('producer-child.js', [cluster.namesrvAddr, topic, String(i), path.join(dir, `acked-${i}.txt`), 'sync', values.rate]));
    }
    const acked = (): number => ps.reduce((s, w) => s + (w.last?.acked ?? 0), 0);
    const received = (): number => cs.reduce((s, w) => s + (w.last?.received ?? 0), 0);
    const rss: number[] = [];
    const end = Date.now() + minutes * 60_000;
    let lastA = 0;
    let lastR = 0;
    const mb = (b: number): string => (b / 1048576).toFixed(1);
    process.stdout.write('   min  rss_MiB  heap_MiB  heapTotal_MiB  external_MiB  lag_p50_ms  lag_p99_ms  lag_max_ms  produced/s  consumed/s  acked  consumed\n');
    for (let minute = 1; Date.now() < end; minute++) {
      await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(0, end - Date.now()))));
      const m = process.memoryUsage();
      rss.push(m.rss);
      const a = acked();
      const r = received();
      process.stdout.write(`${((minute * intervalMs) / 60_000).toFixed(2).padStart(6)}  ${mb(m.rss).padStart(7)}  ${mb(m.heapUsed).padStart(8)}  ${mb(m.heapTotal).padStart(13)}  ${mb(m.external).padStart(12)}  `
        + `${(lag.percentile(50) / 1e6).toFixed(1).padStart(10)}  ${(lag.percentile(99) / 1e6).toFixed(1).padStart(10)}  ${(lag.max / 1e6).toFixed(1).padStart(10)}  `
        + `${String(Math.round(((a - lastA) * 1000) / intervalMs)).padStart(10)}  ${String(Math.round(((r - lastR) * 1000) / intervalMs)).padStart(10)}  ${a}  ${r}\n`);
      lag.reset();
      lastA = a;
      lastR = r;
    }
    await Promise.all(ps.map((w) => w.finish()));
    const ackedKeys = readKeys(ps.map((_, i) => path.join(dir, `acked-${i}.txt`)));
    const files = cs.map((_, i) => path.join(dir, `received-${i}.txt`));
    const deadline = Date.now() + 300_000;
    for (;;) {
      const seen = readKeys(files);
      if ([...ackedKeys.keys()].every((k) => seen.has(k)) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    await Promise.all(cs.map((w) => w.finish()));
    const t = tally(ackedKeys, readKeys(files));
    const warm = rss[Math.min(1, rss.length - 1)] ?? 0;
    const last = rss[rss.length - 1] ?? 0;
    process.stdout.write(`soak: minutes=${minutes}, acknowledged=${t.acknowledged}, lost=${t.lost}, duplicated=${t.duplicated}, `
      + `rss after warm-up ${mb(warm)} MiB -> end ${mb(last)} MiB (${last > warm ? '+' : ''}${mb(last - warm)} MiB)\n`);
    return t.lost > 0 ? 1 : 0;
  } finally {
    lag.disable();
    await killAll();
    await cluster.stop();
    removeDir(dir);
  }
}

main().then((code) => { process.exitCode = code; }, (err: unknown) => { process.stderr.write(`${(err as Error).stack}\n`); process.exitCode = 1; });
