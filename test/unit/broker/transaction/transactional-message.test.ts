import fs from 'node:fs/promises';
import { expect } from 'chai';
import { DefaultMessageStore } from '../../../../lib/store/message-store';
import type { MessageExtBrokerInner } from '../../../../lib/store/commit-log';
import { GetMessageStatus, PutMessageStatus } from '../../../../lib/store/store-status';
import { componentLogger } from '../../../../lib/logger';
import {
  DefaultTransactionalMessageCheckListener, TransactionalMessageBridge, TransactionalMessageCheckService,
  TransactionalMessageService, TransactionalMessageUtil, calculateOpOffset, decodeBrokerMessage,
  type TransactionBrokerPort,
} from '../../../../lib/broker/transaction';
import { EndTransactionProcessor } from '../../../../lib/broker/processor/end-transaction-processor';
import { CheckTransactionStateRequestHeader } from '../../../../protocol/header/check-transaction-state-request-header';
import { EndTransactionRequestHeader } from '../../../../protocol/header/end-transaction-request-header';
import { RequestCode } from '../../../../protocol/code/request-code';
import { ResponseCode } from '../../../../protocol/code/response-code';
import { MessageConst } from '../../../../protocol/message/message-const';
import { decodeMessage } from '../../../../protocol/message/message-decoder';
import type { MessageExt } from '../../../../protocol/message/message';
import { propertiesToString } from '../../../../protocol/message/properties';
import { MessageSysFlag } from '../../../../protocol/message/sys-flag';
import { RemotingCommand } from '../../../../protocol/remoting-command';
import type { RemotingContext } from '../../../../lib/transport/processor';
import { SMALL, tempDir } from '../../store/store-test-util';

const HALF = TransactionalMessageUtil.HALF_TOPIC;
const OP = TransactionalMessageUtil.OP_TOPIC;
const GROUP = 'PG_TX';
const TOPIC = 'TxTopic';
const ctx = { channel: null, remoteAddress: '127.0.0.1:40000', writeResponse: () => false } as unknown as RemotingContext;

interface SentCheck { group: string; header: CheckTransactionStateRequestHeader; body: Buffer }

class Harness {
  clock = Date.now();
  readonly offsets = new Map<string, number>();
  readonly topics = new Map<string, number>();
  readonly checks: SentCheck[] = [];
  store!: DefaultMessageStore;
  service!: TransactionalMessageService;
  listener!: DefaultTransactionalMessageCheckListener;
  processor!: EndTransactionProcessor;
  noProducer = false;
  readonly config = { transactionCheckInterval: 60000, transactionTimeOut: 6000, transactionCheckMax: 15 };

  constructor(readonly dir: string) {}

  async open(): Promise<void> {
    const log = componentLogger('test');
    this.store = new DefaultMessageStore({ storePathRootDir: this.dir, ...SMALL }, { now: () => this.clock });
    await this.store.load();
    await this.store.start();
    const port: TransactionBrokerPort = {
      brokerName: 'broker-a',
      storeHost: { host: '127.0.0.1', port: 10911 },
      messageStore: this.store,
      fileReservedTime: 72,
      queryConsumerOffset: (g, t, q) => this.offsets.get(`${g}@${t}@${q}`) ?? -1,
      commitConsumerOffset: (_h, g, t, q, o) => void this.offsets.set(`${g}@${t}@${q}`, o),
      ensureSystemTopic: (t, n) => {
        if (!this.topics.has(t)) this.topics.set(t, n);
        return this.topics.get(t) ?? n;
      },
    };
    const bridge = new TransactionalMessageBridge(port, log);
    this.service = new TransactionalMessageService(bridge, log, { now: () => this.clock });
    this.listener = new DefaultTransactionalMessageCheckListener(port, async (group, header, body) => {
      if (this.noProducer) return false;
      this.checks.push({ group, header, body });
      return true;
    }, log);
    this.processor = new EndTransactionProcessor({
      messageStoreConfig: this.store.config, messageStore: this.store, transactionalMessageService: this.service,
    });
  }

  async close(): Promise<void> {
    await this.store.shutdown();
  }

