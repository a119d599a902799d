/**
 * Part 5: compressed bodies (5.x compressType: ZLIB, LZ4, ZSTD in sysFlag bits 8-10) and namespaces, against every
 * server, with the Java 5.3.3 client (test/java/Rmq533Tool.java, compiled with javac at run time against
 * ../shared/javaref/5.3.3/lib) and the Java 4.9.8 client driver on the other side. The Java 4.9.8 client knows
 * neither LZ4/ZSTD nor a namespace flag: it reads the namespaced topic by its full name `ns%topic`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ConsumeConcurrentlyStatus, DefaultLitePullConsumer, DefaultMQAdminExt, DefaultMQProducer, DefaultMQPushConsumer, createMessage,
  type CompressionTypeName, type MessageExt,
} from '../../lib/index';
import { crc32 } from '../../protocol/message/compression';
import { harnessLines, java533ToolSkipReason, runHarness, runJava533Tool, startJava533Tool } from '../helpers/javaref';
import { CompatNotApplicable, check, until, type Ctx, type Scenario } from './scenario';

const SECTION_C = 'compression: LZ4 / ZSTD bodies (5.x compressType)';
const SECTION_N = 'namespaces (`namespace` option: ns%topic, %RETRY%ns%group)';
const TYPE_BITS: Record<CompressionTypeName, number> = { LZ4: 0x100, ZSTD: 0x200, ZLIB: 0x300 };

/** Body i of Rmq533Tool produce: "body-<i>-" repeated to `size` bytes. */
function toolBody(i: number, size: number): Buffer {
  const unit = `body-${i}-`;
  return Buffer.from(unit.repeat(Math.ceil(size / unit.length) + 1).slice(0, size), 'ascii');
}

function ourProducer(ctx: Ctx, extra: Record<string, unknown> = {}): Promise<DefaultMQProducer> {
  const p = new DefaultMQProducer({ producerGroup: ctx.name('PG'), namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('p'), sendMsgTimeout: 15_000, ...extra });
  ctx.defer(() => p.shutdown());
  return p.start().then(() => p);
}

