/**
 * Test access to a cluster: the one at ROCKETMQ_NAMESRV_ADDR when set, else an in-process one (stopped by the
 * root hook after the file). Plus small helpers shared by integration tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Cluster, startCluster, type StartClusterOptions } from '../../lib/server';
import { registerLeftover } from './root-hooks';
import { waitFor } from './wait-for';
import type { DefaultMQProducer, SendResult } from '../../lib/index';
import { createMessage, type Message } from '../../protocol/message/message';
import { NamesrvController } from '../../lib/namesrv/namesrv-controller';

export interface TestCluster {
  namesrvAddr: string;
  /** The in-process cluster, or null when testing against ROCKETMQ_NAMESRV_ADDR. */
  cluster: Cluster | null;
  stop(): Promise<void>;
}

export async function getCluster(options: StartClusterOptions = {}): Promise<TestCluster> {
  const external = process.env.ROCKETMQ_NAMESRV_ADDR;
  if (external) return { namesrvAddr: external, cluster: null, stop: async () => undefined };
  const cluster = await startCluster(options);
  const remove = registerLeftover(() => cluster.stop());
  return {
    namesrvAddr: cluster.namesrvAddr,
    cluster,
    async stop() {
      remove();
      await cluster.stop();
    },
  };
}

let seq = 0;
/** A name unique to this run: `${prefix}_${pid}_${time}_${n}` (valid as topic and group). */
export function randomName(prefix = 'test'): string {
  seq++;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${seq}`;
}

export { waitFor } from './wait-for';

/**
 * Starts one of our name servers on 127.0.0.1, port 0, with its files in a temp dir of its own; `cleanups` gets its
 * shutdown and the dir's removal. Returns its address.
 */
export async function startTestNamesrv(cleanups: (() => Promise<unknown>)[], prefix = 'rmq-ns-'): Promise<string> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), prefix));
  const n = new NamesrvController({ listenPort: 0, bindAddress: '127.0.0.1', kvConfigPath: path.join(dir, 'kv.json'), configStorePath: path.join(dir, 'ns.properties') });
  await n.start();
  cleanups.push(async () => {
    await n.shutdown();
    await fs.promises.rm(dir, { recursive: true, force: true });
  });
  return n.address;
}

/**
 * Sends `body` to `topic` until one send is answered SEND_OK (a replicated group between leaders refuses sends for a
 * while; a send answered FLUSH_SLAVE_TIMEOUT or the like is stored but not yet replicated, and counts as not accepted),
 * failing after `timeoutMillis`.
 */
export async function sendUntilAccepted(producer: DefaultMQProducer, topic: string, body: string, timeoutMillis: number): Promise<SendResult> {
  return sendMessageUntilAccepted(producer, createMessage(topic, body), timeoutMillis);
}

/** Sends `msg` until a SEND_OK (a first send may find no master yet), for up to `timeoutMillis`; its result. */
export async function sendMessageUntilAccepted(producer: DefaultMQProducer, msg: Message, timeoutMillis: number): Promise<SendResult> {
  let ok: SendResult | null = null;
  await waitFor(async () => {
    const r = await producer.send(msg).catch(() => null);
    if (r?.sendStatus === 'SEND_OK') ok = r;
    return ok !== null;
  }, timeoutMillis, `send ${msg.body.length > 40 ? `${msg.body.subarray(0, 40).toString()}...` : msg.body.toString()}`, 100);
  return ok!;
}

/**
 * Skips the suite (from a `before` hook) when it runs against ROCKETMQ_NAMESRV_ADDR, printing why: the tests that
 * inspect or reconfigure our in-process broker cannot run against an outside cluster.
 */
export function skipWhenExternal(ctx: Mocha.Context, why: string): void {
  if (!process.env.ROCKETMQ_NAMESRV_ADDR) return;
  process.stdout.write(`    (skipped against ${process.env.ROCKETMQ_NAMESRV_ADDR}: ${why})\n`);
  ctx.skip();
}
