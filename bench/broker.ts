/**
 * Broker benchmark: produce throughput of 1 KiB messages over raw RemotingClient (sync with 1 and 16 in flight,
 * async with 256 in flight, batches of 32), consume drain of 100,000 messages with pulls of 32, p50/p99 latency
 * per request, the process RSS (broker and client share the process, as they share the cores), and the cold start
 * of `rocketmq-ts start` until its broker answers a request.
 *
 *   node dist/bench/broker.js [--messages N]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startCluster } from '../lib/cluster';
import { RemotingClient } from '../lib/transport/remoting-client';
import { RemotingCommand } from '../protocol/remoting-command';
import { RequestCode } from '../protocol/code/request-code';
import { ResponseCode } from '../protocol/code/response-code';
import { SendMessageRequestHeaderV2, toSendMessageRequestHeaderV2 } from '../protocol/header/send-message-request-header-v2';
import { PullMessageRequestHeader } from '../protocol/header/pull-message-request-header';
import { PullMessageResponseHeader } from '../protocol/header/pull-message-response-header';
import { GetMaxOffsetRequestHeader } from '../protocol/header/get-max-offset-request-header';
import { encodeBatchBody } from '../protocol/message/batch';
import { propertiesToString } from '../protocol/message/properties';
import { benchUsage, readBenchOptions, runBenchScript } from './bench-util';

export interface BrokerBenchRow {
  scenario: string;
  messages: number;
  msgPerSec: number;
  p50Ms: number;
  p99Ms: number;
  rssMB: number;
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

function sendReq(topic: string, queueId: number, body: Buffer, batch = false): RemotingCommand {
  const h = SendMessageRequestHeaderV2.encode(toSendMessageRequestHeaderV2({
    producerGroup: 'BENCH_PG', topic, defaultTopic: 'TBW102', defaultTopicQueueNums: 4, queueId, sysFlag: 0,
    bornTimestamp: Date.now(), flag: 0, properties: propertiesToString({ UNIQ_KEY: `${process.hrtime.bigint()}`, WAIT: 'true' }),
    reconsumeTimes: 0, unitMode: false, batch, maxReconsumeTimes: undefined,
  }));
  return RemotingCommand.createRequest(batch ? RequestCode.SEND_BATCH_MESSAGE : RequestCode.SEND_MESSAGE_V2, h, body);
}

let peakRss = 0;
function sampleRss(): number {
  const r = process.memoryUsage().rss / 1048576;
  if (r > peakRss) peakRss = r;
  return r;
}

async function produce(client: RemotingClient, addr: string, scenario: string, topic: string, total: number, inflight: number, batchSize: number): Promise<BrokerBenchRow> {
  const body = Buffer.alloc(1024, 0x61);
  const batchBody = batchSize > 1 ? encodeBatchBody(Array.from({ length: batchSize }, () => ({ body, properties: { UNIQ_KEY: 'x' } }))) : null;
  const requests = Math.ceil(total / batchSize);
  const lat: number[] = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  const rssTimer = setInterval(sampleRss, 100);
  const worker = async () => {
    while (next < requests) {
      const i = next++;
      const s = process.hrtime.bigint();
      const res = await client.invoke(addr, batchBody ? sendReq(topic, i % 4, batchBody, true) : sendReq(topic, i % 4, body), 30000);
      if (res.code !== ResponseCode.SUCCESS) throw new Error(`send failed: ${res.code} ${res.remark}`);
      lat.push(Number(process.hrtime.bigint() - s) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  clearInterval(rssTimer);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  lat.sort((a, b) => a - b);
  return { scenario, messages: requests * batchSize, msgPerSec: Math.round((requests * batchSize) / secs), p50Ms: pct(lat, 0.5), p99Ms: pct(lat, 0.99), rssMB: Math.round(sampleRss()) };
}

async function drain(client: RemotingClient, addr: string, topic: string, expected: number): Promise<BrokerBenchRow> {
  const lat: number[] = [];
  let count = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all([0, 1, 2, 3].map(async (queueId) => {
    let offset = 0;
    for (;;) {
      const req = RemotingCommand.createRequest(RequestCode.PULL_MESSAGE, PullMessageRequestHeader.encode({
        consumerGroup: 'BENCH_CG', topic, queueId, queueOffset: offset, maxMsgNums: 32, sysFlag: 0x4, commitOffset: 0,
        suspendTimeoutMillis: 0, subscription: '*', subVersion: 0, expressionType: 'TAG',
      }));
      const s = process.hrtime.bigint();
      const res = await client.invoke(addr, req, 30000);
      lat.push(Number(process.hrtime.bigint() - s) / 1e6);
      if (res.code !== ResponseCode.SUCCESS) break;
      const h = PullMessageResponseHeader.decode(res.extFields);
      let n = 0;
      const b = res.body!;
      for (let p = 0; p < b.length; p += b.readInt32BE(p)) n++;
      count += n;
      offset = h.nextBeginOffset;
    }
  }));
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  lat.sort((a, b) => a - b);
  if (count < expected) throw new Error(`drained ${count} of ${expected}`);
  return { scenario: 'consume drain (pull 32)', messages: count, msgPerSec: Math.round(count / secs), p50Ms: pct(lat, 0.5), p99Ms: pct(lat, 0.99), rssMB: Math.round(sampleRss()) };
}

/** Spawns `rocketmq-ts start` on free ports and times it until its broker answers GET_MAX_OFFSET. */
async function coldStart(): Promise<number> {
  const store = await fs.mkdtemp(path.join(os.tmpdir(), 'rocketmq-ts-coldstart-'));
  const main = path.join(__dirname, '..', 'lib', 'cli', 'main.js');
  const t0 = Date.now();
  const child = spawn(process.execPath, [main, 'start', '--namesrv-port', '0', '--broker-port', '0', '--store', store], {
    stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  try {
    const brokerAddr = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /broker:\s+(\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`rocketmq-ts start exited with ${code}`)));
    });
    const client = new RemotingClient();
    try {
      const res = await client.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.GET_MAX_OFFSET, GetMaxOffsetRequestHeader.encode({ topic: 'TBW102', queueId: 0 })), 5000);
      if (res.code !== ResponseCode.SUCCESS) throw new Error(`cold start probe answered ${res.code}`);
      return Date.now() - t0;
    } finally {
      await client.shutdown();
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    await fs.rm(store, { recursive: true, force: true });
  }
}

