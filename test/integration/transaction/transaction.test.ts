import { expect } from 'chai';
import { getCluster, randomName, skipWhenExternal, waitFor, type TestCluster } from '../../helpers/cluster';
import { newClient, pullRequest } from '../broker/broker-helpers';
import type { RemotingClient } from '../../../lib/transport/remoting-client';
import { ResponseCode } from '../../../protocol/code/response-code';
import { decodeMessage, decodeMessages } from '../../../protocol/message/message-decoder';
import { createMessage, setDelayTimeSec, type Message, type MessageExt } from '../../../protocol/message/message';
import { InvalidArgumentError } from '../../../lib/errors';
import { MessageConst } from '../../../protocol/message/message-const';
import {
  LocalTransactionState, TransactionMQProducer, type TransactionListener,
} from '../../../lib/producer/transaction-mq-producer';
import { TransactionalMessageUtil, buildOpTopic } from '../../../lib/broker/transaction/transactional-message-util';

type Answer = LocalTransactionState | (() => LocalTransactionState | Promise<LocalTransactionState>);

/** A listener whose answers are set per message body, recording the checks it received. */
class ScriptedListener implements TransactionListener {
  readonly local = new Map<string, Answer>();
  readonly check = new Map<string, Answer>();
  readonly checked: MessageExt[] = [];
  readonly executed: Message[] = [];

  async executeLocalTransaction(msg: Message): Promise<LocalTransactionState> {
    this.executed.push(msg);
    const a = this.local.get(msg.body.toString()) ?? LocalTransactionState.COMMIT_MESSAGE;
    return typeof a === 'function' ? a() : a;
  }

  async checkLocalTransaction(msg: MessageExt): Promise<LocalTransactionState> {
    this.checked.push(msg);
    const a = this.check.get(msg.body.toString()) ?? LocalTransactionState.UNKNOW;
    return typeof a === 'function' ? a() : a;
  }
}