  async prepare(body: string, extra: Record<string, string> = {}): Promise<{ commitLogOffset: number; queueOffset: number; uniq: string }> {
    const uniq = `UNIQ${Math.random().toString(16).slice(2)}`;
    const props = { [MessageConst.PROPERTY_TRANSACTION_PREPARED]: 'true', [MessageConst.PROPERTY_PRODUCER_GROUP]: GROUP,
      [MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX]: uniq, [MessageConst.PROPERTY_TAGS]: 'TagA', ...extra };
    const inner: MessageExtBrokerInner = {
      topic: TOPIC, queueId: 3, flag: 7, body: Buffer.from(body), propertiesString: propertiesToString(props),
      bornTimestamp: this.clock, bornHost: { host: '127.0.0.1', port: 50000 }, sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE,
      reconsumeTimes: 0, preparedTransactionOffset: 0,
    };
    const r = await this.service.prepareMessage(inner, props);
    expect(r.putMessageStatus).to.equal(PutMessageStatus.PUT_OK);
    return { commitLogOffset: r.appendMessageResult!.wroteOffset, queueOffset: r.appendMessageResult!.logicsOffset, uniq };
  }

  async end(h: { commitLogOffset: number; queueOffset: number; uniq: string }, type: number, fromCheck = false, group = GROUP): Promise<RemotingCommand | null> {
    const header: EndTransactionRequestHeader = {
      producerGroup: group, tranStateTableOffset: h.queueOffset, commitLogOffset: h.commitLogOffset, commitOrRollback: type,
      fromTransactionCheck: fromCheck, msgId: h.uniq, transactionId: h.uniq,
    };
    const req = RemotingCommand.createRequest(RequestCode.END_TRANSACTION, EndTransactionRequestHeader.encode(header)).markOneway();
    return this.processor.processRequest(req, ctx);
  }

  async read(topic: string, queueId: number): Promise<MessageExt[]> {
    const r = await this.store.getMessage('g', topic, queueId, 0, 64);
    if (r.status !== GetMessageStatus.FOUND) return [];
    return r.messages.map(decodeBrokerMessage);
  }

  check(): Promise<void> {
    return this.service.check(this.config.transactionTimeOut, this.config.transactionCheckMax, this.listener);
  }
}

