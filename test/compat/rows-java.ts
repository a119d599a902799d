/**
 * Part 2: the Java 4.9.8 client (the driver in ../shared/javaref/4.9.8/harness, and mqadmin) against each server, and
 * the Java 5.3.3 client (the same driver on the 5.3.3 client jars, test/java/run-harness-533.sh).
 * Producing and consuming rows run the driver; checks go through our admin client (stored counts) or the driver's
 * RECV lines. mqadmin rows run Java 4.9.8's mqadmin against the server; against ours its output must equal, after
 * the names and numbers of the run are masked, its output against the Java 4.9.8 broker.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  ConsumeConcurrentlyStatus, DefaultMQProducer, DefaultMQPushConsumer, SelectMessageQueueByHash, createMessage,
} from '../../lib/index';
import { type HarnessClient, harnessLines, runHarness, runMqadmin, startHarness, type RunResult } from '../helpers/javaref';
import type { ClientId } from './matrix';
import { OUR_ONLY_BROKER_CONFIG_KEYS } from '../helpers/broker-config-keys';
import { check, until, type Ctx, type Scenario } from './scenario';

const SECTION = 'clients → server: produce, consume, transactions, admin';
const ADMIN_SECTION = 'Java 4.9.8 mqadmin → server';

type JavaClient = Extract<ClientId, 'java' | 'java5'>;
const DRIVER_CLIENT: Record<JavaClient, HarnessClient> = { java: '4.9.8', java5: '5.3.3' };

async function harness(ctx: Ctx, client: JavaClient, args: string[], timeoutMs = 90_000): Promise<RunResult> {
  // Generous send timeouts: the driver's JVM shares a busy machine (Java's default is 3 s).
  const extra = args[0] === 'produce' || args[0] === 'txn' ? ['--send-timeout-ms', '15000'] : [];
  const r = await runHarness([...args, ...extra, '--namesrv', ctx.server.namesrvAddr], { timeoutMs, client: DRIVER_CLIENT[client] });
  check(r.code === 0, `harness ${args[0]} exited ${r.code}: ${(r.stderr + r.stdout).slice(-300)}`);
  return r;
}

async function stored(ctx: Ctx, topic: string): Promise<number> {
  const stats = await ctx.admin.examineTopicStats(topic);
  return stats.offsetTable.reduce((n, [, o]) => n + o.maxOffset - o.minOffset, 0);
}

async function ourProducer(ctx: Ctx): Promise<DefaultMQProducer> {
  const p = new DefaultMQProducer({ producerGroup: ctx.name('PG'), namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('p'), sendMsgTimeout: 15_000 });
  await p.start();
  ctx.defer(() => p.shutdown());
  return p;
}

function sent(r: RunResult, n: number): string[][] {
  const ok = harnessLines(r.stdout, 'OK');
  check(ok.length === n && r.stdout.includes(`SENT ok=${n} fail=0`), `expected ${n} OK: ${r.stdout.split('\n').filter((l) => /FAIL|SENT/.test(l)).slice(0, 3).join(' / ')}`);
  return ok;
}

function produceRow(client: JavaClient, row: string, mode: string, extra: string[] = []): Scenario {
  return {
    section: SECTION, row, client,
    async run(ctx) {
      const topic = ctx.name('JT');
      await ctx.createTopic(topic);
      const r = await harness(ctx, client, ['produce', '--topic', topic, '--count', '8', '--mode', mode, '--keys', 'k{i}', ...extra]);
      sent(r, 8);
      await until(async () => (await stored(ctx, topic)) === 8, 30_000, `8 stored on ${topic}`);
    },
  };
}

/** RECV lines: [topic, queueId, queueOffset, msgId, tags, keys, bodyLen, reconsumeTimes]. */
function recv(r: RunResult): string[][] {
  return harnessLines(r.stdout, 'RECV').map((l) => l.slice(1));
}

/**
 * Rows the driver (compiled against the 4.9.8 client) cannot run on the 5.3.3 client jars: an n.a. cell on every server
 * with the reason.
 */
function naOn5(client: JavaClient, why: string): Scenario['na'] {
  return client === 'java5' ? { ours: why, '4.9.8': why, '5.3.3': why } : undefined;
}

