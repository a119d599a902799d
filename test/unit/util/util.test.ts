import { expect } from 'chai';
import { ServiceLoop } from '../../../lib/util/service-loop';
import { Lifecycle } from '../../../lib/util/lifecycle';
import { applyProperties, parseProperties } from '../../../lib/util/properties-file';
import { InstrumentationEmitter } from '../../../lib/instrumentation/emitter';

describe('lib/util', () => {
  it('ServiceLoop runs periodically, never overlaps, and stops', async () => {
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    // Wait for the third run itself rather than for a time this machine may be too busy to fit three runs in.
    let thirdRun!: () => void;
    const threeRuns = new Promise<void>((r) => (thirdRun = r));
    const loop = new ServiceLoop({ name: 't', intervalMillis: 5, initialDelayMillis: 0 }, async () => {
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      runs++;
      if (runs === 3) thirdRun();
      await new Promise((r) => setTimeout(r, 3));
      concurrent--;
    });
    loop.start();
    loop.start();
    await threeRuns;
    await loop.stop();
    const after = runs;
    // several intervals with the loop stopped: no further run
    await new Promise((r) => setTimeout(r, 30));
    expect(runs).to.equal(after);
    expect(after).to.be.greaterThan(2);
    expect(maxConcurrent).to.equal(1);
  });

  it('ServiceLoop survives a throwing task and wakes up on demand', async () => {
    let runs = 0;
    let ran: () => void = () => undefined;
    const nextRun = () => new Promise<void>((r) => (ran = r));
    const loop = new ServiceLoop({ name: 't', intervalMillis: 60_000, initialDelayMillis: 0 }, () => {
      runs++;
      ran();
      throw new Error('boom');
    });
    let run = nextRun();
    loop.start();
    await run;
    // the loop survived the throw: a wakeup runs it again long before the 60 s interval
    run = nextRun();
    loop.wakeup();
    await run;
    await loop.stop();
    expect(runs).to.equal(2);
  });

  it('Lifecycle merges concurrent start and shutdown calls', async () => {
    let starts = 0;
    let stops = 0;
    const lc = new Lifecycle(async () => { starts++; await new Promise((r) => setTimeout(r, 5)); }, async () => { stops++; });
    await Promise.all([lc.start(), lc.start()]);
    expect(lc.isRunning).to.equal(true);
    await Promise.all([lc.shutdown(), lc.shutdown()]);
    await lc.shutdown();
    expect([starts, stops]).to.deep.equal([1, 1]);
    await lc.start();
    expect(starts).to.equal(2);
    await lc.shutdown();
  });

  it('Lifecycle: shutdown() during a start that fails does not shut down what the start undid', async () => {
    let stops = 0;
    let fail!: (e: Error) => void;
    const lc = new Lifecycle(() => new Promise<void>((_, reject) => { fail = reject; }), async () => { stops++; });
    const started = lc.start().catch((e: unknown) => e);
    const stopped = lc.shutdown();
    fail(new Error('bind failed'));
    expect(String(await started)).to.include('bind failed');
    await stopped;
    expect(stops).to.equal(0);
    expect(lc.current).to.equal('stopped');
    await lc.shutdown();
    expect(stops).to.equal(0);
  });

  it('parses Java properties files and applies them by field type', () => {
    const props = parseProperties('# c\nbrokerName = broker-a\nlistenPort=10911\n! x\nflag:true\nlong=a\\\n  b\nesc=\\u0041\\t\n');
    expect(Object.fromEntries(props)).to.deep.equal({ brokerName: 'broker-a', listenPort: '10911', flag: 'true', long: 'ab', esc: 'A\t' });
    const cfg = { brokerName: 'x', listenPort: 1, flag: false };
    expect(applyProperties(cfg, props)).to.deep.equal(['long', 'esc']);
    expect(cfg).to.deep.equal({ brokerName: 'broker-a', listenPort: 10911, flag: true });
  });

  it('InstrumentationEmitter builds payloads only for listeners', () => {
    const e = new InstrumentationEmitter<{ 'producer.send': { n: number } }>();
    let built = 0;
    e.emit('producer.send', () => { built++; return { n: 1 }; });
    const seen: number[] = [];
    const off = e.on('producer.send', (ev) => seen.push(ev.payload.n));
    e.emit('producer.send', () => { built++; return { n: 2 }; });
    off();
    e.emit('producer.send', { n: 3 });
    expect(built).to.equal(1);
    expect(seen).to.deep.equal([2]);
  });
});
