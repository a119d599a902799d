import { expect } from 'chai';
import { TimedSemaphore } from '../../../lib/producer/back-pressure';

describe('lib/producer/back-pressure TimedSemaphore', () => {
  it('gives free permits at once and fails at once with no time to wait', async () => {
    const s = new TimedSemaphore(2);
    expect(s.tryAcquireNow()).to.equal(true);
    expect(await s.tryAcquire(1, 1000)).to.equal(true);
    expect(s.availablePermits).to.equal(0);
    expect(await s.tryAcquire(1, 0)).to.equal(false);
    expect(await s.tryAcquire(3, 1000), 'more than it will ever have').to.equal(false);
  });

  it('hands released permits to waiters in order (fair), and a waiter gives up after its timeout', async () => {
    const s = new TimedSemaphore(1);
    expect(s.tryAcquireNow()).to.equal(true);
    const order: string[] = [];
    const a = s.tryAcquire(1, 60_000).then((ok) => { order.push(`a:${ok}`); });
    const b = s.tryAcquire(1, 60_000).then((ok) => { order.push(`b:${ok}`); });
    const c = s.tryAcquire(1, 1).then((ok) => { order.push(`c:${ok}`); });
    await c; // nobody releases before c's 1 ms is up
    expect(order).to.deep.equal(['c:false']);
    expect(s.tryAcquireNow(), 'no barging past waiters').to.equal(false);
    s.release();
    await a;
    s.release();
    await b;
    expect(order).to.deep.equal(['c:false', 'a:true', 'b:true']);
    expect(s.waiting).to.equal(0);
    s.release();
    expect(s.availablePermits).to.equal(1);
  });

  it('rejectAll fails every waiter and clears its timer', async () => {
    const s = new TimedSemaphore(1);
    s.tryAcquireNow();
    const p = s.tryAcquire(1, 60_000);
    s.rejectAll();
    expect(await p).to.equal(false);
    expect(s.waiting).to.equal(0);
  });
});
