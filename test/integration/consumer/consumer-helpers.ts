/**
 * Shared pieces of the DefaultMQPushConsumer integration tests: a producer and an admin on a test cluster, topic
 * creation, a consumer factory that shuts everything down, and ownership checks over the group's members.
 */
import { expect } from 'chai';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { DefaultMQPushConsumer, type PushConsumerOptions } from '../../../lib/consumer/push-consumer';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { createMessage, type Message } from '../../../protocol/message/message';
import { messageQueueKey } from '../../../protocol/message/message-queue';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';
import type { StartClusterOptions } from '../../../lib/server';

export interface ConsumerEnv {
  tc: TestCluster;
  admin: DefaultMQAdminExt;
  producer: DefaultMQProducer;
  /** A consumer of the env (shut down by stop()); FIRST_OFFSET and a unique instanceName unless given. */
  consumer(group: string, extra?: Partial<PushConsumerOptions>): DefaultMQPushConsumer;
  createTopic(topic: string, queues: number): Promise<void>;
  /** Sends n messages, batches of up to 50 (or init.batch) spread over the queues by the producer, bodies `${prefix}${i}`. */
  sendMany(topic: string, n: number, prefix?: string, init?: { tags?: string; batch?: number }): Promise<void>;
  stop(): Promise<void>;
}

export async function consumerEnv(options: StartClusterOptions = {}): Promise<ConsumerEnv> {
  const tc = await getCluster(options);
  const admin = new DefaultMQAdminExt({ namesrvAddr: tc.namesrvAddr, instanceName: randomName('admin') });
  await admin.start();
  // a generous send budget: these sends feed the consumers and are not what is tested; a starved machine may take
  // seconds for one
  const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr: tc.namesrvAddr, instanceName: randomName('prod'), sendMsgTimeout: 30_000 });
  await producer.start();
  const consumers: DefaultMQPushConsumer[] = [];
  return {
    tc,
    admin,
    producer,
    consumer(group, extra = {}) {
      const c = new DefaultMQPushConsumer({
        consumerGroup: group, namesrvAddr: tc.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('i'), ...extra,
      });
      consumers.push(c);
      return c;
    },
    async createTopic(topic, queues) {
      await admin.createTopic('TBW102', topic, queues);
      await waitFor(async () => {
        try {
          return (await admin.examineTopicRouteInfo(topic)).queueDatas.length > 0;
        } catch {
          return false;
        }
      }, 10_000, `route of ${topic}`);
    },
    async sendMany(topic, n, prefix = 'm', init = {}) {
      const size = init.batch ?? 50;
      for (let i = 0; i < n; i += size) {
        const batch: Message[] = [];
        for (let j = i; j < Math.min(n, i + size); j++) batch.push(createMessage(topic, `${prefix}${j}`, { tags: init.tags ?? 'a', keys: [`${prefix}${j}`] }));
        await producer.send(batch);
      }
    },
    async stop() {
      await Promise.all(consumers.map((c) => c.shutdown()));
      await producer.shutdown();
      await admin.shutdown();
      await tc.stop();
    },
  };
}

/** The keys of the queues of `topic` each consumer owns. */
export function owned(consumers: DefaultMQPushConsumer[], topic: string): string[][] {
  return consumers.map((c) => c.processQueues().filter(([mq, pq]) => mq.topic === topic && !pq.dropped).map(([mq]) => messageQueueKey(mq)));
}

/** True when the consumers own `queues` queues of `topic` between them, each exactly once, every consumer some. */
export function isBalanced(consumers: DefaultMQPushConsumer[], topic: string, queues: number): boolean {
  const o = owned(consumers, topic);
  const all = o.flat();
  return all.length === queues && new Set(all).size === queues && o.every((l) => l.length >= Math.floor(queues / consumers.length));
}

export function expectAll(seen: Map<string, number>, prefix: string, n: number): { duplicates: number } {
  let duplicates = 0;
  const missing: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = seen.get(`${prefix}${i}`) ?? 0;
    if (c === 0) missing.push(`${prefix}${i}`);
    else duplicates += c - 1;
  }
  expect(missing.slice(0, 10), `${missing.length} missing`).to.deep.equal([]);
  return { duplicates };
}
