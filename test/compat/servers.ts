/**
 * The servers a compat run talks to: ours (`rocketmq-ts start` as a child process), Java 4.9.8 / 5.3.3 (name server +
 * broker from ../shared/javaref through test/helpers/javaref.ts), or an existing cluster (`--namesrv`). Every server
 * gets free ports and a temp store; stop() kills by pid and removes the temp dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultMQAdminExt } from '../../lib/admin/default-mq-admin-ext';
import { freePort, startJavaBroker, startJavaNamesrv, type JavaProcess, type JavaVersion } from '../helpers/javaref';
import type { ServerId } from './matrix';

/**
 * Broker settings every server of the matrix runs with, so that retries, delays and transaction checks happen in
 * seconds: every delay level is 1 s except level 2 (2 s); a half message is checked 1 s after it is stored.
 * Both Java versions and ours read these keys from broker.conf.
 */
export const COMPAT_BROKER_CONF: Record<string, string | number | boolean> = {
  messageDelayLevel: '1s 2s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s',
  transactionCheckInterval: 1000,
  transactionTimeOut: 1000,
  enablePropertyFilter: true,
  autoCreateTopicEnable: true,
  autoCreateSubscriptionGroup: true,
  // The matrix shares a busy machine: Java's 200 ms send-queue budget turns load into SYSTEM_BUSY answers.
  waitTimeMillsInSendQueue: 5000,
};

export interface ServerHandle {
  id: ServerId;
  namesrvAddr: string;
  /** The master broker's address and name, read from the cluster info. */
  brokerAddr: string;
  brokerName: string;
  clusterName: string;
  /** `host:port` of the broker's 5.x gRPC endpoint, the 5.x clients' endpoints (ours only: a Java broker has none). */
  grpcEndpoints?: string;
  /** Extra processes started beside this server for a row (stopped with it). */
  extras: Array<{ stop(): Promise<void> }>;
  stop(): Promise<void>;
}

const MAIN = path.resolve(__dirname, '..', '..', 'lib', 'cli', 'main.js');

/** Our server processes still running (killed by pid when the runner exits, whatever the reason). */
const liveOurs = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of liveOurs) {
    try { c.kill('SIGKILL'); } catch { /* gone */ }
  }
});

/** Our CLI (`rocketmq-ts <args>`) as a child process; resolves when its output matches `ready`. */
export async function spawnOurs(args: string[], ready: RegExp, opts: { home: string; timeoutMs?: number }): Promise<{ child: ChildProcess; output(): string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, HOME: opts.home, ROCKETMQ_NAMESRV_ADDR: '', ROCKETMQ_LOG_LEVEL: process.env.ROCKETMQ_LOG_LEVEL ?? 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => { out += d; });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { out += d; if (out.length > 1_000_000) out = out.slice(-500_000); });
  liveOurs.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => { liveOurs.delete(child); resolve(); }));
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    })();
    return stopping;
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { void stop(); reject(new Error(`rocketmq-ts ${args.join(' ')}: not ready after ${opts.timeoutMs ?? 30_000} ms\n${out.slice(-2000)}`)); }, opts.timeoutMs ?? 30_000);
    const check = () => { if (ready.test(out)) { clearTimeout(timer); resolve(); } };
    child.stdout!.on('data', check);
    child.once('exit', () => { clearTimeout(timer); reject(new Error(`rocketmq-ts ${args.join(' ')} exited: ${out.slice(-2000)}`)); });
  });
  return { child, output: () => out, stop };
}

