/**
 * Request parity: what our client sends for an operation, compared with what the real Java 4.9.8 client sent
 * for the same operation in the golden captures (02..07, 10). Our client runs against a scripted name server and
 * broker (replay-cluster.ts) that answer with the captured Java responses and record our requests.
 *
 * Compared: the extFields keys (not their order: Java's is a HashMap's), the value formats (booleans, numbers,
 * sysFlag values), the properties string layout (key order and separators), and the JSON body shapes.
 *
 * Intended differences, each asserted below:
 * - UNIQ_KEY: Java's host bytes came from an IPv6 address on the capture host (56 hex chars); ours are the IPv4
 *   client IP (32 hex chars). Both are valid message ids; only the length of the host part differs.
 * - Client id ("ip@instance"), opaque, timestamps (bornTimestamp, subVersion) naturally differ.
 * - Serialize type: the Java client sent JSON headers (ROCKETMQ only in 07 with a system property); ours are
 *   compared decoded, whichever serialize type it uses.
 * - The header `version`: Java 4.9.8 sends 409 (V4_9_8); ours is whatever DEFAULT_VERSION says, asserted as a number.
 */
import { expect } from 'chai';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { createMessage, putUserProperty, setDelayTimeLevel, type Message } from '../../../protocol/message/message';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { TransactionMQProducer, LocalTransactionState } from '../../../lib/producer/transaction-mq-producer';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { ConsumeConcurrentlyStatus, ConsumeOrderlyStatus } from '../../../lib/consumer/listener';
import { MessageSelector } from '../../../lib/consumer/message-selector';
import { waitFor } from '../transport/helpers';
import { javaExchanges, javaRequests, type ReplayCluster, replayAs, startReplayCluster } from './replay-cluster';

const SEP_NAME_VALUE = '\u0001';
const SEP_PROPERTY = '\u0002';

function keysOf(cmd: RemotingCommand): string[] {
  return Object.keys(cmd.extFields ?? {}).sort();
}

/** The property names of a properties string, in order. */
function propertyOrder(s: string): string[] {
  return s.split(SEP_PROPERTY).filter((p) => p.length > 0).map((p) => p.split(SEP_NAME_VALUE)[0]);
}

/** A properties string with the UNIQ_KEY value blanked. */
function withoutUniqKey(s: string): string {
  return s.replace(/UNIQ_KEY\u0001[0-9A-F]+/, 'UNIQ_KEY\u0001*');
}

