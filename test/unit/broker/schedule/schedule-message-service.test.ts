import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ScheduleMessageService, SCHEDULE_TOPIC, decodeDelayOffset, encodeDelayOffset, parseDelayLevel, rewriteDelayedMessage, messageTimeup,
} from '../../../../lib/broker/schedule/schedule-message-service';
import { decodeMessage } from '../../../../protocol/message/message-decoder';
import { propertiesToString, stringToProperties } from '../../../../protocol/message/properties';
import { MessageSysFlag } from '../../../../protocol/message/sys-flag';
import type { MessageExtBrokerInner } from '../../../../lib/store/commit-log';
import { FakeMessageStore } from '../fake-message-store';
import { waitFor } from '../../../helpers/wait-for';

function inner(topic: string, queueId: number, props: Record<string, string>, body = 'hello'): MessageExtBrokerInner {
  return {
    topic, queueId, flag: 7, body: Buffer.from(body), propertiesString: propertiesToString(props), bornTimestamp: 1700000000000,
    bornHost: { host: '10.0.0.9', port: 5555 }, sysFlag: 0, reconsumeTimes: 2, preparedTransactionOffset: 0,
  };
}

describe('broker/schedule/ScheduleMessageService', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-sched-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('parses messageDelayLevel as Java does', () => {
    const t = parseDelayLevel('1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h');
    expect(t.size).to.equal(18);
    expect(t.get(1)).to.equal(1000);
    expect(t.get(5)).to.equal(60000);
    expect(t.get(17)).to.equal(3600000);
    expect(t.get(18)).to.equal(7200000);
    expect(parseDelayLevel('1d').get(1)).to.equal(86400000);
    expect(() => parseDelayLevel('100ms')).to.throw(/messageDelayLevel/);
    expect(() => parseDelayLevel('1x')).to.throw();
  });

  it('rewrites a delayed message for SCHEDULE_TOPIC_XXXX, capping the level', () => {
    const m = inner('T', 3, { TAGS: 'a', DELAY: '3' });
    expect(rewriteDelayedMessage(m, 18)).to.equal(3);
    expect(m.topic).to.equal(SCHEDULE_TOPIC);
    expect(m.queueId).to.equal(2);
    expect(stringToProperties(m.propertiesString)).to.deep.equal({ TAGS: 'a', DELAY: '3', REAL_TOPIC: 'T', REAL_QID: '3' });

    const big = inner('T', 0, { DELAY: '40' });
    expect(rewriteDelayedMessage(big, 18)).to.equal(18);
    expect(big.queueId).to.equal(17);
    expect(stringToProperties(big.propertiesString).DELAY).to.equal('18');

    const none = inner('T', 0, { TAGS: 'x' });
    expect(rewriteDelayedMessage(none, 18)).to.equal(0);
    expect(none.topic).to.equal('T');
    const zero = inner('T', 0, { DELAY: '0' });
    expect(rewriteDelayedMessage(zero, 18)).to.equal(0);

    const prepared = inner('T', 0, { DELAY: '2' });
    prepared.sysFlag = MessageSysFlag.TRANSACTION_PREPARED_TYPE;
    expect(rewriteDelayedMessage(prepared, 18)).to.equal(0);
    expect(prepared.topic).to.equal('T');
  });

  it('messageTimeup restores topic and queue, keeps properties, body, flag, hosts, reconsume times', async () => {
    const store = new FakeMessageStore();
    const m = inner('Real', 5, { KEYS: 'k1', DELAY: '1' });
    rewriteDelayedMessage(m, 2);
    const r = await store.putMessage(m);
    const rec = (await store.lookMessageByOffset(r.appendMessageResult!.wroteOffset))!;
    const back = messageTimeup(rec)!;
    expect(back.topic).to.equal('Real');
    expect(back.queueId).to.equal(5);
    expect(back.flag).to.equal(7);
    expect(back.body!.toString()).to.equal('hello');
    expect(back.bornHost).to.deep.equal({ host: '10.0.0.9', port: 5555 });
    expect(back.bornTimestamp).to.equal(1700000000000);
    expect(back.reconsumeTimes).to.equal(2);
    expect(stringToProperties(back.propertiesString)).to.deep.equal({ KEYS: 'k1', DELAY: '1', REAL_TOPIC: 'Real', REAL_QID: '5' });
  });

  it('encodes delayOffset.json as Java (integer keys unquoted) and reads it back', () => {
    const text = encodeDelayOffset(new Map([[2, 0], [1, 5]]));
    expect(text).to.equal('{"offsetTable":{1:5,2:0}}');
    expect([...decodeDelayOffset(text)]).to.deep.equal([[1, 5], [2, 0]]);
    expect([...decodeDelayOffset('{"offsetTable":{"3":7}}')]).to.deep.equal([[3, 7]]);
  });

  it('delivers a level-1 message when due, not before, persists progress and does not redeliver after a restart', async function () {
    this.timeout(20_000);
    // A fake clock for the store and the service: "due" and "not before" are instants on it, whatever this
    // machine's speed. The service's timers still run in real time (about 1 s for the level-1 wait).
    let clock = 1_700_000_000_000;
    const store = new FakeMessageStore();
    store.now = () => clock;
    // every look of a level at its queue starts with the queue's max offset
    let scans = 0;
    const getMaxOffsetInQueue = store.getMaxOffsetInQueue.bind(store);
    store.getMaxOffsetInQueue = (topic: string, queueId: number) => {
      if (topic === SCHEDULE_TOPIC) scans++;
      return getMaxOffsetInQueue(topic, queueId);
    };
    const file = path.join(dir, 'config', 'delayOffset.json');
    const svc = new ScheduleMessageService(store, { messageDelayLevel: '1s 2s', delayOffsetFile: file, firstDelayMillis: 0, now: () => clock });
    await svc.start();
    const m = inner('Real', 1, { KEYS: 'k', DELAY: '1' });
    expect(svc.rewriteDelayedMessage(m)).to.equal(1);
    const put = await store.putMessage(m);
    const stored = put.appendMessageResult!.storeTimestamp;
    // 1 ms before it is due: the level looks at the message (twice, to be sure) and leaves it
    clock = stored + 999;
    const scansBefore = scans;
    await waitFor(() => scans >= scansBefore + 2, 10_000);
    expect(store.queue('Real', 1)).to.have.length(0);
    clock = stored + 1000;
    await waitFor(() => store.queue('Real', 1).length === 1, 10_000);
    // when it went out, on the store's clock
    const deliveredAt = decodeMessage(store.queue('Real', 1)[0]).storeTimestamp;
    expect(deliveredAt - stored).to.be.at.least(1000);
    expect(deliveredAt - stored).to.be.below(1000 + 400);
    const got = decodeMessage(store.queue('Real', 1)[0]);
    expect(got.topic).to.equal('Real');
    expect(got.queueId).to.equal(1);
    expect(got.properties.REAL_TOPIC).to.equal('Real');
    expect(got.body.toString()).to.equal('hello');
    expect(svc.offsetTable.get(1)).to.equal(1);
    await svc.shutdown();
    expect(fs.readFileSync(file, 'utf8')).to.equal('{"offsetTable":{1:1}}');

    const again = new ScheduleMessageService(store, { messageDelayLevel: '1s 2s', delayOffsetFile: file, firstDelayMillis: 0, now: () => clock });
    await again.start();
    expect(again.offsetTable.get(1)).to.equal(1);
    // the level has looked at its queue since the restart and not delivered the message again
    const scansAfterRestart = scans;
    await waitFor(() => scans > scansAfterRestart, 10_000);
    expect(store.queue('Real', 1)).to.have.length(1);
    // a level-2 message still goes out after the restart
    const m2 = inner('Real', 0, { DELAY: '2' });
    again.rewriteDelayedMessage(m2);
    await store.putMessage(m2);
    clock += 2000;
    await waitFor(() => store.queue('Real', 0).length === 1, 10_000);
    await again.shutdown();
    expect(decodeDelayOffset(fs.readFileSync(file, 'utf8')).get(2)).to.equal(1);
  });

  it('delivers messages stored before start, and retries a failed put', async function () {
    this.timeout(5000);
    const store = new FakeMessageStore();
    let clock = Date.now();
    store.now = () => clock;
    for (let i = 0; i < 3; i++) {
      const m = inner('R', 0, { DELAY: '1' }, `b${i}`);
      rewriteDelayedMessage(m, 2);
      await store.putMessage(m);
    }
    clock += 5000; // all due
    store.failPuts = 1;
    const svc = new ScheduleMessageService(store, {
      messageDelayLevel: '1s 2s', delayOffsetFile: path.join(dir, 'd.json'), firstDelayMillis: 0, now: () => clock,
    });
    await svc.start();
    await waitFor(() => store.queue('R', 0).length === 3, 3000);
    expect(store.queue('R', 0).map((r) => decodeMessage(r).body.toString())).to.deep.equal(['b0', 'b1', 'b2']);
    expect(svc.offsetTable.get(1)).to.equal(3);
    await svc.shutdown();
    await svc.shutdown();
  });

  it('corrects a saved offset beyond the queue on load', async () => {
    const store = new FakeMessageStore();
    const file = path.join(dir, 'delayOffset.json');
    fs.writeFileSync(file, '{"offsetTable":{1:9,2:0}}');
    const svc = new ScheduleMessageService(store, { messageDelayLevel: '1s 2s', delayOffsetFile: file });
    await svc.load();
    expect(svc.offsetTable.get(1)).to.equal(9);
    svc.correctDelayOffset();
    expect(svc.offsetTable.get(1)).to.equal(0);
  });
});
