/**
 * Response handling: a scripted name server and broker answer our client with the responses real Java 4.9.8 and
 * 5.3.3 servers gave the Java 4.9.8 client (golden captures; only opaque follows our request), and send our
 * client the broker-initiated requests the Java broker sent. Asserts our client decodes every value and takes
 * the step the Java client took next in the capture.
 */
import { expect } from 'chai';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { createMessage, type MessageExt } from '../../../protocol/message/message';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { LocalTransactionState, TransactionMQProducer } from '../../../lib/producer/transaction-mq-producer';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { MQBrokerError, MQClientError } from '../../../lib/errors';
import { waitFor } from '../transport/helpers';
import { golden, javaExchanges, javaRequests, type ReplayCluster, replayAs, startReplayCluster } from './replay-cluster';

const J5 = '10-java5-broker';

describe('compat: our client handles what Java 4.9.8 and 5.3.3 servers answered', function () {
  this.timeout(20_000);
  let cluster: ReplayCluster;
  const closers: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    await cluster.stop();
  });

  async function producer(group: string): Promise<DefaultMQProducer> {
    const p = new DefaultMQProducer({ producerGroup: group, namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `replay-${Math.random()}` });
    await p.start();
    closers.push(() => p.shutdown());
    return p;
  }

  for (const [scenario, topic, brokerName] of [['02-produce', 'CapTopic', 'broker-cap'], [J5, 'Cap5Topic', 'broker-5x']] as const) {
    it(`${scenario}: route body and SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE answers decode to SendResults`, async () => {
      cluster = await startReplayCluster(scenario === J5 ? J5 : '03-consume');
      cluster.route(topic, scenario);
      const send = javaExchanges(scenario, RequestCode.SEND_MESSAGE_V2)[0].response;
      const batch = javaExchanges(scenario, RequestCode.SEND_BATCH_MESSAGE)[0].response;
      cluster.broker.replay(RequestCode.SEND_MESSAGE_V2, send);
      cluster.broker.replay(RequestCode.SEND_BATCH_MESSAGE, batch);
      const p = await producer('PG_REPLAY');
      const queues = await p.fetchPublishMessageQueues(topic);
      expect(queues.map((q) => q.brokerName)).to.satisfy((names: string[]) => names.every((n) => n === brokerName));
      expect(queues).to.have.length(4);
      const r = await p.send(createMessage(topic, 'x', { tags: 'TagA' }));
      expect(r.sendStatus).to.equal('SEND_OK');
      expect(r.offsetMsgId).to.equal(send.extFields!.msgId);
      expect(r.queueOffset).to.equal(Number(send.extFields!.queueOffset));
      expect(r.messageQueue.queueId).to.equal(Number(send.extFields!.queueId));
      expect(r.regionId).to.equal('DefaultRegion');
      expect(r.traceOn).to.equal(true);
      if (send.extFields!.transactionId) expect(r.transactionId).to.equal(send.extFields!.transactionId);
      const b = await p.send([0, 1, 2].map((i) => createMessage(topic, `b${i}`)));
      expect(b.sendStatus).to.equal('SEND_OK');
      expect(b.offsetMsgId).to.equal(batch.extFields!.msgId);
      expect(b.queueOffset).to.equal(Number(batch.extFields!.queueOffset));
    });
  }

  it('5.3.3 route: the captured body (enableActingMaster, 5.x fields) is parsed', async () => {
    cluster = await startReplayCluster(J5);
    cluster.route('Cap5Topic', J5);
    const body = javaExchanges(J5, RequestCode.GET_ROUTEINFO_BY_TOPIC).find((x) => x.request.extFields!.topic === 'Cap5Topic' && x.response.code === 0)!.response.body!.toString();
    const p = await producer('PG_ROUTE5');
    const queues = await p.fetchPublishMessageQueues('Cap5Topic');
    expect(queues.map((q) => q.queueId).sort()).to.deep.equal([0, 1, 2, 3]);
    expect(body.length).to.be.greaterThan(0);
  });

  it('08-acl: SYSTEM_ERROR with an AclException remark is a typed MQBrokerError, with bounded retries', async () => {
    cluster = await startReplayCluster('03-consume');
    cluster.route('AclTopic', '08-acl', 'AclTopic');
    const refusal = golden('08-acl', '20911-49468/0000-s2c-resp1.bin');
    cluster.broker.replay(RequestCode.SEND_MESSAGE_V2, refusal);
    const p = await producer('PG_ACL');
    let err: unknown;
    try {
      await p.send(createMessage('AclTopic', 'x'));
    } catch (e) {
      err = e;
    }
    // As Java: after the retries an MQClientError ("Send [3] times, still failed") carrying the MQBrokerError.
    expect(err).to.be.instanceOf(MQClientError);
    const cause = (err as Error).cause;
    expect(cause).to.be.instanceOf(MQBrokerError);
    expect((cause as MQBrokerError).responseCode).to.equal(ResponseCode.SYSTEM_ERROR);
    expect((cause as MQBrokerError).remark).to.equal(refusal.remark);
    expect((cause as MQBrokerError).remark).to.contain('AclException');
    // Java retries SYSTEM_ERROR retryTimesWhenSendFailed (2) times: 3 attempts, no storm.
    expect(cluster.broker.of(RequestCode.SEND_MESSAGE_V2).length).to.be.within(1, 3);
  });

  it(`${J5}: pull FOUND with 5.x fields, QUERY_NOT_FOUND (22), NOTIFY_CONSUMER_IDS_CHANGED → rebalance`, async () => {
    cluster = await startReplayCluster(J5);
    cluster.route('Cap5Topic', J5);
    const list = javaExchanges(J5, RequestCode.GET_CONSUMER_LIST_BY_GROUP)[0].response;
    cluster.broker.on(RequestCode.GET_CONSUMER_LIST_BY_GROUP, (r) => {
      const hb = cluster.broker.of(RequestCode.HEART_BEAT).at(-1)!;
      const id = JSON.parse(hb.body!.toString()).clientID as string;
      return replayAs(r, list, Buffer.from(list.body!.toString().replace(/127\.0\.0\.1@harness-\d+/g, id)));
    });
    const notFound = javaExchanges(J5, RequestCode.QUERY_CONSUMER_OFFSET).find((x) => x.response.code === ResponseCode.QUERY_NOT_FOUND)!.response;
    cluster.broker.replay(RequestCode.QUERY_CONSUMER_OFFSET, notFound);
    cluster.broker.on(RequestCode.UPDATE_CONSUMER_OFFSET, (r) => RemotingCommand.createResponse(r, ResponseCode.SUCCESS));
    // Pulls: each captured exchange (queue, offset) answered once, as captured; anything else is held.
    const pulls = new Map(javaExchanges(J5, RequestCode.PULL_MESSAGE).filter((x) => x.request.extFields!.topic === 'Cap5Topic')
      .map((x): [string, RemotingCommand] => [`${x.request.extFields!.queueId}:${x.request.extFields!.queueOffset}`, x.response]));
    const found = [...pulls.values()].filter((r) => r.code === ResponseCode.SUCCESS);
    expect(found.length).to.be.greaterThan(0);
    expect(found[0].extFields).to.have.property('groupSysFlag');
    cluster.broker.on(RequestCode.PULL_MESSAGE, (r) => {
      const k = `${r.extFields!.queueId}:${r.extFields!.queueOffset}`;
      const captured = pulls.get(k);
      if (!captured) return null;
      pulls.delete(k);
      return replayAs(r, captured);
    });
    const got: MessageExt[] = [];
    const c = new DefaultMQPushConsumer({ consumerGroup: 'CG5', namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `replay-${Math.random()}`, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe('Cap5Topic', '*');
    c.registerMessageListener((msgs) => {
      got.push(...msgs);
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await c.start();
    closers.push(() => c.shutdown());
    await waitFor(() => got.length > 0, 10_000, 'messages from the captured 5.x pull answers');
    for (const m of got) {
      expect(m.topic).to.equal('Cap5Topic');
      expect(m.msgId).to.match(/^[0-9A-F]{32,56}$/);
    }
    // QUERY_NOT_FOUND with CONSUME_FROM_FIRST_OFFSET: the first pull starts at 0, like Java.
    const firstPulls = cluster.broker.of(RequestCode.PULL_MESSAGE);
    expect(firstPulls.every((r) => Number(r.extFields!.queueOffset) >= 0)).to.equal(true);
    expect(firstPulls.some((r) => r.extFields!.queueOffset === '0')).to.equal(true);
    // The broker's NOTIFY_CONSUMER_IDS_CHANGED (oneway, as captured): our client rebalances → GET_CONSUMER_LIST_BY_GROUP.
    const notify = javaRequests(J5, RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, 's2c').find((x) => x.cmd.extFields!.consumerGroup === 'CG5')!.cmd;
    const before = cluster.broker.of(RequestCode.GET_CONSUMER_LIST_BY_GROUP).length;
    const channel = cluster.broker.server.channels[0];
    await cluster.broker.server.invokeOneway(channel, new RemotingCommand({ code: notify.code, extFields: { ...notify.extFields! }, version: notify.version }));
    await waitFor(() => cluster.broker.of(RequestCode.GET_CONSUMER_LIST_BY_GROUP).length > before, 5_000, 'a rebalance after the notification');
  });

  it(`${J5}: CHECK_TRANSACTION_STATE from the 5.3.3 broker is answered with END_TRANSACTION fromTransactionCheck=true`, async () => {
    cluster = await startReplayCluster(J5);
    cluster.broker.on(RequestCode.END_TRANSACTION, () => null);
    const half = javaExchanges(J5, RequestCode.SEND_MESSAGE_V2).find((x) => x.request.extFields!.b === 'Tx5')!.response;
    cluster.broker.replay(RequestCode.SEND_MESSAGE_V2, half);
    const check = javaRequests(J5, RequestCode.CHECK_TRANSACTION_STATE, 's2c')[0].cmd;
    const javaEnd = javaRequests(J5, RequestCode.END_TRANSACTION).find((x) => x.cmd.extFields!.fromTransactionCheck === 'true')!.cmd;
    const checked: MessageExt[] = [];
    const p = new TransactionMQProducer({
      producerGroup: 'TXG5', namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `replay-${Math.random()}`,
      transactionListener: {
        executeLocalTransaction: () => LocalTransactionState.UNKNOW,
        checkLocalTransaction: (m) => {
          checked.push(m);
          return LocalTransactionState.COMMIT_MESSAGE;
        },
      },
    });
    cluster.route('Tx5', J5); // TOPIC_NOT_EXIST as captured: the send goes through TBW102, as Java's did
    cluster.route('TBW102', J5);
    await p.start();
    closers.push(() => p.shutdown());
    const sent = await p.sendMessageInTransaction(createMessage('Tx5', 'tx'));
    expect(sent.localTransactionState).to.equal(LocalTransactionState.UNKNOW);
    // As Java's sendMessageInTransaction: the transaction id is the message's UNIQ_KEY (the 5.x broker's
    // transactionId extField echoes the UNIQ_KEY it was sent; here it is the captured Java one).
    expect(sent.transactionId).to.equal(sent.msgId);
    await waitFor(() => cluster.broker.of(RequestCode.END_TRANSACTION).length === 1, 5_000, 'the UNKNOW END_TRANSACTION');
    expect(cluster.broker.of(RequestCode.END_TRANSACTION)[0].extFields!.commitOrRollback).to.equal('0');
    await cluster.broker.server.invokeOneway(cluster.broker.server.channels[0], new RemotingCommand({ code: check.code, flag: check.flag, extFields: { ...check.extFields! }, body: check.body, version: check.version }));
    await waitFor(() => cluster.broker.of(RequestCode.END_TRANSACTION).length === 2, 5_000, 'END_TRANSACTION after the check');
    expect(checked[0].transactionId).to.equal(check.extFields!.transactionId);
    const ours = cluster.broker.of(RequestCode.END_TRANSACTION)[1];
    expect(Object.keys(ours.extFields!).sort()).to.deep.equal(Object.keys(javaEnd.extFields!).sort());
    for (const k of ['producerGroup', 'commitLogOffset', 'tranStateTableOffset', 'commitOrRollback', 'fromTransactionCheck', 'msgId', 'transactionId', 'bname']) {
      expect(ours.extFields![k], k).to.equal(javaEnd.extFields![k]);
    }
    expect(ours.flag).to.equal(javaEnd.flag);
  });
});
