/**
 * Part 1: our SDK against each server (ours, Java 4.9.8, Java 5.3.3, or the cluster at --namesrv): every send mode,
 * batch, selectors, delay levels, tag and SQL92 filters, retry -> %RETRY% -> %DLQ%, broadcasting, orderly
 * consumption with locks, lite pull, transactions with check-back, admin operations, query by key and id, reset offset.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import {
  ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, DefaultLitePullConsumer, DefaultMQProducer, DefaultMQPushConsumer,
  LocalTransactionState, MessageSelector, SelectMessageQueueByHash, TransactionMQProducer, createMessage, getKeys,
  setDelayTimeLevel, SendStatus, type MessageExt, type Message,
} from '../../lib/index';
import { newSubscriptionGroupConfig } from '../../protocol/body/subscription-group-wrapper';
import { check, until, type Ctx, type Scenario } from './scenario';

const SECTION = 'clients → server: produce, consume, transactions, admin';

async function producer(ctx: Ctx): Promise<DefaultMQProducer> {
  const p = new DefaultMQProducer({ producerGroup: ctx.name('PG'), namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('p'), sendMsgTimeout: 15_000 });
  await p.start();
  ctx.defer(() => p.shutdown());
  return p;
}

function pushConsumer(ctx: Ctx, group: string, extra: Record<string, unknown> = {}): DefaultMQPushConsumer {
  const c = new DefaultMQPushConsumer({
    consumerGroup: group, namesrvAddr: ctx.server.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: ctx.name('c'),
    ...extra,
  });
  ctx.defer(() => c.shutdown());
  return c;
}

/** Consumes `topic` with `expr` into a set of keys until `n` distinct keys arrived. */
async function consumeKeys(ctx: Ctx, topic: string, n: number, expr: string | MessageSelector = '*', timeoutMs = 60_000): Promise<Map<string, MessageExt>> {
  const got = new Map<string, MessageExt>();
  const c = pushConsumer(ctx, ctx.name('CG'));
  c.subscribe(topic, expr);
  c.registerMessageListener((msgs) => {
    for (const m of msgs) got.set(getKeys(m) ?? m.msgId, m);
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  await c.start();
  await until(() => got.size >= n, timeoutMs, `${n} messages on ${topic} (got ${got.size})`);
  return got;
}

function msgs(topic: string, n: number, init: (i: number) => { tags?: string; keys?: string; props?: Record<string, string> } = () => ({})): Message[] {
  return Array.from({ length: n }, (_, i) => {
    const o = init(i);
    const m = createMessage(topic, `body-${i}`, { tags: o.tags ?? 'A', keys: o.keys ?? `k${i}` });
    for (const [k, v] of Object.entries(o.props ?? {})) m.properties[k] = v;
    return m;
  });
}

/** One send per message: the producer spreads them over the queues round robin. */
async function sendEach(p: DefaultMQProducer, ms: Message[]): Promise<void> {
  for (const m of ms) await p.send(m);
}

async function storedCount(ctx: Ctx, topic: string): Promise<number> {
  const stats = await ctx.admin.examineTopicStats(topic);
  return stats.offsetTable.reduce((n, [, o]) => n + o.maxOffset - o.minOffset, 0);
}

const ROOT = path.resolve(__dirname, '..', '..', '..');

/** The integration suite's client-side files; the tests in them that need our in-process broker skip themselves. */
export const SUITE_FILES = [
  'producer.test.js', 'admin/admin.test.js', 'consumer/lite-pull-consumer.test.js', 'consumer/push-consumer.test.js',
  'consumer/clustering.test.js', 'consumer/retry-orderly-broadcast.test.js', 'filter/sql92.test.js',
  'broker/reset-offset.test.js', 'transaction/transaction.test.js',
].map((f) => path.join('dist', 'test', 'integration', f));

export const OURS_ROWS: Scenario[] = [
  {
    // Left out of --ci: the suite's own bounds are tuned for the in-process cluster, not for a loaded Java broker;
    // the rows below check the same features with bounds of their own.
    section: SECTION, row: 'integration suite (client-side files) with ROCKETMQ_NAMESRV_ADDR', client: 'ours', timeoutMs: 240_000, slow: true,
    async run(ctx) {
      const mocha = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');
      const out = await new Promise<string>((resolve) => {
        execFile(process.execPath, [mocha, ...SUITE_FILES], {
          cwd: ROOT, timeout: 220_000, maxBuffer: 16 * 1024 * 1024,
          env: { ...process.env, ROCKETMQ_NAMESRV_ADDR: ctx.server.namesrvAddr, ROCKETMQ_LOG_LEVEL: 'silent' },
        }, (_err, stdout, stderr) => resolve(stdout + stderr));
      });
      const m = /^(\d+) passed, (\d+) failed/m.exec(out);
      check(m !== null, `no totals line: ${out.slice(-300)}`);
      // The failures section starts at the last "  1) " line: its title, then the error message.
      const lines = out.split('\n');
      let at = -1;
      lines.forEach((l, i) => { if (/^\s+1\) /.test(l)) at = i; });
      const failing = lines.slice(Math.max(0, at)).filter((l) => l.trim() && !/^\s+at /.test(l)).slice(0, 6).map((l) => l.trim()).join(' ');
      check(m[2] === '0', `${m[2]} failed: ${failing}`);
      check(Number(m[1]) >= 10, `only ${m[1]} passed`);
    },
  },
  {
    section: SECTION, row: 'send: sync', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_SYNC');
      await ctx.createTopic(topic);
      const p = await producer(ctx);
      for (const m of msgs(topic, 8)) {
        const r = await p.send(m);
        check(r.sendStatus === SendStatus.SEND_OK, `status ${r.sendStatus}`);
        check(r.messageQueue.brokerName === ctx.server.brokerName, `sent to ${r.messageQueue.brokerName}`);
      }
      const got = await consumeKeys(ctx, topic, 8);
      check(got.get('k3')?.body.toString() === 'body-3', 'k3 body differs');
    },
  },
  {
    section: SECTION, row: 'send: async (Promise and callback)', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_ASYNC');
      await ctx.createTopic(topic);
      const p = await producer(ctx);
      const ms = msgs(topic, 8);
      const rs = await Promise.all(ms.slice(0, 6).map((m) => p.sendAsync(m)));
      check(rs.every((r) => r.sendStatus === SendStatus.SEND_OK), 'an async send was not SEND_OK');
      await Promise.all(ms.slice(6).map((m) => new Promise<void>((resolve, reject) => {
        p.send(m, { onSuccess: () => resolve(), onException: (e) => reject(e) });
      })));
      await consumeKeys(ctx, topic, 8);
    },
  },
  {
    section: SECTION, row: 'send: oneway', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_ONEWAY');
      await ctx.createTopic(topic);
      const p = await producer(ctx);
      for (const m of msgs(topic, 8)) await p.sendOneway(m);
      await consumeKeys(ctx, topic, 8);
    },
  },
  {
    section: SECTION, row: 'send: batch', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_BATCH');
      await ctx.createTopic(topic);
      const p = await producer(ctx);
      const r = await p.send(msgs(topic, 16, (i) => ({ props: { idx: String(i) } })));
      check(r.sendStatus === SendStatus.SEND_OK, `status ${r.sendStatus}`);
      check(r.msgId.split(',').length === 16, `batch result has ${r.msgId.split(',').length} ids`);
      const got = await consumeKeys(ctx, topic, 16);
      check(got.get('k9')?.properties.idx === '9', 'a batch member lost its own property');
    },
  },
  {
    section: SECTION, row: 'send: selector / orderly send to one queue', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_SEL');
      await ctx.createTopic(topic, 4);
      const p = await producer(ctx);
      const queues = new Set<number>();
      for (const m of msgs(topic, 8)) queues.add((await p.send(m, new SelectMessageQueueByHash(), 'order-7')).messageQueue.queueId);
      check(queues.size === 1, `one order spread over queues ${[...queues].join(',')}`);
      const got = await consumeKeys(ctx, topic, 8);
      check([...got.values()].every((m) => m.queueId === [...queues][0]), 'stored on another queue');
    },
  },
  {
    section: SECTION, row: 'send: delay level', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_DELAY');
      await ctx.createTopic(topic);
      const p = await producer(ctx);
      const m = createMessage(topic, 'delayed', { keys: 'd1' });
      setDelayTimeLevel(m, 2);
      const sentAt = Date.now();
      check((await p.send(m)).sendStatus === SendStatus.SEND_OK, 'not SEND_OK');
      const got = await consumeKeys(ctx, topic, 1);
      const d = got.get('d1')!;
      // The broker re-stores the message when its level (2 s here) is due: stored no earlier than ~2 s after the send.
      check(d.storeTimestamp - d.bornTimestamp >= 1500 || Date.now() - sentAt >= 1500, 'delivered before its delay');
      check(d.properties.DELAY === '2' && d.properties.REAL_TOPIC === topic, `delay properties ${JSON.stringify(d.properties)}`);
    },
  },
  {
    section: SECTION, row: 'consume: tag filter', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_TAG');
      await ctx.createTopic(topic);
      const p = await producer(ctx);
      await p.send(msgs(topic, 12, (i) => ({ tags: ['a', 'b', 'c'][i % 3] })));
      const got = await consumeKeys(ctx, topic, 8, 'b || c');
      await new Promise((r) => setTimeout(r, 500));
      check([...got.values()].every((m) => m.properties.TAGS !== 'a'), 'a tag-a message was delivered');
      check(got.size === 8, `${got.size} delivered`);
    },
  },
  {
    section: SECTION, row: 'consume: SQL92 filter', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_SQL');
      await ctx.createTopic(topic);
      const p = await producer(ctx);
      await p.send(msgs(topic, 10, (i) => ({ props: { a: String(i), s: i % 2 ? 'odd' : 'even' } })));
      const got = await consumeKeys(ctx, topic, 3, MessageSelector.bySql("a > 3 AND s = 'odd' OR a IS NULL"));
      await new Promise((r) => setTimeout(r, 500));
      check([...got.keys()].sort().join(',') === 'k5,k7,k9', `got ${[...got.keys()].sort().join(',')}`);
    },
  },
  {
    section: SECTION, row: 'consume: maxReconsumeTimes → %DLQ%', alsoRows: ['consume: RECONSUME_LATER → %RETRY% (reconsumeTimes)'], client: 'ours', timeoutMs: 90_000,
    async run(ctx) {
      const topic = ctx.name('CT_RETRY');
      const group = ctx.name('CG_RETRY');
      await ctx.createTopic(topic, 1);
      const p = await producer(ctx);
      await p.send(createMessage(topic, 'fails', { keys: 'r1' }));
      const deliveries: number[] = [];
      const c = pushConsumer(ctx, group, { maxReconsumeTimes: 2 });
      c.subscribe(topic, '*');
      c.registerMessageListener((ms) => {
        for (const m of ms) deliveries.push(m.reconsumeTimes);
        return ConsumeConcurrentlyStatus.RECONSUME_LATER;
      });
      await c.start();
      await until(() => deliveries.length >= 3, 60_000, `3 deliveries (got ${deliveries.join(',')})`);
      check(deliveries.slice(0, 3).join(',') === '0,1,2', `reconsumeTimes ${deliveries.join(',')}`);
      const dlq = `%DLQ%${group}`;
      await until(async () => (await ctx.admin.examineTopicRouteInfo(dlq)).queueDatas.length > 0 && (await storedCount(ctx, dlq)) === 1, 30_000, `the message in ${dlq}`);
      const q = await ctx.admin.examineTopicStats(`%RETRY%${group}`);
      check(q.offsetTable.reduce((n, [, o]) => n + o.maxOffset, 0) >= 2, 'no message went through the retry topic');
    },
  },
  {
    section: SECTION, row: 'consume: broadcasting', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_BCAST');
      const group = ctx.name('CG_BCAST');
      await ctx.createTopic(topic);
      const p = await producer(ctx);
      const seen = [new Set<string>(), new Set<string>()];
      for (const s of seen) {
        const c = pushConsumer(ctx, group, { messageModel: 'BROADCASTING' });
        c.subscribe(topic, '*');
        c.registerMessageListener((ms) => { for (const m of ms) s.add(getKeys(m) ?? ''); return ConsumeConcurrentlyStatus.CONSUME_SUCCESS; });
        await c.start();
      }
      await p.send(msgs(topic, 8));
      await until(() => seen.every((s) => s.size === 8), 60_000, `8 messages at both members (${seen.map((s) => s.size).join(',')})`);
    },
  },
  {
    section: SECTION, row: 'consume: orderly with broker locks', client: 'ours', timeoutMs: 90_000,
    async run(ctx) {
      const topic = ctx.name('CT_ORDER');
      const group = ctx.name('CG_ORDER');
      await ctx.createTopic(topic, 4);
      const p = await producer(ctx);
      for (let step = 0; step < 5; step++) {
        for (let order = 0; order < 4; order++) {
          await p.send(createMessage(topic, `${order}-${step}`, { keys: `${order}-${step}` }), new SelectMessageQueueByHash(), order);
        }
      }
      const steps = new Map<string, number[]>();
      const lockedBy = new Map<number, Set<number>>();
      let suspended = false;
      const consumers = [0, 1].map((who) => {
        const c = pushConsumer(ctx, group);
        c.subscribe(topic, '*');
        c.registerMessageListenerOrderly((ms, context) => {
          for (const m of ms) {
            const [order, step] = (getKeys(m) ?? '').split('-');
            if (!suspended && step === '2') {
              suspended = true;
              context.suspendCurrentQueueTimeMillis = 100;
              return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
            }
            steps.set(order, [...(steps.get(order) ?? []), Number(step)]);
            const s = lockedBy.get(context.messageQueue.queueId) ?? new Set<number>();
            s.add(who);
            lockedBy.set(context.messageQueue.queueId, s);
          }
          return ConsumeOrderlyStatus.SUCCESS;
        });
        return c;
      });
      await consumers[0].start();
      await consumers[1].start();
      await until(() => [...steps.values()].reduce((n, s) => n + s.length, 0) >= 20, 60_000, 'all 20 ordered messages');
      for (const [order, s] of steps) check(s.every((v, i) => v === i), `order ${order} out of sequence: ${s.join(',')}`);
      const locks = await ctx.admin.examineConsumerConnectionInfo(group);
      check(locks.connectionSet.length === 2, `${locks.connectionSet.length} connections in the group`);
    },
  },
  {
    section: SECTION, row: 'consume: lite pull (subscribe, commit, seek)', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_LITE');
      const group = ctx.name('CG_LITE');
      await ctx.createTopic(topic, 2);
      const p = await producer(ctx);
      await sendEach(p, msgs(topic, 10));
      const c = new DefaultLitePullConsumer({ consumerGroup: group, namesrvAddr: ctx.server.namesrvAddr, autoCommit: false, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: ctx.name('l') });
      ctx.defer(() => c.shutdown());
      c.subscribe(topic, '*');
      await c.start();
      const seen = new Set<string>();
      await until(async () => {
        for (const m of await c.poll(500)) seen.add(getKeys(m) ?? '');
        await c.commitSync();
        return seen.size === 10;
      }, 60_000, `10 polled (${seen.size})`);
      const mq = c.assignment().find((q) => q.queueId === 0)!;
      await until(async () => (await c.committed(mq)) > 0, 10_000, 'a committed offset');
      await c.seekToBegin(mq);
      let again = 0;
      await until(async () => { again += (await c.poll(500)).length; return again > 0; }, 20_000, 'messages again after seekToBegin');
    },
  },
  {
    section: SECTION, row: 'transactions: commit, rollback, check-back', client: 'ours', timeoutMs: 120_000,
    async run(ctx) {
      const topic = ctx.name('CT_TXN');
      await ctx.createTopic(topic, 2);
      const checked = new Set<string>();
      const p = new TransactionMQProducer({
        producerGroup: ctx.name('PG_TXN'), namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('t'),
        transactionListener: {
          executeLocalTransaction: (_m, arg) => [LocalTransactionState.COMMIT_MESSAGE, LocalTransactionState.ROLLBACK_MESSAGE, LocalTransactionState.UNKNOW][arg as number],
          // Answer with the local outcome, as an application must: 5.3.3 writes its op messages in batches (every
          // transactionOpBatchInterval, 3 s), so an ended half message can still be checked (docs/compat-notes.md).
          checkLocalTransaction: (m) => {
            checked.add(getKeys(m) ?? '');
            return getKeys(m) === 't1' ? LocalTransactionState.ROLLBACK_MESSAGE : LocalTransactionState.COMMIT_MESSAGE;
          },
        },
      });
      await p.start();
      ctx.defer(() => p.shutdown());
      for (let i = 0; i < 3; i++) {
        const r = await p.sendMessageInTransaction(createMessage(topic, `t${i}`, { keys: `t${i}` }), i);
        check(r.sendStatus === SendStatus.SEND_OK, `half message ${i}: ${r.sendStatus}`);
      }
      await until(() => checked.has('t2'), 90_000, 'the check-back of the UNKNOW transaction');
      const got = await consumeKeys(ctx, topic, 2);
      await new Promise((r) => setTimeout(r, 1000));
      check([...got.keys()].sort().join(',') === 't0,t2', `delivered ${[...got.keys()].sort().join(',')}`);
    },
  },
  {
    section: SECTION, row: 'admin: cluster, route, topic and group config, stats, connections', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_ADMIN');
      const group = ctx.name('CG_ADMIN');
      const { admin, server } = ctx;
      const info = await admin.examineBrokerClusterInfo();
      check(info.clusterAddrTable.get(server.clusterName)?.includes(server.brokerName), 'broker not in clusterList');
      await ctx.createTopic(topic, 3);
      check((await admin.examineTopicRouteInfo(topic)).queueDatas.find((q) => q.brokerName === server.brokerName)?.writeQueueNums === 3, 'route without 3 write queues');
      check((await admin.fetchAllTopicList()).topicList.includes(topic), 'topic not listed');
      await admin.createAndUpdateSubscriptionGroupConfig(server.brokerAddr, newSubscriptionGroupConfig(group, { retryMaxTimes: 5 }));
      const p = await producer(ctx);
      await p.send(msgs(topic, 6));
      const c = pushConsumer(ctx, group);
      c.subscribe(topic, '*');
      c.registerMessageListener(() => ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
      await c.start();
      await until(async () => (await admin.examineConsumeStats(group)).offsetTable.reduce((n, [, o]) => n + o.consumerOffset, 0) === 6, 30_000, 'consume stats at 6');
      const conn = await admin.examineConsumerConnectionInfo(group);
      check(conn.connectionSet.length === 1, 'no consumer connection');
      const who = await admin.queryTopicConsumeByWho(topic);
      check(who.groupList.includes(group), 'queryTopicConsumeByWho misses the group');
      const conf = await admin.getBrokerConfig(server.brokerAddr);
      check(conf.get('brokerName') === server.brokerName, 'getBrokerConfig brokerName');
      check((await admin.fetchBrokerRuntimeStats(server.brokerAddr)).table.size > 5, 'runtime stats empty');
    },
  },
  {
    section: SECTION, row: 'admin: query by key, by unique key, view by offset id', client: 'ours',
    async run(ctx) {
      const topic = ctx.name('CT_QUERY');
      await ctx.createTopic(topic, 2);
      const p = await producer(ctx);
      const r = await p.send(createMessage(topic, 'find me', { keys: 'order-42' }));
      await until(async () => (await ctx.admin.queryMessage(topic, 'order-42', 32, 0, Date.now() + 60_000)).messageList.length === 1, 30_000, 'the key indexed');
      const byId = await ctx.admin.queryMessageByUniqKey(topic, r.msgId);
      check(byId.body.toString() === 'find me', 'queryMessageByUniqKey body');
      const viewed = await ctx.admin.viewMessage(r.offsetMsgId);
      check(viewed.body.toString() === 'find me' && viewed.msgId === r.msgId, 'viewMessage');
    },
  },
  {
    section: SECTION, row: 'admin: reset offset by time (running consumer)', client: 'ours', timeoutMs: 90_000,
    async run(ctx) {
      const topic = ctx.name('CT_RESET');
      const group = ctx.name('CG_RESET');
      await ctx.createTopic(topic, 2);
      const p = await producer(ctx);
      await sendEach(p, msgs(topic, 6));
      const counts = new Map<string, number>();
      const c = pushConsumer(ctx, group);
      c.subscribe(topic, '*');
      c.registerMessageListener((ms) => { for (const m of ms) counts.set(getKeys(m) ?? '', (counts.get(getKeys(m) ?? '') ?? 0) + 1); return ConsumeConcurrentlyStatus.CONSUME_SUCCESS; });
      await c.start();
      await until(() => counts.size === 6, 30_000, '6 consumed');
      await until(async () => (await ctx.admin.examineConsumeStats(group)).offsetTable.reduce((n, [, o]) => n + o.consumerOffset, 0) === 6, 30_000, 'offsets committed');
      const table = await ctx.admin.resetOffsetByTimestamp(topic, group, 0, true);
      check(table.length === 2, `reset answered ${table.length} queues`);
      await until(() => [...counts.values()].every((n) => n >= 2), 60_000, 'every message delivered again after the reset');
    },
  },
];
