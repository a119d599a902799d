/**
 * Our SimpleConsumer against the real Java 5.3.3 broker (../shared/javaref): POP_MESSAGE, ACK_MESSAGE,
 * CHANGE_MESSAGE_INVISIBLETIME and redelivery by Java's PopReviveService.
 */
import { useJavaCluster } from '../../helpers/javaref';
import { runPopScenario } from './pop-scenario';

describe('compat: SimpleConsumer (POP) against the Java 5.3.3 broker', function () {
  this.timeout(240_000);
  const java = useJavaCluster('5.3.3');

  it('receives, acks, changes the invisible time; what is not acked comes back once from the retry topic', async () => {
    const report = await runPopScenario(java.ns.addr, { invisibleMs: 5000, redeliveryTimeoutMs: 90_000 });
    process.stdout.write(`      Java 5.3.3 redelivered ${report.redeliveryLatenessMs} ms after the invisible time\n`);
  });
});
