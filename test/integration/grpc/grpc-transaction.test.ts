/**
 * Transactions of rocketmq-client-nodejs's Producer through our broker's gRPC endpoint: a half message committed
 * or rolled back by the client (EndTransaction, source CLIENT), and one left open that the broker's transaction
 * check reaches through the producer's Telemetry stream (RecoverOrphanedTransactionCommand, group = topic), its
 * checker answering UNKNOWN first, then COMMIT or ROLLBACK (EndTransaction, source SERVER_CHECK).
 */
import { expect } from 'chai';
import { Producer, SimpleConsumer, type MessageView } from 'rocketmq-client-nodejs';
import { TransactionalMessageUtil } from '../../../lib/broker/transaction/transactional-message-util';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';
import { createTopicAndWait } from '../pop/pop-scenario';
import { clientLogger, useGrpcCluster } from './grpc-client-fixture';

const logger = clientLogger;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TransactionResolution } = require('rocketmq-client-nodejs/proto/apache/rocketmq/v2/definition_pb') as {
  TransactionResolution: { TRANSACTION_RESOLUTION_UNSPECIFIED: number; COMMIT: number; ROLLBACK: number };
};

interface Check { messageId: string; topic: string; body: string }

describe('gRPC endpoint: transactions of rocketmq-client-nodejs', function () {
  this.timeout(120_000);
  const g = useGrpcCluster({ brokerConfig: { transactionCheckInterval: 2000, transactionTimeOut: 3000 } });

  async function transactionTopic(prefix: string): Promise<string> {
    const topic = randomName(prefix);
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 1);
    // The client sends a transactional message only to a topic whose route accepts TRANSACTION.
    g.cluster.brokers[0].topicConfigManager.selectTopicConfig(topic)!.attributes = new Map([['message.type', 'TRANSACTION']]);
    return topic;
  }

  /** A producer whose checker records each check and answers with `answer(body, how many checks of it so far)`. */
  async function producer(topic: string, checks: Check[], answer: (body: string, n: number) => number): Promise<Producer> {
    const p = new Producer({
      endpoints: g.endpoints, namespace: '', topics: [topic], logger,
      checker: {
        async check(m: MessageView) {
          const body = m.body.toString();
          checks.push({ messageId: m.messageId, topic: m.topic, body });
          return answer(body, checks.filter((c) => c.body === body).length);
        },
      },
    });
    await p.startup();
    g.clients.push(p);
    return p;
  }

  async function consumer(topic: string): Promise<SimpleConsumer> {
    const c = new SimpleConsumer({ endpoints: g.endpoints, namespace: '', consumerGroup: randomName('GTX'), subscriptions: new Map([[topic, '*']]), awaitDuration: 5000, logger });
    await c.startup();
    g.clients.push(c);
    return c;
  }

  const store = () => g.cluster.brokers[0].messageStore;
  const ops = () => store().getMaxOffsetInQueue(TransactionalMessageUtil.OP_TOPIC, 0);
  const byResolution = (body: string) => (body.startsWith('commit') ? TransactionResolution.COMMIT : TransactionResolution.ROLLBACK);

  it('commit and rollback by the client: the committed message reaches the topic, the rolled back one never does', async () => {
    const topic = await transactionTopic('GTXC');
    const checks: Check[] = [];
    const p = await producer(topic, checks, byResolution);
    const opsBefore = ops();
    const t1 = p.beginTransaction();
    const committed = await p.send({ topic, tag: 'tx', body: Buffer.from('commit-1') }, t1);
    expect(committed.transactionId).to.equal(committed.messageId);
    const t2 = p.beginTransaction();
    await p.send({ topic, tag: 'tx', body: Buffer.from('rollback-1') }, t2);
    // The half messages wait in the half topic, not in the topic.
    expect(store().getMaxOffsetInQueue(topic, 0)).to.equal(0);
    await t1.commit();
    await t2.rollback();
    // EndTransaction answers once the broker ended the half message: one op message each, one message in the topic.
    expect(ops() - opsBefore).to.equal(2);
    expect(store().getMaxOffsetInQueue(topic, 0)).to.equal(1);
    const c = await consumer(topic);
    const got: MessageView[] = [];
    await waitFor(async () => {
      got.push(...await c.receive(16, 20_000));
      return got.length >= 1;
    }, 60_000, 'the committed message');
    expect(got).to.have.length(1);
    expect(got[0].messageId).to.equal(committed.messageId);
    expect(got[0].body.toString()).to.equal('commit-1');
    expect(got[0].tag).to.equal('tx');
    await c.ack(got[0]);
  });

  it('an EndTransaction the endpoint has no data of is refused in-band (INTERNAL_SERVER_ERROR); a blank transaction id is INVALID_TRANSACTION_ID', async () => {
    const topic = await transactionTopic('GTXE');
    const p = await producer(topic, [], byResolution);
    const endpointsObj = (p as unknown as { endpoints: unknown }).endpoints;
    const view = { topic };
    let err: Error | null = null;
    await p.endTransaction(endpointsObj as never, view as never, '0A'.repeat(17), 'no-such-transaction', TransactionResolution.COMMIT).catch((e: Error) => {
      err = e;
    });
    expect(String(err)).to.match(/cannot found transaction data/);
    err = null;
    await p.endTransaction(endpointsObj as never, view as never, '0A'.repeat(17), '', TransactionResolution.COMMIT).catch((e: Error) => {
      err = e;
    });
    expect(String(err)).to.match(/transaction id cannot be empty/);
  });

  it('left open: the check reaches the producer over Telemetry; UNKNOWN first, then COMMIT, and the message is delivered', async () => {
    const topic = await transactionTopic('GTXU');
    const checks: Check[] = [];
    const p = await producer(topic, checks, (_body, n) => (n === 1 ? TransactionResolution.TRANSACTION_RESOLUTION_UNSPECIFIED : TransactionResolution.COMMIT));
    const open = p.beginTransaction();
    const sent = await p.send({ topic, tag: 'tx', body: Buffer.from('unknown-then-commit') }, open);
    const c = await consumer(topic);
    const got: MessageView[] = [];
    await waitFor(async () => {
      got.push(...await c.receive(16, 20_000));
      return got.length >= 1;
    }, 60_000, 'the message committed by the second check');
    expect(checks.length).to.be.at.least(2);
    for (const check of checks) expect(check).to.deep.equal({ messageId: sent.messageId, topic, body: 'unknown-then-commit' });
    expect(got).to.have.length(1);
    expect(got[0].messageId).to.equal(sent.messageId);
    expect(got[0].body.toString()).to.equal('unknown-then-commit');
    expect(store().getMaxOffsetInQueue(topic, 0)).to.equal(1);
    await c.ack(got[0]);
  });

  it('left open: the check answered ROLLBACK ends the half message and nothing reaches the topic', async () => {
    const topic = await transactionTopic('GTXR');
    const checks: Check[] = [];
    const p = await producer(topic, checks, (_body, n) => (n === 1 ? TransactionResolution.TRANSACTION_RESOLUTION_UNSPECIFIED : TransactionResolution.ROLLBACK));
    const opsBefore = ops();
    const sent = await p.send({ topic, tag: 'tx', body: Buffer.from('unknown-then-rollback') }, p.beginTransaction());
    await waitFor(() => ops() > opsBefore, 60_000, 'the op message of the rollback');
    expect(checks.length).to.be.at.least(2);
    expect(checks[0].messageId).to.equal(sent.messageId);
    expect(store().getMaxOffsetInQueue(topic, 0)).to.equal(0);
  });
});
