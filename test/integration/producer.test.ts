/**
 * End to end against a real cluster: ROCKETMQ_NAMESRV_ADDR (a Java or our own name server + broker), or the
 * in-process cluster when lib/server exports startCluster. Skipped otherwise.
 */
import { expect } from 'chai';
import * as server from '../../lib/server';
import { DefaultMQProducer, SelectMessageQueueByHash, createMessage } from '../../lib/index';

type StartCluster = (options?: Record<string, unknown>) => Promise<{ namesrvAddr: string; stop(): Promise<void> }>;
const startCluster = (server as unknown as { startCluster?: StartCluster }).startCluster;

describe('integration: DefaultMQProducer end to end', function () {
  this.timeout(60_000);
  let namesrvAddr = process.env.ROCKETMQ_NAMESRV_ADDR;
  let stop: (() => Promise<void>) | undefined;

  before(async function () {
    if (!namesrvAddr && !startCluster) {
      this.skip(); // neither ROCKETMQ_NAMESRV_ADDR nor lib/server startCluster (the broker is not merged yet)
    }
    if (!namesrvAddr && startCluster) {
      const cluster = await startCluster({ brokers: 1 });
      namesrvAddr = cluster.namesrvAddr;
      stop = () => cluster.stop();
    }
  });

  after(async () => { await stop?.(); });

  it('sends in every mode to an auto-created topic', async () => {
    const topic = `IT_${Date.now()}`;
    const producer = new DefaultMQProducer({ producerGroup: `IT_PG_${process.pid}`, namesrvAddr });
    await producer.start();
    try {
      const r = await producer.send(createMessage(topic, 'sync', { tags: 'A', keys: 'k' }));
      expect(r.sendStatus).to.equal('SEND_OK');
      expect((await producer.sendAsync(createMessage(topic, 'async'))).sendStatus).to.equal('SEND_OK');
      await producer.sendOneway(createMessage(topic, 'oneway'));
      const batch = await producer.send([createMessage(topic, 'b1'), createMessage(topic, 'b2')]);
      expect(batch.msgId.split(',')).to.have.length(2);
      const big = await producer.send(createMessage(topic, Buffer.alloc(8192, 'z')));
      expect(big.sendStatus).to.equal('SEND_OK');
      const s = new SelectMessageQueueByHash();
      const o1 = await producer.send(createMessage(topic, 'o1'), s, 'order-1');
      const o2 = await producer.send(createMessage(topic, 'o2'), s, 'order-1');
      expect(o1.messageQueue).to.deep.equal(o2.messageQueue);
    } finally {
      await producer.shutdown();
    }
  });
});
