/**
 * Receipt handles of rocketmq-client-nodejs's PushConsumer (it receives with auto_renew and never renews by
 * itself): the endpoint renews a message held past its invisible time, so it is not delivered twice and the ack of
 * the renewed handle ends it; a killed consumer (its process gone, no NotifyClientTermination) leaves its group at
 * once and the messages it held are given to the group again after 1 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { ConsumeResult, PushConsumer, SimpleConsumer, type MessageView } from 'rocketmq-client-nodejs';
import { registerLeftover } from '../../helpers/root-hooks';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';
import { createTopicAndWait } from '../pop/pop-scenario';
import { clientLogger, useGrpcCluster } from './grpc-client-fixture';

const logger = clientLogger;

describe('gRPC endpoint: receipt-handle renewal and a killed push consumer', function () {
  this.timeout(120_000);
  const g = useGrpcCluster();

  it('a message held past its invisible time is renewed: delivered once, and acked with the renewed handle', async () => {
    const topic = randomName('GRN');
    const group = randomName('GRNG');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 1);
    // Messages received with auto_renew get this invisible time; the renewal starts when less than 10 s are left.
    const saved = g.app.config.defaultInvisibleTimeMills;
    g.app.config.defaultInvisibleTimeMills = 12_000;
    try {
      const { messageId } = await (await g.producer(topic)).send({ topic, tag: 'r', body: Buffer.from('held') });
      const deliveries: number[] = [];
      let release: (r: ConsumeResult) => void = () => undefined;
      const consumer = new PushConsumer({
        endpoints: g.endpoints, namespace: '', consumerGroup: group, subscriptions: new Map([[topic, '*']]), logger,
        messageListener: {
          consume(m: MessageView) {
            deliveries.push(m.deliveryAttempt ?? 0);
            return new Promise<ConsumeResult>((resolve) => {
              release = resolve;
            });
          },
        },
      });
      await consumer.startup();
      g.clients.push(consumer);
      await waitFor(() => deliveries.length === 1, 60_000, 'the message at the push consumer');
      expect(g.app.receiptHandles.size).to.equal(1);
      const first = Date.now();
      // Held for longer than the 12 s it was made invisible for.
      await waitFor(() => Date.now() - first > 20_000, 30_000, 'the consumer holding the message for 20 s', 200);
      expect(deliveries).to.deep.equal([1]);
      expect(g.inflight(topic, group)).to.equal(1);
      release(ConsumeResult.SUCCESS);
      await waitFor(() => g.inflight(topic, group) === 0, 30_000, 'the ack of the renewed handle');
      expect(deliveries).to.deep.equal([1]);
      expect(g.app.receiptHandles.size).to.equal(0);
      expect(messageId).to.match(/^[0-9A-F]{34}$/);
    } finally {
      g.app.config.defaultInvisibleTimeMills = saved;
    }
  });

  it('a killed push consumer: out of its group at once, its held messages back to the group after 1 s (attempt 2)', async () => {
    const topic = randomName('GRK');
    const group = randomName('GRKG');
    await createTopicAndWait(g.cluster.namesrvAddr, topic, 1);
    const p = await g.producer(topic);
    const sent = new Set<string>();
    for (let i = 0; i < 3; i++) sent.add((await p.send({ topic, tag: 'k', body: Buffer.from(`k${i}`) })).messageId);
    const script = path.join(__dirname, '..', '..', 'helpers', 'grpc-push-consumer-child.js');
    const child: ChildProcess = spawn(process.execPath, [script, g.endpoints, group, topic], { stdio: ['ignore', 'pipe', 'inherit'] });
    const unregister = registerLeftover(async () => {
      child.kill('SIGKILL');
    });
    const held = new Set<string>();
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      for (const m of out.matchAll(/^got ([0-9A-F]+)$/gm)) held.add(m[1]);
    });
    try {
      await waitFor(() => held.size === 3, 60_000, 'the child consumer holding the 3 messages');
      expect(held).to.deep.equal(sent);
      await waitFor(() => g.app.receiptHandles.size === 3, 10_000, 'the 3 handles kept for renewal');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    } finally {
      unregister();
    }
    // The endpoint sees the connection go: the consumer leaves its group and its handles are given back.
    await waitFor(() => !g.cluster.brokers[0].consumerManager.getConsumerGroupInfo(group), 30_000, 'the killed consumer out of its group');
    await waitFor(() => g.app.receiptHandles.size === 0, 10_000, 'the handles cleared');
    const c = new SimpleConsumer({ endpoints: g.endpoints, namespace: '', consumerGroup: group, subscriptions: new Map([[topic, '*']]), awaitDuration: 5000, logger });
    await c.startup();
    g.clients.push(c);
    const got: MessageView[] = [];
    // Without the clearing they would stay invisible for the 60 s of auto_renew, renewed until the channel expired.
    await waitFor(async () => {
      got.push(...await c.receive(16, 20_000));
      return got.length >= 3;
    }, 30_000, 'the 3 messages back');
    expect(new Set(got.map((m) => m.messageId))).to.deep.equal(sent);
    for (const m of got) {
      expect(m.deliveryAttempt).to.equal(2);
      await c.ack(m);
    }
    expect(g.inflight(topic, group)).to.equal(0);
  });
});
