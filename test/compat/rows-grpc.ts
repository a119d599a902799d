/**
 * Part 5: the Node 5.x gRPC client (rocketmq-client-nodejs, the official 5.x client) against our broker's gRPC
 * endpoint (`rocketmq-ts start --grpc-port`, no proxy): produce and consume, its PushConsumer, delay, FIFO,
 * transactions, tag filters, and the rows where it shares a topic with remoting clients (ours, the Java 4.9.8 client
 * through test/java/MixedClientDriver.java). A Java broker serves no gRPC without Java's proxy, which this setup does
 * not run: the Java columns are n.a.
 */
import { ConsumeResult, Producer, PushConsumer, SimpleConsumer, type MessageView } from 'rocketmq-client-nodejs';
import { ConsumeConcurrentlyStatus, DefaultMQProducer, DefaultMQPushConsumer, createMessage } from '../../lib/index';
import { newSubscriptionGroupConfig } from '../../protocol/body/subscription-group-wrapper';
import { newTopicConfig } from '../../protocol/body/topic-config';
import { clientLogger as logger } from '../helpers/grpc-client-nodejs';
import { javaSkipReason } from '../helpers/javaref';
import { javaMixedConsume, javaMixedProduce, md5Hex, mixedBody } from '../helpers/mixed-client-driver';
import { CompatFailure, check, until, type Ctx, type Scenario } from './scenario';

const SECTION = 'Node 5.x gRPC client (rocketmq-client-nodejs) → server, no proxy';

const NO_PROXY = 'a Java broker serves no gRPC: 5.x clients need Java\'s proxy (rocketmq-proxy) in front of it, and there is no'
  + ' Java proxy here; our broker serves the 5.x gRPC protocol itself (docs/grpc.md)';
const NA_JAVA: Scenario['na'] = { '4.9.8': NO_PROXY, '5.3.3': NO_PROXY };

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TransactionResolution } = require('rocketmq-client-nodejs/proto/apache/rocketmq/v2/definition_pb') as {
  TransactionResolution: { TRANSACTION_RESOLUTION_UNSPECIFIED: number; COMMIT: number; ROLLBACK: number };
};

type MessageType = 'NORMAL' | 'FIFO' | 'DELAY' | 'TRANSACTION';

function endpoints(ctx: Ctx): string {
  const e = ctx.server.grpcEndpoints;
  if (!e) throw new CompatFailure(`${ctx.server.id} has no gRPC endpoint`);
  return e;
}

/** A topic of `queues` queues on the server's broker with its `message.type` (a 5.x client checks it before a send). */
async function topicOfType(ctx: Ctx, prefix: string, type: MessageType, queues = 4): Promise<string> {
  const topic = ctx.name(prefix);
  await ctx.admin.createAndUpdateTopicConfig(ctx.server.brokerAddr, newTopicConfig(topic, {
    readQueueNums: queues, writeQueueNums: queues, attributes: new Map([['+message.type', type]]),
  }));
  await until(async () => (await ctx.admin.examineTopicRouteInfo(topic)).queueDatas.some((q) => q.brokerName === ctx.server.brokerName), 30_000, `route of ${topic}`);
  return topic;
}

async function grpcProducer(ctx: Ctx, topics: string[], checker?: { check(m: MessageView): Promise<number> }): Promise<Producer> {
  const p = new Producer({ endpoints: endpoints(ctx), namespace: '', topics, logger, ...(checker ? { checker } : {}) });
  await p.startup();
  ctx.defer(() => p.shutdown());
  return p;
}

async function simpleConsumer(ctx: Ctx, group: string, topic: string, filter = '*'): Promise<SimpleConsumer> {
  const c = new SimpleConsumer({ endpoints: endpoints(ctx), namespace: '', consumerGroup: group, subscriptions: new Map([[topic, filter]]), awaitDuration: 5000, logger });
  await c.startup();
  ctx.defer(() => c.shutdown());
  return c;
}

/** Receives (and acks, unless told not to) until `count` messages came; every message's digest must hold. */
async function receive(c: SimpleConsumer, count: number, what: string, opts: { invisibleMs?: number; ack?: boolean } = {}): Promise<MessageView[]> {
  const got: MessageView[] = [];
  await until(async () => {
    for (const m of await c.receive(16, opts.invisibleMs ?? 20_000)) {
      check(m.corrupted !== true, `the digest of ${m.messageId} does not match its body`);
      got.push(m);
      if (opts.ack !== false) await c.ack(m);
    }
    return got.length >= count;
  }, 60_000, `${what}: ${got.length} of ${count}`);
  return got;
}

