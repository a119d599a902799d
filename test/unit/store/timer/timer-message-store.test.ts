/**
 * TimerMessageStore with an injected clock and a fake store: delivery at the deliver time and not before, slot
 * by slot; resumption from the files after a restart; deliver times beyond the wheel's turn; rewriteTimerMessage.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { MessageExtBrokerInner } from '../../../../lib/store/commit-log';
import { GetMessageStatus, PutMessageStatus, type GetMessageResult, type PutMessageResult } from '../../../../lib/store/store-status';
import {
  TIMER_TOPIC, TimerMessageStore, TimerRefusal, rewriteTimerMessage, type TimerStoreBackend,
} from '../../../../lib/store/timer/timer-message-store';
import { MessageConst } from '../../../../protocol/message/message-const';
import { encodeStoredMessage } from '../../../../protocol/message/message-decoder';
import { propertiesToString, stringToProperties } from '../../../../protocol/message/properties';

const logger = pino({ level: 'silent' });
const host = { address: '127.0.0.1', port: 10911 };

/** The timer topic's records (queue 0) and the commit log, in memory; puts are recorded with the clock's time. */
class FakeStore implements TimerStoreBackend {
  readonly records: Buffer[] = [];
  readonly byOffset = new Map<number, Buffer>();
  readonly delivered: Array<{ msg: MessageExtBrokerInner; at: number }> = [];
  #phy = 1000;

  constructor(private readonly clock: { now: number }) {}

  /** Stores what the send path would store for a message due at `deliverMs` to `topic`. */
  addTimerMessage(topic: string, deliverMs: number, body: string): void {
    const rec = encodeStoredMessage({
      topic: TIMER_TOPIC, queueId: 0, queueOffset: this.records.length, commitLogOffset: this.#phy, body: Buffer.from(body),
      properties: { [MessageConst.PROPERTY_TIMER_OUT_MS]: String(deliverMs), [MessageConst.PROPERTY_REAL_TOPIC]: topic, [MessageConst.PROPERTY_REAL_QUEUE_ID]: '2' },
      bornTimestamp: 1, bornHost: host, storeTimestamp: 1, storeHost: host,
    });
    this.byOffset.set(this.#phy, rec);
    this.#phy += rec.length;
    this.records.push(rec);
  }

  async getMessage(_g: string, topic: string, _q: number, offset: number, max: number): Promise<GetMessageResult> {
    expect(topic).to.equal(TIMER_TOPIC);
    const messages = this.records.slice(offset, offset + max);
    return {
      status: messages.length ? GetMessageStatus.FOUND : GetMessageStatus.OFFSET_OVERFLOW_ONE, nextBeginOffset: offset + messages.length,
      minOffset: 0, maxOffset: this.records.length, messages, messageQueueOffsets: messages.map((_, i) => offset + i),
      bufferTotalSize: 0, suggestPullingFromSlave: false,
    };
  }

  async putMessage(msg: MessageExtBrokerInner): Promise<PutMessageResult> {
    this.delivered.push({ msg, at: this.clock.now });
    return { putMessageStatus: PutMessageStatus.PUT_OK, appendMessageResult: null };
  }

  async lookMessageByOffset(offset: number): Promise<Buffer | null> {
    return this.byOffset.get(offset) ?? null;
  }

  /** The commit log's first offset, as the test sets it (older records deleted). */
  minPhy = 0;

  getMinPhyOffset(): number {
    return this.minPhy;
  }

  bodies(): string[] {
    return this.delivered.map((d) => d.msg.body!.toString());
  }
}

describe('TimerMessageStore (injected clock)', () => {
  let dir: string;
  const clock = { now: 0 };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'timer-'));
    clock.now = 1_700_000_000_000;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const make = (store: FakeStore, slotsTotal = 1000, timerLogFileSize?: number) => new TimerMessageStore(store, {
    storePathRootDir: dir, timerPrecisionMs: 100, slotsTotal, timerLogFileSize, logger, now: () => clock.now, autoRun: false,
  });

  it('the timer log rolls over files, and every 30 s deletes those whose records the commit log no longer holds', async () => {
    const store = new FakeStore(clock);
    const t0 = clock.now;
    // 10 units per file
    for (let i = 0; i < 35; i++) store.addTimerMessage('T', t0 + 60_000 + i, `m${i}`);
    const ts = make(store, 1000, 10 * 52 + 16);
    await ts.load();
    await ts.start();
    await ts.runOnce();
    const logDir = path.join(dir, 'timerlog');
    expect(fs.readdirSync(logDir)).to.have.length(4);
    // the first 15 records deleted from the commit log: the first file (records 0-9) goes at the next check, 30 s on
    const offsets = [...store.byOffset.keys()].sort((a, b) => a - b);
    store.minPhy = offsets[15];
    clock.now = t0 + 10_000;
    await ts.runOnce();
    expect(fs.readdirSync(logDir)).to.have.length(4);
    clock.now = t0 + 30_000;
    await ts.runOnce();
    expect(fs.readdirSync(logDir)).to.have.length(3);
    // what the commit log still holds is delivered; the rest was dropped with its records
    for (const o of offsets.slice(0, 15)) store.byOffset.delete(o);
    clock.now = t0 + 61_000;
    await ts.runOnce();
    expect(store.bodies()).to.deep.equal(Array.from({ length: 20 }, (_, i) => `m${i + 15}`));
    await ts.shutdown();
  });