/** The produce / consume / transaction rows of one Java client. */
function clientRows(client: JavaClient): Scenario[] {
  return [
    produceRow(client, 'send: sync', 'sync'),
    produceRow(client, 'send: async (Promise and callback)', 'async'),
    produceRow(client, 'send: oneway', 'oneway'),
    produceRow(client, 'send: batch', 'batch', ['--batch-size', '8']),
    {
      section: SECTION, row: 'send: selector / orderly send to one queue', client,
      async run(ctx) {
        const topic = ctx.name('JT_SEL');
        await ctx.createTopic(topic, 4);
        const r = await harness(ctx, client, ['produce', '--topic', topic, '--count', '8', '--mode', 'sync', '--selector-arg', 'order-7']);
        const queues = new Set(sent(r, 8).map((l) => l[3]));
        check(queues.size === 1, `queues ${[...queues].join(',')}`);
      },
    },
    {
      section: SECTION, row: 'send: delay level', client,
      async run(ctx) {
        const topic = ctx.name('JT_DELAY');
        await ctx.createTopic(topic);
        sent(await harness(ctx, client, ['produce', '--topic', topic, '--count', '2', '--mode', 'sync', '--delay', '2', '--keys', 'd{i}']), 2);
        await until(async () => (await stored(ctx, topic)) === 2, 30_000, 'the delayed messages in their topic');
        const q = await ctx.admin.queryMessage(topic, 'd1', 32, 0, Date.now() + 60_000);
        const m = q.messageList.find((x) => x.topic === topic);
        check(m?.properties.DELAY === '2', `DELAY property ${m?.properties.DELAY}`);
      },
    },
    {
      section: SECTION, row: 'consume: tag filter', client,
      async run(ctx) {
        const topic = ctx.name('JT_TAG');
        await ctx.createTopic(topic);
        sent(await harness(ctx, client, ['produce', '--topic', topic, '--count', '9', '--tags-cycle', 'A,B,C', '--keys', 'k{i}']), 9);
        const r = await harness(ctx, client, ['consume', '--topic', topic, '--group', ctx.name('JG_TAG'), '--from', 'first', '--tag-expr', 'A || B', '--expect', '6', '--timeout', '60', '--linger', '1']);
        const got = recv(r);
        check(new Set(got.map((l) => l[3])).size === 6, `${got.length} deliveries`);
        check(got.every((l) => l[4] === 'A' || l[4] === 'B'), `tags ${got.map((l) => l[4]).join(',')}`);
      },
    },
    {
      section: SECTION, row: 'consume: SQL92 filter', client,
      async run(ctx) {
        const topic = ctx.name('JT_SQL');
        await ctx.createTopic(topic);
        sent(await harness(ctx, client, ['produce', '--topic', topic, '--count', '10', '--prop', 'a={i}', '--keys', 'k{i}']), 10);
        const r = await harness(ctx, client, ['consume', '--topic', topic, '--group', ctx.name('JG_SQL'), '--from', 'first', '--sql', 'a > 5', '--expect', '4', '--timeout', '60', '--linger', '1']);
        const keys = recv(r).map((l) => l[5]).sort();
        check(keys.join(',') === 'k6,k7,k8,k9', `got ${keys.join(',')}`);
      },
    },
    {
      section: SECTION, row: 'consume: RECONSUME_LATER → %RETRY% (reconsumeTimes)', client, timeoutMs: 120_000,
      async run(ctx) {
        const topic = ctx.name('JT_RETRY');
        const group = ctx.name('JG_RETRY');
        await ctx.createTopic(topic);
        sent(await harness(ctx, client, ['produce', '--topic', topic, '--count', '4', '--keys', 'k{i}']), 4);
        // --expect counts distinct messages: watch the driver's output for the 4 redeliveries instead, then stop it.
        const java = await startHarness(['consume', '--namesrv', ctx.server.namesrvAddr, '--topic', topic, '--group', group, '--from', 'first', '--reconsume-later-first', '2', '--fail-times', '2', '--timeout', '110'], { client: DRIVER_CLIENT[client] });
        ctx.defer(() => java.stop());
        const lines = (): string[][] => recv({ code: 0, stdout: java.output(), stderr: '' });
        await until(() => lines().length >= 8, 90_000, `8 deliveries (got ${lines().length})`);
        const times = lines().map((l) => Number(l[7]));
        check(new Set(lines().map((l) => l[3])).size === 4, `distinct messages ${new Set(lines().map((l) => l[3])).size}`);
        check(times.filter((t) => t === 1).length === 2 && times.filter((t) => t === 2).length === 2, `reconsumeTimes ${times.join(',')}`);
        await until(async () => (await stored(ctx, `%RETRY%${group}`)) >= 2, 20_000, 'messages in the retry topic');
      },
    },
    {
      // The driver keeps Java's maxReconsumeTimes (16): 17 deliveries, one delay level (1 s here) apart.
      section: SECTION, row: 'consume: maxReconsumeTimes → %DLQ%', client, timeoutMs: 150_000, slow: true,
      async run(ctx) {
        const topic = ctx.name('JT_DLQ');
        const group = ctx.name('JG_DLQ');
        await ctx.createTopic(topic, 1);
        sent(await harness(ctx, client, ['produce', '--topic', topic, '--count', '1', '--keys', 'dlq']), 1);
        const java = await startHarness(['consume', '--namesrv', ctx.server.namesrvAddr, '--topic', topic, '--group', group, '--from', 'first', '--reconsume-later-first', '1', '--fail-times', '100', '--timeout', '140'], { client: DRIVER_CLIENT[client] });
        ctx.defer(() => java.stop());
        const dlq = `%DLQ%${group}`;
        await until(async () => (await ctx.admin.examineTopicRouteInfo(dlq)).queueDatas.length > 0 && (await stored(ctx, dlq)) === 1, 130_000, `the message in ${dlq}`);
        const times = recv({ code: 0, stdout: java.output(), stderr: '' }).map((l) => Number(l[7]));
        check(times.length === 17 && times[16] === 16, `deliveries with reconsumeTimes ${times.join(',')}`);
      },
    },
    {
      section: SECTION, row: 'consume: orderly with broker locks', client,
      async run(ctx) {
        const topic = ctx.name('JT_ORDER');
        await ctx.createTopic(topic, 4);
        const p = await ourProducer(ctx);
        for (let i = 0; i < 10; i++) await p.send(createMessage(topic, `o${i}`, { keys: `o${i}` }), new SelectMessageQueueByHash(), 'one-order');
        const r = await harness(ctx, client, ['consume', '--topic', topic, '--group', ctx.name('JG_ORDER'), '--from', 'first', '--orderly', '--expect', '10', '--timeout', '60']);
        const keys = recv(r).map((l) => l[5]);
        check(keys.join(',') === Array.from({ length: 10 }, (_, i) => `o${i}`).join(','), `order ${keys.join(',')}`);
      },
    },
    {
      section: SECTION, row: 'consume: broadcasting', client,
      na: naOn5(client, 'the Java client driver names MessageModel by its 4.x package, which moved to org.apache.rocketmq.remoting.protocol.heartbeat in 5.x'),
      async run(ctx) {
        const topic = ctx.name('JT_BCAST');
        await ctx.createTopic(topic);
        sent(await harness(ctx, client, ['produce', '--topic', topic, '--count', '6', '--keys', 'k{i}']), 6);
        const r = await harness(ctx, client, ['consume', '--topic', topic, '--group', ctx.name('JG_BCAST'), '--from', 'first', '--broadcast', '--expect', '6', '--timeout', '60']);
        check(r.stdout.includes('CONSUMED n=6'), 'not all 6 consumed');
      },
    },
    {
      section: SECTION, row: 'transactions: commit, rollback, check-back', client, timeoutMs: 120_000,
      na: naOn5(client, 'the Java client driver calls TransactionMQProducer(group, namespace, rpcHook), which the 5.3.3 client no longer has'),
      async run(ctx) {
        const topic = ctx.name('JT_TXN');
        await ctx.createTopic(topic, 2);
        const r = await harness(ctx, client, ['txn', '--topic', topic, '--count', '2', '--local', 'unknown', '--check', 'commit', '--check-wait', '12']);
        const checks = harnessLines(r.stdout, 'CHECK');
        const ids = harnessLines(r.stdout, 'TXN').map((l) => l[2]);
        check(ids.length === 2, `${ids.length} half messages: ${r.stdout.slice(-300)}`);
        check(ids.every((id) => checks.some((c) => c[1] === id)), `checked ${checks.length} of 2`);
        const rb = await harness(ctx, client, ['txn', '--topic', topic, '--count', '1', '--local', 'rollback']);
        const rolledBack = harnessLines(rb.stdout, 'TXN').map((l) => l[2]);
        check(rolledBack.length === 1, 'rollback send');
        // Each committed message reaches the topic. (5.3.3 may check an ended half message again and store a second
        // copy when the answer is COMMIT again: count ids, not messages; docs/compat-notes.md.)
        for (const id of ids) {
          await until(async () => (await ctx.admin.queryMessageByUniqKey(topic, id)).topic === topic, 30_000, `committed message ${id}`);
        }
        await new Promise((res) => setTimeout(res, 1500));
        const leaked = await ctx.admin.queryMessageByUniqKey(topic, rolledBack[0]).then((m) => m.topic === topic, () => false);
        check(!leaked, 'the rolled-back message was delivered');
      },
    },
  ];
}