describe('transactions end to end (TransactionMQProducer against the in-process broker)', function () {
  this.timeout(60000);
  let tc: TestCluster;
  let client: RemotingClient;
  const producers: TransactionMQProducer[] = [];

  before(async function () {
    skipWhenExternal(this, 'the tests set the in-process broker\'s transaction check interval and restart it');
    // No periodic check during the tests (60 s, and stopped before each test): each test runs the check passes it
    // needs (checkPass) once the answers to earlier checks have landed. A periodic check (it was every 200 ms) could
    // ask again before a busy machine delivered the answer to the last one, and a message got committed twice.
    // transactionTimeOut 0: a pass checks every half message not ended yet.
    tc = await getCluster({ brokerConfig: { transactionCheckInterval: 60_000, transactionTimeOut: 0 } });
    client = newClient();
  });
  beforeEach(() => stopPeriodicChecks());
  after(async () => {
    for (const p of producers) await p.shutdown();
    await client?.shutdown();
    await tc?.stop();
  });

  const brokerAddr = (): string => tc.cluster!.brokers[0].brokerAddr;

  function stopPeriodicChecks(): Promise<void> {
    return tc.cluster!.brokers[0].transactionalMessageCheckService.shutdown();
  }

  /** One check pass of the broker, as its periodic service runs it. */
  async function checkPass(): Promise<void> {
    // a pass leaves half messages stored in the millisecond it started to the next pass
    await new Promise((r) => setTimeout(r, 2));
    await tc.cluster!.brokers[0].transactionalMessageCheckService.onWaitEnd();
  }

  /** Ended transactions so far (each COMMIT or ROLLBACK that landed writes one op message). */
  const opCount = (): number => tc.cluster!.brokers[0].messageStore.getMaxOffsetInQueue(buildOpTopic(), 0);

  async function startProducer(group: string, listener: TransactionListener, instanceName = 'DEFAULT'): Promise<TransactionMQProducer> {
    const p = new TransactionMQProducer({ producerGroup: group, namesrvAddr: tc.namesrvAddr, instanceName, transactionListener: listener });
    await p.start();
    producers.push(p);
    return p;
  }

  /** Everything a consumer can pull from the topic's 4 queues, as body strings. */
  async function consumable(topic: string): Promise<string[]> {
    const out: string[] = [];
    for (let q = 0; q < 4; q++) {
      const r = await client.invoke(brokerAddr(), pullRequest('CG_TX', topic, q, 0), 5000);
      if (r.code === ResponseCode.SUCCESS && r.body) out.push(...decodeMessages(r.body).map((m) => m.body.toString()));
    }
    return out.sort();
  }

  async function rawQueue(topic: string, queueId: number): Promise<MessageExt[]> {
    const r = await client.invoke(brokerAddr(), pullRequest('CG_TX_SYS', topic, queueId, 0), 5000);
    return r.code === ResponseCode.SUCCESS && r.body ? decodeMessages(r.body) : [];
  }

  it('COMMIT: the message becomes consumable; ROLLBACK: it never does', async () => {
    const topic = randomName('TxT');
    const l = new ScriptedListener();
    l.local.set('rolled-back', LocalTransactionState.ROLLBACK_MESSAGE);
    const p = await startProducer(randomName('PG'), l);
    const r1 = await p.sendMessageInTransaction(createMessage(topic, 'rolled-back'), 'arg1');
    const r2 = await p.sendMessageInTransaction(createMessage(topic, 'committed'), 'arg2');
    expect(r1.localTransactionState).to.equal(LocalTransactionState.ROLLBACK_MESSAGE);
    expect(r2.localTransactionState).to.equal(LocalTransactionState.COMMIT_MESSAGE);
    expect(r2.transactionId).to.equal(r2.msgId);
    expect(l.executed[1].properties[MessageConst.PROPERTY_TRANSACTION_PREPARED]).to.equal('true');
    await waitFor(async () => (await consumable(topic)).length > 0, 15000, 'the committed message');
    expect(await consumable(topic)).to.deep.equal(['committed']);
    const [m] = await rawQueue(topic, r2.messageQueue.queueId);
    expect(m.msgId).to.equal(r2.msgId);
    // As a Java 4.9.8 broker stores it (golden store-4.9.8/java-view/expected-TxTopic.txt): the half message's
    // property string is kept, TRAN_MSG, REAL_TOPIC and REAL_QID included; the sysFlag carries the commit type.
    expect(m.properties).to.include({ [MessageConst.PROPERTY_TRANSACTION_PREPARED]: 'true', [MessageConst.PROPERTY_REAL_TOPIC]: topic });
    expect(m.sysFlag & 0xc).to.equal(0x8);
    // As Java 5.3.3: the half message carries its transaction id (the producer's message id), and the committed
    // message keeps it with the rest of the half message's properties.
    const halfRecord = await tc.cluster!.brokers[0].messageStore.lookMessageByOffset(m.preparedTransactionOffset);
    const half = decodeMessage(halfRecord!);
    expect(half.topic).to.equal(TransactionalMessageUtil.HALF_TOPIC);
    expect(half.properties[MessageConst.PROPERTY_TRANSACTION_ID]).to.equal(r2.msgId);
    expect(m.properties[MessageConst.PROPERTY_TRANSACTION_ID]).to.equal(r2.msgId);
  });

  it('a half message is not consumable before the end, and a throwing listener counts as UNKNOW', async () => {
    const topic = randomName('TxT');
    const l = new ScriptedListener();
    let seenWhilePending: string[] = ['not run'];
    l.local.set('pending', async () => {
      seenWhilePending = await consumable(topic);
      throw new Error('local transaction failed');
    });
    const p = await startProducer(randomName('PG'), l);
    const r = await p.sendMessageInTransaction(createMessage(topic, 'pending'));
    expect(seenWhilePending).to.deep.equal([]);
    expect(r.localTransactionState).to.equal(LocalTransactionState.UNKNOW);
  });

  it('UNKNOW then check COMMIT: the broker asks the producer and the message is delivered', async () => {
    const topic = randomName('TxT');
    const l = new ScriptedListener();
    l.local.set('later', LocalTransactionState.UNKNOW);
    l.check.set('later', LocalTransactionState.COMMIT_MESSAGE);
    const p = await startProducer(randomName('PG'), l);
    const r = await p.sendMessageInTransaction(createMessage(topic, 'later'));
    // Register with the broker now (the client's own heartbeat may come after the first checks).
    await p.clientInstance!.sendHeartbeatToAllBrokerWithLock();
    expect(r.localTransactionState).to.equal(LocalTransactionState.UNKNOW);
    await checkPass();
    await waitFor(async () => (await consumable(topic)).length > 0, 15000, 'the checked commit');
    expect(await consumable(topic)).to.deep.equal(['later']);
    expect(l.checked[0].transactionId).to.equal(r.transactionId);
    expect(l.checked[0].topic).to.equal(topic);
    expect(l.checked[0].properties[MessageConst.PROPERTY_TRANSACTION_CHECK_TIMES]).to.equal('1');
  });

  it('UNKNOW then check ROLLBACK: checked once, never delivered', async () => {
    const topic = randomName('TxT');
    const l = new ScriptedListener();
    l.local.set('undo', LocalTransactionState.UNKNOW);
    l.check.set('undo', LocalTransactionState.ROLLBACK_MESSAGE);
    const p = await startProducer(randomName('PG'), l);
    await p.sendMessageInTransaction(createMessage(topic, 'undo'));
    await p.clientInstance!.sendHeartbeatToAllBrokerWithLock();
    const ended = opCount();
    await checkPass();
    await waitFor(() => l.checked.length > 0 && opCount() > ended, 15000, 'a check and its ROLLBACK');
    await p.sendMessageInTransaction(createMessage(topic, 'marker'));
    await waitFor(async () => (await consumable(topic)).includes('marker'), 15000, 'the marker');
    // both ended: a pass asks about neither (time for a stray check to arrive)
    await checkPass();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await consumable(topic)).to.deep.equal(['marker']);
    expect(l.checked).to.have.length(1);
  });

  it('a producer that dies before ending: the check reaches another live producer of the group', async () => {
    const topic = randomName('TxT');
    const group = randomName('PG');
    const la = new ScriptedListener();
    la.local.set('orphan', LocalTransactionState.UNKNOW);
    const lb = new ScriptedListener();
    lb.check.set('orphan', LocalTransactionState.COMMIT_MESSAGE);
    const b = await startProducer(group, lb, 'B');
    await b.sendMessageInTransaction(createMessage(topic, 'from-b'));
    await b.clientInstance!.sendHeartbeatToAllBrokerWithLock();
    const a = await startProducer(group, la, 'A');
    await a.sendMessageInTransaction(createMessage(topic, 'orphan'));
    await a.shutdown();
    await checkPass();
    await waitFor(async () => (await consumable(topic)).includes('orphan'), 15000, 'the orphan committed through B');
    expect(la.checked).to.have.length(0);
    expect(lb.checked.map((m) => m.body.toString())).to.include('orphan');
  });

  it('after transactionCheckMax checks the half message is discarded to TRANS_CHECK_MAX_TIME_TOPIC', async () => {
    const bc = tc.cluster!.brokers[0].brokerConfig;
    const saved = bc.transactionCheckMax;
    bc.transactionCheckMax = 2;
    try {
      const topic = randomName('TxT');
      const l = new ScriptedListener();
      const body = randomName('undecided');
      l.local.set(body, LocalTransactionState.UNKNOW);
      const p = await startProducer(randomName('PG'), l);
      await p.sendMessageInTransaction(createMessage(topic, body));
      await p.clientInstance!.sendHeartbeatToAllBrokerWithLock();
      // two passes ask (check times 1 and 2), the third discards
      await checkPass();
      await waitFor(() => l.checked.length === 1, 15000, 'the first check');
      await checkPass();
      await waitFor(() => l.checked.length === 2, 15000, 'the second check');
      await checkPass();
      await waitFor(async () => (await rawQueue(TransactionalMessageUtil.CHECK_MAX_TIME_TOPIC, 0)).some((m) => m.body.toString() === body),
        20000, 'the discarded half message');
      expect(l.checked.map((m) => m.properties[MessageConst.PROPERTY_TRANSACTION_CHECK_TIMES])).to.deep.equal(['1', '2']);
      expect(await consumable(topic)).to.deep.equal([]);
    } finally {
      bc.transactionCheckMax = saved;
    }
  });

  it('a broker restart between the half message and its end: the commit lands on the restarted broker', async () => {
    const topic = randomName('TxT');
    const l = new ScriptedListener();
    l.local.set('across-restart', async () => {
      await tc.cluster!.restartBroker(0);
      return LocalTransactionState.COMMIT_MESSAGE;
    });
    const p = await startProducer(randomName('PG'), l);
    const r = await p.sendMessageInTransaction(createMessage(topic, 'across-restart'));
    expect(r.localTransactionState).to.equal(LocalTransactionState.COMMIT_MESSAGE);
    await waitFor(async () => (await consumable(topic)).length > 0, 10000, 'the commit after restart');
    expect(await consumable(topic)).to.deep.equal(['across-restart']);
  });

  it('a broker restart with the half message unended: the restarted broker checks it', async () => {
    const topic = randomName('TxT');
    const l = new ScriptedListener();
    l.local.set('checked-after-restart', LocalTransactionState.UNKNOW);
    l.check.set('checked-after-restart', LocalTransactionState.COMMIT_MESSAGE);
    const p = await startProducer(randomName('PG'), l);
    await p.sendMessageInTransaction(createMessage(topic, 'checked-after-restart'));
    await tc.cluster!.restartBroker(0);
    await stopPeriodicChecks();
    await p.clientInstance!.sendHeartbeatToAllBrokerWithLock();
    await checkPass();
    await waitFor(async () => (await consumable(topic)).length > 0, 15000, 'the checked commit after restart');
    expect(await consumable(topic)).to.deep.equal(['checked-after-restart']);
  });

  it('a delivery time on a transactional message: the producer refuses it; sent anyway (as Java\'s remoting client can), the commit is delivered at once, not lost', async () => {
    const topic = randomName('TxT');
    const l = new ScriptedListener();
    const group = randomName('PG');
    const p = await startProducer(group, l);
    const refused = createMessage(topic, 'refused');
    setDelayTimeSec(refused, 3600);
    const err = await p.sendMessageInTransaction(refused).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(InvalidArgumentError);
    expect(String((err as Error).message)).to.include('TIMER_DELAY_SEC');
    expect(l.executed).to.have.length(0);
    // The half message as a Java remoting client sends it (its client does not refuse a timer): Java 5.3.3 turns it
    // into a timer message for the half topic and the commit never reaches the topic; ours stores the half message
    // as it is and delivers the commit at once, without the timer (an hour here: delivered means not delayed).
    const half = createMessage(topic, 'committed-with-timer');
    setDelayTimeSec(half, 3600);
    half.properties[MessageConst.PROPERTY_TRANSACTION_PREPARED] = 'true';
    half.properties[MessageConst.PROPERTY_PRODUCER_GROUP] = group;
    const sent = await p.send(half);
    await p.endTransaction(sent, LocalTransactionState.COMMIT_MESSAGE);
    await waitFor(async () => (await consumable(topic)).length > 0, 15000, 'the committed message');
    expect(await consumable(topic)).to.deep.equal(['committed-with-timer']);
    const [m] = await rawQueue(topic, sent.messageQueue.queueId);
    expect(m.properties[MessageConst.PROPERTY_TIMER_DELAY_SEC]).to.equal('3600');
    expect(m.properties[MessageConst.PROPERTY_TIMER_OUT_MS], 'never went through the timing wheel').to.equal(undefined);
  });
});
