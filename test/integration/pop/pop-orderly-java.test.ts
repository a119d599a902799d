/**
 * The orderly POP scenario (our `SimpleConsumer({ order: true })`) against the real Java 5.3.3 broker: the same
 * blocks, redelivery and wire fields (reviveQid 999, orderCountInfo) as against ours.
 */
import { useJavaCluster } from '../../helpers/javaref';
import { runOrderlyPopScenario } from './pop-orderly-scenario';

describe('compat: orderly POP (SimpleConsumer order: true) against the Java 5.3.3 broker', function () {
  this.timeout(240_000);
  const java = useJavaCluster('5.3.3');

  it('one batch per queue in flight, the other queue going on; the failed rest again in order, attempt counted', async () => {
    const report = await runOrderlyPopScenario(java.ns.addr);
    process.stdout.write(`      Java 5.3.3 orderCountInfo of the redelivery: ${report.popAnswers.at(-1)!.orderCountInfo}\n`);
  });
});