function ourConsumer(ctx: Ctx, topic: string, got: Map<string, MessageExt>, extra: Record<string, unknown> = {}): DefaultMQPushConsumer {
  const c = new DefaultMQPushConsumer({
    consumerGroup: ctx.name('CG'), namesrvAddr: ctx.server.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: ctx.name('c'), ...extra,
  });
  ctx.defer(() => c.shutdown());
  c.subscribe(topic, '*');
  c.registerMessageListener((msgs) => {
    for (const m of msgs) got.set(m.msgId, m);
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  return c;
}

function needTool(): void {
  const skip = java533ToolSkipReason();
  check(skip === null, skip ?? '');
}

/** Java's zstd-jni needs a native library the Java builds here may lack: n.a. then, not a failure of ours. */
function zstdJniMissing(out: string): void {
  if (/UnsatisfiedLinkError|libzstd-jni|zstd-jni/.test(out)) throw new CompatNotApplicable('Java\'s zstd-jni has no native library on this machine (Debian: libzstd-jni1)');
}

let zstdProbe: Promise<string> | undefined;

/** n.a. unless Java's ZstdCompressor runs here (probed once: `codec compress ZSTD` of a small file). */
async function needJavaZstd(): Promise<void> {
  zstdProbe ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqzstdprobe-'));
    try {
      fs.writeFileSync(path.join(dir, 'in'), 'probe');
      const r = await runJava533Tool(['codec', 'compress', 'ZSTD', '5', path.join(dir, 'in'), path.join(dir, 'out')], { timeoutMs: 60_000 });
      return r.stdout + r.stderr;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  })();
  zstdJniMissing(await zstdProbe);
}

const RECV = (out: string): string[][] => out.split('\n').filter((l) => l.startsWith('RECV ')).map((l) => l.trim().split(' '));

const compressionRows: Scenario[] = [
  {
    section: SECTION_C, row: 'compressed bodies (ZLIB, LZ4, ZSTD): our producer → our consumer, sysFlag type bits kept', client: 'ours', timeoutMs: 90_000,
    async run(ctx) {
      const topic = ctx.name('CT_OURS');
      await ctx.createTopic(topic, 2);
      const sent = new Map<string, { type: CompressionTypeName; body: Buffer }>();
      for (const type of ['ZLIB', 'LZ4', 'ZSTD'] as CompressionTypeName[]) {
        const p = await ourProducer(ctx, { compressType: type });
        for (let i = 0; i < 2; i++) {
          const body = toolBody(i, 5000 + i);
          sent.set((await p.send(createMessage(topic, body))).msgId, { type, body });
        }
      }
      const got = new Map<string, MessageExt>();
      await ourConsumer(ctx, topic, got).start();
      await until(() => got.size === sent.size, 60_000, `${sent.size} messages (got ${got.size})`);
      for (const [id, s] of sent) {
        const m = got.get(id)!;
        check(m.body.equals(s.body), `${s.type} body differs`);
        check((m.sysFlag & 0x701) === (0x1 | TYPE_BITS[s.type]), `${s.type} stored sysFlag 0x${m.sysFlag.toString(16)}`);
      }
    },
  },
  ...(['LZ4', 'ZSTD'] as CompressionTypeName[]).flatMap((type): Scenario[] => [
    {
      section: SECTION_C, row: `Java 5.3.3 client ${type} producer → our consumer`, client: 'ours', timeoutMs: 120_000,
      async run(ctx) {
        needTool();
        if (type === 'ZSTD') await needJavaZstd();
        const topic = ctx.name(`CT_J${type}`);
        await ctx.createTopic(topic, 2);
        const r = await runJava533Tool(['produce', ctx.server.namesrvAddr, topic, type, '4', '6000'], { timeoutMs: 90_000 });
        zstdJniMissing(r.stdout + r.stderr);
        check(r.stdout.includes('SENT ok=4'), `Java sent: ${r.stdout.split('\n').filter((l) => /^(SENT|FAIL)/.test(l)).join(' / ')}`);
        const ids = r.stdout.split('\n').filter((l) => l.startsWith('OK ')).map((l) => l.trim().split(' '));
        const got = new Map<string, MessageExt>();
        await ourConsumer(ctx, topic, got).start();
        await until(() => got.size === 4, 60_000, `4 messages (got ${got.size})`);
        for (const [, i, msgId] of ids) {
          const m = got.get(msgId);
          check(m !== undefined, `message ${msgId} missing`);
          check(m.body.equals(toolBody(Number(i), 6000)), `body ${i} differs`);
          check((m.sysFlag & 0x701) === (0x1 | TYPE_BITS[type]), `stored sysFlag 0x${m.sysFlag.toString(16)}, not ${type}`);
        }
      },
    },
    {
      section: SECTION_C, row: `our ${type} producer → Java 5.3.3 client consumer`, client: 'ours', timeoutMs: 120_000,
      async run(ctx) {
        needTool();
        if (type === 'ZSTD') await needJavaZstd();
        const topic = ctx.name(`CT_O${type}`);
        await ctx.createTopic(topic, 2);
        const p = await ourProducer(ctx, { compressType: type });
        const bodies = new Map<string, Buffer>();
        for (let i = 0; i < 4; i++) {
          const body = toolBody(i, 7000);
          bodies.set((await p.send(createMessage(topic, body))).msgId, body);
        }
        const r = await runJava533Tool(['consume', ctx.server.namesrvAddr, topic, ctx.name('JG'), '4', '60'], { timeoutMs: 100_000 });
        zstdJniMissing(r.stdout + r.stderr);
        const lines = RECV(r.stdout);
        check(new Set(lines.map((l) => l[2])).size === 4, `the Java consumer got ${lines.length} of 4`);
        for (const [, , msgId, len, crc] of lines) {
          const b = bodies.get(msgId);
          check(b !== undefined, `unknown msgId ${msgId}`);
          check(Number(len) === b.length && crc === crc32(b).toString(16), `Java read a different body for ${msgId}`);
        }
      },
    },
  ]),
];

const namespaceRows: Scenario[] = [
  {
    section: SECTION_N, row: 'namespace: producer, push and lite pull consumers, retry, admin (short names to the user)', client: 'ours', timeoutMs: 120_000,
    async run(ctx) {
      const ns = ctx.name('NS').replace(/_/g, '');
      const topic = ctx.name('NT');
      const admin = new DefaultMQAdminExt({ namesrvAddr: ctx.server.namesrvAddr, instanceName: ctx.name('nsadmin'), namespace: ns });
      await admin.start();
      ctx.defer(() => admin.shutdown());
      await admin.createTopic('TBW102', topic, 2);
      await until(async () => (await ctx.admin.examineTopicRouteInfo(`${ns}%${topic}`)).queueDatas.length > 0, 30_000, `route of ${ns}%${topic}`);
      const p = await ourProducer(ctx, { namespace: ns });
      const r = await p.send(createMessage(topic, 'n0'));
      check(r.messageQueue.topic === topic, `send result topic ${r.messageQueue.topic}`);
      await p.send(createMessage(topic, 'n1'));
      check((await ctx.admin.viewMessage(r.offsetMsgId)).topic === `${ns}%${topic}`, 'stored topic not wrapped');
      const got = new Map<string, MessageExt>();
      let failed = false;
      const group = ctx.name('NG');
      const c = new DefaultMQPushConsumer({ consumerGroup: group, namesrvAddr: ctx.server.namesrvAddr, namespace: ns, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: ctx.name('c') });
      ctx.defer(() => c.shutdown());
      c.subscribe(topic, '*');
      c.registerMessageListener((msgs) => {
        for (const m of msgs) {
          if (m.body.toString() === 'n0' && !failed) {
            failed = true;
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
          }
          got.set(m.body.toString(), m);
        }
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      });
      await c.start();
      await until(() => got.size === 2, 60_000, `2 messages, n0 after a retry (got ${[...got.keys()].join(',')})`);
      for (const m of got.values()) check(m.topic === topic, `the consumer saw topic ${m.topic}`);
      check(got.get('n0')!.reconsumeTimes === 1, 'n0 not retried');
      check((await ctx.admin.examineConsumerConnectionInfo(`${ns}%${group}`)).connectionSet.length === 1, 'group not wrapped on the broker');
      check((await admin.examineConsumerConnectionInfo(group)).connectionSet.length === 1, 'the namespaced admin does not find the group');
      const lite = new DefaultLitePullConsumer({ consumerGroup: ctx.name('NL'), namesrvAddr: ctx.server.namesrvAddr, namespace: ns, instanceName: ctx.name('l') });
      ctx.defer(() => lite.shutdown());
      lite.subscribe(topic, '*');
      await lite.start();
      const pulled: MessageExt[] = [];
      await until(async () => { pulled.push(...(await lite.poll(500))); return pulled.length >= 2; }, 60_000, 'lite pull');
      check(pulled.every((m) => m.topic === topic), 'lite pull topic not unwrapped');
    },
  },
  {
    section: SECTION_N, row: 'namespace: ours ↔ Java 4.9.8 client on the full name ns%topic', client: 'ours', alsoClients: ['java'], timeoutMs: 150_000,
    async run(ctx) {
      const ns = ctx.name('NS').replace(/_/g, '');
      const topic = ctx.name('NJ');
      const full = `${ns}%${topic}`;
      await ctx.createTopic(full, 2);
      const p = await ourProducer(ctx, { namespace: ns });
      for (let i = 0; i < 3; i++) await p.send(createMessage(topic, `o${i}`, { keys: `o${i}` }));
      const j = await runHarness(['consume', '--namesrv', ctx.server.namesrvAddr, '--topic', full, '--group', ctx.name('JG'), '--from', 'first', '--expect', '3', '--timeout', '60'], { timeoutMs: 90_000 });
      const keys = harnessLines(j.stdout, 'RECV').map((l) => l[6]).sort();
      check(keys.join(',') === 'o0,o1,o2', `the Java 4.9.8 consumer of ${full} got ${keys.join(',')}`);
      check(harnessLines(j.stdout, 'RECV').every((l) => l[1] === full), 'the Java consumer saw another topic');
      const r = await runHarness(['produce', '--namesrv', ctx.server.namesrvAddr, '--topic', full, '--count', '3', '--keys', 'j{i}', '--send-timeout-ms', '15000'], { timeoutMs: 90_000 });
      check(r.stdout.includes('SENT ok=3 fail=0'), 'the Java producer failed');
      const got = new Map<string, MessageExt>();
      await ourConsumer(ctx, topic, got, { namespace: ns }).start();
      await until(() => got.size === 6, 60_000, `6 messages on ${topic} in ${ns} (got ${got.size})`);
      check([...got.values()].every((m) => m.topic === topic), 'our namespaced consumer saw the full topic');
    },
  },
  {
    section: SECTION_N, row: 'namespace: ours ↔ Java 5.3.3 client, both with the namespace set', client: 'ours', timeoutMs: 150_000,
    async run(ctx) {
      needTool();
      const ns = ctx.name('NS').replace(/_/g, '');
      const topic = ctx.name('N5');
      await ctx.createTopic(`${ns}%${topic}`, 2);
      const java = await startJava533Tool(['consume', ctx.server.namesrvAddr, topic, ctx.name('JG5'), '3', '90', ns], { readyPattern: /STARTED/ });
      ctx.defer(() => java.stop());
      const p = await ourProducer(ctx, { namespace: ns });
      for (let i = 0; i < 3; i++) await p.send(createMessage(topic, `p${i}`));
      await until(() => RECV(java.output()).length >= 3, 90_000, `the Java 5.3.3 consumer (got ${RECV(java.output()).length})`);
      check(RECV(java.output()).every((l) => l[1] === topic), `the Java 5.3.3 consumer saw ${RECV(java.output())[0]?.[1]}`);
      const r = await runJava533Tool(['produce', ctx.server.namesrvAddr, topic, 'ZLIB', '3', '100', ns], { timeoutMs: 90_000 });
      check(r.stdout.includes('SENT ok=3'), 'the Java 5.3.3 producer failed');
      const got = new Map<string, MessageExt>();
      await ourConsumer(ctx, topic, got, { namespace: ns }).start();
      await until(() => got.size === 6, 60_000, `6 messages (got ${got.size})`);
      check([...got.values()].every((m) => m.topic === topic), 'our consumer saw the full topic');
    },
  },
];

export const COMPRESS_NS_ROWS: Scenario[] = [...compressionRows, ...namespaceRows];
