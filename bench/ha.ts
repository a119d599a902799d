/**
 * Replication benchmark: an in-process master + slave (each its own store, the HA stream over loopback) with
 * DefaultMQProducer, 1 KiB bodies: SYNC_MASTER sync x16 and async x256 beside ASYNC_MASTER, and the replication lag
 * (bytes behind, and ms from a send's acknowledgement until the slave holds it) under async x256 on ASYNC_MASTER.
 */
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { startCluster } from '../lib/cluster';
import { DefaultMQProducer } from '../lib/producer/default-mq-producer';
import { DefaultMQAdminExt } from '../lib/admin/default-mq-admin-ext';
import { createMessage } from '../protocol/message/message';
import { type BenchResult, pct, sendLoad } from './bench-util';

const BODY = Buffer.alloc(1024, 0x61);

async function runOne(role: 'SYNC_MASTER' | 'ASYNC_MASTER', concurrency: number, messages: number): Promise<{ result: BenchResult; lagBytes?: number[]; lagMs?: number[] }> {
  const cluster = await startCluster({ brokers: 1, slaves: 1, brokerRole: role, logger: pino({ level: 'silent' }) });
  const admin = new DefaultMQAdminExt({ namesrvAddr: cluster.namesrvAddr, instanceName: `ha-bench-admin-${role}-${concurrency}` });
  const producer = new DefaultMQProducer({ producerGroup: `PG_HA_${concurrency}`, namesrvAddr: cluster.namesrvAddr, instanceName: `ha-bench-${role}-${concurrency}` });
  try {
    await admin.start();
    await producer.start();
    const topic = `HaBench_${role}_${concurrency}`;
    await admin.createTopic('TBW102', topic, 8);
    const master = cluster.brokers[0];
    const slave = cluster.slaves[0];
    while (master.replication.haService.connectionCount === 0) await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 200; i++) await producer.send(createMessage(topic, BODY)); // warm-up
    const lagBytes: number[] = [];
    const acked: { end: number; at: number }[] = [];
    const lagMs: number[] = [];
    const sampler = setInterval(() => {
      const s = slave.messageStore.getMaxPhyOffset();
      lagBytes.push(master.messageStore.getMaxPhyOffset() - s);
      const now = performance.now();
      while (acked.length && acked[0].end <= s) lagMs.push(now - acked.shift()!.at);
    }, 2);
    const t0 = performance.now();
    const { latencies: lat, failed, seconds: elapsed } = await sendLoad(producer, topic, BODY, concurrency, messages,
      (at) => acked.push({ end: master.messageStore.getMaxPhyOffset(), at }));
    while (acked.length && performance.now() - t0 < elapsed * 1000 + 10000) await new Promise((r) => setTimeout(r, 5));
    clearInterval(sampler);
    const mode = concurrency === 16 ? 'sync x16' : `async x${concurrency}`;
    return {
      result: {
        name: `ha.${role.toLowerCase()}.${mode.replace(' ', '-')}`, opsPerSec: messages / elapsed, meanMicros: (elapsed * 1e6) / messages, ops: messages,
        note: `p50 ${pct(lat, 50).toFixed(2)} ms, p99 ${pct(lat, 99).toFixed(2)} ms, ${failed} not SEND_OK`,
      },
      lagBytes, lagMs,
    };
  } finally {
    await producer.shutdown();
    await admin.shutdown();
    await cluster.stop();
  }
}

export async function runHaBench(messages = Number(process.env.HA_BENCH_MESSAGES ?? 20000)): Promise<BenchResult[]> {
  // Quiet client logs unless asked for (the root logger is created on first use, after this).
  process.env.ROCKETMQ_LOG_LEVEL ??= 'warn';
  const out: BenchResult[] = [];
  for (const role of ['SYNC_MASTER', 'ASYNC_MASTER'] as const) {
    out.push((await runOne(role, 16, messages)).result);
    const r = await runOne(role, 256, messages);
    out.push(r.result);
    if (role === 'ASYNC_MASTER' && r.lagBytes && r.lagMs) {
      const b = [...r.lagBytes].sort((x, y) => x - y);
      const m = [...r.lagMs].sort((x, y) => x - y);
      out.push({
        name: 'ha.async_master.lag-async-x256', opsPerSec: 0, meanMicros: (m.reduce((s, x) => s + x, 0) / Math.max(1, m.length)) * 1000, ops: m.length,
        note: `bytes behind p50 ${pct(b, 50)}, p99 ${pct(b, 99)}, max ${b[b.length - 1] ?? 0}; ms after ack p50 ${pct(m, 50).toFixed(2)}, p99 ${pct(m, 99).toFixed(2)}`,
      });
    }
  }
  return out;
}
