/**
 * A Java 4.9.8 client (remoting, test/java/MixedClientDriver.java on ../shared/javaref's 4.9.8 jars) and
 * rocketmq-client-nodejs (5.x gRPC, through our broker's endpoint, no proxy) on the same topics of one broker: what
 * the Java producer sends the gRPC SimpleConsumer receives, and what the gRPC Producer sends the Java push consumer
 * receives, with tags, keys, user properties, message ids and bodies (zlib-compressed by the Java client above 4 KiB
 * included) intact, none lost. Skipped, saying why, without `java` or the Java 4.9.8 build.
 */
import { expect } from 'chai';
import { SimpleConsumer, type MessageView } from 'rocketmq-client-nodejs';
import { randomName } from '../../helpers/cluster';
import { skipWithoutJava } from '../../helpers/javaref';
import { javaMixedConsume, javaMixedProduce, md5Hex, mixedBody, type MixedReceived } from '../../helpers/mixed-client-driver';
import { waitFor } from '../../helpers/wait-for';
import { createTopicAndWait } from '../pop/pop-scenario';
import { useGrpcCluster } from './grpc-client-fixture';

/** What one message was sent with, whichever client sent it. */
interface Expected { tag: string; keys: string[]; properties: Record<string, string>; body: Buffer }

describe('gRPC endpoint: a Java 4.9.8 client and rocketmq-client-nodejs on one topic', function () {
  this.timeout(240_000);
  skipWithoutJava('4.9.8');
  const g = useGrpcCluster();

  /** Receives and acks until `count` messages came. */
  async function receiveAll(c: SimpleConsumer, count: number): Promise<MessageView[]> {
    const got: MessageView[] = [];
    await waitFor(async () => {
      for (const m of await c.receive(16, 30_000)) {
        got.push(m);
        await c.ack(m);
      }
      return got.length >= count;
    }, 90_000, `${count} messages at the gRPC consumer`);
    return got;
  }

  /** The Java producer: 5 small bodies (tag JS) and 5 of 6000 bytes (tag JL, which it sends zlib-compressed). */
  async function javaSends(topic: string): Promise<Map<string, Expected>> {
    const sent = new Map<string, Expected>();
    for (const [tag, prefix, size] of [['JS', 'js', 0], ['JL', 'jl', 6000]] as const) {
      const ok = await javaMixedProduce(g.cluster.namesrvAddr, topic, {
        group: randomName('JPG'), count: 5, tag, keys: `${prefix}{i} ${prefix}x{i}`, prop: `origin=java ${prefix} {i}`, size,
      });
      expect(ok.map((o) => o.i)).to.deep.equal([0, 1, 2, 3, 4]);
      for (const o of ok) {
        sent.set(o.msgId, { tag, keys: [`${prefix}${o.i}`, `${prefix}x${o.i}`], properties: { origin: `java ${prefix} ${o.i}` }, body: mixedBody(o.i, size) });
      }
    }
    return sent;
  }

  /** The gRPC producer: 10 messages, every third of 8 KiB, two keys and two user properties each (one not ASCII). */
  async function grpcSends(topic: string): Promise<Map<string, Expected>> {
    const p = await g.producer(topic);
    const sent = new Map<string, Expected>();
    for (let i = 0; i < 10; i++) {
      const e: Expected = {
        tag: 'G', keys: [`gk${i}`, `gkx${i}`], properties: { origin: `grpc ${i}`, note: `café ${i}` }, body: mixedBody(i, i % 3 === 0 ? 8192 : 50, 'grpc body'),
      };
      const r = await p.send({ topic, tag: e.tag, keys: e.keys, body: e.body, properties: new Map(Object.entries(e.properties)) });
      expect(r.messageId).to.match(/^[0-9A-F]{34}$/);
      sent.set(r.messageId, e);
    }
    return sent;
  }

  function expectAtGrpc(got: MessageView[], sent: Map<string, Expected>): void {
    expect(got.map((m) => m.messageId).sort()).to.deep.equal([...sent.keys()].sort());
    for (const m of got) {
      const e = sent.get(m.messageId)!;
      expect(m.corrupted, `digest of ${m.messageId}`).to.not.equal(true);
      expect(m.body.equals(e.body), `body of ${m.messageId} (${m.body.length} bytes, sent ${e.body.length})`).to.equal(true);
      expect(m.tag).to.equal(e.tag);
      expect(m.keys).to.deep.equal(e.keys);
      for (const [k, v] of Object.entries(e.properties)) expect(m.properties.get(k), k).to.equal(v);
      expect(m.deliveryAttempt).to.equal(1);
    }
  }

  function expectAtJava(got: MixedReceived[], sent: Map<string, Expected>): void {
    expect([...new Set(got.map((m) => m.msgId))].sort()).to.deep.equal([...sent.keys()].sort());
    for (const m of got) {
      const e = sent.get(m.msgId)!;
      expect(m.bodyLength).to.equal(e.body.length);
      expect(m.bodyMd5, `body of ${m.msgId}`).to.equal(md5Hex(e.body));
      expect(m.tags).to.equal(e.tag);
      expect(m.keys).to.deep.equal(e.keys);
      for (const [k, v] of Object.entries(e.properties)) expect(m.properties.get(k), k).to.equal(v);
      // The 5.x message id travels as the message's UNIQ_KEY, which the Java client answers as its msgId.
      expect(m.properties.get('UNIQ_KEY')).to.equal(m.msgId);
      expect(m.reconsumeTimes).to.equal(0);
    }
  }

  it('Java produces (small and zlib-compressed bodies), the gRPC SimpleConsumer receives every message intact and acks it', async () => {
    const topic = randomName('GJM');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 4);
    const sent = await javaSends(topic);
    const group = randomName('GJC');
    const c = await g.simpleConsumer(topic, group);
    expectAtGrpc(await receiveAll(c, sent.size), sent);
    expect(g.inflight(topic, group, 4)).to.equal(0);
    expect(await c.receive(16, 20_000)).to.deep.equal([]);
  });

  it('the gRPC Producer sends, the Java push consumer receives every message intact, none lost', async () => {
    const topic = randomName('GJM');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 4);
    const sent = await grpcSends(topic);
    expectAtJava(await javaMixedConsume(g.cluster.namesrvAddr, topic, randomName('JCG'), sent.size, { timeoutS: 90 }), sent);
  });

  it('both produce to one topic at once; the Java consumer and the gRPC consumer each get all of them', async () => {
    const topic = randomName('GJM');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 4);
    const [fromJava, fromGrpc] = await Promise.all([javaSends(topic), grpcSends(topic)]);
    const all = new Map([...fromJava, ...fromGrpc]);
    expect(all.size).to.equal(20);
    const group = randomName('GJC');
    const [atJava, atGrpc] = await Promise.all([
      javaMixedConsume(g.cluster.namesrvAddr, topic, randomName('JCG'), all.size, { timeoutS: 90 }),
      g.simpleConsumer(topic, group).then((c) => receiveAll(c, all.size)),
    ]);
    expectAtJava(atJava, all);
    expectAtGrpc(atGrpc, all);
    expect(g.inflight(topic, group, 4)).to.equal(0);
  });
});