/** Parsed JSON with the key order of every object kept, as "a,b,c" lists by path. */
function jsonKeyOrders(value: unknown, path = '$', out: Record<string, string> = {}): Record<string, string> {
  if (Array.isArray(value)) value.forEach((v, i) => jsonKeyOrders(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') {
    out[path] = Object.keys(value).join(',');
    for (const [k, v] of Object.entries(value)) jsonKeyOrders(v, `${path}.${k}`, out);
  }
  return out;
}

function json(cmd: RemotingCommand): Record<string, unknown> {
  return JSON.parse(cmd.body!.toString('utf8'));
}

const JAVA_CLIENT = '127.0.0.1@harness-30154';

describe('compat: our client sends what the Java 4.9.8 client sent', function () {
  this.timeout(20_000);
  let cluster: ReplayCluster;
  const closers: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    cluster = await startReplayCluster('03-consume');
  });
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    await cluster.stop();
  });

  /** A broker that answers sends with the captured 4.9.8 SEND_MESSAGE answers. */
  function answerSends(): void {
    const send = javaExchanges('02-produce', RequestCode.SEND_MESSAGE_V2)[0].response;
    const batch = javaExchanges('02-produce', RequestCode.SEND_BATCH_MESSAGE)[0].response;
    cluster.broker.on(RequestCode.SEND_MESSAGE_V2, (r) => {
      const ext = { ...send.extFields!, queueId: r.extFields!.e };
      return RemotingCommand.createResponse(r, send.code, send.remark, ext);
    });
    cluster.broker.on(RequestCode.SEND_BATCH_MESSAGE, (r) => replayAs(r, batch));
  }

  async function producer(group = 'PG_CAP', compressOver?: number): Promise<DefaultMQProducer> {
    cluster.route('CapTopic', '02-produce');
    answerSends();
    const p = new DefaultMQProducer({ producerGroup: group, namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `parity-${Math.random()}`, ...(compressOver ? { compressMsgBodyOverHowmuch: compressOver } : {}) });
    await p.start();
    closers.push(() => p.shutdown());
    return p;
  }

  function javaSend(file: string): RemotingCommand {
    return javaRequests('02-produce', RequestCode.SEND_MESSAGE_V2).find((x) => x.file === file)!.cmd;
  }

  function expectSameSendHeader(ours: RemotingCommand, java: RemotingCommand): void {
    expect(keysOf(ours)).to.deep.equal(keysOf(java));
    const o = ours.extFields!;
    const j = java.extFields!;
    for (const k of ['a', 'b', 'c', 'd', 'f', 'h', 'j', 'k', 'm', 'n']) expect(o[k], `extFields.${k}`).to.equal(j[k]);
    expect(o.e).to.match(/^[0-3]$/);
    expect(o.g).to.match(/^\d{13}$/);
    expect(ours.flag).to.equal(java.flag);
    expect(ours.language).to.equal('JAVA');
  }

  it('SEND_MESSAGE_V2 (sync, tag, keys, user properties): the same header and the properties string in Java order', async () => {
    const p = await producer();
    const java = javaSend('20911-60870/0000-c2s-req310.bin');
    const msg = createMessage('CapTopic', Buffer.from(javaSend('20911-60870/0000-c2s-req310.bin').body!), { tags: 'TagA', keys: 'key-0' });
    putUserProperty(msg, 'color', 'red');
    putUserProperty(msg, 'n', '0');
    await p.send(msg);
    const ours = cluster.broker.of(RequestCode.SEND_MESSAGE_V2)[0];
    expectSameSendHeader(ours, java);
    expect(withoutUniqKey(ours.extFields!.i)).to.equal(withoutUniqKey(java.extFields!.i));
    expect(propertyOrder(ours.extFields!.i)).to.deep.equal(['color', 'KEYS', 'UNIQ_KEY', 'WAIT', 'TAGS', 'n']);
    // Intended: our UNIQ_KEY carries the IPv4 client address (32 hex), Java's here an IPv6 one (56 hex).
    expect(ours.extFields!.i).to.match(/UNIQ_KEY\u00017F000001[0-9A-F]{24}\u0002/);
    expect(java.extFields!.i).to.match(/UNIQ_KEY\u0001[0-9A-F]{56}\u0002/);
    expect(ours.body!.equals(java.body!)).to.equal(true);
  });

  it('SEND_MESSAGE_V2 oneway (flag 2), delay level, UTF-8 tag and keys: the same properties layout', async () => {
    const p = await producer();
    await p.sendOneway(createMessage('CapTopic', 'oneway', { tags: 'TagC' }));
    const delayed = createMessage('CapTopic', 'delayed', { tags: 'Delayed' });
    setDelayTimeLevel(delayed, 1);
    await p.send(delayed);
    await p.send(createMessage('CapTopic', 'utf8', { tags: 'Tä中', keys: ['k1', 'k2'] }));
    await waitFor(() => cluster.broker.of(RequestCode.SEND_MESSAGE_V2).length === 3);
    const [oneway, delay, utf8] = cluster.broker.of(RequestCode.SEND_MESSAGE_V2);
    const jOneway = javaSend('20911-60880/0000-c2s-req310.bin');
    expectSameSendHeader(oneway, jOneway);
    expect(withoutUniqKey(oneway.extFields!.i)).to.equal(withoutUniqKey(jOneway.extFields!.i));
    const jDelay = javaSend('20911-40378/0000-c2s-req310.bin');
    expectSameSendHeader(delay, jDelay);
    expect(withoutUniqKey(delay.extFields!.i)).to.equal(withoutUniqKey(jDelay.extFields!.i));
    const jUtf8 = javaSend('20911-55964/0000-c2s-req310.bin');
    expectSameSendHeader(utf8, jUtf8);
    expect(withoutUniqKey(utf8.extFields!.i)).to.equal(withoutUniqKey(jUtf8.extFields!.i));
  });

  it('SEND_MESSAGE_V2 of an 8 KiB body: sysFlag 769 and a zlib body, like Java', async () => {
    const p = await producer();
    const java = javaSend('20911-40368/0000-c2s-req310.bin');
    const text = 'x'.repeat(8192);
    await p.send(createMessage('CapTopic', text, { tags: 'Big', keys: 'bigkey' }));
    const ours = cluster.broker.of(RequestCode.SEND_MESSAGE_V2)[0];
    expectSameSendHeader(ours, java);
    expect(ours.extFields!.f).to.equal('769');
    expect(withoutUniqKey(ours.extFields!.i)).to.equal(withoutUniqKey(java.extFields!.i));
    expect(ours.body!.length).to.be.lessThan(200);
  });

  it('SEND_BATCH_MESSAGE: header (m=true, properties WAIT only) and every message of the body in Java layout', async () => {
    const p = await producer();
    const java = javaRequests('02-produce', RequestCode.SEND_BATCH_MESSAGE)[0].cmd;
    const msgs: Message[] = [0, 1, 2, 3, 4].map((i) => createMessage('CapTopic', `batch-${i}`, { tags: 'TagB', keys: `bkey-${i}` }));
    await p.send(msgs);
    const ours = cluster.broker.of(RequestCode.SEND_BATCH_MESSAGE)[0];
    expectSameSendHeader(ours, java);
    expect(ours.extFields!.i).to.equal(java.extFields!.i);
    // The body: per message totalSize, magic, bodyCRC, flag, body, properties (short length).
    const layout = (body: Buffer): string[][] => {
      const out: string[][] = [];
      for (let pos = 0; pos < body.length;) {
        const total = body.readInt32BE(pos);
        const bodyLen = body.readInt32BE(pos + 16);
        const propsLen = body.readInt16BE(pos + 20 + bodyLen);
        out.push(propertyOrder(body.subarray(pos + 22 + bodyLen, pos + 22 + bodyLen + propsLen).toString('utf8')));
        pos += total;
      }
      return out;
    };
    const jl = layout(java.body!);
    const ol = layout(ours.body!);
    expect(ol).to.have.length(jl.length);
    for (let i = 0; i < ol.length; i++) expect(ol[i], `message ${i}`).to.deep.equal(jl[i]);
  });

  /** Answers the consumer side of the broker with the captured 03-consume / 04 answers. */
  function answerConsumer(scenario = '03-consume'): void {
    const list = javaExchanges(scenario, RequestCode.GET_CONSUMER_LIST_BY_GROUP)[0].response;
    cluster.broker.on(RequestCode.GET_CONSUMER_LIST_BY_GROUP, (r) => {
      const hb = cluster.broker.of(RequestCode.HEART_BEAT).at(-1);
      const ourId = hb ? (json(hb).clientID as string) : 'none';
      const body = Buffer.from(list.body!.toString('utf8').replace(/127\.0\.0\.1@harness-\d+/g, ourId));
      return replayAs(r, list, body);
    });
    const offset = javaExchanges(scenario, RequestCode.QUERY_CONSUMER_OFFSET).find((x) => x.response.code === ResponseCode.SUCCESS)!.response;
    cluster.broker.replay(RequestCode.QUERY_CONSUMER_OFFSET, offset);
    cluster.broker.on(RequestCode.UPDATE_CONSUMER_OFFSET, (r) => RemotingCommand.createResponse(r, ResponseCode.SUCCESS));
    cluster.broker.on(RequestCode.PULL_MESSAGE, () => null); // held, like a long poll that never ends
  }

  async function pushConsumer(group: string, topic: string, expression: string | MessageSelector, scenario = '03-consume', orderly = false): Promise<DefaultMQPushConsumer> {
    cluster.route(topic, scenario);
    answerConsumer(scenario);
    const c = new DefaultMQPushConsumer({ consumerGroup: group, namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `parity-${Math.random()}`, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic, expression);
    if (orderly) c.registerMessageListenerOrderly(() => ConsumeOrderlyStatus.SUCCESS);
    else c.registerMessageListener(() => ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
    await c.start();
    closers.push(() => c.shutdown());
    return c;
  }

  it('HEART_BEAT of a push consumer: the same JSON layout (fastjson key order) and subscription data fields', async () => {
    await pushConsumer('CG_TAG', 'CapTopic', 'TagA || TagB');
    await waitFor(() => cluster.broker.of(RequestCode.HEART_BEAT).length > 0);
    const ours = cluster.broker.of(RequestCode.HEART_BEAT)[0];
    const java = javaRequests('03-consume', RequestCode.HEART_BEAT).find((x) => json(x.cmd).clientID === JAVA_CLIENT && (json(x.cmd).consumerDataSet as unknown[]).length === 1)!.cmd;
    expect(keysOf(ours)).to.deep.equal(keysOf(java));
    const o = json(ours) as { producerDataSet: unknown; consumerDataSet: Array<Record<string, unknown> & { subscriptionDataSet: Array<Record<string, unknown>> }> };
    const j = json(java) as typeof o;
    // Same key order everywhere (fastjson sorts them); the producer set: Java's consumer-only client lists CLIENT_INNER_PRODUCER.
    const oOrders = jsonKeyOrders(o);
    const jOrders = jsonKeyOrders(j);
    expect(oOrders.$).to.equal(jOrders.$);
    expect(oOrders['$.consumerDataSet[0]']).to.equal(jOrders['$.consumerDataSet[0]']);
    const jc = j.consumerDataSet[0];
    const oc = o.consumerDataSet[0];
    for (const k of ['consumeFromWhere', 'consumeType', 'groupName', 'messageModel', 'unitMode']) expect(oc[k], k).to.deep.equal(jc[k]);
    const bySubTopic = (set: Array<Record<string, unknown>>, t: string) => set.find((s) => s.topic === t)!;
    for (const t of ['CapTopic', '%RETRY%CG_TAG']) {
      const os = bySubTopic(oc.subscriptionDataSet, t);
      const js = bySubTopic(jc.subscriptionDataSet, t);
      expect(Object.keys(os).join(','), t).to.equal(Object.keys(js).join(','));
      for (const k of ['classFilterMode', 'codeSet', 'expressionType', 'subString', 'tagsSet', 'topic']) expect(os[k], `${t}.${k}`).to.deep.equal(js[k]);
      expect(os.subVersion).to.be.a('number');
    }
    expect(o.producerDataSet).to.deep.equal(j.producerDataSet);
  });

  it('GET_CONSUMER_LIST_BY_GROUP, QUERY_CONSUMER_OFFSET, PULL_MESSAGE: the same extFields and value formats', async () => {
    const c = await pushConsumer('CG_TAG', 'CapTopic', 'TagA || TagB');
    await waitFor(() => cluster.broker.of(RequestCode.PULL_MESSAGE).length === 4, 10_000, 'four pulls');
    const pairs: Array<[number, RemotingCommand]> = [
      [RequestCode.GET_CONSUMER_LIST_BY_GROUP, cluster.broker.of(RequestCode.GET_CONSUMER_LIST_BY_GROUP)[0]],
      [RequestCode.QUERY_CONSUMER_OFFSET, cluster.broker.of(RequestCode.QUERY_CONSUMER_OFFSET)[0]],
      [RequestCode.PULL_MESSAGE, cluster.broker.of(RequestCode.PULL_MESSAGE)[0]],
    ];
    for (const [code, ours] of pairs) {
      const java = javaRequests('03-consume', code).find((x) => x.cmd.extFields?.consumerGroup === 'CG_TAG')!.cmd;
      expect(keysOf(ours), `code ${code}`).to.deep.equal(keysOf(java));
      expect(ours.flag, `flag of ${code}`).to.equal(java.flag);
      for (const k of ['consumerGroup', 'topic', 'bname', 'maxMsgNums', 'sysFlag', 'suspendTimeoutMillis', 'commitOffset', 'expressionType', 'queueOffset']) {
        if (k in java.extFields!) expect(ours.extFields![k], `${code}.${k}`).to.equal(java.extFields![k]);
      }
      if (java.extFields!.subVersion) expect(ours.extFields!.subVersion).to.match(/^\d{13}$/);
    }
    // UPDATE_CONSUMER_OFFSET on shutdown: the same keys. Intended difference: Java's persistAll sends it
    // oneway (flag 2); ours waits for the broker's answer (flag 0) so a shutdown knows the offsets arrived.
    await c.shutdown();
    const update = cluster.broker.of(RequestCode.UPDATE_CONSUMER_OFFSET);
    const jUpdate = javaRequests('03-consume', RequestCode.UPDATE_CONSUMER_OFFSET)[0].cmd;
    expect(update.length).to.be.greaterThan(0);
    expect(keysOf(update[0])).to.deep.equal(keysOf(jUpdate));
    expect(jUpdate.flag).to.equal(2);
    expect(update[0].flag).to.equal(0);
    expect(update[0].extFields!.commitOffset).to.equal('0');
    // UNREGISTER_CLIENT of a consumer: clientID + consumerGroup (no producerGroup), as Java.
    const unreg = cluster.broker.of(RequestCode.UNREGISTER_CLIENT).find((r) => r.extFields!.consumerGroup === 'CG_TAG')!;
    const jUnreg = javaRequests('03-consume', RequestCode.UNREGISTER_CLIENT).find((x) => x.cmd.extFields!.consumerGroup)!.cmd;
    expect(keysOf(unreg)).to.deep.equal(keysOf(jUnreg));
  });

  it('CHECK_CLIENT_CONFIG for an SQL92 subscription: the same body', async () => {
    cluster.broker.on(RequestCode.CHECK_CLIENT_CONFIG, (r) => RemotingCommand.createResponse(r, ResponseCode.SUCCESS));
    await pushConsumer('CG_SQL', 'SqlTopic', MessageSelector.bySql("a > 2 AND region = 'r1'"));
    const ours = cluster.broker.of(RequestCode.CHECK_CLIENT_CONFIG)[0];
    const java = javaRequests('03-consume', RequestCode.CHECK_CLIENT_CONFIG)[0].cmd;
    expect(keysOf(ours)).to.deep.equal(keysOf(java));
    expect(Object.keys(json(ours)).join(',')).to.equal(Object.keys(json(java)).join(','));
    const os = json(ours).subscriptionData as Record<string, unknown>;
    const js = json(java).subscriptionData as Record<string, unknown>;
    expect(Object.keys(os).join(',')).to.equal(Object.keys(js).join(','));
    for (const k of ['classFilterMode', 'codeSet', 'expressionType', 'subString', 'tagsSet', 'topic']) expect(os[k], k).to.deep.equal(js[k]);
    expect(json(ours).group).to.equal('CG_SQL');
  });

  it('LOCK_BATCH_MQ / UNLOCK_BATCH_MQ of an orderly consumer: the same body fields', async () => {
    const lockJava = javaExchanges('04-orderly-retry-rebalance', RequestCode.LOCK_BATCH_MQ)[0];
    cluster.broker.on(RequestCode.LOCK_BATCH_MQ, (r) => RemotingCommand.createResponse(r, ResponseCode.SUCCESS, null, null, Buffer.from(JSON.stringify({ lockOKMQSet: (json(r) as { mqSet: unknown[] }).mqSet }))));
    cluster.broker.on(RequestCode.UNLOCK_BATCH_MQ, (r) => RemotingCommand.createResponse(r, ResponseCode.SUCCESS));
    const c = await pushConsumer('CG_ORD', 'OrderTopic', '*', '04-orderly-retry-rebalance', true);
    await waitFor(() => cluster.broker.of(RequestCode.LOCK_BATCH_MQ).length > 0, 10_000, 'a lock');
    const lock = cluster.broker.of(RequestCode.LOCK_BATCH_MQ)[0];
    expect(keysOf(lock)).to.deep.equal(keysOf(lockJava.request));
    expect(jsonKeyOrders(json(lock)).$).to.equal(jsonKeyOrders(json(lockJava.request)).$);
    expect(jsonKeyOrders(json(lock))['$.mqSet[0]']).to.equal(jsonKeyOrders(json(lockJava.request))['$.mqSet[0]']);
    await c.shutdown();
    const unlock = cluster.broker.of(RequestCode.UNLOCK_BATCH_MQ);
    const unlockJava = javaRequests('04-orderly-retry-rebalance', RequestCode.UNLOCK_BATCH_MQ)[0].cmd;
    expect(unlock.length).to.be.greaterThan(0);
    expect(jsonKeyOrders(json(unlock[0])).$).to.equal(jsonKeyOrders(json(unlockJava)).$);
    expect(unlock[0].flag).to.equal(unlockJava.flag);
  });

  it('END_TRANSACTION of a committed local transaction: the same keys and value formats', async () => {
    cluster.route('TxTopic', '05-transaction');
    const half = javaExchanges('05-transaction', RequestCode.SEND_MESSAGE_V2)[0];
    cluster.broker.on(RequestCode.SEND_MESSAGE_V2, (r) => RemotingCommand.createResponse(r, half.response.code, half.response.remark, { ...half.response.extFields!, queueId: r.extFields!.e }));
    cluster.broker.on(RequestCode.END_TRANSACTION, () => null);
    const p = new TransactionMQProducer({
      producerGroup: 'TXG', namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `parity-${Math.random()}`,
      transactionListener: { executeLocalTransaction: () => LocalTransactionState.COMMIT_MESSAGE, checkLocalTransaction: () => LocalTransactionState.COMMIT_MESSAGE },
    });
    await p.start();
    closers.push(() => p.shutdown());
    await p.sendMessageInTransaction(createMessage('TxTopic', 'tx-commit'));
    const sent = cluster.broker.of(RequestCode.SEND_MESSAGE_V2)[0];
    expectSameSendHeader(sent, half.request);
    expect(withoutUniqKey(sent.extFields!.i)).to.equal(withoutUniqKey(half.request.extFields!.i));
    await waitFor(() => cluster.broker.of(RequestCode.END_TRANSACTION).length === 1);
    const ours = cluster.broker.of(RequestCode.END_TRANSACTION)[0];
    const java = javaRequests('05-transaction', RequestCode.END_TRANSACTION).find((x) => x.cmd.extFields!.fromTransactionCheck === 'false' && x.cmd.extFields!.commitOrRollback === '8')!.cmd;
    expect(keysOf(ours)).to.deep.equal(keysOf(java));
    expect(ours.flag).to.equal(java.flag);
    for (const k of ['producerGroup', 'bname', 'tranStateTableOffset', 'commitOrRollback', 'fromTransactionCheck']) expect(ours.extFields![k], k).to.equal(java.extFields![k]);
    expect(ours.extFields!.commitLogOffset).to.match(/^\d+$/);
    expect(ours.extFields!.msgId).to.equal(sent.extFields!.i.split(SEP_PROPERTY).find((x) => x.startsWith('UNIQ_KEY'))!.split(SEP_NAME_VALUE)[1]);
  });
});
