/**
 * DLedger benchmark: a 3-peer DLedger group (startCluster({ dledger: 3 })) beside a single ASYNC_MASTER, 1 KiB bodies,
 * sync x16 and async x256 (DefaultMQProducer, in one process with the servers); then the failover time over 20
 * leader kills (kill → first successful send, a producer sending all along) with 100 ms heartbeats.
 */
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { startCluster, type Cluster } from '../lib/cluster';
import { DefaultMQProducer } from '../lib/producer/default-mq-producer';
import { createMessage } from '../protocol/message/message';
import { type BenchResult, pct, sendLoad } from './bench-util';

const BODY = Buffer.alloc(1024, 0x61);
const FAST = { heartBeatTimeIntervalMs: 100, maxHeartBeatLeak: 3, minVoteIntervalMs: 50, maxVoteIntervalMs: 200, maxWaitAckTimeMs: 2000 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function master(c: Cluster) {
  return c.brokers.find((b) => b.isRunning && b.messageStoreConfig.brokerRole !== 'SLAVE' && (!b.dledgerCommitLog || b.dledgerCommitLog.server.isLeader));
}

async function throughput(kind: 'dledger' | 'single', concurrency: number, messages: number): Promise<BenchResult> {
  const cluster = await startCluster(kind === 'dledger' ? { dledger: 3, logger: pino({ level: 'silent' }) } : { brokers: 1, logger: pino({ level: 'silent' }) });
  const producer = new DefaultMQProducer({ producerGroup: `PG_DL_${concurrency}`, namesrvAddr: cluster.namesrvAddr, instanceName: `dl-bench-${kind}-${concurrency}`, pollNameServerInterval: 500 });
  try {
    while (!master(cluster)) await sleep(20);
    await producer.start();
    const topic = `DlBench_${kind}_${concurrency}`;
    for (let i = 0; i < 200; i++) {
      try {
        await producer.send(createMessage(topic, BODY));
      } catch {
        await sleep(50);
      }
    }
    const { latencies: lat, failed, seconds: elapsed } = await sendLoad(producer, topic, BODY, concurrency, messages);
    const mode = concurrency === 16 ? 'sync-x16' : `async-x${concurrency}`;
    return {
      name: `dledger.${kind === 'dledger' ? '3-peers' : 'single-master'}.${mode}`, opsPerSec: messages / elapsed, meanMicros: (elapsed * 1e6) / messages, ops: messages,
      note: `p50 ${pct(lat, 50).toFixed(2)} ms, p99 ${pct(lat, 99).toFixed(2)} ms, ${failed} failed`,
    };
  } finally {
    await producer.shutdown();
    await cluster.stop();
  }
}

async function failover(kills: number): Promise<BenchResult> {
  const cluster = await startCluster({ dledger: 3, dledgerConfig: FAST, logger: pino({ level: 'silent' }) });
  const producer = new DefaultMQProducer({ producerGroup: 'PG_DL_FO', namesrvAddr: cluster.namesrvAddr, instanceName: 'dl-bench-fo', pollNameServerInterval: 100, sendMsgTimeout: 3000 });
  const times: number[] = [];
  let lastOk = 0;
  let sending = true;
  try {
    while (!master(cluster)) await sleep(20);
    await producer.start();
    const sender = (async () => {
      while (sending) {
        try {
          await producer.send(createMessage('DlBenchFailover', BODY));
          lastOk = performance.now();
        } catch {
          await sleep(10);
        }
      }
    })();
    while (lastOk === 0) await sleep(20);
    for (let k = 0; k < kills; k++) {
      const m = master(cluster);
      if (!m) {
        await sleep(50);
        k--;
        continue;
      }
      const i = cluster.brokers.indexOf(m);
      const killedAt = performance.now();
      await cluster.stopBroker(i);
      while (!(lastOk > killedAt && master(cluster))) await sleep(5);
      times.push(lastOk - killedAt);
      const back = await cluster.startBroker(i);
      while (back.dledgerCommitLog!.server.leaderId === null || !master(cluster)) await sleep(20);
      await sleep(300);
    }
    sending = false;
    await sender;
  } finally {
    sending = false;
    await producer.shutdown();
    await cluster.stop();
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((s, x) => s + x, 0) / Math.max(1, times.length);
  return {
    name: 'dledger.failover.kill-to-first-send', opsPerSec: 1000 / mean, meanMicros: mean * 1000, ops: times.length,
    note: `p50 ${pct(times, 50).toFixed(0)} ms, max ${times[times.length - 1]?.toFixed(0)} ms over ${times.length} leader kills (heartbeat 100 ms x 3)`,
  };
}

export async function runDLedgerBench(messages = Number(process.env.DLEDGER_BENCH_MESSAGES ?? 10000)): Promise<BenchResult[]> {
  process.env.ROCKETMQ_LOG_LEVEL ??= 'warn';
  const out: BenchResult[] = [];
  for (const c of [16, 256]) {
    out.push(await throughput('single', c, messages));
    out.push(await throughput('dledger', c, messages));
  }
  out.push(await failover(20));
  return out;
}