  it('counts the messages waiting per real topic (TimerMetrics): +1 enqueued, -1 delivered, kept in config/timermetrics', async () => {
    const store = new FakeStore(clock);
    const t0 = clock.now;
    store.addTimerMessage('T1', t0 + 250, 'a');
    store.addTimerMessage('T1', t0 + 5000, 'b');
    store.addTimerMessage('T2', t0 + 5000, 'c');
    const ts = make(store);
    await ts.load();
    await ts.start();
    const v0 = ts.timerMetrics.dataVersion.counter;
    await ts.runOnce();
    expect(ts.timerMetrics.getTimingCount('T1')).to.equal(2);
    expect(ts.timerMetrics.getTimingCount('T2')).to.equal(1);
    expect(ts.timerMetrics.dataVersion.counter).to.equal(v0 + 3);
    clock.now = t0 + 1000;
    await ts.runOnce();
    expect(store.bodies()).to.deep.equal(['a']);
    expect(ts.timerMetrics.getTimingCount('T1')).to.equal(1);
    expect(ts.timerMetrics.getTimingCount('T2')).to.equal(1);
    await ts.shutdown();
    // Java's file and JSON
    const file = JSON.parse(fs.readFileSync(path.join(dir, 'config', 'timermetrics'), 'utf8'));
    expect(file.timingCount.T1.count).to.equal(1);
    expect(file.timingCount.T2.count).to.equal(1);
    expect(file.dataVersion).to.deep.equal({ counter: v0 + 4, stateVersion: 0, timestamp: ts.timerMetrics.dataVersion.timestamp });
    // a restart reads it back
    const again = make(store);
    await again.load();
    expect(again.timerMetrics.getTimingCount('T1')).to.equal(1);
    expect(again.timerMetrics.dataVersion).to.deep.equal(ts.timerMetrics.dataVersion);
    await again.shutdown();
  });

  it('delivers each message at its deliver time, not before, in deliver-time order, to its real topic and queue', async () => {
    const store = new FakeStore(clock);
    const t0 = clock.now;
    store.addTimerMessage('T', t0 + 1234, 'b');
    store.addTimerMessage('T', t0 + 250, 'a');
    store.addTimerMessage('T', t0 + 1260, 'c');
    const ts = make(store);
    await ts.load();
    await ts.start();
    let next = await ts.runOnce();
    expect(store.delivered).to.have.length(0);
    // Step the clock to each wake-up time the store asks for, as its loop would.
    while (store.delivered.length < 3) {
      expect(next).to.be.greaterThan(clock.now - 1);
      clock.now = next;
      next = await ts.runOnce();
    }
    expect(store.bodies()).to.deep.equal(['a', 'b', 'c']);
    for (const d of store.delivered) {
      const due = Number(stringToProperties(d.msg.propertiesString)[MessageConst.PROPERTY_TIMER_OUT_MS]);
      expect(d.at).to.be.at.least(due);
      expect(d.at - due).to.be.at.most(0, 'the wake-up is the deliver time itself under an exact clock');
      expect(d.msg.topic).to.equal('T');
      expect(d.msg.queueId).to.equal(2);
      const props = stringToProperties(d.msg.propertiesString);
      expect(props[MessageConst.PROPERTY_REAL_TOPIC]).to.equal(undefined);
      expect(props[MessageConst.PROPERTY_TIMER_DEQUEUE_MS]).to.equal(String(d.at));
    }
    expect(ts.stats.maxLatenessMs).to.equal(0);
    await ts.shutdown();
  });

