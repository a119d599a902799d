/**
 * ConsumerOrderInfoManager: the block of an orderly batch, attempt ids, delivery counts, acks moving the offset,
 * changed invisible times, the lock-free notification, auto clean, and consumerOrderInfo.json in Java's fastjson form.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ConsumerOrderInfoManager, ORDER_INFO_CLEAN_SPAN_FROM_LAST } from '../../../../lib/broker/offset/consumer-order-info-manager';
import { waitFor } from '../../../helpers/wait-for';

const logger = pino({ level: 'silent' });

describe('ConsumerOrderInfoManager', () => {
  let dir: string;
  let now: number;
  const managers: ConsumerOrderInfoManager[] = [];
  const make = (extra: Partial<ConstructorParameters<typeof ConsumerOrderInfoManager>[0]> = {}) => {
    const m = new ConsumerOrderInfoManager({ storePathRootDir: dir, logger, now: () => now, ...extra });
    managers.push(m);
    return m;
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orderinfo-'));
    now = 1_000_000;
  });
  afterEach(() => {
    for (const m of managers.splice(0)) m.shutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('blocks another attempt until every message is acked or visible again; the same attempt is not blocked', () => {
    const m = make();
    expect(m.checkBlock('a1', 'T', 'G', 0, 5000)).to.equal(false);
    expect(m.update('a1', 'T', 'G', 0, now, 5000, [10, 11, 12], '')).to.equal('0 0 0');
    expect(m.get('T', 'G', 0)!.offsetList).to.deep.equal([10, 1, 2]);
    expect(m.checkBlock('a2', 'T', 'G', 0, 5000)).to.equal(true);
    expect(m.checkBlock(null, 'T', 'G', 0, 5000)).to.equal(true);
    expect(m.checkBlock('a1', 'T', 'G', 0, 5000)).to.equal(false);
    // Other queues and groups are not blocked.
    expect(m.checkBlock('a2', 'T', 'G', 1, 5000)).to.equal(false);
    expect(m.checkBlock('a2', 'T', 'G2', 0, 5000)).to.equal(false);
    now += 4999;
    expect(m.checkBlock('a2', 'T', 'G', 0, 5000)).to.equal(true);
    now += 1;
    expect(m.checkBlock('a2', 'T', 'G', 0, 5000)).to.equal(false);
  });

  it('acks move the offset to the first message not acked; an ack of an older pop or of an unknown offset commits nothing', () => {
    const m = make();
    const popTime = now;
    m.update('a1', 'T', 'G', 0, popTime, 5000, [10, 11, 12], '');
    expect(m.commitAndNext('T', 'G', 0, 11, popTime)).to.equal(10);
    expect(m.commitAndNext('T', 'G', 0, 10, popTime)).to.equal(12);
    expect(m.checkBlock('a2', 'T', 'G', 0, 5000)).to.equal(true);
    expect(m.commitAndNext('T', 'G', 0, 12, popTime - 1)).to.equal(-2);
    expect(m.commitAndNext('T', 'G', 0, 13, popTime)).to.equal(-1);
    expect(m.commitAndNext('T', 'G', 0, 12, popTime)).to.equal(13);
    expect(m.checkBlock('a2', 'T', 'G', 0, 5000)).to.equal(false);
    // No order info at all: the next offset.
    expect(m.commitAndNext('T', 'G', 7, 4, popTime)).to.equal(5);
  });

  it('a batch popped again counts each message delivered before; a repeated attempt keeps the counts', () => {
    const m = make();
    m.update('a1', 'T', 'G', 0, now, 1000, [10, 11, 12], '');
    m.commitAndNext('T', 'G', 0, 10, now);
    now += 1000;
    // Popped again from 11 (the offset the ack committed), with a new message 13.
    expect(m.update('a2', 'T', 'G', 0, now, 1000, [11, 12, 13], 'x')).to.equal('x;0 qo0%11 1;0 qo0%12 1;0 0 0');
    // The same attempt (a retried receive) again: the counts do not move.
    expect(m.update('a2', 'T', 'G', 0, now, 1000, [11, 12, 13], '')).to.equal('0 qo0%11 1;0 qo0%12 1;0 0 0');
    now += 1000;
    expect(m.update('a3', 'T', 'G', 0, now, 1000, [11, 12, 13], '')).to.equal('0 qo0%11 2;0 qo0%12 2;0 qo0%13 1;0 0 1');
  });

  it('a changed invisible time holds the block to the message\'s next visible time', () => {
    const m = make();
    const popTime = now;
    m.update('a1', 'T', 'G', 0, popTime, 5000, [10, 11], '');
    m.commitAndNext('T', 'G', 0, 10, popTime);
    expect(m.updateNextVisibleTime('T', 'G', 0, 11, popTime, now + 60_000)).to.equal(true);
    now += 10_000;
    expect(m.checkBlock('a2', 'T', 'G', 0, 5000)).to.equal(true);
    // Shortened: visible again at once.
    expect(m.updateNextVisibleTime('T', 'G', 0, 11, popTime, now)).to.equal(true);
    expect(m.checkBlock('a2', 'T', 'G', 0, 5000)).to.equal(false);
    expect(m.updateNextVisibleTime('T', 'G', 0, 11, popTime + 1, now)).to.equal(false);
  });

  it('notifies when a block ends: at once after the ack that ends it, and not after shutdown', async () => {
    const freed: string[] = [];
    const m = make({ notifyLockFree: (t, g, q) => freed.push(`${t}@${g}@${q}`) });
    m.update('a1', 'T', 'G', 0, now, 60_000, [10], '');
    expect(m.lockFreeTimers).to.equal(1);
    m.commitAndNext('T', 'G', 0, 10, now);
    await waitFor(() => freed.length === 1, 5000, 'the notification');
    expect(freed).to.deep.equal(['T@G@0']);
    expect(m.lockFreeTimers).to.equal(0);
    m.update('a2', 'T', 'G', 0, now, 60_000, [11], '');
    m.shutdown();
    expect(m.lockFreeTimers).to.equal(0);
    const off = make({ notifyLockFree: () => freed.push('x'), enableNotifyAfterPopOrderLockRelease: () => false });
    off.update('a1', 'T', 'G', 0, now, 0, [10], '');
    expect(off.lockFreeTimers).to.equal(0);
  });

  it('a timer firing before the clock reaches the block\'s end notifies only once it does', async () => {
    const freed: string[] = [];
    const m = make({ notifyLockFree: (t, g, q) => freed.push(`${t}@${g}@${q}`) });
    m.update('a1', 'T', 'G', 0, now, 20, [10], '');
    // The timer fires after 20 ms of real time, the injected clock still at the pop: nothing yet, the timer set again.
    await new Promise((r) => setTimeout(r, 60));
    expect(freed).to.deep.equal([]);
    expect(m.lockFreeTimers).to.equal(1);
    now += 20;
    await waitFor(() => freed.length === 1, 5000, 'the notification');
    expect(freed).to.deep.equal(['T@G@0']);
    expect(m.lockFreeTimers).to.equal(0);
  });

  it('a block ending beyond setTimeout\'s range is not notified at once', async () => {
    const freed: string[] = [];
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const m = make({ notifyLockFree: (t, g, q) => freed.push(`${t}@${g}@${q}`) });
      // 30 days: past 2^31 - 1 ms, where a bare setTimeout fires after 1 ms with a TimeoutOverflowWarning.
      m.update('a1', 'T', 'G', 0, now, 30 * 24 * 3600 * 1000, [10], '');
      expect(m.lockFreeTimers).to.equal(1);
      // A notification fired at once would be in by now (a timer of 1 ms, then this one of 50).
      await new Promise((r) => setTimeout(r, 50));
      expect(freed).to.deep.equal([]);
      expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).to.deep.equal([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('reads and writes consumerOrderInfo.json as Java\'s fastjson does, and keeps a block across a reload', async () => {
    const java = '{"table":{"T@G":{0:{"a":"x","cm":1,"i":5000,"l":1000000,"o":[10,1,2],"oc":{11:1},"ot":{12:2000000},"popTime":1000000}}}}';
    fs.mkdirSync(path.join(dir, 'config'));
    fs.writeFileSync(path.join(dir, 'config', 'consumerOrderInfo.json'), java);
    const freed: string[] = [];
    const m = make({ notifyLockFree: (t, g, q) => freed.push(`${t}@${g}@${q}`) });
    expect(await m.load()).to.equal(true);
    const info = m.get('T', 'G', 0)!;
    expect(info.attemptId).to.equal('x');
    expect([info.queueOffset(0), info.queueOffset(1), info.queueOffset(2)]).to.deep.equal([10, 11, 12]);
    expect(info.isNotAck(0)).to.equal(false);
    expect(info.nextOffset()).to.equal(11);
    // 12's changed visible time blocks past the pop's invisible time; the reload scheduled its notification.
    now += 6000;
    expect(m.checkBlock('y', 'T', 'G', 0, 5000)).to.equal(true);
    expect(m.lockFreeTimers).to.equal(1);
    expect(m.encode()).to.equal(java);
    m.update(null, 'T', 'G', 1, now, 3000, [4], '');
    await m.persistNow();
    const again = make();
    await again.load();
    expect(again.get('T', 'G', 1)!.offsetList).to.deep.equal([4]);
    expect(again.get('T', 'G', 1)!.attemptId).to.equal(null);
    expect(again.encode()).to.equal(m.encode());
  });

  it('auto clean drops gone topics, groups and queues, and queues not consumed for a day', () => {
    const topics = new Map([['T', { readQueueNums: 2 }]]);
    const m = make({
      broker: {
        topicConfigManager: { selectTopicConfig: (t) => topics.get(t) },
        subscriptionGroupManager: { containsSubscriptionGroup: (g) => g === 'G' },
      },
    });
    m.update('a', 'T', 'G', 0, now, 1000, [1], '');
    m.update('a', 'T', 'G', 2, now, 1000, [1], '');
    m.update('a', 'T', 'GONE', 0, now, 1000, [1], '');
    m.update('a', 'GONE', 'G', 0, now, 1000, [1], '');
    now += ORDER_INFO_CLEAN_SPAN_FROM_LAST - 1;
    m.update('a', 'T', 'G', 1, now, 1000, [1], '');
    now += 2;
    m.autoClean();
    expect([...m.table.keys()]).to.deep.equal(['T@G']);
    expect([...m.table.get('T@G')!.keys()]).to.deep.equal([1]);
  });
});
