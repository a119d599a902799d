/**
 * 5.x timer messages (ours or Java 5.x brokers): any delivery time, not only the 18 delay levels.
 * setDeliverTimeMs (an epoch time), setDelayTimeSec, setDelayTimeMs (relative to when the broker stores it).
 */
import { DefaultMQProducer, createMessage, setDelayTimeMs, setDelayTimeSec, setDeliverTimeMs } from '../lib/index';
import { type ExampleContext, TOPIC, run, withCluster } from './support';

async function main({ namesrvAddr }: ExampleContext): Promise<void> {
  const producer = new DefaultMQProducer({ producerGroup: 'ExampleTimerProducer', namesrvAddr });
  await producer.start();
  try {
    const at = createMessage(TOPIC, 'delivered in 1.5 s');
    setDeliverTimeMs(at, Date.now() + 1500);
    const sec = createMessage(TOPIC, 'delivered in 2 s');
    setDelayTimeSec(sec, 2);
    const ms = createMessage(TOPIC, 'delivered in 750 ms');
    setDelayTimeMs(ms, 750);
    for (const m of [at, sec, ms]) {
      const r = await producer.send(m);
      console.log(r.sendStatus, r.msgId, m.body.toString());
    }
  } finally {
    await producer.shutdown();
  }
}

run(() => withCluster(main));
