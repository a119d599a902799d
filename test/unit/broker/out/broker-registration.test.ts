/**
 * BrokerRegistration's retry of a failed registration: after 1 s, then every REGISTER_RETRY_MAX_DELAY_MILLIS (2 s),
 * however long the name server stays out of reach, so a broker that became master meanwhile is named again soon after
 * the name server answers. The retry timers are captured (setTimeout replaced for the test) and fired by hand: no
 * waiting on the clock.
 */
import { expect } from 'chai';
import pino from 'pino';
import { BrokerRegistration, REGISTER_RETRY_MAX_DELAY_MILLIS } from '../../../../lib/broker/out/broker-registration';
import type { BrokerOuterAPI, RegisterBrokerArgs } from '../../../../lib/broker/out/broker-outer-api';

describe('lib/broker/out BrokerRegistration retries', () => {
  const realSetTimeout = globalThis.setTimeout;
  let timers: Array<{ fn: () => void; delay: number }> = [];

  beforeEach(() => {
    timers = [];
    globalThis.setTimeout = ((fn: () => void, delay: number) => {
      timers.push({ fn, delay });
      return { unref: () => undefined, ref: () => undefined, hasRef: () => false, refresh() { return this; }, [Symbol.toPrimitive]: () => 0 };
    }) as unknown as typeof setTimeout;
  });

  afterEach(() => {
    globalThis.setTimeout = realSetTimeout;
  });

  it('retries a failed registration after 1 s, then every 2 s however many fail, and stops once one succeeds', async () => {
    let up = false;
    let calls = 0;
    const api = {
      nameServerAddressList: ['198.18.0.10:9876'],
      registerBroker: async () => {
        calls++;
        if (!up) throw new Error('connect timed out');
        return {};
      },
      queryDataVersionChanged: async () => true,
    } as unknown as BrokerOuterAPI;
    const reg = new BrokerRegistration({
      api, logger: pino({ level: 'silent' }), maxRetryDelayMillis: REGISTER_RETRY_MAX_DELAY_MILLIS,
      build: () => ({}) as RegisterBrokerArgs,
    });
    await reg.register({ full: true });
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      expect(timers, `retry ${i + 1} scheduled`).to.have.length(1);
      const t = timers.shift()!;
      delays.push(t.delay);
      t.fn();
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
    }
    expect(REGISTER_RETRY_MAX_DELAY_MILLIS).to.equal(2000);
    expect(delays).to.deep.equal([1000, 2000, 2000, 2000, 2000, 2000, 2000, 2000]);
    expect(calls).to.equal(9);
    up = true;
    timers.shift()!.fn();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(calls).to.equal(10);
    expect(timers, 'no retry after a success').to.have.length(0);
    reg.shutdown();
  });
});
