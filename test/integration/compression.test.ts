/**
 * LZ4 / ZSTD / ZLIB bodies end to end on the in-process cluster: producers with each compressType, the broker
 * storing the body and its sysFlag type bits untouched, push and lite pull consumers and viewMessage decompressing
 * by the stored type. The Java side of the formats: test/integration/compat/java-compression.test.ts and the
 * compat matrix's compression rows.
 */
import { expect } from 'chai';
import {
  ConfigError, ConsumeConcurrentlyStatus, ConsumeOrderlyStatus, DefaultLitePullConsumer, DefaultMQAdminExt, DefaultMQProducer, DefaultMQPushConsumer,
  createMessage, type MessageExt,
} from '../../lib/index';
import pino from 'pino';
import { MessageSysFlag, compressionTypeOf, isCompressionAvailable, setCompressionCodecPackageForTest, type CompressionTypeName } from '../../protocol/message/index';
import { getCluster, randomName, waitFor, type TestCluster } from '../helpers/cluster';

const TYPES: CompressionTypeName[] = ['ZLIB', 'LZ4', 'ZSTD'];

describe('integration: compressed bodies (ZLIB, LZ4, ZSTD) through our broker', function () {
  this.timeout(60_000);
  let tc: TestCluster;
  let admin: DefaultMQAdminExt;
  const producers = new Map<CompressionTypeName, DefaultMQProducer>();

  before(async function () {
    for (const t of ['LZ4', 'ZSTD'] as const) {
      if (!isCompressionAvailable(compressionTypeOf(t))) {
        process.stderr.write(`      skipped: the optional dependency for ${t} does not load here\n`);
        this.skip();
      }
    }
    tc = await getCluster({ brokers: 1 });
    admin = new DefaultMQAdminExt({ namesrvAddr: tc.namesrvAddr, instanceName: randomName('admin') });
    await admin.start();
    for (const t of TYPES) {
      const p = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: tc.namesrvAddr, instanceName: randomName(`p${t}`), compressType: t, sendMsgTimeout: 30_000 });
      await p.start();
      producers.set(t, p);
    }
  });
  after(async () => {
    for (const p of producers.values()) await p.shutdown();
    await admin?.shutdown();
    await tc?.stop();
  });

  const bodyOf = (t: string, i: number, size = 6000): Buffer => Buffer.from(`${t}-${i} `.repeat(Math.ceil(size / (t.length + 4)))).subarray(0, size);

  it('rejects an unknown compressType at construction, and setCompressType switches it', () => {
    expect(() => new DefaultMQProducer({ compressType: 'SNAPPY' as CompressionTypeName })).to.throw(ConfigError, /ZLIB, LZ4 or ZSTD/);
    const p = new DefaultMQProducer({ compressType: 'ZLIB' });
    p.setCompressType('ZSTD');
    expect(p.options.compressType).to.equal('ZSTD');
  });

  it('stores each body with its type bits and serves it to push and lite pull consumers, decompressed', async () => {
    const topic = randomName('T_CMP');
    await admin.createTopic('TBW102', topic, 2);
    await waitFor(async () => (await admin.examineTopicRouteInfo(topic).catch(() => null))?.queueDatas.length === 1, 10_000, 'route');
    const sent = new Map<string, { type: CompressionTypeName; body: Buffer; offsetMsgId: string }>();
    for (const t of TYPES) {
      for (let i = 0; i < 3; i++) {
        const body = bodyOf(t, i);
        const r = await producers.get(t)!.send(createMessage(topic, body, { keys: `${t}${i}` }));
        sent.set(r.msgId, { type: t, body, offsetMsgId: r.offsetMsgId });
      }
      // Below compressMsgBodyOverHowmuch (4096): sent as is, whatever the type.
      const small = Buffer.from(`${t} small`);
      const r = await producers.get(t)!.send(createMessage(topic, small, { keys: `${t}small` }));
      sent.set(r.msgId, { type: t, body: small, offsetMsgId: r.offsetMsgId });
    }

    const check = (m: MessageExt): void => {
      const s = sent.get(m.msgId)!;
      expect(s, m.msgId).to.not.equal(undefined);
      expect(m.body.equals(s.body), `${s.type} body`).to.equal(true);
      if (s.body.length < 4096) {
        expect(m.sysFlag & MessageSysFlag.COMPRESSED_FLAG, 'small body not compressed').to.equal(0);
      } else {
        expect(m.sysFlag & 0x701, `${s.type} sysFlag as stored`).to.equal(MessageSysFlag.COMPRESSED_FLAG | (compressionTypeOf(s.type) << 8));
        expect(m.storeSize, 'stored compressed').to.be.below(s.body.length);
      }
    };

    const pushed = new Map<string, MessageExt>();
    const c = new DefaultMQPushConsumer({ consumerGroup: randomName('CG'), namesrvAddr: tc.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('c') });
    c.subscribe(topic, '*');
    c.registerMessageListener((msgs) => {
      for (const m of msgs) pushed.set(m.msgId, m);
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    const lite = new DefaultLitePullConsumer({ consumerGroup: randomName('LG'), namesrvAddr: tc.namesrvAddr, instanceName: randomName('l') });
    try {
      await c.start();
      lite.subscribe(topic, '*');
      await lite.start();
      const pulled = new Map<string, MessageExt>();
      await waitFor(async () => {
        for (const m of await lite.poll(200)) pulled.set(m.msgId, m);
        return pulled.size === sent.size;
      }, 30_000, `lite pull ${sent.size}`);
      await waitFor(() => pushed.size === sent.size, 30_000, `push ${sent.size}`);
      for (const m of pushed.values()) check(m);
      for (const m of pulled.values()) check(m);
    } finally {
      await c.shutdown();
      await lite.shutdown();
    }

    for (const s of sent.values()) {
      const viewed = await admin.viewMessage(s.offsetMsgId);
      expect(viewed.body.equals(s.body), `viewMessage ${s.type}`).to.equal(true);
    }
  });

  it('LZ4 and ZSTD bodies go to the retry topic and come back still decodable', async () => {
    const topic = randomName('T_CMPR');
    const bodies = new Map<string, Buffer>();
    for (const t of ['LZ4', 'ZSTD'] as const) {
      const body = bodyOf(t, 9, 9000);
      const r = await producers.get(t)!.send(createMessage(topic, body));
      bodies.set(r.msgId, body);
    }
    const attempts = new Map<string, number>();
    const c = new DefaultMQPushConsumer({ consumerGroup: randomName('CGR'), namesrvAddr: tc.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('cr'), maxReconsumeTimes: 1 });
    c.subscribe(topic, '*');
    let ok = 0;
    c.registerMessageListener((msgs) => {
      for (const m of msgs) {
        expect(m.body.equals(bodies.get(m.msgId)!), 'body equal on every delivery').to.equal(true);
        const n = (attempts.get(m.msgId) ?? 0) + 1;
        attempts.set(m.msgId, n);
        if (n === 1) return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        expect(m.topic).to.equal(topic);
        ok++;
      }
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    // The first retry comes back after delay level 3 (10 s), as Java.
    try {
      await c.start();
      await waitFor(() => ok === 2, 40_000, 'both redelivered from %RETRY%');
    } finally {
      await c.shutdown();
    }
  });
  it('a push consumer without the LZ4 / ZSTD codec sends those messages back, with an error naming the package; they come again', async () => {
    const topic = randomName('T_CMPX');
    const bodies = new Map<string, { type: CompressionTypeName; body: Buffer }>();
    for (const t of TYPES) {
      for (let i = 0; i < 2; i++) {
        const body = bodyOf(t, i, 7000);
        const r = await producers.get(t)!.send(createMessage(topic, body));
        bodies.set(r.msgId, { type: t, body });
      }
    }
    const lines: Array<{ msg: string; err?: { type?: string; packageName?: string; codec?: string } }> = [];
    // the consumer's error lines (pino JSON), read back: the typed error with the package to install
    const logger = pino({ level: 'error' }, { write: (line: string) => { lines.push(JSON.parse(line)); } });
    const group = randomName('CGX');
    const got = new Map<string, MessageExt>();
    const c = new DefaultMQPushConsumer({ consumerGroup: group, namesrvAddr: tc.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('cx'), logger });
    c.subscribe(topic, '*');
    c.registerMessageListener((msgs) => {
      for (const m of msgs) {
        expect(m.body.equals(bodies.get(m.msgId)!.body), `${bodies.get(m.msgId)!.type} body given to the listener decompressed`).to.equal(true);
        got.set(m.msgId, m);
      }
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    try {
      setCompressionCodecPackageForTest('LZ4', 'rocketmq-ts-no-such-lz4-package');
      setCompressionCodecPackageForTest('ZSTD', 'rocketmq-ts-no-such-zstd-package');
      await c.start();
      // the ZLIB ones are consumed; the four others never reach the listener: an error line per codec and batch
      const errors = () => lines.filter((l) => l.err?.type === 'CompressionCodecUnavailableError');
      const sentBack = () => errors().reduce((n, l) => n + Number(/: (\d+) message\(s\) sent back for redelivery$/.exec(l.msg)?.[1] ?? 0), 0);
      await waitFor(() => got.size === 2 && sentBack() === 4, 30_000, 'the ZLIB messages consumed, the others sent back');
      expect([...got.values()].map((m) => bodies.get(m.msgId)!.type)).to.deep.equal(['ZLIB', 'ZLIB']);
      for (const l of errors()) {
        expect(l.err!.packageName).to.equal(`rocketmq-ts-no-such-${l.err!.codec!.toLowerCase()}-package`);
        expect(l.msg).to.match(/^(LZ4|ZSTD) compression needs the optional dependency "rocketmq-ts-no-such-(lz4|zstd)-package" \(npm install rocketmq-ts-no-such-(lz4|zstd)-package\): \d message\(s\) sent back for redelivery$/);
      }
      expect(new Set(errors().map((l) => l.err!.codec))).to.deep.equal(new Set(['LZ4', 'ZSTD']));
      // with the codecs installed again, the retries (delay level 3: 10 s) are consumed, decompressed
      setCompressionCodecPackageForTest('LZ4');
      setCompressionCodecPackageForTest('ZSTD');
      await waitFor(() => got.size === 6, 40_000, 'the LZ4 and ZSTD messages, redelivered');
      // each went back once (the first retry, delay level 3), none was lost or sent back twice
      for (const m of got.values()) if (bodies.get(m.msgId)!.type !== 'ZLIB') expect(m.reconsumeTimes, bodies.get(m.msgId)!.type).to.equal(1);
    } finally {
      setCompressionCodecPackageForTest('LZ4');
      setCompressionCodecPackageForTest('ZSTD');
      await c.shutdown();
    }
  });
  it('an orderly consumer without the codec holds the queue, in order, and goes on once the codec is there', async () => {
    const topic = randomName('T_CMPO');
    await admin.createTopic('TBW102', topic, 1);
    await waitFor(async () => (await admin.fetchSubscribeMessageQueues(topic).catch(() => [])).length === 1, 20_000, 'the topic route');
    const order: string[] = [];
    for (const [i, t] of (['ZLIB', 'LZ4', 'ZLIB'] as const).entries()) {
      await producers.get(t)!.send(createMessage(topic, bodyOf(t, i, 6000), { keys: `${t}-${i}` }));
      order.push(`${t}-${i}`);
    }
    const got: string[] = [];
    const lines: Array<{ err?: { type?: string; packageName?: string } }> = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => { lines.push(JSON.parse(line)); } });
    const c = new DefaultMQPushConsumer({ consumerGroup: randomName('CGO'), namesrvAddr: tc.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('co'), logger, suspendCurrentQueueTimeMillis: 200 });
    c.subscribe(topic, '*');
    c.registerMessageListenerOrderly((msgs) => {
      for (const m of msgs) {
        const key = m.properties.KEYS;
        const [t, i] = key.split('-');
        expect(m.body.equals(bodyOf(t, Number(i), 6000)), `${key} decompressed`).to.equal(true);
        got.push(key);
      }
      return ConsumeOrderlyStatus.SUCCESS;
    });
    try {
      setCompressionCodecPackageForTest('LZ4', 'rocketmq-ts-no-such-lz4-package');
      await c.start();
      await waitFor(() => got.length === 1 && lines.filter((l) => l.err?.packageName === 'rocketmq-ts-no-such-lz4-package').length >= 2, 30_000, 'the first message, then the LZ4 one held');
      expect(got).to.deep.equal(['ZLIB-0']);
      setCompressionCodecPackageForTest('LZ4');
      await waitFor(() => got.length === 3, 30_000, 'the rest, in order');
      expect(got).to.deep.equal(order);
    } finally {
      setCompressionCodecPackageForTest('LZ4');
      await c.shutdown();
    }
  });
});
