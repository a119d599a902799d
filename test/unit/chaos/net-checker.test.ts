/**
 * The network chaos checker (chaos/net/checker.ts) on hand-made records: each kind of failure it promises to find is
 * found, a clean run passes, and the availability figures come from the acknowledgement times and the route timeline.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { type AckRecord, type CheckInput, type Delivery, FileTail, check, readAcks, readStored } from '../../../chaos/net/checker';
import type { StoredRecord } from '../../../chaos/drain';

const B = 'b';

function ack(key: string, queueId: number, queueOffset: number, ackMs: number): AckRecord {
  return { key, brokerName: B, queueId, queueOffset, ackMs, sentMs: ackMs - 5 };
}
const stored = (key: string, queueId: number, queueOffset: number): StoredRecord => ({ key, brokerName: B, queueId, queueOffset });
const delivered = (key: string, queueId: number, queueOffset: number, ms = 0): Delivery => ({ key, brokerName: B, queueId, queueOffset, ms });

function input(over: Partial<CheckInput>): CheckInput {
  const acks = [ack('p0-0', 0, 0, 1000), ack('p0-1', 0, 1, 1100), ack('p1-0', 1, 0, 1200)];
  return {
    acks,
    stored: acks.map((a) => stored(a.key, a.queueId, a.queueOffset)),
    deliveries: [acks.map((a) => delivered(a.key, a.queueId, a.queueOffset))],
    sent: new Map([['0', 2], ['1', 1]]),
    promise: 'sync', orderly: false, faults: [], timeline: [], brokerName: B, endMs: 2000,
    ...over,
  };
}

describe('chaos/net checker', () => {
  it('passes a clean run and counts it', () => {
    const r = check(input({}));
    expect(r.failures).to.deep.equal([]);
    expect([r.acknowledged, r.stored, r.consumed, r.lost, r.duplicatesStored, r.duplicatesConsumed]).to.deep.equal([3, 3, 3, 0, 0, 0]);
  });

  it('fails a sync mode on a lost acknowledged message and reports the window in an async one', () => {
    const acks = [ack('p0-0', 0, 0, 1000), ack('p0-1', 0, 1, 1300), ack('p0-2', 0, 2, 1700)];
    const only = [stored('p0-0', 0, 0)];
    const sync = check(input({ acks, stored: only, deliveries: [[delivered('p0-0', 0, 0)]], sent: new Map([['0', 3]]) }));
    expect(sync.lost).to.equal(2);
    expect(sync.lostKeys).to.deep.equal(['p0-1', 'p0-2']);
    expect(sync.lossWindowMs).to.equal(400);
    expect(sync.failures.join()).to.contain('2 acknowledged messages lost');
    const async = check(input({ acks, stored: only, deliveries: [[delivered('p0-0', 0, 0)]], sent: new Map([['0', 3]]), promise: 'async' }));
    expect(async.lost).to.equal(2);
    expect(async.failures).to.deep.equal([]);
  });

  it('finds stored messages never delivered, and messages never sent', () => {
    const r = check(input({ deliveries: [[delivered('p0-0', 0, 0), delivered('p1-0', 1, 0), delivered('p1-7', 1, 1)]] }));
    expect(r.notConsumed).to.equal(1);
    expect(r.phantoms).to.deep.equal(['p1-7']);
    expect(r.failures).to.have.length(2);
  });

  it('finds one offset acknowledged for two messages (split brain) and an acknowledgement at the wrong offset', () => {
    const acks = [ack('p0-0', 0, 0, 1000), ack('p1-0', 0, 0, 1001)];
    const r = check(input({ acks, stored: [stored('p0-0', 0, 0), stored('p1-0', 0, 1)], deliveries: [[delivered('p0-0', 0, 0), delivered('p1-0', 0, 1)]] }));
    expect(r.offsetConflicts).to.have.length(1);
    expect(r.misplaced).to.deep.equal(['p1-0 acknowledged at b@0@0, which holds p0-0']);
    expect(r.failures).to.have.length(2);
  });

  it('counts duplicates without failing on them', () => {
    const base = input({});
    const r = check({ ...base, stored: [...base.stored, stored('p0-0', 0, 5)], deliveries: [[...base.deliveries[0], delivered('p0-1', 0, 1)]] });
    expect([r.duplicatesStored, r.duplicatesConsumed]).to.deep.equal([1, 1]);
    expect(r.failures).to.deep.equal([]);
  });

  it('finds per-queue order broken in store and in first deliveries of an orderly topic', () => {
    const acks = [ack('p0-0', 0, 1, 1000), ack('p0-1', 0, 0, 1100)];
    const r = check(input({
      acks, orderly: true, sent: new Map([['0', 2]]),
      stored: [stored('p0-1', 0, 0), stored('p0-0', 0, 1)],
      // Delivered in order once, then redelivered: redeliveries are not first deliveries.
      deliveries: [[delivered('p0-0', 0, 1), delivered('p0-1', 0, 0), delivered('p0-0', 0, 1)]],
    }));
    expect(r.orderViolations).to.deep.equal(['stored b@0/p0: p0-0 after p0-1']);
    expect(r.failures.join()).to.contain('1 order violations');
  });

  it('measures the stretch without acknowledgements, the time to a new master and to the clients following it', () => {
    const acks = [ack('p0-0', 0, 0, 1000), ack('p0-1', 0, 1, 1500), ack('p0-2', 0, 2, 9000), ack('p0-3', 0, 3, 9100)];
    const r = check(input({
      acks, sent: new Map([['0', 4]]), stored: acks.map((a) => stored(a.key, a.queueId, a.queueOffset)),
      deliveries: [acks.map((a) => delivered(a.key, a.queueId, a.queueOffset))],
      faults: [{ label: 'cut', start: 2000, end: 8500 }],
      timeline: [{ t: 0, brokerName: B, master: 'A' }, { t: 3000, brokerName: B, master: null }, { t: 8000, brokerName: B, master: 'C' },
        { t: 8700, brokerName: B, master: null }, { t: 8900, brokerName: B, master: 'C' }],
      endMs: 9200,
    }));
    expect(r.maxNoAckMs).to.equal(7500);
    expect(r.noAckSecondsOver1s).to.equal(6.5);
    expect(r.faults).to.deep.equal([{
      label: 'cut', durationMs: 6500, noAckMs: 7500, newMasterMs: 6000, clientsFollowMs: 1000, masterMissingAfterHealMs: 200,
      acksPerSec: 0, latencyP50Ms: null, latencyP99Ms: null,
    }]);
    expect(r.before).to.deep.equal({ durationMs: 1000, acksPerSec: 2, latencyP50Ms: 5, latencyP99Ms: 5 });
  });

  it('gives each fault its acknowledged sends per second and send latency, beside the 20 s before the first fault', () => {
    const acks: AckRecord[] = [];
    // 25 s before the faults at 10/s, 20 ms each; then a fault at 2/s, 400 ms each (one slow one of 1,900 ms).
    for (let i = 0; i < 250; i++) acks.push({ ...ack(`p0-${i}`, 0, i, 1000 + i * 100), sentMs: 1000 + i * 100 - 20 });
    for (let i = 0; i < 20; i++) acks.push({ ...ack(`p0-${250 + i}`, 0, 250 + i, 26_000 + i * 500), sentMs: 26_000 + i * 500 - (i === 19 ? 1900 : 400) });
    const r = check(input({
      acks, sent: new Map([['0', 270]]), stored: acks.map((a) => stored(a.key, a.queueId, a.queueOffset)),
      deliveries: [acks.map((a) => delivered(a.key, a.queueId, a.queueOffset))],
      faults: [{ label: 'loss', start: 26_000, end: 36_000 }], endMs: 36_000,
    }));
    expect(r.before).to.deep.equal({ durationMs: 20_000, acksPerSec: 10, latencyP50Ms: 20, latencyP99Ms: 20 });
    expect(r.faults[0]).to.include({ acksPerSec: 2, latencyP50Ms: 400, latencyP99Ms: 1900 });
    expect(check(input({})).before).to.equal(null);
  });

  it('gives a fault only the master changes made before the next fault', () => {
    const r = check(input({
      faults: [{ label: 'first', start: 100, end: 200 }, { label: 'second', start: 300, end: 400 }],
      timeline: [{ t: 0, brokerName: B, master: 'A' }, { t: 350, brokerName: B, master: 'C' }],
    }));
    expect(r.faults.map((f) => f.newMasterMs)).to.deep.equal([null, 50]);
  });

  it('reads files a chunk at a time: each appended line once, a line cut by the writer only once it is whole', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmq-net-checker-'));
    try {
      const file = path.join(dir, 'acked.txt');
      const tail = new FileTail(file);
      expect(tail.newLines()).to.deep.equal([]);
      fs.writeFileSync(file, 'p0-0\tb\t1\t7\t1000\t995\np0-1\tb\t2');
      expect(tail.newLines()).to.deep.equal(['p0-0\tb\t1\t7\t1000\t995']);
      fs.appendFileSync(file, '\t3\t1100\t1090\n');
      expect(tail.newLines()).to.deep.equal(['p0-1\tb\t2\t3\t1100\t1090']);
      expect(tail.newLines()).to.deep.equal([]);
      const acks = readAcks([file, path.join(dir, 'absent.txt')]);
      expect(acks.map((a) => [a.key, a.queueId, a.queueOffset, a.ackMs, a.sentMs])).to.deep.equal([['p0-0', 1, 7, 1000, 995], ['p0-1', 2, 3, 1100, 1090]]);
      // more lines than one chunk (16 MiB): every one read, none twice
      const big = path.join(dir, 'stored.txt');
      const n = 400_000;
      const lines: string[] = [];
      for (let i = 0; i < n; i++) lines.push(`p1-${i}\tbroker-a\t${i % 8}\t${Math.floor(i / 8)}\t${'x'.repeat(20)}`);
      fs.writeFileSync(big, `${lines.join('\n')}\n`);
      expect(fs.statSync(big).size).to.be.greaterThan(16 * 1024 * 1024);
      const got = readStored(big);
      expect(got.length).to.equal(n);
      expect(new Set(got.map((r) => r.key)).size).to.equal(n);
      expect(got[n - 1]).to.deep.equal({ key: `p1-${n - 1}`, brokerName: 'broker-a', queueId: (n - 1) % 8, queueOffset: Math.floor((n - 1) / 8) });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
