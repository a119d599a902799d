/**
 * Timer messages sent by our producer to the Java 5.3.3 broker (timerWheelEnable is true by default in 5.x):
 * each arrives at our consumer at its time. Java rounds a deliver time down to its timerPrecisionMs (1000 ms) and
 * delivers at the slot, so up to a second early.
 */
import { type JavaBroker, type JavaNamesrv, javaSkipReason, startJavaBroker, startJavaNamesrv } from '../../helpers/javaref';
import { runTimerScenario } from './timer-scenario';

describe('compat: timer messages to the Java 5.3.3 broker', function () {
  this.timeout(240_000);
  let ns: JavaNamesrv | undefined;
  let broker: JavaBroker | undefined;

  before(async function () {
    const skip = javaSkipReason('5.3.3');
    if (skip) {
      process.stderr.write(`      ${skip}\n`);
      this.skip();
    }
    ns = await startJavaNamesrv('5.3.3');
    broker = await startJavaBroker('5.3.3', { namesrvAddr: ns.addr });
  });
  after(async () => {
    await broker?.stop();
    await ns?.stop();
  });

  it('setDeliverTimeMs / setDelayTimeSec / setDelayTimeMs are honoured by Java 5.3.3', async () => {
    const r = await runTimerScenario(ns!.addr, { earlyToleranceMs: 1100, lateBoundMs: 15_000, timeoutMs: 90_000 });
    process.stdout.write(`      lateness at the consumer (ms): ${JSON.stringify(r.lateness)}\n`);
  });
});
