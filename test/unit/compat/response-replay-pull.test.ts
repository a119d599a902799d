/**
 * Response replay of the pull path: our push consumer gets the PULL_MESSAGE, LOCK_BATCH_MQ and HEART_BEAT answers
 * the Java 4.9.8 (04-orderly-retry-rebalance) and 5.3.3 (10-java5-broker) brokers gave, and must take the step the
 * Java 4.9.8 consumer took next in the capture (DefaultMQPushConsumerImpl.pullMessage's PullCallback):
 * - PULL_NOT_FOUND (19) after long polling and PULL_RETRY_IMMEDIATELY (20): pull again at once from
 *   nextBeginOffset, the offset store corrected to it (correctTagsOffset), so the next pull commits it (sysFlag 3);
 * - SUBSCRIPTION_NOT_LATEST (25): an exception for the client; the same offset is pulled again after
 *   PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION (3 s);
 * - LOCK_BATCH_MQ answered for one queue only: an orderly consumer pulls the locked queue and never the other;
 * - a 5.x broker's heartbeat answer (IS_SUPPORT_HEART_BEAT_V2, IS_SUB_CHANGE): like the 4.9.8 client, ours keeps
 *   sending full HEART_BEAT (34) bodies.
 * PULL_OFFSET_MOVED (21) was not captured in any scenario (no test here).
 */
import { expect } from 'chai';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { DefaultMQPushConsumer } from '../../../lib/consumer/push-consumer';
import { ConsumeConcurrentlyStatus, ConsumeOrderlyStatus } from '../../../lib/consumer/listener';
import { waitFor } from '../transport/helpers';
import { golden, javaExchanges, javaRequests, type ReplayCluster, replayAs, startReplayCluster } from './replay-cluster';

const S4 = '04-orderly-retry-rebalance';
const J5 = '10-java5-broker';

function json(cmd: RemotingCommand): Record<string, unknown> {
  return JSON.parse(cmd.body!.toString('utf8'));
}