describe('broker/transaction: half messages, END_TRANSACTION and the check', () => {
  let dir: string;
  let h: Harness;

  beforeEach(async () => {
    dir = await tempDir('rmq-tx-');
    h = new Harness(dir);
    await h.open();
  });

  afterEach(async () => {
    await h.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('stores a prepared message in the half topic, queue 0, with its real topic and queue kept in properties', async () => {
    const p = await h.prepare('hello');
    expect(p.queueOffset).to.equal(0);
    const [half] = await h.read(HALF, 0);
    expect(half.topic).to.equal(HALF);
    expect(half.queueId).to.equal(0);
    expect(half.properties[MessageConst.PROPERTY_REAL_TOPIC]).to.equal(TOPIC);
    expect(half.properties[MessageConst.PROPERTY_REAL_QUEUE_ID]).to.equal('3');
    expect(half.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE).to.equal(MessageSysFlag.TRANSACTION_NOT_TYPE);
    expect(await h.read(TOPIC, 3)).to.have.length(0);
  });

  it('COMMIT re-stores the message in its real topic and queue and records an op message', async () => {
    const p = await h.prepare('commit-me');
    const res = await h.end(p, MessageSysFlag.TRANSACTION_COMMIT_TYPE);
    expect(res!.code).to.equal(ResponseCode.SUCCESS);
    const [m] = await h.read(TOPIC, 3);
    expect(m.body.toString()).to.equal('commit-me');
    expect(m.flag).to.equal(7);
    expect(m.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE).to.equal(MessageSysFlag.TRANSACTION_COMMIT_TYPE);
    expect(m.preparedTransactionOffset).to.equal(p.commitLogOffset);
    // Java 4.9.8 stores the half message's properties string unchanged (golden java-view/expected-TxTopic.txt shows
    // TRAN_MSG, REAL_TOPIC and REAL_QID on committed messages); only the sysFlag carries the commit.
    expect(m.properties).to.include({
      [MessageConst.PROPERTY_TRANSACTION_PREPARED]: 'true',
      [MessageConst.PROPERTY_REAL_TOPIC]: TOPIC,
      [MessageConst.PROPERTY_REAL_QUEUE_ID]: '3',
    });
    expect(m.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX]).to.equal(p.uniq);
    expect(m.properties[MessageConst.PROPERTY_TAGS]).to.equal('TagA');
    const [op] = await h.read(OP, 0);
    expect(op.properties[MessageConst.PROPERTY_TAGS]).to.equal('d');
    expect(op.body.toString()).to.equal(String(p.queueOffset));
  });

  it('ROLLBACK stores nothing in the real topic but records an op message; UNKNOW does neither', async () => {
    const p1 = await h.prepare('a');
    const p2 = await h.prepare('b');
    expect((await h.end(p1, MessageSysFlag.TRANSACTION_ROLLBACK_TYPE))!.code).to.equal(ResponseCode.SUCCESS);
    expect(await h.end(p2, MessageSysFlag.TRANSACTION_NOT_TYPE)).to.equal(null);
    expect(await h.read(TOPIC, 3)).to.have.length(0);
    const ops = await h.read(OP, 0);
    expect(ops.map((o) => o.body.toString())).to.deep.equal(['0']);
  });

  it('refuses an end for another producer group, a wrong queue offset or an unknown commit-log offset', async () => {
    const p = await h.prepare('x');
    let r = await h.end(p, MessageSysFlag.TRANSACTION_COMMIT_TYPE, false, 'OTHER');
    expect([r!.code, r!.remark]).to.deep.equal([ResponseCode.SYSTEM_ERROR, 'The producer group wrong']);
    r = await h.end({ ...p, queueOffset: 5 }, MessageSysFlag.TRANSACTION_COMMIT_TYPE);
    expect([r!.code, r!.remark]).to.deep.equal([ResponseCode.SYSTEM_ERROR, 'The transaction state table offset wrong']);
    r = await h.end({ ...p, commitLogOffset: 999999 }, MessageSysFlag.TRANSACTION_COMMIT_TYPE);
    expect([r!.code, r!.remark]).to.deep.equal([ResponseCode.SYSTEM_ERROR, 'Find prepared transaction message failed']);
    expect(await h.read(TOPIC, 3)).to.have.length(0);
  });

  it('does not check a half message younger than transactionTimeOut, nor one already ended', async () => {
    const p = await h.prepare('young');
    h.clock += 1000;
    await h.check();
    expect(h.checks).to.have.length(0);
    await h.end(p, MessageSysFlag.TRANSACTION_COMMIT_TYPE);
    h.clock += 10000;
    await h.check();
    expect(h.checks).to.have.length(0);
    expect(h.offsets.get(`CID_RMQ_SYS_TRANS@${HALF}@0`)).to.equal(1);
    expect(h.offsets.get(`CID_RMQ_SYS_TRANS@${OP}@0`)).to.equal(1);
  });

  it('checks an unended half message: re-puts it with TRANSACTION_CHECK_TIMES, asks with the copy, and the checked commit lands', async () => {
    const p = await h.prepare('pending');
    h.clock += 7000;
    await h.check();
    await new Promise((r) => setImmediate(r));
    expect(h.checks).to.have.length(1);
    const c = h.checks[0];
    expect(c.group).to.equal(GROUP);
    expect(c.header.tranStateTableOffset).to.equal(1);
    expect(c.header.commitLogOffset).to.be.greaterThan(p.commitLogOffset);
    expect(c.header.msgId).to.equal(p.uniq);
    expect(c.header.transactionId).to.equal(p.uniq);
    const msg = decodeMessage(c.body, 0, { clientMsgId: false });
    expect(msg.topic).to.equal(TOPIC);
    expect(msg.queueId).to.equal(3);
    expect(msg.commitLogOffset).to.equal(c.header.commitLogOffset);
    expect(msg.offsetMsgId).to.equal(c.header.offsetMsgId);
    expect(msg.properties[MessageConst.PROPERTY_TRANSACTION_CHECK_TIMES]).to.equal('1');
    expect(msg.body.toString()).to.equal('pending');
    // Not checked again before its copy times out.
    await h.check();
    expect(h.checks).to.have.length(1);
    const r = await h.end({ commitLogOffset: c.header.commitLogOffset, queueOffset: c.header.tranStateTableOffset, uniq: p.uniq },
      MessageSysFlag.TRANSACTION_COMMIT_TYPE, true);
    expect(r!.code).to.equal(ResponseCode.SUCCESS);
    const delivered = await h.read(TOPIC, 3);
    expect(delivered.map((m) => m.body.toString())).to.deep.equal(['pending']);
    h.clock += 20000;
    await h.check();
    expect(h.checks).to.have.length(1);
    expect(h.offsets.get(`CID_RMQ_SYS_TRANS@${HALF}@0`)).to.equal(2);
  });

  it('discards a half message to TRANS_CHECK_MAX_TIME_TOPIC after transactionCheckMax checks', async () => {
    h.config.transactionCheckMax = 3;
    await h.prepare('never-answered');
    for (let i = 0; i < 6; i++) {
      h.clock += 7000;
      await h.check();
    }
    await new Promise((r) => setImmediate(r));
    expect(h.checks.map((c) => decodeMessage(c.body).properties[MessageConst.PROPERTY_TRANSACTION_CHECK_TIMES])).to.deep.equal(['1', '2', '3']);
    const discarded = await h.read(TransactionalMessageUtil.CHECK_MAX_TIME_TOPIC, 0);
    expect(discarded).to.have.length(1);
    expect(discarded[0].body.toString()).to.equal('never-answered');
    expect(discarded[0].properties[MessageConst.PROPERTY_REAL_TOPIC]).to.equal(TOPIC);
    expect(await h.read(TOPIC, 3)).to.have.length(0);
  });

  it('honours CHECK_IMMUNITY_TIME_IN_SECONDS', async () => {
    await h.prepare('immune', { [MessageConst.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS]: '30' });
    h.clock += 7000;
    await h.check();
    expect(h.checks).to.have.length(0);
    h.clock += 30000;
    for (let i = 0; i < 3 && h.checks.length === 0; i++) await h.check();
    await new Promise((r) => setImmediate(r));
    expect(h.checks).to.have.length(1);
  });

  it('keeps its state across a store restart: the half message is still checked and can be committed', async () => {
    const p = await h.prepare('survives');
    await h.close();
    await h.open();
    h.clock += 7000;
    await h.check();
    await new Promise((r) => setImmediate(r));
    expect(h.checks).to.have.length(1);
    await h.close();
    await h.open();
    const c = h.checks[0];
    const r = await h.end({ commitLogOffset: c.header.commitLogOffset, queueOffset: c.header.tranStateTableOffset, uniq: p.uniq },
      MessageSysFlag.TRANSACTION_COMMIT_TYPE, true);
    expect(r!.code).to.equal(ResponseCode.SUCCESS);
    expect((await h.read(TOPIC, 3)).map((m) => m.body.toString())).to.deep.equal(['survives']);
  });

  it('the check service runs the check on its interval', async () => {
    h.config.transactionCheckInterval = 20;
    h.config.transactionTimeOut = 0;
    const svc = new TransactionalMessageCheckService(h.config, h.service, h.listener, componentLogger('test'));
    await h.prepare('loop');
    h.clock += 100;
    svc.start();
    try {
      const deadline = Date.now() + 3000;
      while (h.checks.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    } finally {
      await svc.shutdown();
    }
    expect(h.checks.length).to.be.greaterThan(0);
  });

  it('calculateOpOffset advances over consecutive done offsets only', () => {
    expect(calculateOpOffset([3, 1, 2, 5], 1)).to.equal(4);
    expect(calculateOpOffset([2], 1)).to.equal(1);
    expect(calculateOpOffset([], 7)).to.equal(7);
  });
});
