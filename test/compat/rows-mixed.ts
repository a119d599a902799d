/**
 * Part 3: mixed rows (a Java consumer and ours in one group, our producer -> Java consumer, Java producer -> our
 * consumer, our broker in a Java name server, a Java broker in ours) and part 4: ali-ons against every server.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import {
  ConsumeConcurrentlyStatus, DefaultMQProducer, DefaultMQPushConsumer, createMessage, getKeys, messageQueueKey, type MessageExt,
} from '../../lib/index';
import { newTopicConfig } from '../../protocol/body/topic-config';
import { harnessLines, javaSkipReason, runHarness, startHarness, startJavaBroker, type JavaVersion } from '../helpers/javaref';
import { check, until, type Ctx, type Scenario } from './scenario';
import { COMPAT_BROKER_CONF, startOurBroker, waitForBroker } from './servers';

const SECTION = 'mixed: our client and Java 4.9.8 client together';

async function ourProducer(ctx: Ctx, namesrvAddr = ctx.server.namesrvAddr): Promise<DefaultMQProducer> {
  const p = new DefaultMQProducer({ producerGroup: ctx.name('PG'), namesrvAddr, instanceName: ctx.name('p'), sendMsgTimeout: 15_000 });
  await p.start();
  ctx.defer(() => p.shutdown());
  return p;
}

function ourConsumer(ctx: Ctx, group: string, topic: string, got: Map<string, MessageExt[]>, namesrvAddr = ctx.server.namesrvAddr): DefaultMQPushConsumer {
  const c = new DefaultMQPushConsumer({ consumerGroup: group, namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: ctx.name('c') });
  ctx.defer(() => c.shutdown());
  c.subscribe(topic, '*');
  c.registerMessageListener((ms) => {
    for (const m of ms) got.set(getKeys(m) ?? m.msgId, [...(got.get(getKeys(m) ?? m.msgId) ?? []), m]);
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  return c;
}

const recvKeys = (out: string): string[] => harnessLines(out, 'RECV').map((l) => l[6]);

/** Topic only on `brokerAddr` (named `brokerName`), route served by the name server at `namesrvAddr`. */
async function topicOn(ctx: Ctx, brokerAddr: string, brokerName: string, topic: string, queues = 4): Promise<void> {
  await ctx.admin.createAndUpdateTopicConfig(brokerAddr, newTopicConfig(topic, { readQueueNums: queues, writeQueueNums: queues }));
  await until(async () => (await ctx.admin.examineTopicRouteInfo(topic)).queueDatas.some((q) => q.brokerName === brokerName), 60_000, `route of ${topic} on ${brokerName}`);
}

/** Our producer sends through the name server, our consumer and the Java driver both read every message. */
async function roundTrip(ctx: Ctx, namesrvAddr: string, topic: string): Promise<void> {
  const p = await ourProducer(ctx, namesrvAddr);
  for (let i = 0; i < 6; i++) {
    const r = await p.send(createMessage(topic, `x${i}`, { keys: `x${i}`, tags: 'X' }));
    check(r.sendStatus === 'SEND_OK', `send ${r.sendStatus}`);
  }
  const got = new Map<string, MessageExt[]>();
  await ourConsumer(ctx, ctx.name('CG_MIX'), topic, got, namesrvAddr).start();
  const j = await runHarness(['consume', '--namesrv', namesrvAddr, '--topic', topic, '--group', ctx.name('JG_MIX'), '--from', 'first', '--expect', '6', '--timeout', '60'], { timeoutMs: 90_000 });
  check(new Set(recvKeys(j.stdout)).size === 6, `the Java consumer got ${recvKeys(j.stdout).length} of 6`);
  await until(() => got.size === 6, 60_000, `our consumer got ${got.size} of 6`);
}

