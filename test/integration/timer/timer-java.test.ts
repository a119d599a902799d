/**
 * Timer messages sent by our producer to the Java 5.3.3 broker (timerWheelEnable is true by default in 5.x):
 * each arrives at our consumer at its time. Java rounds a deliver time down to its timerPrecisionMs (1000 ms) and
 * delivers at the slot, so up to a second early.
 */
import { useJavaCluster } from '../../helpers/javaref';
import { runTimerScenario } from './timer-scenario';

describe('compat: timer messages to the Java 5.3.3 broker', function () {
  this.timeout(240_000);
  const java = useJavaCluster('5.3.3');

  it('setDeliverTimeMs / setDelayTimeSec / setDelayTimeMs are honoured by Java 5.3.3', async () => {
    const r = await runTimerScenario(java.ns.addr, { earlyToleranceMs: 1100, lateBoundMs: 15_000, timeoutMs: 90_000 });
    process.stdout.write(`      lateness at the consumer (ms): ${JSON.stringify(r.lateness)}\n`);
  });
});
