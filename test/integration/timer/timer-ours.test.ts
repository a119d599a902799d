/**
 * Timer messages through our broker (the timing wheel of lib/store/timer), end to end with our producer and
 * consumer, and across a broker restart. Lateness bounds here are generous (a busy 2-core machine); the exact
 * timing is covered with an injected clock in test/unit/store/timer and measured by bench/timer-latency.
 */
import { expect } from 'chai';
import { startCluster } from '../../../lib/server';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { MQBrokerError } from '../../../lib/errors';
import { ResponseCode } from '../../../protocol/code/response-code';
import { createMessage, setDelayTimeMs, setDelayTimeSec } from '../../../protocol/message/message';
import { randomName, waitFor } from '../../helpers/cluster';
import { registerLeftover } from '../../helpers/root-hooks';
import { createTopicAndWait } from '../pop/pop-scenario';
import { runTimerScenario } from './timer-scenario';

describe('timer messages through our broker', function () {
  this.timeout(120_000);

  it('TIMER_DELIVER_MS / TIMER_DELAY_SEC / TIMER_DELAY_MS arrive at their time, not before', async () => {
    const cluster = await startCluster();
    const remove = registerLeftover(() => cluster.stop());
    try {
      const r = await runTimerScenario(cluster.namesrvAddr, { earlyToleranceMs: 0, lateBoundMs: 5000, timeoutMs: 30_000 });
      process.stdout.write(`      lateness at the consumer (ms): ${JSON.stringify(r.lateness)}; broker max ${cluster.brokers[0].timerMessageStore.stats.maxLatenessMs} ms\n`);
    } finally {
      remove();
      await cluster.stop();
    }
  });

  it('a timer message stored before a broker restart is delivered after it; too long a delay is refused', async () => {
    const cluster = await startCluster();
    const remove = registerLeftover(() => cluster.stop());
    const topic = randomName('TIMERR');
    const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('p') });
    const consumer = new DefaultMQPushConsumer({
      consumerGroup: randomName('CG'), namesrvAddr: cluster.namesrvAddr, instanceName: randomName('c'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    try {
      await createTopicAndWait(cluster.namesrvAddr, topic, 1);
      await producer.start();
      const m = createMessage(topic, 'after-restart', {});
      setDelayTimeMs(m, 4000);
      const sentAt = Date.now();
      await producer.send(m);
      const tooFar = createMessage(topic, 'too-far', {});
      setDelayTimeSec(tooFar, 3 * 24 * 3600 + 60);
      const err = await producer.send(tooFar).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(MQBrokerError);
      expect((err as MQBrokerError).responseCode).to.equal(ResponseCode.MESSAGE_ILLEGAL);
      await cluster.restartBroker(0);
      const arrived: number[] = [];
      consumer.subscribe(topic, '*');
      consumer.registerMessageListener((msgs) => {
        for (const x of msgs) if (x.body.toString() === 'after-restart') arrived.push(Date.now());
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      });
      await consumer.start();
      await waitFor(() => arrived.length > 0, 60_000, 'the timer message after the restart');
      expect(arrived[0]).to.be.at.least(sentAt + 4000);
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
      remove();
      await cluster.stop();
    }
  });
});