export const JAVA_ROWS: Scenario[] = [...clientRows('java'), ...clientRows('java5')];

// ---------------------------------------------------------------------------------------------- mqadmin

interface AdminFixture {
  topic: string;
  group: string;
  key: string;
  msgId: string;
}

/** A topic with 4 keyed messages and a group that consumed them, once per server (cached in ctx.shared). */
async function adminFixture(ctx: Ctx): Promise<AdminFixture> {
  const cached = ctx.shared.get(`fixture:${ctx.server.id}`);
  if (cached) return JSON.parse(cached) as AdminFixture;
  const f: AdminFixture = { topic: ctx.name('MT'), group: ctx.name('MG'), key: 'mkey', msgId: '' };
  await ctx.createTopic(f.topic, 2);
  const p = await ourProducer(ctx);
  for (let i = 0; i < 4; i++) {
    const r = await p.send(createMessage(f.topic, `m${i}`, { keys: i === 1 ? f.key : `other${i}`, tags: 'T' }));
    if (i === 1) f.msgId = r.msgId;
  }
  const c = new DefaultMQPushConsumer({ consumerGroup: f.group, namesrvAddr: ctx.server.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: ctx.name('mc') });
  let n = 0;
  c.subscribe(f.topic, '*');
  c.registerMessageListener((ms) => { n += ms.length; return ConsumeConcurrentlyStatus.CONSUME_SUCCESS; });
  await c.start();
  try {
    await until(() => n >= 4, 30_000, 'the fixture consumed');
    await until(async () => (await ctx.admin.examineConsumeStats(f.group)).offsetTable.reduce((s, [, o]) => s + o.consumerOffset, 0) === 4, 30_000, 'fixture offsets committed');
    // consumerProgress lists the %RETRY% queue once the consumer committed its offset there: wait for it.
    await until(async () => (await ctx.admin.examineConsumeStats(f.group)).offsetTable.some(([mq]) => mq.topic.startsWith('%RETRY%')), 30_000, 'the retry queue offset committed');
  } finally {
    await c.shutdown();
  }
  await until(async () => (await ctx.admin.queryMessage(f.topic, f.key, 32, 0, Date.now() + 60_000)).messageList.length === 1, 30_000, 'the fixture key indexed');
  ctx.shared.set(`fixture:${ctx.server.id}`, JSON.stringify(f));
  return f;
}

