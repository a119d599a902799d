/**
 * Our push consumer against the real Java 4.9.8 broker (../shared/javaref): it drains a topic of 8 queues and no
 * pull is refused with SUBSCRIPTION_NOT_LATEST. The Java broker registers heartbeats and serves pulls on different
 * thread pools; a consumer that pulls with a new subVersion before the broker answered the heartbeat carrying it
 * gets code 25 and that queue waits 3 s (it cost a 100,000-message drain two thirds of its speed). The in-process
 * version of this check, deterministic, is test/integration/consumer/subscription-version.test.ts.
 */
import { expect } from 'chai';
import { DefaultMQAdminExt } from '../../../lib/admin/default-mq-admin-ext';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { PullAPIWrapper } from '../../../lib/consumer/pull-api-wrapper';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { MQBrokerError } from '../../../lib/errors';
import { DefaultMQProducer } from '../../../lib/producer/default-mq-producer';
import { ResponseCode } from '../../../protocol/code/response-code';
import { createMessage, type Message } from '../../../protocol/message/message';
import { randomName, waitFor } from '../../helpers/cluster';
import { useJavaCluster } from '../../helpers/javaref';

describe('compat: our push consumer draining the Java 4.9.8 broker', function () {
  this.timeout(240_000);
  const java = useJavaCluster('4.9.8');

  it('no pull is refused SUBSCRIPTION_NOT_LATEST after the rebalance, every message arrives', async () => {
    const namesrvAddr = java.ns.addr;
    const topic = randomName('T');
    const admin = new DefaultMQAdminExt({ namesrvAddr, instanceName: randomName('admin') });
    const producer = new DefaultMQProducer({ producerGroup: randomName('PG'), namesrvAddr, instanceName: randomName('prod') });
    const consumer = new DefaultMQPushConsumer({
      consumerGroup: randomName('G'), namesrvAddr, instanceName: randomName('cons'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    });
    const original = PullAPIWrapper.prototype.pullKernelImpl;
    const refused: number[] = [];
    try {
      await admin.start();
      await waitFor(async () => {
        try {
          await admin.createTopic('TBW102', topic, 8);
          return (await admin.examineTopicRouteInfo(topic)).queueDatas.length > 0;
        } catch {
          return false;
        }
      }, 60_000, `topic ${topic} on the Java broker`);
      await producer.start();
      const count = 4000;
      for (let i = 0; i < count; i += 50) {
        const batch: Message[] = [];
        for (let j = i; j < i + 50; j++) batch.push(createMessage(topic, `m${j}`, { tags: 'a' }));
        await producer.send(batch);
      }
      PullAPIWrapper.prototype.pullKernelImpl = async function recording(this: PullAPIWrapper, ...args: Parameters<typeof original>) {
        try {
          return await original.apply(this, args);
        } catch (err) {
          if (err instanceof MQBrokerError && args[0].mq.topic === topic) refused.push(err.responseCode);
          throw err;
        }
      };
      const seen = new Set<string>();
      consumer.subscribe(topic, '*');
      consumer.registerMessageListener((msgs) => {
        for (const m of msgs) seen.add(m.body.toString());
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      });
      await consumer.start();
      await waitFor(() => seen.size >= count, 120_000, `${count} messages`);
      expect(refused.filter((code) => code === ResponseCode.SUBSCRIPTION_NOT_LATEST), 'pulls refused SUBSCRIPTION_NOT_LATEST').to.deep.equal([]);
      expect(seen.size).to.equal(count);
    } finally {
      PullAPIWrapper.prototype.pullKernelImpl = original;
      await consumer.shutdown();
      await producer.shutdown();
      await admin.shutdown();
    }
  });
});
