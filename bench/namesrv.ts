/**
 * Name server load check: GET_ROUTEINFO_BY_TOPIC lookups per second over real sockets, 1,000 topics on
 * 4 brokers, while the brokers re-register (a new data version every round, so route caches are dropped).
 * Prints a table; no assertions.
 *
 *   node dist/bench/namesrv.js [--duration MS]
 */
import { encodeRegisterBrokerBody } from '../protocol/body/register-broker-body';
import { newTopicConfig, type TopicConfig } from '../protocol/body/topic-config';
import { RequestCode } from '../protocol/code/request-code';
import { RemotingCommand } from '../protocol/remoting-command';
import { bodyCrc32 as javaCrc32 } from '../protocol/message/compression';
import { NamesrvController } from '../lib/namesrv/namesrv-controller';
import { RemotingClient } from '../lib/transport/remoting-client';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { benchUsage, readBenchOptions, runBenchScript } from './bench-util';

const TOPICS = 1000;
const BROKERS = 4;
const CONNECTIONS = 4;
const PIPELINE = 64;

function registerRequest(broker: number, counter: number, topics: Map<string, TopicConfig>): RemotingCommand {
  const body = encodeRegisterBrokerBody({
    topicConfigSerializeWrapper: { topicConfigTable: topics, dataVersion: { timestamp: Date.now(), counter } },
    filterServerList: [],
  });
  return RemotingCommand.createRequest(RequestCode.REGISTER_BROKER, {
    brokerName: `bench-broker-${broker}`, brokerAddr: `10.0.0.${broker + 1}:10911`, clusterName: 'BenchCluster',
    haServerAddr: `10.0.0.${broker + 1}:10912`, brokerId: '0', compressed: 'false', bodyCrc32: String(javaCrc32(body)),
  }, body);
}

export interface NamesrvBenchResult {
  lookupsPerSec: number;
  registrationsPerSec: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
}

export async function runNamesrvBench(durationMillis = 5000): Promise<NamesrvBenchResult> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'namesrv-bench-'));
  const namesrv = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(tmp, 'kvConfig.json'), configStorePath: path.join(tmp, 'namesrv.properties') });
  await namesrv.start();
  const addr = namesrv.address;
  const topics = new Map<string, TopicConfig>();
  for (let i = 0; i < TOPICS; i++) topics.set(`BenchTopic-${i}`, newTopicConfig(`BenchTopic-${i}`, { readQueueNums: 8, writeQueueNums: 8, perm: 6 }));
  const brokers = Array.from({ length: BROKERS }, () => new RemotingClient());
  const readers = Array.from({ length: CONNECTIONS }, () => new RemotingClient());
  try {
    await Promise.all(brokers.map((b, i) => b.invoke(addr, registerRequest(i, 0, topics), 10_000)));
    let stop = false;
    let registrations = 0;
    const registerLoops = brokers.map(async (b, i) => {
      let counter = 1;
      while (!stop) {
        await b.invoke(addr, registerRequest(i, counter++, topics), 10_000);
        registrations++;
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    const latencies: number[] = [];
    let lookups = 0;
    let errors = 0;
    const start = Date.now();
    const readerLoops = readers.flatMap((r) => Array.from({ length: PIPELINE }, async (_, k) => {
      let n = k;
      while (!stop) {
        const t0 = process.hrtime.bigint();
        const resp = await r.invoke(addr, RemotingCommand.createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: `BenchTopic-${n % TOPICS}` }), 10_000);
        if (resp.code !== 0) errors++;
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        lookups++;
        n += PIPELINE;
      }
    }));
    await new Promise((r) => setTimeout(r, durationMillis));
    stop = true;
    await Promise.all([...registerLoops, ...readerLoops]);
    const elapsed = (Date.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
    const pct = (p: number): string => at(p).toFixed(2);
    console.table([{
      topics: TOPICS, brokers: BROKERS, connections: CONNECTIONS, inFlight: CONNECTIONS * PIPELINE,
      'lookups/s': Math.round(lookups / elapsed), 'registrations/s': Math.round(registrations / elapsed), errors,
      'p50 ms': pct(0.5), 'p99 ms': pct(0.99), 'max ms': pct(1),
    }]);
    return {
      lookupsPerSec: lookups / elapsed, registrationsPerSec: registrations / elapsed, errors, p50Ms: at(0.5), p99Ms: at(0.99),
    };
  } finally {
    for (const c of [...brokers, ...readers]) await c.shutdown();
    await namesrv.shutdown();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export const NAMESRV_OPTIONS = { '--duration': 'value' } as const;

/** The options of the namesrv scenario; `ignoreUnknown` for the whole command line of bench/index.ts. */
export function parseNamesrvArgs(argv: readonly string[], how: { ignoreUnknown?: boolean } = {}): { durationMillis?: number } {
  const o = readBenchOptions(argv, NAMESRV_OPTIONS, how);
  return { durationMillis: o.number('--duration') };
}

if (require.main === module) {
  runBenchScript(benchUsage(NAMESRV_OPTIONS, { '--duration': 'MS' }), (argv) => runNamesrvBench(parseNamesrvArgs(argv).durationMillis));
}