/** Messages in the topic's queues (max - min offset over the queues). */
async function stored(ctx: Ctx, topic: string): Promise<number> {
  const stats = await ctx.admin.examineTopicStats(topic);
  return stats.offsetTable.reduce((n, [, o]) => n + o.maxOffset - o.minOffset, 0);
}

const sameIds = (got: Iterable<string>, want: Iterable<string>): boolean => [...got].sort().join(',') === [...want].sort().join(',');

function grpcRow(row: string, run: (ctx: Ctx) => Promise<void>, extra: Partial<Scenario> = {}): Scenario {
  return { section: SECTION, row, client: 'grpc', na: NA_JAVA, timeoutMs: 120_000, ...extra, run };
}

export const GRPC_ROWS: Scenario[] = [
  grpcRow('gRPC: Producer send, SimpleConsumer receive and ack (8 KiB bodies included)', async (ctx) => {
    const topic = await topicOfType(ctx, 'GT', 'NORMAL');
    const p = await grpcProducer(ctx, [topic]);
    const sent = new Map<string, { i: number; body: Buffer }>();
    for (let i = 0; i < 8; i++) {
      const body = mixedBody(i, i % 4 === 0 ? 8192 : 64, 'grpc body');
      const r = await p.send({ topic, tag: 'T', keys: [`k${i}`], body, properties: new Map([['seq', String(i)]]) });
      check(/^[0-9A-F]{34}$/.test(r.messageId), `message id ${r.messageId} is not a 5.x id`);
      sent.set(r.messageId, { i, body });
    }
    const c = await simpleConsumer(ctx, ctx.name('GCG'), topic);
    const invisibleMs = 10_000;
    const got = await receive(c, sent.size, 'the SimpleConsumer', { invisibleMs });
    const ackedAt = Date.now();
    check(sameIds(got.map((m) => m.messageId), sent.keys()), `received ${got.map((m) => m.messageId).join(',')}`);
    for (const m of got) {
      const s = sent.get(m.messageId)!;
      check(m.body.equals(s.body), `body of message ${s.i}`);
      check(m.tag === 'T' && m.keys.join(',') === `k${s.i}` && m.properties.get('seq') === String(s.i) && m.deliveryAttempt === 1,
        `message ${s.i}: tag ${m.tag}, keys ${m.keys.join(',')}, seq ${m.properties.get('seq')}, attempt ${m.deliveryAttempt}`);
    }
    // Acked: once their invisible time is over they do not come back.
    await until(() => Date.now() > ackedAt + invisibleMs + 1000, invisibleMs + 5000, 'the invisible time to pass');
    const again = await c.receive(16, invisibleMs);
    check(again.length === 0, `${again.length} acked messages came back`);
  }),

  grpcRow('gRPC: PushConsumer (a failed first attempt comes back as attempt 2)', async (ctx) => {
    const topic = await topicOfType(ctx, 'GTP', 'NORMAL', 2);
    const p = await grpcProducer(ctx, [topic]);
    const names = new Map<string, string>();
    for (let i = 0; i < 6; i++) {
      const name = i === 3 ? 'fail-once' : `ok-${i}`;
      names.set((await p.send({ topic, tag: 'P', keys: [name], body: Buffer.from(name) })).messageId, name);
    }
    const attempts = new Map<string, number[]>();
    const consumer = new PushConsumer({
      endpoints: endpoints(ctx), namespace: '', consumerGroup: ctx.name('GPC'), subscriptions: new Map([[topic, '*']]), logger,
      messageListener: {
        consume(m: MessageView) {
          const name = m.body.toString();
          const seen = [...(attempts.get(name) ?? []), m.deliveryAttempt ?? 0];
          attempts.set(name, seen);
          return name === 'fail-once' && seen.length === 1 ? ConsumeResult.FAILURE : ConsumeResult.SUCCESS;
        },
      },
    });
    // Its shutdown waits for the receive under way, held up to the long-polling time (20 s, the runner's cleanup
    // budget): left to finish on its own (a late error of it is ignored, see grpc-client-nodejs.ts).
    ctx.defer(() => { void consumer.shutdown().catch(() => undefined); });
    await consumer.startup();
    await until(() => attempts.size === 6 && (attempts.get('fail-once')?.length ?? 0) >= 2, 90_000, `every message consumed (${attempts.size} of 6)`);
    check([...attempts.keys()].every((n) => [...names.values()].includes(n)), `unknown bodies ${[...attempts.keys()].join(',')}`);
    check(attempts.get('fail-once')!.join(',') === '1,2', `attempts of the failed message ${attempts.get('fail-once')!.join(',')}`);
    for (const [n, a] of attempts) if (n !== 'fail-once') check(a.join(',') === '1', `attempts of ${n}: ${a.join(',')}`);
  }),

  grpcRow('gRPC: delay message (deliveryTimestamp)', async (ctx) => {
    const topic = await topicOfType(ctx, 'GTD', 'DELAY', 2);
    const p = await grpcProducer(ctx, [topic]);
    const due = new Date(Date.now() + 4000);
    const { messageId } = await p.send({ topic, tag: 'D', body: Buffer.from('delayed'), deliveryTimestamp: due });
    // The timer wheel delivers by its precision (1 s), never earlier than that before the time asked.
    const precisionMs = 1000;
    if (Date.now() < due.getTime() - precisionMs) check(await stored(ctx, topic) === 0, 'the delay message is in its topic before its time');
    const c = await simpleConsumer(ctx, ctx.name('GCD'), topic);
    const [m] = await receive(c, 1, 'the delay message');
    const at = Date.now();
    check(m.messageId === messageId && m.body.toString() === 'delayed', `received ${m.messageId}`);
    check(m.deliveryTimestamp?.getTime() === due.getTime(), `delivery timestamp ${m.deliveryTimestamp?.toISOString()}, sent ${due.toISOString()}`);
    check(at >= due.getTime() - precisionMs, `delivered ${due.getTime() - at} ms before its time`);
  }),

  grpcRow('gRPC: FIFO (message groups, order per group)', async (ctx) => {
    // One queue, three message groups in it: a receive of 3 takes its head, and until those are acked the queue
    // gives nothing more (a normal group would be given the next 3).
    const topic = await topicOfType(ctx, 'GTF', 'FIFO', 1);
    const group = ctx.name('GFG');
    await ctx.admin.createAndUpdateSubscriptionGroupConfig(ctx.server.brokerAddr, newSubscriptionGroupConfig(group, { extra: { consumeMessageOrderly: true } }));
    const p = await grpcProducer(ctx, [topic]);
    const messageGroups = ['ga', 'gb', 'gc'];
    for (let seq = 0; seq < 5; seq++) {
      for (const mg of messageGroups) await p.send({ topic, tag: 'F', messageGroup: mg, body: Buffer.from(`${mg}-${seq}`) });
    }
    const c = await simpleConsumer(ctx, group, topic);
    const head: MessageView[] = [];
    await until(async () => {
      head.push(...await c.receive(3, 30_000));
      return head.length > 0;
    }, 60_000, 'the head of the queue');
    check(head.map((m) => m.body.toString()).join(',') === 'ga-0,gb-0,gc-0', `the head of the queue: ${head.map((m) => m.body.toString()).join(',')}`);
    const during = await c.receive(3, 30_000);
    check(during.length === 0, `while the head was not acked the queue gave ${during.map((m) => m.body.toString()).join(',')}`);
    for (const m of head) await c.ack(m);
    const got = [...head, ...await receive(c, 12, 'the rest of the FIFO messages')];
    for (const mg of messageGroups) {
      const order = got.filter((m) => m.messageGroup === mg).map((m) => Number(m.body.toString().split('-')[1]));
      check(order.join(',') === '0,1,2,3,4', `message group ${mg} came in the order ${order.join(',')}`);
    }
  }, {
    na: NA_JAVA,
  }),

  grpcRow('gRPC: transactional send, commit', async (ctx) => {
    const topic = await topicOfType(ctx, 'GTX', 'TRANSACTION', 1);
    // The check (1 s after the half message) finds the transaction still open: only the client's commit ends it.
    const p = await grpcProducer(ctx, [topic], { check: async () => TransactionResolution.TRANSACTION_RESOLUTION_UNSPECIFIED });
    const tx = p.beginTransaction();
    const r = await p.send({ topic, tag: 'TX', keys: ['tx-1'], body: Buffer.from('committed') }, tx);
    check(r.transactionId === r.messageId, `transaction id ${r.transactionId}, message id ${r.messageId}`);
    check(await stored(ctx, topic) === 0, 'the half message is in its topic before the commit');
    await tx.commit();
    await until(async () => (await stored(ctx, topic)) === 1, 30_000, 'the committed message in its topic');
    const c = await simpleConsumer(ctx, ctx.name('GCX'), topic);
    const [m] = await receive(c, 1, 'the committed message');
    check(m.messageId === r.messageId && m.body.toString() === 'committed' && m.tag === 'TX', `received ${m.messageId} ${m.body.toString()}`);
    check(await stored(ctx, topic) === 1, 'committed more than once');
  }),

  grpcRow('gRPC: SimpleConsumer with a tag filter', async (ctx) => {
    const topic = await topicOfType(ctx, 'GTT', 'NORMAL', 2);
    const p = await grpcProducer(ctx, [topic]);
    const want = new Set<string>();
    for (let i = 0; i < 9; i++) {
      const tag = 'ABC'[i % 3];
      const r = await p.send({ topic, tag, body: Buffer.from(`${tag}${i}`) });
      if (tag !== 'C') want.add(r.messageId);
    }
    const c = await simpleConsumer(ctx, ctx.name('GCT'), topic, 'A || B');
    const got = await receive(c, want.size, 'the A and B messages');
    check(sameIds(got.map((m) => m.messageId), want), `received tags ${got.map((m) => m.tag).join(',')}`);
    const more = await c.receive(16, 20_000);
    check(more.length === 0, `also received tags ${more.map((m) => m.tag).join(',')}`);
  }),

  grpcRow('gRPC: our remoting producer → gRPC SimpleConsumer (8 KiB bodies, sent compressed, included)', async (ctx) => {
    const topic = await topicOfType(ctx, 'GTR', 'NORMAL');
    const rp = new DefaultMQProducer({ producerGroup: ctx.name('RPG'), namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('rp'), sendMsgTimeout: 15_000 });
    await rp.start();
    ctx.defer(() => rp.shutdown());
    const sent = new Map<string, { i: number; body: Buffer }>();
    for (let i = 0; i < 6; i++) {
      const body = mixedBody(i, i % 3 === 0 ? 8192 : 100, 'remoting body');
      const r = await rp.send(createMessage(topic, body, { tags: 'R', keys: [`rk${i}`], properties: { origin: `remoting${i}` } }));
      check(r.sendStatus === 'SEND_OK', `send ${r.sendStatus}`);
      sent.set(r.msgId, { i, body });
    }
    const c = await simpleConsumer(ctx, ctx.name('GCR'), topic);
    const got = await receive(c, sent.size, 'the SimpleConsumer');
    check(sameIds(got.map((m) => m.messageId), sent.keys()), `received ${got.map((m) => m.messageId).join(',')}`);
    for (const m of got) {
      const s = sent.get(m.messageId)!;
      check(m.body.equals(s.body), `body of message ${s.i} (${m.body.length} bytes, sent ${s.body.length})`);
      check(m.tag === 'R' && m.keys.join(',') === `rk${s.i}` && m.properties.get('origin') === `remoting${s.i}`,
        `message ${s.i}: tag ${m.tag}, keys ${m.keys.join(',')}, origin ${m.properties.get('origin')}`);
    }
  }, { alsoClients: ['ours'] }),

  grpcRow('gRPC: gRPC Producer → our remoting push consumer', async (ctx) => {
    const topic = await topicOfType(ctx, 'GTG', 'NORMAL');
    const p = await grpcProducer(ctx, [topic]);
    const sent = new Map<string, { i: number; body: Buffer }>();
    for (let i = 0; i < 6; i++) {
      const body = mixedBody(i, i % 3 === 0 ? 8192 : 64, 'grpc body');
      const r = await p.send({ topic, tag: 'G', keys: [`gk${i}`, `gk${i}b`], body, properties: new Map([['origin', `grpc${i}`]]) });
      sent.set(r.messageId, { i, body });
    }
    const consumer = new DefaultMQPushConsumer({
      consumerGroup: ctx.name('RCG'), namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('rc'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    ctx.defer(() => consumer.shutdown());
    const seen = new Map<string, { body: Buffer; tags?: string; keys?: string; origin?: string }>();
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener((msgs) => {
      for (const m of msgs) seen.set(m.msgId, { body: Buffer.from(m.body), tags: m.properties.TAGS, keys: m.properties.KEYS, origin: m.properties.origin });
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await consumer.start();
    await until(() => seen.size >= sent.size, 60_000, `our push consumer got ${seen.size} of ${sent.size}`);
    check(sameIds(seen.keys(), sent.keys()), `received ${[...seen.keys()].join(',')}`);
    for (const [id, m] of seen) {
      const s = sent.get(id)!;
      check(m.body.equals(s.body), `body of message ${s.i}`);
      check(m.tags === 'G' && m.keys === `gk${s.i} gk${s.i}b` && m.origin === `grpc${s.i}`, `message ${s.i}: tags ${m.tags}, keys ${m.keys}, origin ${m.origin}`);
    }
  }, { alsoClients: ['ours'] }),

  grpcRow('gRPC: a Java 4.9.8 client and a gRPC client on one topic (each produces, each consumes all)', async (ctx) => {
    const skip = javaSkipReason('4.9.8');
    check(skip === null, skip ?? '');
    const topic = await topicOfType(ctx, 'GTJ', 'NORMAL');
    // Java: 6000-byte bodies, which the 4.9.8 client sends zlib-compressed.
    const javaSent = await javaMixedProduce(ctx.server.namesrvAddr, topic, { group: ctx.name('JPG'), count: 4, tag: 'J', keys: 'jk{i}', prop: 'origin=java{i}', size: 6000 });
    const p = await grpcProducer(ctx, [topic]);
    const grpcSent = new Map<string, number>();
    for (let i = 0; i < 4; i++) {
      const r = await p.send({ topic, tag: 'G', keys: [`gk${i}`], body: mixedBody(i, i % 2 ? 8192 : 64, 'grpc body'), properties: new Map([['origin', `grpc${i}`]]) });
      grpcSent.set(r.messageId, i);
    }
    const javaIds = new Map(javaSent.map((s) => [s.msgId, s.i]));
    const all = [...javaIds.keys(), ...grpcSent.keys()];
    const [javaGot, grpcGot] = await Promise.all([
      javaMixedConsume(ctx.server.namesrvAddr, topic, ctx.name('JCG'), all.length, { timeoutS: 60 }),
      simpleConsumer(ctx, ctx.name('GCJ'), topic).then((c) => receive(c, all.length, 'the gRPC consumer')),
    ]);
    check(sameIds(new Set(javaGot.map((m) => m.msgId)), all), `the Java consumer got ${javaGot.length} (${new Set(javaGot.map((m) => m.msgId)).size} distinct) of ${all.length}`);
    check(sameIds(grpcGot.map((m) => m.messageId), all), `the gRPC consumer got ${grpcGot.length} of ${all.length}`);
    for (const m of javaGot) {
      const fromJava = javaIds.has(m.msgId);
      const i = fromJava ? javaIds.get(m.msgId)! : grpcSent.get(m.msgId)!;
      const body = fromJava ? mixedBody(i, 6000) : mixedBody(i, i % 2 ? 8192 : 64, 'grpc body');
      const origin = fromJava ? `java${i}` : `grpc${i}`;
      check(m.bodyMd5 === md5Hex(body) && m.tags === (fromJava ? 'J' : 'G') && m.keys.join(',') === `${fromJava ? 'j' : 'g'}k${i}` && m.properties.get('origin') === origin,
        `the Java consumer's ${origin}: tags ${m.tags}, keys ${m.keys.join(',')}, origin ${m.properties.get('origin')}, body ${m.bodyLength} bytes`);
    }
    for (const m of grpcGot) {
      const fromJava = javaIds.has(m.messageId);
      const i = fromJava ? javaIds.get(m.messageId)! : grpcSent.get(m.messageId)!;
      const body = fromJava ? mixedBody(i, 6000) : mixedBody(i, i % 2 ? 8192 : 64, 'grpc body');
      const origin = fromJava ? `java${i}` : `grpc${i}`;
      check(m.body.equals(body) && m.tag === (fromJava ? 'J' : 'G') && m.keys.join(',') === `${fromJava ? 'j' : 'g'}k${i}` && m.properties.get('origin') === origin,
        `the gRPC consumer's ${origin}: tag ${m.tag}, keys ${m.keys.join(',')}, origin ${m.properties.get('origin')}, body ${m.body.length} bytes`);
    }
  }, { alsoClients: ['java'], timeoutMs: 180_000 }),
];
