/**
 * The cost of the gRPC endpoint's TLS modes (and of its ACL check): a bare grpc-js client (one channel, 64 calls
 * in flight) against a broker child process (`rocketmq-ts start -c`, grpcServerPort), QueryRoute (the transport's
 * cost with little work behind it) and SendMessage of 1 KiB, in four configurations:
 *   disabled          plain HTTP/2, grpc-js listening itself (the baseline)
 *   permissive plain  plain HTTP/2 through the endpoint's first-byte sniffing and connection injection
 *   permissive TLS    TLS (test-mode certificate) on the same port
 *   disabled + ACL    plain, every call signed and checked against plain_acl.yml
 * printed side by side with the ratio to the baseline and the broker's CPU per call.
 *
 *   node dist/bench/index.js grpc-tls
 *   node dist/bench/grpc-tls.js [--duration MS] [--warmup MS] [--rounds N]
 *
 * The configurations run interleaved, N rounds (default 3); each row is its median round.
 */
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { AclClientRPCHook, DefaultMQAdminExt } from '../lib/index';
import { freePort } from '../lib/cluster';
import { PROTO_LOADER_OPTIONS, protoRoot } from '../lib/grpc/grpc-loader';
import { type BenchResult, runTimedBenchScript } from './bench-util';
import { type Scenario, runScenario, startBrokerProcess } from './producer';
import { ACL_YML, ADMIN, USER } from './security';

const SCENARIO: Scenario = { name: 'x64', inflight: 64, batch: 1, async: true };

interface Config { name: string; mode: 'disabled' | 'permissive'; tls: boolean; acl: boolean }
const CONFIGS: readonly Config[] = [
  { name: 'disabled', mode: 'disabled', tls: false, acl: false },
  { name: 'permissive plain', mode: 'permissive', tls: false, acl: false },
  { name: 'permissive TLS', mode: 'permissive', tls: true, acl: false },
  { name: 'disabled + ACL', mode: 'disabled', tls: false, acl: true },
];

interface Row { config: string; rpc: string; perSec: number; p50: number; p99: number; errors: number; brokerCpuMicros: number }

type Unary = (req: object, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: { status?: { code: string } }) => void) => void;
type Stub = grpc.Client & Record<string, Unary>;

function stubClass(): new (addr: string, c: grpc.ChannelCredentials) => Stub {
  const root = protoRoot();
  const def = protoLoader.loadSync(path.join(root, 'apache/rocketmq/v2/service.proto'), { ...PROTO_LOADER_OPTIONS, includeDirs: [root] });
  return (grpc.loadPackageDefinition(def) as unknown as { apache: { rocketmq: { v2: { MessagingService: new (a: string, c: grpc.ChannelCredentials) => Stub } } } })
    .apache.rocketmq.v2.MessagingService;
}

function metadata(acl: boolean): grpc.Metadata {
  const m = new grpc.Metadata();
  const dateTime = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  m.set('x-mq-client-id', `grpc-tls-bench-${process.pid}`);
  m.set('x-mq-language', 'HTTP');
  m.set('x-mq-date-time', dateTime);
  if (acl) {
    const signature = createHmac('sha1', USER.secretKey).update(dateTime).digest('hex').toUpperCase();
    m.set('authorization', `MQv2-HMAC-SHA1 Credential=${USER.accessKey}, SignedHeaders=x-mq-date-time, Signature=${signature}`);
  }
  return m;
}