describe('compat: our push consumer takes Java 4.9.8\'s next step after each captured pull-path answer', function () {
  // the first test waits out a 3 s back-off between bounded waits of 10 s and 8 s: room for a slow machine
  this.timeout(60_000);
  let cluster: ReplayCluster;
  const closers: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    await cluster.stop();
  });

  /** GET_CONSUMER_LIST_BY_GROUP (our client id in place of Java's), QUERY_CONSUMER_OFFSET 0, UPDATE_CONSUMER_OFFSET. */
  function answerGroup(scenario: string): void {
    const list = javaExchanges(scenario, RequestCode.GET_CONSUMER_LIST_BY_GROUP)[0].response;
    cluster.broker.on(RequestCode.GET_CONSUMER_LIST_BY_GROUP, (r) => {
      const hb = cluster.broker.of(RequestCode.HEART_BEAT).at(-1);
      const id = hb ? (json(hb).clientID as string) : 'none';
      // One consumer in the group: ours (the capture may list two).
      const ids = JSON.parse(list.body!.toString('utf8')) as { consumerIdList: string[] };
      expect(ids.consumerIdList.length).to.be.greaterThan(0);
      return replayAs(r, list, Buffer.from(JSON.stringify({ consumerIdList: [id] })));
    });
    const zero = javaExchanges(scenario, RequestCode.QUERY_CONSUMER_OFFSET).find((x) => x.response.code === ResponseCode.SUCCESS && x.response.extFields?.offset === '0');
    if (zero) cluster.broker.replay(RequestCode.QUERY_CONSUMER_OFFSET, zero.response);
    else cluster.broker.replay(RequestCode.QUERY_CONSUMER_OFFSET, javaExchanges(scenario, RequestCode.QUERY_CONSUMER_OFFSET)[0].response);
    cluster.broker.on(RequestCode.UPDATE_CONSUMER_OFFSET, (r) => RemotingCommand.createResponse(r, ResponseCode.SUCCESS));
  }

  async function consumer(group: string, topic: string, orderly = false, extra: Record<string, unknown> = {}): Promise<DefaultMQPushConsumer> {
    const c = new DefaultMQPushConsumer({ consumerGroup: group, namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: `pull-replay-${Math.random()}`, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', ...extra });
    c.subscribe(topic, '*');
    if (orderly) c.registerMessageListenerOrderly(() => ConsumeOrderlyStatus.SUCCESS);
    else c.registerMessageListener(() => ConsumeConcurrentlyStatus.CONSUME_SUCCESS);
    await c.start();
    closers.push(() => c.shutdown());
    return c;
  }

  function pullsOf(topic: string, queueId: number): Array<Record<string, string>> {
    return cluster.broker.of(RequestCode.PULL_MESSAGE).filter((r) => r.extFields!.topic === topic && r.extFields!.queueId === String(queueId)).map((r) => r.extFields!);
  }

  it('PULL_NOT_FOUND (19), PULL_RETRY_IMMEDIATELY (20), SUBSCRIPTION_NOT_LATEST (25): next offset, commit flag, back-off', async () => {
    cluster = await startReplayCluster(S4);
    cluster.route('CapTopic', S4);
    answerGroup(S4);
    // The captured answers: 19 "OFFSET_OVERFLOW_ONE" with nextBeginOffset 3, 20 "NO_MATCHED_MESSAGE" with 9, 25.
    const notFound = golden(S4, '20911-47072/0027-s2c-resp19.bin');
    const retryNow = golden(S4, '20911-58748/0011-s2c-resp20.bin');
    const notLatest = golden(S4, '20911-47072/0007-s2c-resp25.bin');
    expect([notFound.code, notFound.extFields!.nextBeginOffset, notFound.remark]).to.deep.equal([ResponseCode.PULL_NOT_FOUND, '3', 'OFFSET_OVERFLOW_ONE']);
    expect([retryNow.code, retryNow.extFields!.nextBeginOffset, retryNow.remark]).to.deep.equal([ResponseCode.PULL_RETRY_IMMEDIATELY, '9', 'NO_MATCHED_MESSAGE']);
    expect(notLatest.code).to.equal(ResponseCode.SUBSCRIPTION_NOT_LATEST);
    const at: Record<string, number[]> = {};
    cluster.broker.on(RequestCode.PULL_MESSAGE, (r) => {
      const e = r.extFields!;
      if (e.topic !== 'CapTopic') return null;
      (at[e.queueId] ??= []).push(Date.now());
      const first = at[e.queueId].length === 1;
      if (first && e.queueId === '1') return replayAs(r, notFound);
      if (first && e.queueId === '0') return replayAs(r, retryNow);
      if (first && e.queueId === '3') return replayAs(r, notLatest);
      return null; // held, as a long poll
    });
    await consumer('CG_TWO', 'CapTopic');
    await waitFor(() => pullsOf('CapTopic', 1).length === 2 && pullsOf('CapTopic', 0).length === 2, 10_000, 'the pulls after 19 and 20');
    // As Java's capture (20911-47072 0036, 20911-58748 0014): the next pull starts at nextBeginOffset and commits it.
    expect(pullsOf('CapTopic', 1)[1]).to.include({ queueOffset: '3', sysFlag: '3', commitOffset: '3' });
    expect(pullsOf('CapTopic', 0)[1]).to.include({ queueOffset: '9', sysFlag: '3', commitOffset: '9' });
    expect(pullsOf('CapTopic', 1)[0]).to.include({ queueOffset: '0', sysFlag: '2', commitOffset: '0' });
    // No back-off after 19 / 20 (Java: executePullRequestImmediately): a pull put off by the 3 s exception delay
    // would come at least 3 s after the first, whatever this machine's speed; this one comes sooner.
    expect(at['1'][1] - at['1'][0]).to.be.lessThan(3_000);
    // 25: the same pull again after the 3 s exception delay (Java: 20911-47072 0007 → 0021, queue 3 offset 0 again).
    await waitFor(() => pullsOf('CapTopic', 3).length === 2, 8_000, 'the pull again after SUBSCRIPTION_NOT_LATEST');
    expect(pullsOf('CapTopic', 3)[1]).to.include({ queueOffset: '0', sysFlag: '2', commitOffset: '0' });
    expect(at['3'][1] - at['3'][0]).to.be.at.least(2_900);
    // Queue 2 was held all along: pulled once.
    expect(pullsOf('CapTopic', 2)).to.have.length(1);
  });

  it('LOCK_BATCH_MQ answered with the captured lockOKMQSet (queue 0 only): only the locked queue is pulled', async () => {
    cluster = await startReplayCluster(S4);
    cluster.route('OrderTopic', S4);
    answerGroup(S4);
    const lock = javaExchanges(S4, RequestCode.LOCK_BATCH_MQ).find((x) => (json(x.response).lockOKMQSet as Array<{ queueId: number; topic: string }>)
      .some((q) => q.topic === 'OrderTopic' && q.queueId === 0))!;
    expect(json(lock.response)).to.deep.equal({ lockOKMQSet: [{ brokerName: 'broker-cap', queueId: 0, topic: 'OrderTopic' }] });
    cluster.broker.replay(RequestCode.LOCK_BATCH_MQ, lock.response);
    cluster.broker.on(RequestCode.UNLOCK_BATCH_MQ, (r) => RemotingCommand.createResponse(r, ResponseCode.SUCCESS));
    cluster.broker.on(RequestCode.PULL_MESSAGE, () => null);
    await consumer('CG_ORD', 'OrderTopic', true);
    await waitFor(() => pullsOf('OrderTopic', 0).length > 0, 10_000, 'a pull of the locked queue');
    // Both queues were asked for (Java locks each new queue of a rebalance alone: one-element mqSet).
    const asked = cluster.broker.of(RequestCode.LOCK_BATCH_MQ).map((r) => json(r) as { mqSet: Array<{ topic: string; queueId: number }> });
    expect(asked.some((b) => b.mqSet.length === 1 && b.mqSet[0].topic === 'OrderTopic' && b.mqSet[0].queueId === 1)).to.equal(true);
    expect(pullsOf('OrderTopic', 0)[0]).to.include({ queueOffset: '0', sysFlag: '2' });
    expect(pullsOf('OrderTopic', 1)).to.have.length(0);
  });

  it(`${J5}: heartbeat answers with IS_SUPPORT_HEART_BEAT_V2 / IS_SUB_CHANGE: full HEART_BEAT bodies go on, as the 4.9.8 client`, async () => {
    cluster = await startReplayCluster(J5);
    const hb = javaExchanges(J5, RequestCode.HEART_BEAT).find((x) => x.response.extFields?.IS_SUPPORT_HEART_BEAT_V2 === 'true')!;
    expect(hb.response.extFields).to.include({ IS_SUPPORT_HEART_BEAT_V2: 'true', IS_SUB_CHANGE: 'true' });
    cluster.broker.replay(RequestCode.HEART_BEAT, hb.response);
    cluster.route('Cap5Topic', J5);
    answerGroup(J5);
    cluster.broker.on(RequestCode.PULL_MESSAGE, () => null);
    await consumer('CG5', 'Cap5Topic', false, { heartbeatBrokerInterval: 300 });
    await waitFor(() => cluster.broker.of(RequestCode.HEART_BEAT).length >= 3, 8_000, 'three heartbeats');
    // What Java 4.9.8 kept sending to the 5.3.3 broker: code 34, the whole consumer data each time.
    const javaLater = javaRequests(J5, RequestCode.HEART_BEAT).filter((x) => (json(x.cmd).consumerDataSet as unknown[]).length > 0).at(-1)!.cmd;
    for (const ours of cluster.broker.of(RequestCode.HEART_BEAT)) {
      expect(ours.code).to.equal(javaLater.code);
      expect(Object.keys(json(ours)).sort()).to.deep.equal(Object.keys(json(javaLater)).sort());
      const sets = json(ours).consumerDataSet as Array<{ groupName: string; subscriptionDataSet: Array<{ topic: string }> }>;
      expect(sets.find((s) => s.groupName === 'CG5')!.subscriptionDataSet.map((s) => s.topic).sort()).to.deep.equal(['%RETRY%CG5', 'Cap5Topic']);
    }
    expect(pullsOf('Cap5Topic', 0).length + pullsOf('Cap5Topic', 1).length + pullsOf('Cap5Topic', 2).length + pullsOf('Cap5Topic', 3).length).to.be.greaterThan(0);
  });
});
