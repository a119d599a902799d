/**
 * The orderly POP scenario (a FIFO consumer: `SimpleConsumer({ order: true })`), run against our in-process broker
 * and against the Java 5.3.3 broker: per queue one batch in flight (the queue blocked until it is acknowledged, the
 * other queue going on), a changed invisible time bringing the unacknowledged rest back in order with the attempt
 * counted, and the answers' wire fields (reviveQid 999, orderCountInfo) compared to what Java's ExtraInfoUtil writes.
 */
import { expect } from 'chai';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { SimpleConsumer } from '../../../lib/consumer/simple-consumer';
import type { RPCHook } from '../../../lib/transport/processor';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { ConsumeInitMode } from '../../../protocol/header/pop-message-request-header';
import { createMessage, type MessageExt } from '../../../protocol/message/message';
import { MessageConst } from '../../../protocol/message/message-const';
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { randomName } from '../../helpers/cluster';
import { createTopicAndWait } from './pop-scenario';

/** Sends `body` to queue `queueId` of the topic. */
export function sendToQueue(producer: DefaultMQProducer, topic: string, queueId: number, body: string): Promise<unknown> {
  return producer.send(createMessage(topic, body, {}), {
    select: (mqs: readonly MessageQueue[]) => mqs.find((q) => q.queueId === queueId) ?? null,
  }, null);
}

export const bodies = (ms: readonly MessageExt[]): string[] => ms.map((m) => m.body.toString());
const reviveQidOf = (m: MessageExt): string => m.properties[MessageConst.PROPERTY_POP_CK].split(' ')[3];

/** Receives until something comes (each receive long-polls up to the consumer's awaitDuration). */
export async function receiveSome(c: SimpleConsumer, invisibleMs: number, timeoutMs: number, what: string): Promise<MessageExt[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await c.receive(32, invisibleMs);
    if (got.length > 0) return got;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}

export interface OrderlyScenarioReport {
  /** The extFields of each POP_MESSAGE answer that found messages, in order. */
  popAnswers: Record<string, string>[];
}

export async function runOrderlyPopScenario(namesrvAddr: string): Promise<OrderlyScenarioReport> {
  const topic = randomName('POPO');
  await createTopicAndWait(namesrvAddr, topic, 2);
  const popAnswers: Record<string, string>[] = [];
  const hook: RPCHook = {
    doBeforeRequest: () => undefined,
    doAfterResponse: (_addr, request, response) => {
      if (request.code === RequestCode.POP_MESSAGE && response?.code === ResponseCode.SUCCESS) popAnswers.push({ ...response.extFields });
    },
  };
  const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr, instanceName: randomName('p') });
  const consumer = new SimpleConsumer({
    consumerGroup: randomName('GFIFO'), namesrvAddr, instanceName: randomName('sc'), subscriptions: { [topic]: '*' },
    awaitDuration: 1000, initMode: ConsumeInitMode.MIN, order: true, rpcHook: hook,
  });
  try {
    await producer.start();
    for (const b of ['a0', 'a1', 'a2']) await sendToQueue(producer, topic, 0, b);
    for (const b of ['b0', 'b1']) await sendToQueue(producer, topic, 1, b);
    await consumer.start();

    // Both queues' batches, each in queue order, first deliveries.
    const first: MessageExt[] = [];
    while (first.length < 5) first.push(...await receiveSome(consumer, 60_000, 30_000, 'the first batches'));
    const q0 = first.filter((m) => m.queueId === 0);
    const q1 = first.filter((m) => m.queueId === 1);
    expect(bodies(q0)).to.deep.equal(['a0', 'a1', 'a2']);
    expect(bodies(q1)).to.deep.equal(['b0', 'b1']);
    for (const m of first) {
      expect(m.reconsumeTimes).to.equal(0);
      expect(reviveQidOf(m)).to.equal('999');
    }

    // Both batches in flight for a minute: nothing more.
    expect(await consumer.receive(32, 60_000)).to.deep.equal([]);

    // Queue 1's batch acked: its next message comes; queue 0 stays blocked.
    for (const m of q1) await consumer.ack(m);
    await sendToQueue(producer, topic, 1, 'b2');
    const b2 = await receiveSome(consumer, 60_000, 30_000, 'b2');
    expect(bodies(b2)).to.deep.equal(['b2']);
    await consumer.ack(b2[0]);

    // a0 acked, a1 and a2 failed (their invisible time cut to 1 s): both again, in order, the attempt counted.
    await consumer.ack(q0[0]);
    const popTime = q0[1].properties[MessageConst.PROPERTY_POP_CK].split(' ')[1];
    await consumer.changeInvisibleDuration(q0[1], 1000);
    await consumer.changeInvisibleDuration(q0[2], 1000);
    // The orderly change keeps the pop's time in the handle (the order info's key).
    expect(q0[1].properties[MessageConst.PROPERTY_POP_CK].split(' ')[1]).to.equal(popTime);
    const again = await receiveSome(consumer, 60_000, 30_000, 'a1 and a2 again');
    expect(bodies(again)).to.deep.equal(['a1', 'a2']);
    expect(again.map((m) => m.reconsumeTimes)).to.deep.equal([1, 1]);
    expect(again.map((m) => m.queueOffset)).to.deep.equal([1, 2]);
    for (const m of again) await consumer.ack(m);
    expect(await consumer.receive(32, 60_000)).to.deep.equal([]);

    // The answers: reviveQid 999 everywhere; the redelivery's orderCountInfo per message, then the queue's smallest.
    for (const a of popAnswers) expect(a.reviveQid).to.equal('999');
    expect(popAnswers.at(-1)!.orderCountInfo).to.equal('0 qo0%1 1;0 qo0%2 1;0 0 1');
    expect(popAnswers.at(-1)!.startOffsetInfo).to.equal('0 0 1');
    expect(popAnswers.at(-1)!.msgOffsetInfo).to.equal('0 0 1,2');
    // A first pop of a queue: only the queue's count, 0.
    expect(popAnswers[0].orderCountInfo).to.match(/^0 [01] 0(;0 [01] 0)?$/);
    return { popAnswers };
  } finally {
    await consumer.shutdown();
    await producer.shutdown();
  }
}