async function one(c: Config, o: { durationMillis: number; warmupMillis: number }): Promise<Row[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'grpc-tls-bench-'));
  const grpcPort = await freePort();
  const lines = [`grpcServerPort=${grpcPort}`, `tls.server.mode=${c.mode}`];
  if (c.acl) {
    fs.mkdirSync(path.join(dir, 'conf'));
    fs.writeFileSync(path.join(dir, 'conf', 'plain_acl.yml'), ACL_YML);
    lines.push('aclEnable=true', `rocketmq.home.dir=${dir}`);
  }
  fs.writeFileSync(path.join(dir, 'broker.conf'), `${lines.join('\n')}\n`);
  const broker = await startBrokerProcess({ confFile: path.join(dir, 'broker.conf') });
  const Stub = stubClass();
  const creds = c.tls ? grpc.credentials.createSsl(null, null, null, { rejectUnauthorized: false }) : grpc.credentials.createInsecure();
  const stub = new Stub(`127.0.0.1:${grpcPort}`, creds);
  const topic = `GrpcTlsBench_${c.mode}_${c.tls}_${c.acl}`;
  try {
    const admin = new DefaultMQAdminExt({ namesrvAddr: broker.namesrvAddr, instanceName: `gtb-admin-${process.pid}` },
      { rpcHook: c.acl ? new AclClientRPCHook(ADMIN) : undefined });
    await admin.start();
    try {
      for (const deadline = Date.now() + 20_000; ;) {
        const ok = await admin.createTopic('TBW102', topic, 4).then(() => true, () => false);
        if (ok) break;
        if (Date.now() > deadline) throw new Error(`cannot create ${topic}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await admin.shutdown();
    }
    const md = metadata(c.acl);
    const call = (method: string, req: object) => new Promise<void>((resolve, reject) => {
      stub[method](req, md, (err, res) => {
        if (err) reject(err);
        else if (res.status?.code !== 'OK') reject(new Error(`${method}: ${res.status?.code}`));
        else resolve();
      });
    });
    const body = Buffer.alloc(1024, 0x61);
    const now = { seconds: Math.floor(Date.now() / 1000), nanos: 0 };
    const send = () => call('sendMessage', {
      messages: [{
        topic: { name: topic }, body, userProperties: {},
        systemProperties: {
          messageId: `01${randomBytes(16).toString('hex').toUpperCase()}`, tag: 'T', keys: [], bodyEncoding: 'IDENTITY', messageType: 'NORMAL', bornTimestamp: now, bornHost: '127.0.0.1',
        },
      }],
    });
    await call('queryRoute', { topic: { name: topic } });
    const rows: Row[] = [];
    for (const [rpc, fn] of [['QueryRoute', () => call('queryRoute', { topic: { name: topic } })], ['SendMessage 1 KiB', send]] as const) {
      const m = await runScenario(fn, SCENARIO, o, () => broker.cpuMicros());
      rows.push({ config: c.name, rpc, perSec: m.msgPerSec, p50: m.p50, p99: m.p99, errors: m.errors, brokerCpuMicros: m.brokerCpuMicrosPerMsg });
    }
    return rows;
  } finally {
    stub.close();
    await broker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function formatGrpcTlsBench(rows: readonly Row[]): string {
  const out = ['grpc-tls: bare grpc-js client, one channel, 64 in flight, broker child process',
    'rpc                 configuration       calls/s   vs disabled   p50 ms   p99 ms   broker CPU µs/call   errors'];
  for (const r of rows) {
    const base = rows.find((b) => b.rpc === r.rpc && b.config === 'disabled')?.perSec ?? Number.NaN;
    out.push(`${r.rpc.padEnd(19)} ${r.config.padEnd(18)} ${r.perSec.toFixed(0).padStart(8)}   ${(r.perSec / base).toFixed(2).padStart(11)}   ${r.p50.toFixed(2).padStart(6)}   ${r.p99.toFixed(2).padStart(6)}   ${r.brokerCpuMicros.toFixed(1).padStart(18)}   ${String(r.errors).padStart(6)}`);
  }
  return out.join('\n');
}

export async function runGrpcTlsBench(options: { durationMillis?: number; warmupMillis?: number; rounds?: number } = {}): Promise<BenchResult[]> {
  const o = { durationMillis: options.durationMillis ?? 5000, warmupMillis: options.warmupMillis ?? 1500 };
  const rounds = Math.max(1, options.rounds ?? 3);
  const all = new Map<string, Row[]>();
  for (let i = 0; i < rounds; i++) {
    for (const c of CONFIGS) {
      for (const r of await one(c, o)) {
        const k = `${r.rpc}|${r.config}`;
        all.set(k, [...(all.get(k) ?? []), r]);
      }
    }
  }
  const rows = [...all.values()].map((rs) => [...rs].sort((a, b) => a.perSec - b.perSec)[Math.floor(rs.length / 2)]);
  rows.sort((a, b) => a.rpc.localeCompare(b.rpc) || CONFIGS.findIndex((c) => c.name === a.config) - CONFIGS.findIndex((c) => c.name === b.config));
  process.stdout.write(`${formatGrpcTlsBench(rows)}\n`);
  return rows.map((r) => ({
    name: `grpc-tls.${r.rpc.split(' ')[0].toLowerCase()}.${r.config.replace(/[^a-z]+/gi, '-').toLowerCase()}`,
    opsPerSec: r.perSec, meanMicros: 1e6 / r.perSec, ops: 0, note: `p50 ${r.p50.toFixed(2)} ms, broker ${r.brokerCpuMicros.toFixed(1)} µs/call`,
  }));
}

if (require.main === module) runTimedBenchScript(runGrpcTlsBench);