/** mqadmin's output with this run's names, addresses, ids, times and numbers masked, JVM noise dropped. */
export function maskAdminOutput(out: string, ctx: Ctx, f: AdminFixture, extra: Record<string, string> = {}): string {
  const subst: Array<[string, string]> = [
    [f.msgId, '<MSGID>'], [f.topic, '<TOPIC>'], [f.group, '<GROUP>'], [ctx.server.brokerAddr, '<BROKERADDR>'],
    [ctx.server.namesrvAddr, '<NAMESRV>'], [ctx.server.brokerName, '<BROKER>'], ...Object.entries(extra),
  ];
  let s = out;
  for (const [from, to] of subst) if (from) s = s.split(from).join(to);
  return s.split('\n')
    .filter((l) => l.trim() && !/^(WARNING|OpenJDK|SLF4J|RocketMQLog|log4j)/.test(l.trim()))
    .map((l) => l
      .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(,\d+|\.\d+)?/g, '<TIME>')
      .replace(/\b[0-9A-F]{32}\b/g, '<ID>')
      .replace(/127\.0\.0\.1:\d+/g, '<ADDR>')
      .replace(/\d+(\.\d+)?/g, 'N')
      .replace(/\s+/g, ' ').trim())
    .join('\n');
}

/** Line by line equality of the masked outputs; null when equal. */
function sameLines(java: string, ours: string): string | null {
  const a = java.split('\n');
  const b = ours.split('\n');
  const i = a.findIndex((l, k) => l !== b[k]);
  if (a.length === b.length && i === -1) return null;
  const at = i === -1 ? Math.min(a.length, b.length) : i;
  return `output differs from Java 4.9.8's at line ${at + 1}: Java "${a[at] ?? ''}" / ours "${b[at] ?? ''}"`;
}

/**
 * Keys our broker reports that Java 4.9.8 does not (our own settings); Java's keys that we lack are settings of
 * features we do not have (docs/compat-notes.md), so getBrokerConfig is compared on key names and line format.
 */
