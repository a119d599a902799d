/**
 * A rebalance gives the subscription a new subVersion and heartbeats it; the broker refuses a pull whose subVersion
 * is newer than the one it holds (SUBSCRIPTION_NOT_LATEST) and the queue then waits 3 s. A Java broker processes
 * heartbeats and pulls on different thread pools, so a pull sent right behind the heartbeat can overtake it. Here the
 * in-process broker's heartbeat processor is made to behave that way: it holds every heartbeat that carries a new
 * subVersion until a pull arrived after it (or 300 ms passed). The consumer must not let a pull overtake.
 */
import { expect } from 'chai';
import { ConsumeConcurrentlyStatus } from '../../../lib/consumer/listener';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import type { RemotingCommand } from '../../../protocol/remoting-command';
import type { RemotingContext } from '../../../lib/transport/processor';
import { randomName, waitFor } from '../../helpers/cluster';
import { type ConsumerEnv, consumerEnv } from './consumer-helpers';

describe('consumer: pulls wait for the heartbeat that announces a new subscription version', function () {
  this.timeout(60_000);
  let env: ConsumerEnv;

  before(async function () {
    env = await consumerEnv();
    if (!env.tc.cluster) {
      await env.stop();
      this.skip();
    }
  });
  after(async () => {
    await env?.stop();
  });

  it('no pull is answered SUBSCRIPTION_NOT_LATEST while the broker is still processing that heartbeat', async () => {
    const topic = randomName('T');
    const group = randomName('G');
    await env.createTopic(topic, 4);
    await env.sendMany(topic, 400);
    const broker = env.tc.cluster!.brokers[0];
    const heartbeat = broker.processors.get(RequestCode.HEART_BEAT)!;
    const pull = broker.processors.get(RequestCode.PULL_MESSAGE)!;
    const known = new Map<string, number>(); // topic -> the newest subVersion the broker was sent
    let held = 0;
    let pullArrived: (() => void) | null = null;
    const codes: number[] = [];
    try {
      broker.remotingServer.registerProcessor(RequestCode.HEART_BEAT, async (r: RemotingCommand, ctx: RemotingContext) => {
        const body = JSON.parse(r.body!.toString()) as { consumerDataSet: Array<{ groupName: string; subscriptionDataSet: Array<{ topic: string; subVersion: number }> }> };
        const sd = body.consumerDataSet.find((c) => c.groupName === group)?.subscriptionDataSet.find((s) => s.topic === topic);
        if (sd && known.has(topic) && sd.subVersion > known.get(topic)!) {
          held++;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => { pullArrived = null; resolve(); }, 300);
            pullArrived = () => { clearTimeout(timer); pullArrived = null; setImmediate(resolve); };
          });
        }
        if (sd) known.set(topic, Math.max(sd.subVersion, known.get(topic) ?? 0));
        return heartbeat.processRequest(r, ctx);
      });
      broker.remotingServer.registerProcessor(RequestCode.PULL_MESSAGE, async (r: RemotingCommand, ctx: RemotingContext) => {
        const isOurs = r.extFields?.topic === topic;
        const response = await pull.processRequest(r, ctx);
        if (isOurs) {
          if (response) codes.push(response.code);
          pullArrived?.();
        }
        return response;
      });
      let n = 0;
      const c = env.consumer(group, { pullBatchSize: 1 });
      c.subscribe(topic, '*');
      c.registerMessageListener((msgs) => {
        n += msgs.length;
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      });
      await c.start();
      await waitFor(() => n >= 400, 30_000, '400 messages');
      expect(held, 'the rebalance announced a new subVersion').to.be.greaterThan(0);
      expect(codes.filter((code) => code === ResponseCode.SUBSCRIPTION_NOT_LATEST), 'pulls answered SUBSCRIPTION_NOT_LATEST').to.deep.equal([]);
      expect(codes.filter((code) => code === ResponseCode.SUCCESS).length).to.be.at.least(400);
      await c.shutdown();
    } finally {
      broker.remotingServer.registerProcessor(RequestCode.HEART_BEAT, (r, ctx) => heartbeat.processRequest(r, ctx));
      broker.remotingServer.registerProcessor(RequestCode.PULL_MESSAGE, (r, ctx) => pull.processRequest(r, ctx));
    }
  });
});
