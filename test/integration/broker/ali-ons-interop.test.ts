/**
 * Interop: ali-ons (a third-party pure-JS RocketMQ client) produces to and consumes from our broker through our
 * name server.
 */
import { expect } from 'chai';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { getCluster, randomName, waitFor, type TestCluster } from '../../helpers/cluster';

// ali-ons ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ons = require('ali-ons') as {
  Producer: new (opts: Record<string, unknown>) => { ready(): Promise<void>; send(msg: unknown): Promise<{ sendStatus: string; msgId: string }>; close(): Promise<void> };
  Consumer: new (opts: Record<string, unknown>) => {
    ready(): Promise<void>;
    subscribe(topic: string, expr: string, handler: (msg: { body: Buffer; tags: string }) => Promise<void>): void;
    on(event: string, fn: (err: Error) => void): void;
    close(): Promise<void>;
  };
  Message: new (topic: string, tags: string, body: string) => unknown;
};

const httpclient = { request: async () => { throw new Error('no HTTP name-server lookup in tests'); } };

describe('interop: ali-ons against our broker and name server', function () {
  this.timeout(60000);
  let tc: TestCluster;

  before(async () => {
    tc = await getCluster();
  });
  after(async () => {
    await tc.stop();
  });

  it('produces and consumes', async () => {
    const topic = randomName('ONS');
    const common = { httpclient, nameSrv: tc.namesrvAddr, accessKeyId: 'ak', accessKeySecret: 'sk', persistent: false };
    // ali-ons does not fall back to TBW102 for an unknown topic: create it first, as an operator would
    const broker = tc.cluster!.brokers[0];
    broker.topicConfigManager.updateTopicConfig(newTopicConfig(topic, { readQueueNums: 4, writeQueueNums: 4 }));
    await broker.registerBrokerAll(true, false, true);
    const producer = new ons.Producer({ ...common, producerGroup: randomName('PID') });
    const sent: string[] = [];
    try {
      await producer.ready();
      for (let i = 0; i < 10; i++) {
        const r = await producer.send(new ons.Message(topic, 'TagA', `ons-${i}`));
        expect(r.sendStatus).to.equal('SEND_OK');
        sent.push(`ons-${i}`);
      }
    } catch (err) {
      await producer.close();
      throw err;
    }
    const consumer = new ons.Consumer({ ...common, consumerGroup: randomName('CID'), consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', rebalanceInterval: 1000 });
    const got = new Set<string>();
    const errors: Error[] = [];
    consumer.on('error', (err) => errors.push(err));
    consumer.subscribe(topic, '*', async (msg) => {
      got.add(msg.body.toString());
    });
    try {
      await consumer.ready();
      await waitFor(() => got.size === sent.length, 30000, 'ali-ons consumer to receive every message');
      expect([...got].sort()).to.deep.equal([...sent].sort());
    } finally {
      await consumer.close();
      await producer.close();
    }
  });
});
