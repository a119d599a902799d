/**
 * FIFO consumption through the gRPC endpoint with rocketmq-client-nodejs: a FIFO topic (`+message.type=FIFO`), a
 * group with consumeMessageOrderly, several message groups. The endpoint pops orderly (ConsumerOrderInfoManager):
 * per message group the order holds across a failed attempt (the failed message comes again, its attempt counted,
 * before anything after it in its queue), and a message out of attempts goes to %DLQ%group and lets its queue go on.
 */
import { expect } from 'chai';
import { ConsumeResult, type Producer, PushConsumer, type MessageView } from 'rocketmq-client-nodejs';
import { DefaultMQAdminExt } from '../../../lib/index';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { decodeReceiptHandle } from '../../../protocol/grpc/receipt-handle';
import { randomName } from '../../helpers/cluster';
import { waitFor } from '../../helpers/wait-for';
import { clientLogger as logger, useGrpcCluster } from './grpc-client-fixture';

interface Delivery {
  body: string;
  messageId: string;
  attempt: number;
  queueId: number;
  /** The receive that brought it. */
  batch: number;
}

describe('gRPC endpoint: FIFO (orderly POP) with rocketmq-client-nodejs', function () {
  this.timeout(120_000);
  const g = useGrpcCluster();

  /** A FIFO topic of `queues` queues and an orderly group with retryMaxTimes (max attempts = retryMaxTimes + 1). */
  async function fifoTopicAndGroup(queues: number, retryMaxTimes: number, extra: Record<string, unknown> = {}): Promise<{ topic: string; group: string }> {
    const topic = randomName('GFIFO');
    const group = randomName('GFG');
    const admin = new DefaultMQAdminExt({ namesrvAddr: g.cluster.namesrvAddr, instanceName: randomName('adm') });
    await admin.start();
    try {
      const addr = g.cluster.brokers[0].brokerAddr;
      await admin.createAndUpdateTopicConfig(addr, newTopicConfig(topic, {
        readQueueNums: queues, writeQueueNums: queues, attributes: new Map([['+message.type', 'FIFO']]),
      }));
      await admin.createAndUpdateSubscriptionGroupConfig(addr, newSubscriptionGroupConfig(group, {
        retryMaxTimes, extra: { consumeMessageOrderly: true, ...extra },
      }));
      await waitFor(async () => (await admin.examineTopicRouteInfo(topic).catch(() => null))?.queueDatas.length === 1, 30_000, `route of ${topic}`);
    } finally {
      await admin.shutdown();
    }
    return { topic, group };
  }

  /** Sends `perGroup` messages "<messageGroup>-<seq>" to each message group, the groups interleaved. */
  async function sendGroups(p: Producer, topic: string, messageGroups: string[], perGroup: number): Promise<void> {
    for (let seq = 0; seq < perGroup; seq++) {
      for (const mg of messageGroups) await p.send({ topic, tag: 'f', messageGroup: mg, body: Buffer.from(`${mg}-${seq}`) });
    }
  }

  const seqOf = (body: string) => Number(body.split('-')[1]);
  const groupOf = (body: string) => body.split('-')[0];

  it('SimpleConsumer: a failed message comes again with its attempt counted, before anything after it in its queue; every group in order', async () => {
    const { topic, group } = await fifoTopicAndGroup(2, 16);
    const p = await g.producer(topic);
    const messageGroups = ['ga', 'gb', 'gc', 'gd'];
    await sendGroups(p, topic, messageGroups, 4);
    const c = await g.simpleConsumer(topic, group);
    const failing = 'ga-1';
    const deliveries: Delivery[] = [];
    const consumed = new Map<string, number[]>(messageGroups.map((mg) => [mg, []]));
    let failedQueue = -1;
    let total = 0;
    let batches = 0;
    let probed = false;
    /** Consumes a receive's messages; answers what was given back (the failure and what follows it in its queue). */
    const handle = async (batch: MessageView[]): Promise<MessageView[]> => {
      batches++;
      // A FIFO consumer: in each queue, stop at a failure; what follows it in that queue is given back too.
      const stopped = new Set<number>();
      const givenBack: MessageView[] = [];
      for (const m of batch) {
        const body = m.body.toString();
        const queueId = decodeReceiptHandle(m.receiptHandle).queueId;
        deliveries.push({ body, messageId: m.messageId, attempt: m.deliveryAttempt ?? 0, queueId, batch: batches });
        if (body === failing && m.deliveryAttempt === 1) {
          stopped.add(queueId);
          failedQueue = queueId;
        }
        if (stopped.has(queueId)) {
          givenBack.push(m);
          continue;
        }
        consumed.get(groupOf(body))!.push(seqOf(body));
        total++;
        await c.ack(m);
      }
      return givenBack;
    };
    await waitFor(async () => {
      const givenBack = await handle(await c.receive(32, 20_000));
      if (givenBack.length > 0 && !probed) {
        // While the failed batch is invisible (20 s), a receive gets nothing of its queue.
        probed = true;
        const during = await c.receive(32, 20_000);
        expect(during.filter((m) => decodeReceiptHandle(m.receiptHandle).queueId === failedQueue).map((m) => m.body.toString()),
          'deliveries of the blocked queue').to.deep.equal([]);
        givenBack.push(...await handle(during));
      }
      // Given back: visible again in 1 s.
      for (const m of givenBack) await c.changeInvisibleDuration(m, 1000);
      return total >= 16;
    }, 90_000, 'every message consumed');

    // Each message group consumed once, in order.
    for (const mg of messageGroups) expect(consumed.get(mg), mg).to.deep.equal([0, 1, 2, 3]);
    // Each delivery's attempt counts the deliveries of that message before it.
    const seen = new Map<string, number>();
    for (const d of deliveries) {
      const n = (seen.get(d.messageId) ?? 0) + 1;
      seen.set(d.messageId, n);
      expect(d.attempt, `${d.body}, delivery ${n}`).to.equal(n);
    }
    // The failed message: delivered twice; nothing of its queue delivered in between; the first delivery of its queue
    // after the failure is it.
    const failedAt = deliveries.findIndex((d) => d.body === failing);
    const againAt = deliveries.findIndex((d, i) => i > failedAt && d.body === failing);
    expect(failedAt).to.be.at.least(0);
    expect(againAt).to.be.above(failedAt);
    expect(deliveries[againAt].attempt).to.equal(2);
    const sameQueueAfterFailureBatch = deliveries.slice(failedAt + 1, againAt).filter((d) => d.queueId === failedQueue);
    // Only the rest of the failed batch (given back unconsumed), never a message popped after the failure.
    expect(sameQueueAfterFailureBatch.every((d) => d.batch === deliveries[failedAt].batch)).to.equal(true);
    const batchRest = sameQueueAfterFailureBatch.map((d) => d.body);
    const redelivered = deliveries.slice(againAt).filter((d) => d.queueId === failedQueue).map((d) => d.body);
    expect(redelivered.slice(0, batchRest.length + 1)).to.deep.equal([failing, ...batchRest]);
    // No checkpoint: orderly pops are kept in the order info only.
    expect(g.cluster.brokers[0].pop.checkPoints.inflight(topic, group, failedQueue)).to.equal(0);
  });

  it('SimpleConsumer: a message out of attempts goes to %DLQ%group, and its queue goes on', async () => {
    const { topic, group } = await fifoTopicAndGroup(1, 1);
    const p = await g.producer(topic);
    await sendGroups(p, topic, ['gx'], 2);
    const c = await g.simpleConsumer(topic, group);
    const dlq = () => g.cluster.brokers[0].messageStore.getMaxOffsetInQueue(`%DLQ%${group}`, 0);
    const attempts: number[] = [];
    for (;;) {
      const [m] = await c.receive(1, 20_000);
      if (!m) continue;
      expect(m.body.toString()).to.equal('gx-0');
      attempts.push(m.deliveryAttempt ?? 0);
      await c.changeInvisibleDuration(m, 1000);
      if (attempts.length === 2) break;
    }
    expect(attempts).to.deep.equal([1, 2]);
    // Its third pop finds it out of its 2 attempts: to the DLQ, and acked; gx-1 comes next, first attempt.
    let next: MessageView | undefined;
    await waitFor(async () => {
      [next] = await c.receive(1, 20_000);
      return next !== undefined;
    }, 60_000, 'gx-1');
    expect(next!.body.toString()).to.equal('gx-1');
    expect(next!.deliveryAttempt).to.equal(1);
    expect(dlq()).to.equal(1);
    await c.ack(next!);
  });

  it('PushConsumer: per message group in order; a failure retried before the group goes on; out of attempts to the DLQ', async () => {
    // rocketmq-client-nodejs 1.0.8 retries a FIFO message locally only under an exponential policy: under the
    // default (customized) one it knows no policy and sends a failed message to the DLQ at once.
    const { topic, group } = await fifoTopicAndGroup(2, 2, {
      groupRetryPolicy: { type: 'EXPONENTIAL', exponentialRetryPolicy: { initial: 1000, max: 2000, multiplier: 2 } },
    });
    const p = await g.producer(topic);
    const messageGroups = ['pa', 'pb', 'pc'];
    await sendGroups(p, topic, messageGroups, 4);
    const log = new Map<string, string[]>(messageGroups.map((mg) => [mg, []]));
    const consumer = new PushConsumer({
      endpoints: g.endpoints, namespace: '', consumerGroup: group, subscriptions: new Map([[topic, '*']]), logger,
      messageListener: {
        consume(m: MessageView) {
          const body = m.body.toString();
          const attempt = m.deliveryAttempt ?? 0;
          log.get(groupOf(body))!.push(`${seqOf(body)}#${attempt}`);
          if (body === 'pa-1' && attempt === 1) return ConsumeResult.FAILURE;
          if (body === 'pb-2') return ConsumeResult.FAILURE;
          return ConsumeResult.SUCCESS;
        },
      },
    });
    await consumer.startup();
    g.clients.push(consumer);
    const dlq = () => g.cluster.brokers[0].messageStore.getMaxOffsetInQueue(`%DLQ%${group}`, 0);
    await waitFor(() => messageGroups.every((mg) => log.get(mg)!.some((e) => e.startsWith('3#'))) && dlq() === 1, 90_000,
      'every group to its last message, and the DLQ message').catch((err: Error) => {
      throw new Error(`${err.message}; consumed: ${JSON.stringify(Object.fromEntries(log))}, DLQ: ${dlq()}`, { cause: err });
    });
    expect(log.get('pa')).to.deep.equal(['0#1', '1#1', '1#2', '2#1', '3#1']);
    // pb-2 fails its 3 attempts (retryMaxTimes 2), goes to the DLQ; pb-3 only after it.
    expect(log.get('pb')).to.deep.equal(['0#1', '1#1', '2#1', '2#2', '2#3', '3#1']);
    expect(log.get('pc')).to.deep.equal(['0#1', '1#1', '2#1', '3#1']);
    expect(dlq()).to.equal(1);
  });
});
