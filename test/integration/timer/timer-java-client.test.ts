/**
 * Timer messages the Java 5.3.3 client sends (Message.setDeliverTimeMs / setDelayTimeSec / setDelayTimeMs, through
 * test/java/Rmq533Tool.java `produce-timer`) to our broker: each reaches our consumer no earlier than the deliver time
 * the Java client asked for (minus the clock skew of a store time taken after the send), within a generous late bound.
 */
import { expect } from 'chai';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { type TestCluster, getCluster, randomName, waitFor } from '../../helpers/cluster';
import { harnessLines, java533ToolSkipReason, runJava533Tool } from '../../helpers/javaref';
import { createTopicAndWait } from '../pop/pop-scenario';

describe('compat: timer messages from the Java 5.3.3 client to our broker', function () {
  this.timeout(240_000);
  let tc: TestCluster | undefined;

  before(async function () {
    const skip = java533ToolSkipReason();
    if (skip || process.env.ROCKETMQ_NAMESRV_ADDR) {
      process.stderr.write(`      ${skip ?? 'skipped: needs the in-process cluster'}\n`);
      this.skip();
    }
    tc = await getCluster();
  });
  after(async () => {
    await tc?.stop();
  });

  it('setDeliverTimeMs / setDelayTimeSec / setDelayTimeMs of the Java client are honoured by our broker', async () => {
    const namesrvAddr = tc!.namesrvAddr;
    const topic = randomName('TIMERJ');
    await createTopicAndWait(namesrvAddr, topic, 2);
    const arrived = new Map<string, number>();
    const consumer = new DefaultMQPushConsumer({
      consumerGroup: randomName('CG'), namesrvAddr, instanceName: randomName('c'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener((msgs) => {
      for (const m of msgs) if (!arrived.has(m.body.toString())) arrived.set(m.body.toString(), Date.now());
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    try {
      await consumer.start();
      const r = await runJava533Tool(['produce-timer', namesrvAddr, topic, '3000'], { timeoutMs: 120_000 });
      const due = new Map(harnessLines(r.stdout, 'DUE').map(([, kind, at]) => [kind, Number(at)]));
      expect([...due.keys()], r.stdout + r.stderr).to.have.members(['deliverMs', 'delaySec', 'delayMs']);
      await waitFor(() => arrived.size >= 3, 90_000, `the Java client's timer messages (got ${[...arrived.keys()].join(',')})`);
      const lateness: Record<string, number> = {};
      for (const [kind, at] of due) {
        lateness[kind] = arrived.get(kind)! - at;
        // relative delays count from the broker's store time, a little after the client read its clock: never early
        expect(lateness[kind], `${kind} early`).to.be.at.least(0);
        expect(lateness[kind], `${kind} late`).to.be.at.most(15_000);
      }
      process.stdout.write(`      lateness at our consumer (ms): ${JSON.stringify(lateness)}\n`);
    } finally {
      await consumer.shutdown();
    }
  });
});