export const MIXED_ROWS: Scenario[] = [
  {
    section: SECTION, row: 'one group: a Java consumer and ours share a topic (none lost, none twice)', client: 'ours', alsoClients: ['java'], timeoutMs: 150_000,
    async run(ctx) {
      const topic = ctx.name('XT_GROUP');
      const group = ctx.name('XG_GROUP');
      await ctx.createTopic(topic, 4);
      const java = await startHarness(['consume', '--namesrv', ctx.server.namesrvAddr, '--topic', topic, '--group', group, '--from', 'first', '--timeout', '120']);
      ctx.defer(() => java.stop());
      const ours = new Map<string, MessageExt[]>();
      const c = ourConsumer(ctx, group, topic, ours);
      await until(async () => (await ctx.admin.examineConsumerConnectionInfo(group)).connectionSet.length === 1, 60_000, 'the Java consumer in the group');
      const javaId = (await ctx.admin.examineConsumerConnectionInfo(group)).connectionSet[0].clientId;
      await c.start();
      // Settled: ours holds 2 queues and the Java consumer (asked through the broker) the other 2.
      let javaQueues: string[] = [];
      await until(async () => {
        const mine = c.processQueues().filter(([mq, pq]) => mq.topic === topic && !pq.dropped).map(([mq]) => messageQueueKey(mq));
        const info = await ctx.admin.getConsumerRunningInfo(group, javaId);
        javaQueues = info.mqTable.filter(([mq]) => mq.topic === topic).map(([mq]) => messageQueueKey(mq));
        return mine.length === 2 && javaQueues.length === 2 && mine.every((q) => !javaQueues.includes(q));
      }, 60_000, 'the rebalance: 2 queues each');
      const p = await ourProducer(ctx);
      for (let i = 0; i < 40; i++) await p.send(createMessage(topic, `g${i}`, { keys: `g${i}` }));
      const all = (): Set<string> => new Set([...ours.keys(), ...recvKeys(java.output())]);
      await until(() => all().size === 40, 60_000, `all 40 (ours ${ours.size}, Java ${recvKeys(java.output()).length})`);
      const both = recvKeys(java.output()).filter((k) => ours.has(k));
      check(both.length === 0, `${both.length} delivered to both: ${both.slice(0, 5).join(',')}`);
      check(ours.size > 0 && recvKeys(java.output()).length > 0, 'one side got nothing');
    },
  },
  {
    section: SECTION, row: 'our producer → Java consumer (tags, keys, properties)', client: 'ours', alsoClients: ['java'],
    async run(ctx) {
      const topic = ctx.name('XT_O2J');
      await ctx.createTopic(topic);
      const p = await ourProducer(ctx);
      for (let i = 0; i < 6; i++) await p.send(createMessage(topic, 'y'.repeat(100 + i), { keys: `o${i}`, tags: i % 2 ? 'odd' : 'even' }));
      const j = await runHarness(['consume', '--namesrv', ctx.server.namesrvAddr, '--topic', topic, '--group', ctx.name('JG_O2J'), '--from', 'first', '--tag-expr', 'odd', '--expect', '3', '--timeout', '60', '--linger', '1'], { timeoutMs: 90_000 });
      const lines = harnessLines(j.stdout, 'RECV');
      check(lines.map((l) => l[6]).sort().join(',') === 'o1,o3,o5', `Java got ${lines.map((l) => l[6]).join(',')}`);
      check(lines.every((l) => l[5] === 'odd' && Number(l[7]) === 100 + Number(l[6].slice(1))), 'tags or body length differ');
    },
  },
  {
    section: SECTION, row: 'Java producer → our consumer (tags, keys, properties)', client: 'ours', alsoClients: ['java'],
    async run(ctx) {
      const topic = ctx.name('XT_J2O');
      await ctx.createTopic(topic);
      const r = await runHarness(['produce', '--namesrv', ctx.server.namesrvAddr, '--topic', topic, '--count', '6', '--keys', 'j{i}', '--tag', 'JT', '--prop', 'p=v{i}', '--send-timeout-ms', '15000'], { timeoutMs: 90_000 });
      check(r.stdout.includes('SENT ok=6 fail=0'), `Java sent: ${r.stdout.split('\n').filter((l) => /SENT|FAIL/.test(l)).join(' / ')}`);
      const got = new Map<string, MessageExt[]>();
      await ourConsumer(ctx, ctx.name('CG_J2O'), topic, got).start();
      await until(() => got.size === 6, 60_000, `our consumer got ${got.size} of 6`);
      const m = got.get('j4')![0];
      check(m.properties.p === 'v4' && m.properties.TAGS === 'JT', `properties ${JSON.stringify(m.properties)}`);
    },
  },
  {
    section: SECTION, row: 'our broker registered in the Java name server', client: 'ours', alsoClients: ['java'], timeoutMs: 120_000,
    na: { ours: 'this row is about our broker in a Java name server (see the Java columns)', external: 'needs a Java name server of ours to start' },
    async run(ctx) {
      const name = `ts-mixed-${ctx.server.id.replace(/\./g, '')}`;
      const b = await startOurBroker(ctx.server.namesrvAddr, name);
      ctx.defer(() => b.stop());
      const found = await waitForBroker(ctx.server.namesrvAddr, name, 60_000);
      check(found.addr === b.addr, `registered as ${found.addr}`);
      const topic = ctx.name('XT_OURB');
      await topicOn(ctx, b.addr, name, topic);
      await roundTrip(ctx, ctx.server.namesrvAddr, topic);
    },
  },
  ...(['4.9.8', '5.3.3'] as JavaVersion[]).map((version): Scenario => ({
    section: SECTION, row: `a Java ${version} broker registered in our name server`, client: 'ours', alsoClients: ['java'], timeoutMs: 180_000,
    na: {
      '4.9.8': 'this row is about a Java broker in our name server (see the "ours" columns)',
      '5.3.3': 'this row is about a Java broker in our name server (see the "ours" columns)',
      external: 'needs our name server',
    },
    async run(ctx) {
      const skip = javaSkipReason(version);
      check(skip === null, skip ?? '');
      const name = `jb-mixed-${version.replace(/\./g, '')}`;
      const jb = await startJavaBroker(version, { namesrvAddr: ctx.server.namesrvAddr, brokerName: name, conf: COMPAT_BROKER_CONF, heap: '-Xms256m -Xmx512m' });
      ctx.defer(() => jb.stop());
      await waitForBroker(ctx.server.namesrvAddr, name, 60_000);
      const topic = ctx.name('XT_JB');
      await topicOn(ctx, jb.addr, name, topic);
      await roundTrip(ctx, ctx.server.namesrvAddr, topic);
    },
  })),
  {
    section: 'ali-ons → server', row: 'ali-ons: produce and consume', client: 'ons',
    async run(ctx) {
      const topic = ctx.name('ONS');
      await ctx.createTopic(topic);
      const child = path.resolve(__dirname, '..', 'helpers', 'ali-ons-child.js');
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(process.execPath, [child, ctx.server.namesrvAddr, topic, '10'], { timeout: 50_000 }, (err, out, errOut) => {
          if (err) reject(new Error(`ali-ons child failed: ${err.message} ${errOut.slice(-300)} ${out.slice(-300)}`));
          else resolve(out);
        });
      });
      const result = JSON.parse(stdout.trim().split('\n').pop()!) as { sent: string[]; received: string[] };
      check(result.sent.length === 10 && result.received.join(',') === [...result.sent].sort().join(','), `ali-ons received ${result.received.length} of ${result.sent.length}`);
    },
  },
];