  it('resumes from its files after a restart; a message due while it was down is delivered at once', async () => {
    const store = new FakeStore(clock);
    const t0 = clock.now;
    store.addTimerMessage('T', t0 + 300, 'early');
    store.addTimerMessage('T', t0 + 5000, 'late');
    let ts = make(store);
    await ts.load();
    await ts.start();
    await ts.runOnce();
    clock.now = t0 + 300;
    await ts.runOnce();
    expect(store.bodies()).to.deep.equal(['early']);
    await ts.shutdown();
    expect(fs.existsSync(path.join(dir, 'config', 'timercheck'))).to.equal(true);
    const log = fs.readFileSync(path.join(dir, 'timerlog', '00000000000000000000'));
    expect(log.length).to.equal(100 * 1024 * 1024); // Java's mappedFileSizeTimerLog, sparse
    expect([log.readInt32BE(0), log.readInt32BE(52), log.readInt32BE(104)]).to.deep.equal([52, 52, 0]);

    // Down until after "late" was due: no record is read again (enqueue offset kept), "late" comes from the wheel.
    clock.now = t0 + 9000;
    ts = make(store);
    await ts.load();
    expect(ts.enqueueOffset).to.equal(2);
    await ts.start();
    await ts.runOnce();
    expect(store.bodies()).to.deep.equal(['early', 'late']);
    await ts.shutdown();
  });

  it('a deliver time beyond the wheel\'s turn is linked again until its slot comes', async () => {
    const store = new FakeStore(clock);
    const t0 = clock.now;
    // 10 slots of 100 ms: a turn of one second; 3.55 s away.
    store.addTimerMessage('T', t0 + 3550, 'far');
    const ts = make(store, 10);
    await ts.load();
    await ts.start();
    let next = await ts.runOnce();
    while (store.delivered.length === 0) {
      expect(clock.now).to.be.below(t0 + 3550);
      clock.now = next;
      next = await ts.runOnce();
    }
    expect(store.delivered[0].at).to.equal(t0 + 3550);
    await ts.shutdown();
  });
});

describe('rewriteTimerMessage', () => {
  const cfg = { timerWheelEnable: true, timerMaxDelaySec: 3600 };
  const now = 1_700_000_000_000;
  const msg = (props: Record<string, string>): MessageExtBrokerInner => ({
    topic: 'T', queueId: 3, flag: 0, body: Buffer.from('x'), propertiesString: propertiesToString(props), bornTimestamp: now,
    bornHost: { host: '127.0.0.1', port: 1 }, sysFlag: 0, reconsumeTimes: 0, preparedTransactionOffset: 0,
  });

  it('moves TIMER_DELAY_SEC / TIMER_DELAY_MS / TIMER_DELIVER_MS / __STARTDELIVERTIME messages to rmq_sys_wheel_timer', () => {
    for (const [k, v, due] of [
      [MessageConst.PROPERTY_TIMER_DELAY_SEC, '2', now + 2000], [MessageConst.PROPERTY_TIMER_DELAY_MS, '1500', now + 1500],
      [MessageConst.PROPERTY_TIMER_DELIVER_MS, String(now + 700), now + 700], ['__STARTDELIVERTIME', String(now + 900), now + 900],
    ] as const) {
      const m = msg({ [k]: v });
      expect(rewriteTimerMessage(m, cfg, now)).to.equal(null);
      expect(m.topic).to.equal(TIMER_TOPIC);
      expect(m.queueId).to.equal(0);
      const p = stringToProperties(m.propertiesString);
      expect(p[MessageConst.PROPERTY_TIMER_OUT_MS]).to.equal(String(due));
      expect(p[MessageConst.PROPERTY_REAL_TOPIC]).to.equal('T');
      expect(p[MessageConst.PROPERTY_REAL_QUEUE_ID]).to.equal('3');
    }
  });

  it('leaves past deliver times and delay-level messages alone, refuses malformed, too far and disabled', () => {
    const past = msg({ [MessageConst.PROPERTY_TIMER_DELIVER_MS]: String(now - 1) });
    expect(rewriteTimerMessage(past, cfg, now)).to.equal(null);
    expect(past.topic).to.equal('T');
    const level = msg({ [MessageConst.PROPERTY_TIMER_DELAY_SEC]: '5', [MessageConst.PROPERTY_DELAY_TIME_LEVEL]: '2' });
    expect(rewriteTimerMessage(level, cfg, now)).to.equal(null);
    expect(level.topic).to.equal('T');
    expect(stringToProperties(level.propertiesString)[MessageConst.PROPERTY_TIMER_DELAY_SEC]).to.equal(undefined);
    expect(rewriteTimerMessage(msg({ [MessageConst.PROPERTY_TIMER_DELAY_MS]: 'soon' }), cfg, now)).to.equal(TimerRefusal.WHEEL_TIMER_MSG_ILLEGAL);
    expect(rewriteTimerMessage(msg({ [MessageConst.PROPERTY_TIMER_DELAY_SEC]: '3601' }), cfg, now)).to.equal(TimerRefusal.WHEEL_TIMER_MSG_ILLEGAL);
    expect(rewriteTimerMessage(msg({ [MessageConst.PROPERTY_TIMER_DELAY_SEC]: '1' }), { ...cfg, timerWheelEnable: false }, now))
      .to.equal(TimerRefusal.WHEEL_TIMER_NOT_ENABLE);
  });
});
