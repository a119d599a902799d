import { expect } from 'chai';
import { ProcessQueue } from '../../../lib/consumer/process-queue';
import { OffsetTreeMap } from '../../../lib/consumer/offset-tree-map';
import type { MessageExt } from '../../../protocol/message/message';

export function msgAt(queueOffset: number, bodyLen = 10, props: Record<string, string> = {}): MessageExt {
  return {
    topic: 'T', flag: 0, properties: { ...props }, body: Buffer.alloc(bodyLen), queueId: 0, storeSize: 0, queueOffset, sysFlag: 0,
    bornTimestamp: 0, bornHost: { address: '127.0.0.1', port: 1 }, storeTimestamp: 0, storeHost: { address: '127.0.0.1', port: 10911 },
    msgId: `id${queueOffset}`, offsetMsgId: `o${queueOffset}`, commitLogOffset: queueOffset * 100, bodyCRC: 0, reconsumeTimes: 0, preparedTransactionOffset: 0,
  };
}

describe('lib/consumer/OffsetTreeMap', () => {
  it('keeps keys in order with out-of-order inserts and removals', () => {
    const m = new OffsetTreeMap<string>();
    for (const k of [5, 1, 9, 3, 7]) m.set(k, `v${k}`);
    expect([...m.entries()].map(([k]) => k)).to.deep.equal([1, 3, 5, 7, 9]);
    m.delete(1);
    m.delete(9);
    expect(m.firstKey()).to.equal(3);
    expect(m.lastKey()).to.equal(7);
    m.set(1, 'again');
    expect(m.firstKey()).to.equal(1);
    expect(m.pollFirst()).to.deep.equal([1, 'again']);
    expect(m.size).to.equal(3);
  });

  it('stays consistent through many removals (compaction)', () => {
    const m = new OffsetTreeMap<number>();
    for (let i = 0; i < 1000; i++) m.set(i, i);
    for (let i = 0; i < 1000; i += 2) m.delete(i);
    for (let i = 1; i < 900; i += 2) m.delete(i);
    expect(m.size).to.equal(50);
    expect(m.firstKey()).to.equal(901);
    expect(m.lastKey()).to.equal(999);
    expect(m.values()).to.have.length(50);
  });
});

describe('lib/consumer/ProcessQueue', () => {
  it('putMessage counts new messages only, sizes bodies, tracks MAX_OFFSET backlog and dispatches once', () => {
    const pq = new ProcessQueue();
    expect(pq.putMessage([msgAt(0), msgAt(1), msgAt(2, 10, { MAX_OFFSET: '10' })])).to.equal(true);
    expect(pq.msgCount).to.equal(3);
    expect(pq.msgSize).to.equal(30);
    expect(pq.msgAccCnt).to.equal(8);
    expect(pq.putMessage([msgAt(2), msgAt(3)])).to.equal(false);
    expect(pq.msgCount).to.equal(4);
    expect(pq.queueOffsetMax).to.equal(3);
    expect(pq.getMaxSpan()).to.equal(3);
  });

  it('removeMessage returns the smallest offset still in flight, or max + 1 when empty', () => {
    const pq = new ProcessQueue();
    const msgs = [msgAt(10), msgAt(11), msgAt(12)];
    pq.putMessage(msgs);
    expect(pq.removeMessage([msgs[1]])).to.equal(10);
    expect(pq.removeMessage([msgs[0]])).to.equal(12);
    expect(pq.removeMessage([msgs[2]])).to.equal(13);
    expect(pq.msgCount).to.equal(0);
    expect(pq.msgSize).to.equal(0);
    expect(new ProcessQueue().removeMessage([msgAt(1)])).to.equal(-1);
  });

  it('orderly: takeMessages, makeMessageToConsumeAgain, commit and rollback', () => {
    const pq = new ProcessQueue();
    pq.putMessage([msgAt(0), msgAt(1), msgAt(2), msgAt(3)]);
    const a = pq.takeMessages(2);
    expect(a.map((m) => m.queueOffset)).to.deep.equal([0, 1]);
    pq.makeMessageToConsumeAgain(a);
    const b = pq.takeMessages(3);
    expect(b.map((m) => m.queueOffset)).to.deep.equal([0, 1, 2]);
    expect(pq.commit()).to.equal(3);
    expect(pq.msgCount).to.equal(1);
    const c = pq.takeMessages(5);
    expect(c.map((m) => m.queueOffset)).to.deep.equal([3]);
    pq.rollback();
    expect(pq.msgTreeMap.firstKey()).to.equal(3);
    expect(pq.takeMessages(1)).to.have.length(1);
    expect(pq.commit()).to.equal(4);
    expect(pq.takeMessages(1)).to.have.length(0);
    expect(pq.consuming).to.equal(false);
    expect(pq.commit()).to.equal(-1);
  });

  it('lock and pull expiry follow the 30 s / 120 s limits', () => {
    let now = 1_000_000;
    const pq = new ProcessQueue(() => now);
    expect(pq.isLockExpired()).to.equal(false);
    now += 30_001;
    expect(pq.isLockExpired()).to.equal(true);
    expect(pq.isPullExpired()).to.equal(false);
    now += 90_000;
    expect(pq.isPullExpired()).to.equal(true);
  });

  it('expiredMessages lists messages whose consumption started before consumeTimeout', () => {
    let now = 10_000_000;
    const pq = new ProcessQueue(() => now);
    pq.putMessage([msgAt(0, 1, { CONSUME_START_TIME: String(now) }), msgAt(1, 1, { CONSUME_START_TIME: String(now + 60_000) })]);
    now += 15 * 60_000 + 1;
    expect(pq.expiredMessages(15).map((m) => m.queueOffset)).to.deep.equal([0]);
  });
});