const OUR_EXTRA_CONFIG_KEYS = new Set(OUR_ONLY_BROKER_CONFIG_KEYS);

function configKeys(java: string, ours: string): string | null {
  const keys = (s: string): string[] => s.split('\n').filter((l) => / = /.test(l)).map((l) => l.split(' = ')[0].trim());
  const javaKeys = new Set(keys(java));
  const unknown = keys(ours).filter((k) => !javaKeys.has(k) && !OUR_EXTRA_CONFIG_KEYS.has(k));
  if (keys(ours).length < 50) return `only ${keys(ours).length} keys`;
  return unknown.length === 0 ? null : `keys Java 4.9.8 does not have: ${unknown.join(', ')}`;
}

function adminRow(command: string, args: (ctx: Ctx, f: AdminFixture) => string[], expect: (out: string, ctx: Ctx, f: AdminFixture) => string | null,
  compare: (java: string, ours: string) => string | null = sameLines): Scenario {
  return {
    section: ADMIN_SECTION, row: `mqadmin ${command}`, client: 'java',
    async run(ctx) {
      const f = await adminFixture(ctx);
      const r = await runMqadmin('4.9.8', [command, ...args(ctx, f)], { timeoutMs: 60_000 });
      const out = r.stdout + r.stderr;
      check(r.code === 0, `exit ${r.code}: ${out.slice(-300)}`);
      const trace = /^\S+Exception\b|^\s+at [a-z]+\./m;
      check(!trace.test(r.stdout), `error output: ${r.stdout.split('\n').find((l) => trace.test(l))}`);
      const bad = expect(r.stdout, ctx, f);
      check(bad === null, bad ?? '');
      const masked = maskAdminOutput(r.stdout, ctx, f);
      if (process.env.COMPAT_DUMP) fs.writeFileSync(path.join(process.env.COMPAT_DUMP, `${command}-${ctx.server.id}.txt`), `${r.stdout}\n---\n${masked}\n`);
      if (ctx.server.id === '4.9.8') ctx.shared.set(`mqadmin:${command}`, masked);
      const reference = ctx.shared.get(`mqadmin:${command}`);
      if (ctx.server.id === 'ours' && reference !== undefined) {
        const diff = compare(reference, masked);
        check(diff === null, diff ?? '');
      }
    },
  };
}

const has = (what: string) => (out: string): string | null => (out.includes(what) ? null : `output without ${what}`);

export const MQADMIN_ROWS: Scenario[] = [
  adminRow('clusterList', (ctx) => ['-n', ctx.server.namesrvAddr], (out, ctx) => has(ctx.server.brokerName)(out)),
  adminRow('topicRoute', (ctx, f) => ['-n', ctx.server.namesrvAddr, '-t', f.topic], (out, ctx) => has(ctx.server.brokerAddr)(out)),
  adminRow('topicStatus', (ctx, f) => ['-n', ctx.server.namesrvAddr, '-t', f.topic], (out, ctx) => has(ctx.server.brokerName)(out)),
  adminRow('consumerProgress', (ctx, f) => ['-n', ctx.server.namesrvAddr, '-g', f.group], (out, _ctx, f) => has(f.topic)(out)),
  adminRow('queryMsgByKey', (ctx, f) => ['-n', ctx.server.namesrvAddr, '-t', f.topic, '-k', f.key], (out, _ctx, f) => has(f.msgId)(out)),
  adminRow('queryMsgByUniqueKey', (ctx, f) => ['-n', ctx.server.namesrvAddr, '-t', f.topic, '-i', f.msgId], (out, _ctx, f) => has(f.key)(out)),
  adminRow('updateTopic', (ctx, f) => ['-n', ctx.server.namesrvAddr, '-c', ctx.server.clusterName, '-t', `${f.topic}_2`, '-r', '3', '-w', '3'], has('success')),
  adminRow('updateSubGroup', (ctx, f) => ['-n', ctx.server.namesrvAddr, '-c', ctx.server.clusterName, '-g', `${f.group}_2`], has('success')),
  adminRow('getBrokerConfig', (ctx) => ['-n', ctx.server.namesrvAddr, '-b', ctx.server.brokerAddr], has('brokerClusterName'), configKeys),
  adminRow('resetOffsetByTime', (ctx, f) => ['-n', ctx.server.namesrvAddr, '-g', f.group, '-t', f.topic, '-s', '0'], has(' ')),
];

JAVA_ROWS.push(...MQADMIN_ROWS);
