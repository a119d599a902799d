/**
 * Request parity, second part: the ROCKETMQ binary-header sends of 07-rocketmq-binary-header (bytes on the wire,
 * read by a parser independent of protocol/serializer), CONSUMER_SEND_MSG_BACK of 04 (RECONSUME_LATER), the lite
 * pull consumer's PULL_MESSAGE against what Java 4.9.8's DefaultLitePullConsumerImpl.pullSyncImpl builds (no lite
 * pull was captured: the expected values are the Java source's), and 09-master-slave: a consumer whose route has
 * only the slave (brokerId 1) of broker-ha, pulls answered by the slave with suggestWhichBrokerId 0.
 *
 * Intended differences:
 * - Our client sends binary headers for SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE by default and JSON for every other
 *   request; Java does all or nothing (`rocketmq.serialize.type`). Each side decodes both.
 * - The header version: Java 4.9.8 sends 409; ours DEFAULT_VERSION (409 too, asserted).
 */
import net from 'node:net';
import { expect } from 'chai';
import { FrameDecoder } from '../../../protocol/frame';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { createMessage, putUserProperty, type MessageExt } from '../../../protocol/message/message';
import { DEFAULT_VERSION, RemotingCommand } from '../../../protocol/remoting-command';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { DefaultLitePullConsumer } from '../../../lib/consumer/lite-pull-consumer';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { readFrame } from '../../helpers/golden';
import { waitFor } from '../transport/helpers';
import { capturedRoute, golden, javaExchanges, javaRequests, type ReplayCluster, replayAs, startReplayCluster } from './replay-cluster';

const S7 = '07-rocketmq-binary-header';
const S4 = '04-orderly-retry-rebalance';
const S9 = '09-master-slave';

interface BinaryHeader {
  serializeType: number;
  code: number;
  language: number;
  version: number;
  opaque: number;
  flag: number;
  remark: string | null;
  ext: Record<string, string>;
}

/** Parses a whole frame (length prefix included) with a ROCKETMQ header, field by field, as RocketMQSerializable writes it. */
function parseBinaryFrame(frame: Buffer): BinaryHeader {
  expect(frame.readInt32BE(0)).to.equal(frame.length - 4);
  const mark = frame.readInt32BE(4);
  const headerLength = mark & 0xffffff;
  const h = frame.subarray(8, 8 + headerLength);
  let o = 0;
  const code = h.readInt16BE(o); o += 2;
  const language = h.readUInt8(o); o += 1;
  const version = h.readInt16BE(o); o += 2;
  const opaque = h.readInt32BE(o); o += 4;
  const flag = h.readInt32BE(o); o += 4;
  const remarkLength = h.readInt32BE(o); o += 4;
  const remark = remarkLength > 0 ? h.toString('utf8', o, o + remarkLength) : null;
  o += remarkLength;
  const extLength = h.readInt32BE(o); o += 4;
  const end = o + extLength;
  const ext: Record<string, string> = {};
  while (o < end) {
    const kl = h.readInt16BE(o); o += 2;
    const k = h.toString('utf8', o, o + kl); o += kl;
    const vl = h.readInt32BE(o); o += 4;
    ext[k] = h.toString('utf8', o, o + vl); o += vl;
  }
  expect(o).to.equal(headerLength);
  return { serializeType: mark >>> 24, code, language, version, opaque, flag, remark, ext };
}

/** A TCP proxy in front of `target` that keeps every client-to-server frame as sent (length prefix included). */
async function frameTap(targetPort: number): Promise<{ port: number; frames: Buffer[]; close: () => Promise<void> }> {
  const frames: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: targetPort });
    sockets.add(client).add(upstream);
    const decoder = new FrameDecoder((payload) => {
      const len = Buffer.alloc(4);
      len.writeInt32BE(payload.length);
      frames.push(Buffer.concat([len, payload]));
    });
    client.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => { client.destroy(); upstream.destroy(); };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    frames,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

function json(cmd: RemotingCommand): Record<string, unknown> {
  return JSON.parse(cmd.body!.toString('utf8'));
}