function writeConf(file: string, conf: Record<string, string | number | boolean>): void {
  fs.writeFileSync(file, Object.entries(conf).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
}

/**
 * `rocketmq-ts start` on free ports with a temp store, serving the 5.x gRPC clients too (`--grpc-port`, the Node 5.x
 * gRPC client column; remoting clients are served as without it).
 */
export async function startOurServer(extraConf: Record<string, string | number | boolean> = {}): Promise<ServerHandle> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqts-compat-'));
  const nsPort = await freePort();
  const brokerPort = await freePort();
  const grpcPort = await freePort();
  const conf = path.join(dir, 'broker.conf');
  writeConf(conf, { brokerName: 'ts-broker', ...COMPAT_BROKER_CONF, ...extraConf });
  const p = await spawnOurs([
    'start', '--namesrv-port', String(nsPort), '--broker-port', String(brokerPort), '--grpc-port', String(grpcPort),
    '--store', path.join(dir, 'store'), '-c', conf,
  ], /rocketmq-ts is running/, { home: dir });
  const handle: ServerHandle = {
    id: 'ours',
    namesrvAddr: `127.0.0.1:${nsPort}`,
    brokerAddr: `127.0.0.1:${brokerPort}`,
    brokerName: 'ts-broker',
    clusterName: 'DefaultCluster',
    grpcEndpoints: `127.0.0.1:${grpcPort}`,
    extras: [],
    async stop() {
      await Promise.allSettled(handle.extras.map((e) => e.stop()));
      await p.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

/** Our broker alone (`rocketmq-ts broker`), registered with the name server(s) at `namesrvAddr`. */
export async function startOurBroker(namesrvAddr: string, brokerName: string): Promise<{ addr: string; stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqts-compat-b-'));
  const port = await freePort();
  const conf = path.join(dir, 'broker.conf');
  writeConf(conf, {
    brokerName, listenPort: port, brokerIP1: '127.0.0.1', storePathRootDir: path.join(dir, 'store'), ...COMPAT_BROKER_CONF,
  });
  const p = await spawnOurs(['broker', '-c', conf, '-n', namesrvAddr], /boot success/, { home: dir });
  return {
    addr: `127.0.0.1:${port}`,
    async stop() {
      await p.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until the name server lists a broker named `brokerName` (5.3.3 registers up to ~10 s after boot). */
export async function waitForBroker(namesrvAddr: string, brokerName: string | null, timeoutMs = 60_000): Promise<{ addr: string; name: string; cluster: string }> {
  const admin = new DefaultMQAdminExt({ namesrvAddr, instanceName: `compat-wait-${process.pid}-${Date.now()}` });
  await admin.start();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const info = await admin.examineBrokerClusterInfo();
        for (const [cluster, names] of info.clusterAddrTable) {
          for (const name of names) {
            if (brokerName !== null && name !== brokerName) continue;
            const addr = info.brokerAddrTable.get(name)?.brokerAddrs.get(0);
            if (addr) return { addr, name, cluster };
          }
        }
      } catch { /* not yet */ }
      if (Date.now() > deadline) throw new Error(`no broker ${brokerName ?? ''} in ${namesrvAddr}'s cluster list after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await admin.shutdown();
  }
}

/** A Java name server + broker of `version` on free ports with temp stores. */
export async function startJavaServer(version: JavaVersion): Promise<ServerHandle> {
  const procs: JavaProcess[] = [];
  try {
    const ns = await startJavaNamesrv(version);
    procs.push(ns);
    const brokerName = `jb-${version.replace(/\./g, '')}`;
    const broker = await startJavaBroker(version, { namesrvAddr: ns.addr, brokerName, conf: COMPAT_BROKER_CONF, heap: '-Xms256m -Xmx512m' });
    procs.push(broker);
    const found = await waitForBroker(ns.addr, brokerName);
    const handle: ServerHandle = {
      id: version,
      namesrvAddr: ns.addr,
      brokerAddr: found.addr,
      brokerName,
      clusterName: found.cluster,
      extras: [],
      async stop() {
        await Promise.allSettled(handle.extras.map((e) => e.stop()));
        await Promise.allSettled(procs.map((p) => p.stop()));
      },
    };
    return handle;
  } catch (err) {
    await Promise.allSettled(procs.map((p) => p.stop()));
    throw err;
  }
}

/** An existing cluster (`--namesrv host:port`): its first master broker. */
export async function externalServer(namesrvAddr: string): Promise<ServerHandle> {
  const found = await waitForBroker(namesrvAddr, null, 15_000);
  return {
    id: 'external', namesrvAddr, brokerAddr: found.addr, brokerName: found.name, clusterName: found.cluster, extras: [],
    async stop() { /* not ours */ },
  };
}
