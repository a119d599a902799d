/**
 * The throughput cost of ACL (aclEnable=true: every request signed by the client, parsed and checked with
 * HmacSHA1 by the broker) and of TLS (tls.server.mode=enforcing, test-mode certificate, client useTLS): our
 * producer sending 1 KiB messages async with 256 in flight against a broker child process (`rocketmq-ts start -c`),
 * once per combination, printed side by side with the ratio to plain.
 *
 *   node dist/bench/index.js security
 *   node dist/bench/security.js [--duration MS] [--warmup MS] [--rounds N]
 *
 * The four configurations run interleaved, N rounds (default 3); each row is its median round.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AclClientRPCHook, DefaultMQAdminExt, DefaultMQProducer, createMessage } from '../lib/index';
import { type BenchResult, measure, runTimedBenchScript } from './bench-util';
import { PlainAccessValidator } from '../lib/broker/acl/plain-access-validator';
import { RequestCode } from '../protocol/code/request-code';
import { RemotingCommand } from '../protocol/remoting-command';
import { type Scenario, runScenario, startBrokerProcess } from './producer';

/** The benchmark's ACL accounts (bench/grpc-tls.ts uses them too). */
export const ACL_YML = `accounts:
  - accessKey: benchUser
    secretKey: bench-secret
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
  - accessKey: benchAdmin
    secretKey: bench-admin-secret
    admin: true
`;
export const USER = { accessKey: 'benchUser', secretKey: 'bench-secret' };
export const ADMIN = { accessKey: 'benchAdmin', secretKey: 'bench-admin-secret' };
const SCENARIO: Scenario = { name: 'async x256', inflight: 256, batch: 1, async: true };

interface Row {
  name: string;
  acl: boolean;
  tls: boolean;
  msgPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  brokerCpuMicrosPerMsg: number;
}

