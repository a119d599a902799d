import { expect } from 'chai';
import { Exclusive } from '../../../lib/util/exclusive';

/** A run the test finishes by hand. */
function gate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { wait: () => p, open };
}

describe('lib/util/exclusive', () => {
  it('tryRun skips while a run is under way and runs once it is done', async () => {
    const slot = new Exclusive();
    const g = gate();
    const order: string[] = [];
    const first = slot.tryRun(async () => {
      order.push('first');
      await g.wait();
      return 1;
    });
    expect(slot.busy).to.equal(true);
    expect(await slot.tryRun(async () => order.push('skipped'))).to.equal(undefined);
    g.open();
    expect(await first).to.equal(1);
    expect(slot.busy).to.equal(false);
    expect(await slot.tryRun(async () => 2)).to.equal(2);
    expect(order).to.deep.equal(['first']);
  });

  it('run waits for the run under way and for any begun while it waited, never overlapping', async () => {
    const slot = new Exclusive();
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    const job = (n: number) => async () => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((r) => setImmediate(r));
      order.push(n);
      inside--;
      return n;
    };
    const g = gate();
    const held = slot.tryRun(async () => {
      await g.wait();
      order.push(0);
    });
    const waiting = [slot.run(job(1)), slot.run(job(2)), slot.run(job(3))];
    await new Promise((r) => setImmediate(r));
    expect(order).to.deep.equal([]);
    g.open();
    await held;
    expect(await Promise.all(waiting)).to.deep.equal([1, 2, 3]);
    expect(most).to.equal(1);
    expect(order[0]).to.equal(0);
    expect(order.slice(1).sort()).to.deep.equal([1, 2, 3]);
  });

  it('holds the slot before the job runs a line of its own', async () => {
    const slot = new Exclusive();
    let seen: boolean | undefined;
    await slot.run(async () => {
      seen = slot.busy;
    });
    expect(seen).to.equal(true);
  });

  it('a failed run rejects its own caller only and frees the slot', async () => {
    const slot = new Exclusive();
    const g = gate();
    const failing = slot.tryRun(async () => {
      await g.wait();
      throw new Error('disk gone');
    });
    const next = slot.run(async () => 'ran');
    g.open();
    let err: unknown;
    await failing.catch((e: unknown) => (err = e));
    expect((err as Error).message).to.equal('disk gone');
    expect(await next).to.equal('ran');
    expect(slot.busy).to.equal(false);
    // a job that throws before its first await rejects as well
    let sync: unknown;
    await slot
      .run(() => {
        throw new Error('at once');
      })
      .catch((e: unknown) => (sync = e));
    expect((sync as Error).message).to.equal('at once');
    expect(slot.busy).to.equal(false);
  });

  it('runAll waits until every slot is idle together, then holds all of them', async () => {
    const a = new Exclusive();
    const b = new Exclusive();
    const ga = gate();
    const gb = gate();
    void a.tryRun(() => ga.wait());
    void b.tryRun(() => gb.wait());
    let ran = false;
    const g = gate();
    const all = Exclusive.runAll([a, b], async () => {
      ran = true;
      await g.wait();
      return 'cut';
    });
    ga.open();
    await new Promise((r) => setImmediate(r));
    expect(ran).to.equal(false);
    // a fresh run on the freed slot begins before the b's ends: runAll waits for that one too
    const gc = gate();
    void a.tryRun(() => gc.wait());
    gb.open();
    await new Promise((r) => setImmediate(r));
    expect(ran).to.equal(false);
    gc.open();
    while (!ran) await new Promise((r) => setImmediate(r));
    expect(a.busy && b.busy).to.equal(true);
    expect(await a.tryRun(async () => 'flush')).to.equal(undefined);
    expect(await b.tryRun(async () => 'clean')).to.equal(undefined);
    g.open();
    expect(await all).to.equal('cut');
    expect(a.busy || b.busy).to.equal(false);
  });
});