describe('compat: binary headers, send-back, lite pull and slave reads as the Java 4.9.8 client', function () {
  this.timeout(20_000);
  let cluster: ReplayCluster;
  const closers: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    await cluster.stop();
  });

  /** The consumer side of the broker: one consumer (ours), QUERY_CONSUMER_OFFSET as captured, offsets accepted. */
  function answerGroup(scenario: string): void {
    const list = javaExchanges(scenario, RequestCode.GET_CONSUMER_LIST_BY_GROUP)[0].response;
    cluster.broker.on(RequestCode.GET_CONSUMER_LIST_BY_GROUP, (r) => {
      const hb = cluster.broker.of(RequestCode.HEART_BEAT).at(-1);
      return replayAs(r, list, Buffer.from(JSON.stringify({ consumerIdList: [hb ? (json(hb).clientID as string) : 'none'] })));
    });
    const zero = javaExchanges(scenario, RequestCode.QUERY_CONSUMER_OFFSET).find((x) => x.response.code === ResponseCode.SUCCESS && x.response.extFields?.offset === '0')!;
    cluster.broker.replay(RequestCode.QUERY_CONSUMER_OFFSET, zero.response);
    cluster.broker.on(RequestCode.UPDATE_CONSUMER_OFFSET, (r) => RemotingCommand.createResponse(r, ResponseCode.SUCCESS));
  }

  /** Pulls of `group` in `scenario`, each (topic, queue, offset) answered once with the captured response; others held. */
  function replayPulls(scenario: string, group: string): void {
    const pulls = new Map<string, RemotingCommand>();
    for (const x of javaExchanges(scenario, RequestCode.PULL_MESSAGE)) {
      const e = x.request.extFields!;
      const k = `${e.topic}:${e.queueId}:${e.queueOffset}`;
      if (e.consumerGroup === group && x.response.code === ResponseCode.SUCCESS && !pulls.has(k)) pulls.set(k, x.response);
    }
    expect(pulls.size).to.be.greaterThan(0);
    cluster.broker.on(RequestCode.PULL_MESSAGE, (r) => {
      const e = r.extFields!;
      const k = `${e.topic}:${e.queueId}:${e.queueOffset}`;
      const captured = pulls.get(k);
      if (!captured) return null;
      pulls.delete(k);
      return replayAs(r, captured);
    });
  }

  it(`${S7}: SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE headers on the wire decode to Java's binary headers`, async () => {
    cluster = await startReplayCluster(S7);
    const tap = await frameTap(Number(cluster.broker.addr.split(':')[1]));
    closers.push(tap.close);
    // The captured BinTopic route, its broker address pointed at the tap.
    const route = capturedRoute(S7, 'BinTopic');
    cluster.namesrv.on(RequestCode.GET_ROUTEINFO_BY_TOPIC, (r) => replayAs(r, route, Buffer.from(route.body!.toString('utf8').replace(/127\.0\.0\.1:20911/g, `127.0.0.1:${tap.port}`))));
    const send = javaExchanges(S7, RequestCode.SEND_MESSAGE_V2)[0];
    const batch = javaExchanges(S7, RequestCode.SEND_BATCH_MESSAGE)[0];
    cluster.broker.replay(RequestCode.SEND_MESSAGE_V2, send.response);
    cluster.broker.replay(RequestCode.SEND_BATCH_MESSAGE, batch.response);
    const p = new DefaultMQProducer({ producerGroup: 'PG_BIN', namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `bin-${Math.random()}` });
    await p.start();
    closers.push(() => p.shutdown());
    const msg = createMessage('BinTopic', send.request.body!, { tags: 'TagA', keys: 'bin-0' });
    putUserProperty(msg, 'x', '0');
    const r = await p.send(msg);
    // The captured binary SEND answer, decoded.
    expect(r.sendStatus).to.equal('SEND_OK');
    expect(r.offsetMsgId).to.equal(send.response.extFields!.msgId);
    expect(r.queueOffset).to.equal(Number(send.response.extFields!.queueOffset));
    const b = await p.send([0, 1].map((i) => createMessage('BinTopic', `bin-batch-${i}`, { tags: 'TagB' })));
    expect(b.offsetMsgId).to.equal(batch.response.extFields!.msgId);

    const java = parseBinaryFrame(readFrame(S7, send.file));
    const javaBatch = parseBinaryFrame(readFrame(S7, batch.file));
    const ours = tap.frames.map((f) => ({ f, h: (f.readInt32BE(4) >>> 24) === 1 ? parseBinaryFrame(f) : null }));
    const oSend = ours.find((x) => x.h?.code === RequestCode.SEND_MESSAGE_V2)!.h!;
    const oBatch = ours.find((x) => x.h?.code === RequestCode.SEND_BATCH_MESSAGE)!.h!;
    for (const [o, j] of [[oSend, java], [oBatch, javaBatch]] as const) {
      expect(o.serializeType, 'serialize type byte').to.equal(1);
      expect(j.serializeType).to.equal(1);
      expect(o.language, 'language byte (JAVA = 0)').to.equal(j.language);
      expect(j.language).to.equal(0);
      expect(o.version).to.equal(j.version);
      expect(o.version).to.equal(DEFAULT_VERSION);
      expect(o.flag).to.equal(j.flag);
      expect(o.remark).to.equal(j.remark);
      expect(Object.keys(o.ext).sort()).to.deep.equal(Object.keys(j.ext).sort());
      for (const k of ['a', 'b', 'c', 'd', 'f', 'h', 'j', 'k', 'm', 'n']) expect(o.ext[k], `ext ${k}`).to.equal(j.ext[k]);
    }
    const noUniq = (s: string) => s.replace(/UNIQ_KEY\u0001[0-9A-F]+/, 'UNIQ_KEY\u0001*');
    expect(noUniq(oSend.ext.i)).to.equal(noUniq(java.ext.i));
    expect(oBatch.ext.i).to.equal(javaBatch.ext.i);
    // What our own decoder makes of the Java bytes agrees with the independent parse.
    const decoded = RemotingCommand.decodeFrame(readFrame(S7, send.file));
    expect(decoded.extFields).to.deep.equal(java.ext);
    expect(decoded.language).to.equal('JAVA');
  });

  it(`${S4}: RECONSUME_LATER → CONSUMER_SEND_MSG_BACK with Java's fields and values`, async () => {
    cluster = await startReplayCluster(S4);
    cluster.route('CapTopic', S4);
    answerGroup(S4);
    replayPulls(S4, 'CG_RETRY');
    const java = javaExchanges(S4, RequestCode.CONSUMER_SEND_MSG_BACK)[0];
    cluster.broker.replay(RequestCode.CONSUMER_SEND_MSG_BACK, java.response);
    const got: MessageExt[] = [];
    const c = new DefaultMQPushConsumer({ consumerGroup: 'CG_RETRY', namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `sendback-${Math.random()}`, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe('CapTopic', '*');
    c.registerMessageListener((msgs) => {
      got.push(...msgs);
      return ConsumeConcurrentlyStatus.RECONSUME_LATER;
    });
    await c.start();
    closers.push(() => c.shutdown());
    const target = java.request.extFields!.originMsgId;
    await waitFor(() => cluster.broker.of(RequestCode.CONSUMER_SEND_MSG_BACK).some((r) => r.extFields!.originMsgId === target), 10_000, 'the send-back of the message Java sent back');
    const ours = cluster.broker.of(RequestCode.CONSUMER_SEND_MSG_BACK).find((r) => r.extFields!.originMsgId === target)!;
    expect(Object.keys(ours.extFields!).sort()).to.deep.equal(Object.keys(java.request.extFields!).sort());
    expect(ours.extFields).to.deep.equal(java.request.extFields);
    expect(ours.flag).to.equal(java.request.flag);
    expect(ours.body ?? null).to.equal(null);
    // Every message went back (RECONSUME_LATER for all), each with its commit-log offset.
    await waitFor(() => cluster.broker.of(RequestCode.CONSUMER_SEND_MSG_BACK).length === got.length, 5_000, 'one send-back per delivered message');
    const backs = cluster.broker.of(RequestCode.CONSUMER_SEND_MSG_BACK);
    for (const m of got) expect(backs.some((r) => r.extFields!.offset === String(m.commitLogOffset))).to.equal(true);
  });

  it('lite pull consumer: PULL_MESSAGE as DefaultLitePullConsumerImpl.pullSyncImpl (sysFlag 22, subscription, subVersion 0)', async () => {
    cluster = await startReplayCluster('03-consume');
    cluster.route('CapTopic', '03-consume');
    answerGroup('03-consume');
    replayPulls('03-consume', 'CG_ALL');
    const c = new DefaultLitePullConsumer({ consumerGroup: 'CG_LITE', namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `lite-${Math.random()}` });
    await c.start();
    closers.push(() => c.shutdown());
    const queues = await c.fetchMessageQueues('CapTopic');
    c.assign(queues);
    let msgs: MessageExt[] = [];
    for (let i = 0; i < 10 && msgs.length === 0; i++) msgs = await c.poll(1_000);
    expect(msgs.length).to.be.greaterThan(0);
    const ours = cluster.broker.of(RequestCode.PULL_MESSAGE)[0];
    const javaPush = javaRequests('03-consume', RequestCode.PULL_MESSAGE).find((x) => x.cmd.extFields!.consumerGroup === 'CG_ALL')!.cmd;
    // The push consumer's keys plus `subscription` (the lite consumer always posts its expression).
    expect(Object.keys(ours.extFields!).sort()).to.deep.equal([...Object.keys(javaPush.extFields!), 'subscription'].sort());
    expect(ours.extFields).to.include({
      consumerGroup: 'CG_LITE', topic: 'CapTopic', maxMsgNums: '10', commitOffset: '0', suspendTimeoutMillis: '20000',
      subscription: '*', subVersion: '0', expressionType: 'TAG', bname: javaPush.extFields!.bname,
    });
    // buildSysFlag(commitOffset=false, suspend=true, subscription=true, classFilter=false, litePull=true) = 2|4|16.
    expect(ours.extFields!.sysFlag).to.equal('22');
    expect(ours.flag).to.equal(javaPush.flag);
  });

  it(`${S9}: master gone, route with brokerId 1 only: offsets and pulls go to the slave, commit flag cleared, Java's offsets`, async () => {
    cluster = await startReplayCluster(S9);
    // The route the consumer got after the master stopped: broker-ha with its slave (brokerId 1) only.
    const route = golden(S9, '19876-52346/0003-s2c-resp0.bin');
    const body = JSON.parse(route.body!.toString('utf8')) as { brokerDatas: Array<{ brokerAddrs: Record<string, string> }> };
    expect(body.brokerDatas[0].brokerAddrs).to.deep.equal({ 1: '127.0.0.1:20931' });
    cluster.namesrv.on(RequestCode.GET_ROUTEINFO_BY_TOPIC, (r) => (r.extFields!.topic === 'HaTopic'
      ? replayAs(r, route, Buffer.from(route.body!.toString('utf8').replace('127.0.0.1:20931', cluster.broker.addr)))
      : RemotingCommand.createResponse(r, ResponseCode.TOPIC_NOT_EXIST, `No topic route info in name server for the topic: ${r.extFields!.topic}`)));
    answerGroup(S9);
    replayPulls(S9, 'CG_HA_SLAVE');
    const got: MessageExt[] = [];
    const c = new DefaultMQPushConsumer({ consumerGroup: 'CG_HA_SLAVE', namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `slave-${Math.random()}`, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe('HaTopic', '*');
    c.registerMessageListener((msgs) => {
      got.push(...msgs);
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await c.start();
    const javaPulls = javaRequests(S9, RequestCode.PULL_MESSAGE).map((x) => x.cmd.extFields!);
    const javaFound = javaExchanges(S9, RequestCode.PULL_MESSAGE).filter((x) => x.response.code === ResponseCode.SUCCESS);
    expect(javaFound.every((x) => x.response.extFields!.suggestWhichBrokerId === '0')).to.equal(true);
    const total = javaFound.reduce((n, x) => n + Number(x.response.extFields!.nextBeginOffset) - Number(x.request.extFields!.queueOffset), 0);
    await waitFor(() => got.length === total, 10_000, `the ${total} messages from the slave`);
    // The second pull of each queue: at nextBeginOffset (Java: 5, 6, 8, 6), still to the slave although the
    // broker suggested brokerId 0 (findBrokerAddressInSubscribe falls back to the only address).
    await waitFor(() => cluster.broker.of(RequestCode.PULL_MESSAGE).length >= 8, 5_000, 'the second pulls');
    const next = (queueId: string) => cluster.broker.of(RequestCode.PULL_MESSAGE).filter((r) => r.extFields!.queueId === queueId)[1].extFields!.queueOffset;
    for (const j of javaPulls.filter((p) => p.queueOffset !== '0')) expect(next(j.queueId), `queue ${j.queueId}`).to.equal(j.queueOffset);
    // A slave never gets the commit-offset flag (PullAPIWrapper: clearCommitOffsetFlag when isSlave).
    for (const r of cluster.broker.of(RequestCode.PULL_MESSAGE)) expect(Number(r.extFields!.sysFlag) & 1, 'commit flag').to.equal(0);
    // Offsets: queried from and written to the slave (RemoteBrokerOffsetStore's onlyThisBroker=false fallback).
    expect(cluster.broker.of(RequestCode.QUERY_CONSUMER_OFFSET).length).to.be.greaterThan(0);
    await waitFor(() => [...new Set(got.map((m) => m.queueId))].length === 4, 2_000, 'all four queues consumed');
    await c.shutdown();
    const javaUpdates = javaRequests(S9, RequestCode.UPDATE_CONSUMER_OFFSET).map((x) => x.cmd.extFields!);
    const updates = cluster.broker.of(RequestCode.UPDATE_CONSUMER_OFFSET).map((r) => r.extFields!);
    for (const j of javaUpdates) {
      const o = updates.filter((u) => u.queueId === j.queueId).at(-1);
      expect(o, `update of queue ${j.queueId}`).to.not.equal(undefined);
      expect(o!.commitOffset, `queue ${j.queueId}`).to.equal(j.commitOffset);
      expect(Object.keys(o!).sort()).to.deep.equal(Object.keys(j).sort());
    }
  });
});
