/**
 * Timer messages sent by our producer (setDeliverTimeMs, setDelayTimeSec, setDelayTimeMs and __STARTDELIVERTIME)
 * and consumed by our push consumer: each arrives no earlier than `earlyToleranceMs` before its deliver time
 * (Java rounds deliver times down to its 1 s slot; ours delivers at the time itself) and the lateness is reported.
 */
import { expect } from 'chai';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import {
  createMessage, setDelayTimeMs, setDelayTimeSec, setDeliverTimeMs, type Message,
} from '../../../protocol/message/message';
import { randomName, waitFor } from '../../helpers/cluster';
import { createTopicAndWait } from '../pop/pop-scenario';

export interface TimerReport {
  /** ms after the deliver time, per message (negative: early). */
  lateness: Record<string, number>;
}

export async function runTimerScenario(namesrvAddr: string, opts: { earlyToleranceMs: number; lateBoundMs: number; timeoutMs: number }): Promise<TimerReport> {
  const topic = randomName('TIMER');
  await createTopicAndWait(namesrvAddr, topic, 2);
  const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr, instanceName: randomName('p') });
  const consumer = new DefaultMQPushConsumer({
    consumerGroup: randomName('CG'), namesrvAddr, instanceName: randomName('c'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  const arrived = new Map<string, number>();
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener((msgs) => {
    for (const m of msgs) if (!arrived.has(m.body.toString())) arrived.set(m.body.toString(), Date.now());
    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
  });
  try {
    await producer.start();
    await consumer.start();
    const due = new Map<string, number>();
    const send = async (name: string, set: (m: Message) => void, dueAt: () => number) => {
      const m = createMessage(topic, name, {});
      set(m);
      const sentAt = Date.now();
      await producer.send(m);
      // The broker computes relative delays from its store time: between the send and its answer.
      due.set(name, Math.max(dueAt(), sentAt));
    };
    const base = Date.now();
    await send('plain', () => undefined, () => 0);
    await send('deliverMs', (m) => setDeliverTimeMs(m, base + 3000), () => base + 3000);
    let t = Date.now();
    await send('delaySec', (m) => setDelayTimeSec(m, 2), () => t + 2000);
    t = Date.now();
    await send('delayMs', (m) => setDelayTimeMs(m, 2500), () => t + 2500);
    await waitFor(() => arrived.has('plain'), opts.timeoutMs, 'the plain message');
    await waitFor(() => arrived.size >= 4, opts.timeoutMs, `the timer messages (got ${[...arrived.keys()].join(',')})`);
    const lateness: Record<string, number> = {};
    for (const [name, at] of due) {
      if (name === 'plain') continue;
      lateness[name] = arrived.get(name)! - at;
      expect(lateness[name], `${name} early`).to.be.at.least(-opts.earlyToleranceMs);
      expect(lateness[name], `${name} late`).to.be.at.most(opts.lateBoundMs);
    }
    return { lateness };
  } finally {
    await consumer.shutdown();
    await producer.shutdown();
  }
}