async function one(acl: boolean, tls: boolean, durationMillis: number, warmupMillis: number): Promise<Row> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'security-bench-'));
  const conf = path.join(dir, 'broker.conf');
  const lines = [`tls.server.mode=${tls ? 'enforcing' : 'disabled'}`];
  if (acl) {
    fs.mkdirSync(path.join(dir, 'conf'));
    fs.writeFileSync(path.join(dir, 'conf', 'plain_acl.yml'), ACL_YML);
    lines.push('aclEnable=true', `rocketmq.home.dir=${dir}`);
  }
  fs.writeFileSync(conf, `${lines.join('\n')}\n`);
  const broker = await startBrokerProcess({ confFile: conf });
  const name = `${acl ? 'ACL' : 'no ACL'}, ${tls ? 'TLS' : 'plain TCP'}`;
  try {
    const topic = `SecBench_${acl ? 'acl' : 'noacl'}_${tls ? 'tls' : 'tcp'}`;
    const admin = new DefaultMQAdminExt({ namesrvAddr: broker.namesrvAddr, instanceName: `sec-admin-${process.pid}`, useTLS: tls },
      { rpcHook: acl ? new AclClientRPCHook(ADMIN) : undefined });
    await admin.start();
    try {
      await admin.createTopic('TBW102', topic, 4);
      for (const deadline = Date.now() + 10_000; ;) {
        const route = await admin.examineTopicRouteInfo(topic).catch(() => null);
        if (route && route.queueDatas.length > 0) break;
        if (Date.now() > deadline) throw new Error(`no route for ${topic}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await admin.shutdown();
    }
    const producer = new DefaultMQProducer({
      producerGroup: `SEC_BENCH_${process.pid}`, namesrvAddr: broker.namesrvAddr, instanceName: `sec-${acl}-${tls}-${process.pid}`,
      useTLS: tls, ...(acl ? { rpcHook: new AclClientRPCHook(USER) } : {}),
    });
    await producer.start();
    const body = Buffer.alloc(1024, 0x61);
    try {
      const m = await runScenario(() => producer.send(createMessage(topic, body)), SCENARIO, { durationMillis, warmupMillis }, () => broker.cpuMicros());
      return { name, acl, tls, msgPerSec: m.msgPerSec, p50: m.p50, p99: m.p99, errors: m.errors, brokerCpuMicrosPerMsg: m.brokerCpuMicrosPerMsg };
    } finally {
      await producer.shutdown();
    }
  } finally {
    await broker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function formatSecurityBench(rows: readonly Row[]): string {
  const base = rows.find((r) => !r.acl && !r.tls)?.msgPerSec ?? Number.NaN;
  const out = ['security: our producer, async x256, 1 KiB, broker child process', 'configuration msg/s    vs plain   p50 ms   p99 ms   broker CPU µs/msg   errors'];
  for (const r of rows) {
    out.push(`${r.name.padEnd(22)} ${r.msgPerSec.toFixed(0).padStart(8)}   ${(r.msgPerSec / base).toFixed(2).padStart(8)}   ${r.p50.toFixed(2).padStart(6)}   ${r.p99.toFixed(2).padStart(6)}   ${r.brokerCpuMicrosPerMsg.toFixed(1).padStart(17)}   ${String(r.errors).padStart(6)}`);
  }
  return out.join('\n');
}

/** The broker-side ACL check alone (parse + validate of a signed 1 KiB SEND_MESSAGE_V2), and the client's signing. */
export async function validatorCost(): Promise<BenchResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'security-bench-acl-'));
  try {
    fs.mkdirSync(path.join(dir, 'conf'));
    fs.writeFileSync(path.join(dir, 'conf', 'plain_acl.yml'), ACL_YML);
    const v = new PlainAccessValidator({ fileHome: dir });
    await v.aclPlugEngine.load();
    const hook = new AclClientRPCHook(USER);
    const ext = { a: 'PG', b: 'SecBench', c: 'TBW102', d: '4', e: '1', f: '0', g: String(Date.now()), h: '0', i: 'UNIQ_KEY\u0001ABCDEF0123456789\u0002WAIT\u0001true', j: '0', k: 'false', m: 'false', n: 'broker-a' };
    const body = Buffer.alloc(1024, 0x61);
    const signed = RemotingCommand.createRequest(RequestCode.SEND_MESSAGE_V2, { ...ext }, body);
    hook.doBeforeRequest('127.0.0.1:10911', signed);
    return [
      measure('acl.client-sign send-v2 1KiB', () => hook.doBeforeRequest('127.0.0.1:10911', RemotingCommand.createRequest(RequestCode.SEND_MESSAGE_V2, { ...ext }, body))),
      measure('acl.broker-check send-v2 1KiB', () => v.doBeforeRequest('127.0.0.1:5555', signed)),
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runSecurityBench(options: { durationMillis?: number; warmupMillis?: number; rounds?: number } = {}): Promise<BenchResult[]> {
  const durationMillis = options.durationMillis ?? 5000;
  const warmupMillis = options.warmupMillis ?? 1500;
  const rounds = Math.max(1, options.rounds ?? 3);
  // The four configurations interleaved, `rounds` times (a shared machine drifts); each keeps its median round.
  const byConfig = new Map<string, Row[]>();
  for (let i = 0; i < rounds; i++) {
    for (const [acl, tls] of [[false, false], [true, false], [false, true], [true, true]] as const) {
      const r = await one(acl, tls, durationMillis, warmupMillis);
      byConfig.set(r.name, [...(byConfig.get(r.name) ?? []), r]);
    }
  }
  const rows = [...byConfig.values()].map((rs) => rs.slice().sort((a, b) => a.msgPerSec - b.msgPerSec)[Math.floor(rs.length / 2)]);
  process.stdout.write(`${formatSecurityBench(rows)}\n`);
  const micro = await validatorCost();
  for (const m of micro) process.stdout.write(`${m.name}: ${m.meanMicros.toFixed(1)} µs per request\n`);
  return [...micro, ...rows.map((r) => ({
    name: `security.${r.acl ? 'acl' : 'noacl'}-${r.tls ? 'tls' : 'tcp'}-async-x256`,
    opsPerSec: r.msgPerSec, meanMicros: 1e6 / r.msgPerSec, ops: 0,
    note: `p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, broker CPU ${r.brokerCpuMicrosPerMsg.toFixed(1)} µs/msg, ${r.errors} errors`,
  }))];
}

if (require.main === module) runTimedBenchScript(runSecurityBench);
