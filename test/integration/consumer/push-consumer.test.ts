import { expect } from 'chai';
import { getCluster, randomName, skipWhenExternal, waitFor, type TestCluster } from '../../helpers/cluster';
import { newClient, sendHeader, sendRequest } from '../broker/broker-helpers';
import type { RemotingClient } from '../../../lib/transport/remoting-client';
import { ResponseCode } from '../../../protocol/code/response-code';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { ConsumeConcurrentlyStatus, ConsumeOrderlyStatus } from '../../../lib/consumer/listener';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { encodeLockBatchRequestBody } from '../../../protocol/body/lock-batch';
import { MessageModel } from '../../../protocol/body/heartbeat-data';

describe('consumer: DefaultMQPushConsumer against the in-process cluster', function () {
  this.timeout(60000);
  let tc: TestCluster;
  let sender: RemotingClient;
  let brokerAddr: string;
  const consumers: DefaultMQPushConsumer[] = [];

  before(async () => {
    tc = await getCluster();
    brokerAddr = tc.cluster ? tc.cluster.brokers[0].brokerAddr : '';
    sender = newClient();
  });
  after(async () => {
    await Promise.all(consumers.map((c) => c.shutdown()));
    await sender.shutdown();
    await tc.stop();
  });

  async function send(topic: string, n: number, queues = 4, tags = 'a'): Promise<void> {
    for (let i = 0; i < n; i++) {
      const res = await sender.invoke(brokerAddr, sendRequest('V2', sendHeader(topic, { TAGS: tags, KEYS: `k${i}` }, i % queues, { defaultTopicQueueNums: queues }), Buffer.from(`m${i}`)), 5000);
      expect(res.code, res.remark ?? '').to.equal(ResponseCode.SUCCESS);
    }
  }

  function consumer(group: string, extra: Partial<ConstructorParameters<typeof DefaultMQPushConsumer>[0]> = {}): DefaultMQPushConsumer {
    const c = new DefaultMQPushConsumer({ consumerGroup: group, namesrvAddr: tc.namesrvAddr, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', instanceName: randomName('i'), ...extra });
    consumers.push(c);
    return c;
  }

  before(function () {
    skipWhenExternal(this, 'the tests read the in-process broker\'s queues and locks');
    if (!tc.cluster) this.skip();
  });

  it('consumes every message of a topic (concurrently) and commits the offsets', async () => {
    const topic = randomName('T');
    await send(topic, 40);
    const seen = new Set<string>();
    const c = consumer(randomName('G'));
    c.subscribe(topic, '*');
    c.registerMessageListener((msgs) => {
      for (const m of msgs) seen.add(m.body.toString());
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await c.start();
    await waitFor(() => seen.size === 40, 20000, '40 messages');
    await c.shutdown();
  });

  it('filters by tag on the broker and the client', async () => {
    const topic = randomName('T');
    await send(topic, 8, 4, 'a');
    await send(topic, 8, 4, 'b');
    const tags: string[] = [];
    const c = consumer(randomName('G'));
    c.subscribe(topic, 'b || c');
    c.registerMessageListener((msgs) => {
      for (const m of msgs) tags.push(m.properties.TAGS);
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    });
    await c.start();
    await waitFor(() => tags.length === 8, 20000, '8 tagged messages');
    expect(new Set(tags)).to.deep.equal(new Set(['b']));
    await c.shutdown();
  });

  it('orderly: one queue at a time, in offset order, SUSPEND retries the same message', async function () {
    const probe = await sender.invoke(brokerAddr, RemotingCommand.createRequest(RequestCode.LOCK_BATCH_MQ, null,
      encodeLockBatchRequestBody({ consumerGroup: 'probe', clientId: 'probe', mqSet: [] })), 5000);
    if (probe.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED) {
      // the in-process broker does not answer LOCK_BATCH_MQ (41) yet; orderly clustering needs broker locks
      this.skip();
    }
    const topic = randomName('T');
    await send(topic, 20, 2);
    const byQueue = new Map<number, number[]>();
    let suspended = false;
    const c = consumer(randomName('G'), { suspendCurrentQueueTimeMillis: 100 });
    c.subscribe(topic, '*');
    c.registerMessageListenerOrderly((msgs) => {
      const m = msgs[0];
      if (!suspended && m.queueOffset === 3) {
        suspended = true;
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
      }
      const l = byQueue.get(m.queueId) ?? [];
      l.push(m.queueOffset);
      byQueue.set(m.queueId, l);
      return ConsumeOrderlyStatus.SUCCESS;
    });
    await c.start();
    await waitFor(() => [...byQueue.values()].reduce((n, l) => n + l.length, 0) === 20, 20000, '20 orderly messages');
    for (const l of byQueue.values()) expect(l).to.deep.equal([...l].sort((a, b) => a - b)).and.to.have.length(10);
    expect(suspended).to.equal(true);
    await c.shutdown();
  });

  it('async iterator with ack, ended by an AbortSignal', async () => {
    const topic = randomName('T');
    await send(topic, 10);
    const c = consumer(randomName('G'), { messageModel: MessageModel.CLUSTERING });
    c.subscribe(topic, '*');
    const ac = new AbortController();
    const it = c.messages({ signal: ac.signal });
    await c.start();
    const got: string[] = [];
    for await (const m of it) {
      got.push(m.body.toString());
      m.ack();
      if (got.length === 10) ac.abort();
    }
    expect(new Set(got).size).to.equal(10);
    await c.shutdown();
  });
});
