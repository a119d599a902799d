/**
 * PopCheckPointStore: acks, revive order, and the checkpoint log replayed (and compacted) by a new store.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { PopCheckPointStore } from '../../../../lib/broker/pop/pop-checkpoint-store';

const logger = pino({ level: 'silent' });

describe('PopCheckPointStore', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'popck-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('acks messages, orders checkpoints by revive time, and ends them', async () => {
    const s = new PopCheckPointStore({ dir, logger });
    await s.load();
    s.add('G', 'T', 0, 10, 1000, 5000, 1, [10, 11, 12]);
    s.add('G', 'T', 1, 0, 1000, 2000, 1, [0]);
    expect(s.inflight('T', 'G', 0)).to.equal(3);
    expect(s.ack('G', 'T', 0, 10, 1000, 11)).to.equal(true);
    expect(s.ack('G', 'T', 0, 10, 1000, 11)).to.equal(false);
    expect(s.ack('G', 'T', 0, 10, 999, 10)).to.equal(false);
    expect(s.nextReviveTime()).to.equal(3000);
    expect(s.pollDue(2999)).to.equal(undefined);
    const first = s.pollDue(3000)!;
    expect([first.queueId, [...first.pending]]).to.deep.equal([1, [0]]);
    s.done(first);
    expect(s.pollDue(5999)).to.equal(undefined);
    const second = s.pollDue(6000)!;
    expect([...second.pending]).to.deep.equal([10, 12]);
    expect(s.ack('G', 'T', 0, 10, 1000, 10)).to.equal(true);
    expect(s.ack('G', 'T', 0, 10, 1000, 12)).to.equal(true);
    expect(s.size).to.equal(0);
    await s.close();
  });

  it('never joins a checkpoint whose key is taken: a change of invisible time in the pop\'s millisecond gets the next one', async () => {
    const s = new PopCheckPointStore({ dir, logger });
    await s.load();
    s.add('G', 'T', 0, 10, 1000, 120_000, 1, [10, 11]);
    // the change of message 10's invisible time, in the pop's millisecond: a checkpoint of its own
    const changed = s.add('G', 'T', 0, 10, 1000, 1000, 1, [10]);
    expect(changed.popTime).to.equal(1001);
    expect(s.ack('G', 'T', 0, 10, 1000, 10)).to.equal(true);
    expect(s.inflight('T', 'G', 0)).to.equal(2);
    const due = s.pollDue(2001)!;
    expect([due.popTime, [...due.pending]]).to.deep.equal([1001, [10]]);
    await s.close();
    const again = new PopCheckPointStore({ dir, logger });
    await again.load();
    expect(again.inflight('T', 'G', 0)).to.equal(2);
    await again.close();
  });

  it('a new store replays the log: live checkpoints with their unacknowledged messages only', async () => {
    const a = new PopCheckPointStore({ dir, logger });
    await a.load();
    a.add('G', 'T', 0, 10, 1000, 5000, 1, [10, 11]);
    a.add('G', 'T', 0, 12, 1001, 5000, 1, [12]);
    a.ack('G', 'T', 0, 10, 1000, 10);
    a.ack('G', 'T', 0, 12, 1001, 12);
    await a.close();
    // A torn last line (a crash mid-write) is skipped.
    fs.appendFileSync(a.file, 'C G T 0 9');
    const b = new PopCheckPointStore({ dir, logger });
    await b.load();
    expect(b.size).to.equal(1);
    expect([...b.get('G', 'T', 0, 10, 1000)!.pending]).to.deep.equal([11]);
    expect(fs.readFileSync(b.file, 'utf8')).to.equal('C G T 0 10 1000 5000 1 11\n');
    await b.close();
  });
});