export async function runBrokerBench(options: { messages?: number } = {}): Promise<{ rows: BrokerBenchRow[]; coldStartMs: number; peakRssMB: number }> {
  const n = options.messages ?? 100000;
  const cluster = await startCluster({ storeConfig: { mappedFileSizeCommitLog: 256 * 1024 * 1024, mappedFileSizeConsumeQueue: 300000 * 20 } });
  const client = new RemotingClient();
  const addr = cluster.brokers[0].brokerAddr;
  const rows: BrokerBenchRow[] = [];
  try {
    await client.invoke(addr, sendReq('BENCH_WARM', 0, Buffer.alloc(16)), 5000);
    rows.push(await produce(client, addr, 'sync, 1 in flight', 'BENCH_S1', Math.min(n, 10000), 1, 1));
    rows.push(await produce(client, addr, 'sync, 16 in flight', 'BENCH_S16', Math.min(n, 50000), 16, 1));
    rows.push(await produce(client, addr, 'async, 256 in flight', 'BENCH_A256', n, 256, 1));
    rows.push(await produce(client, addr, 'batch of 32, 16 in flight', 'BENCH_B32', n, 16, 32));
    const broker = cluster.brokers[0];
    const deadline = Date.now() + 30000;
    while ([0, 1, 2, 3].reduce((s, q) => s + broker.messageStore.getMaxOffsetInQueue('BENCH_A256', q), 0) < n && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    rows.push(await drain(client, addr, 'BENCH_A256', n));
  } finally {
    await client.shutdown();
    await cluster.stop();
  }
  const coldStartMs = await coldStart();
  return { rows, coldStartMs, peakRssMB: Math.round(peakRss) };
}

export function formatBrokerBench(r: { rows: BrokerBenchRow[]; coldStartMs: number; peakRssMB: number }): string {
  const lines = ['scenario                      messages    msg/s      p50 ms   p99 ms   RSS MB'];
  for (const x of r.rows) {
    lines.push(`${x.scenario.padEnd(30)}${String(x.messages).padStart(8)}${String(x.msgPerSec).padStart(9)}${x.p50Ms.toFixed(2).padStart(11)}${x.p99Ms.toFixed(2).padStart(9)}${String(x.rssMB).padStart(9)}`);
  }
  lines.push(`peak RSS (broker + client in one process): ${r.peakRssMB} MB`);
  lines.push(`cold start of rocketmq-ts start until the broker answers: ${r.coldStartMs} ms`);
  return lines.join('\n');
}

export const BROKER_OPTIONS = { '--messages': 'value' } as const;

/** The options of the broker scenario; `ignoreUnknown` for the whole command line of bench/index.ts. */
export function parseBrokerArgs(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): { messages?: number } {
  const o = readBenchOptions(argv, BROKER_OPTIONS, how);
  return { messages: o.number('--messages') };
}

if (require.main === module) {
  runBenchScript(benchUsage(BROKER_OPTIONS), async (argv) => {
    const r = await runBrokerBench(parseBrokerArgs(argv));
    process.stdout.write(`node ${process.version}\n${formatBrokerBench(r)}\n`);
  });
}
