/**
 * DefaultLitePullConsumer against a fake client: the PULL_MESSAGE header it sends (lite-pull sysFlag, no commit
 * offset, 20 s suspend), the pull-thread limit, pause, and AssignedMessageQueue's bookkeeping. The fake's broker is
 * test/helpers/fake-broker.ts: it answers by request code, through the modules' header codecs.
 */
import { expect } from 'chai';
import type { PullMessageRequestHeader } from '../../../protocol/header/pull-message-request-header';
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { AssignedMessageQueue } from '../../../lib/consumer/assigned-message-queue';
import { DefaultLitePullConsumer, type LitePullConsumerClient } from '../../../lib/consumer/lite-pull-consumer';
import { PullSysFlag } from '../../../lib/consumer/pull-api-wrapper';
import { ResponseCode } from '../../../protocol/code/response-code';
import { GetMaxOffset, GetMinOffset, PullMessage, QueryConsumerOffset } from '../../../protocol/requests/index';
import type { OffsetStore } from '../../../lib/consumer/offset/offset-store';
import { waitFor } from '../../helpers/cluster';
import { FakeBroker } from '../../helpers/fake-broker';

const mq = (queueId: number): MessageQueue => ({ topic: 'T', brokerName: 'b', queueId });

function fakeClient(pulls: PullMessageRequestHeader[], state = { inFlight: 0, maxInFlight: 0 }): LitePullConsumerClient {
  const api = new FakeBroker()
    .on(PullMessage, async (header) => {
      pulls.push({ ...header });
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      await new Promise((r) => setTimeout(r, 20));
      state.inFlight--;
      return { code: ResponseCode.PULL_NOT_FOUND, header: { nextBeginOffset: header.queueOffset, minOffset: 0, maxOffset: 0, suggestWhichBrokerId: 0 } };
    })
    .on(QueryConsumerOffset, () => ({ header: { offset: 5 } }))
    .on(GetMaxOffset, () => ({ header: { offset: 9 } }))
    .on(GetMinOffset, () => ({ header: { offset: 0 } }));
  return {
    clientId: 'fake@1',
    api: api as unknown as LitePullConsumerClient['api'],
    findBrokerAddressInSubscribe: () => ({ brokerAddr: '127.0.0.1:1', slave: false, brokerVersion: 0 }),
    findBrokerAddressInPublish: () => '127.0.0.1:1',
    updateTopicRouteInfoFromNameServer: async () => false,
    findConsumerIdList: async () => ['fake@1'],
    registerConsumer: () => true,
    unregisterConsumer: async () => undefined,
    sendHeartbeatToAllBrokerWithLock: async () => undefined,
    rebalanceImmediately: () => undefined,
  } as unknown as LitePullConsumerClient;
}

function memoryStore(): OffsetStore {
  const m = new Map<number, number>();
  return {
    load: async () => undefined,
    updateOffset: (q, o) => { m.set(q.queueId, o); },
    readOffset: async (q) => m.get(q.queueId) ?? 5,
    persistAll: async () => undefined,
    persist: async () => undefined,
    removeOffset: (q) => { m.delete(q.queueId); },
    cloneOffsetTable: () => [],
    updateConsumeOffsetToBroker: async () => undefined,
  };
}

describe('lib/consumer/lite-pull-consumer', () => {
  it('pulls with the lite-pull sysFlag, no commit offset, a 20 s suspend and subVersion 0 for tags', async () => {
    const pulls: PullMessageRequestHeader[] = [];
    const c = new DefaultLitePullConsumer({ consumerGroup: 'G', client: fakeClient(pulls), offsetStore: memoryStore() });
    c.setSubExpressionForAssign('T', 'TagA || TagB');
    c.assign([mq(0)]);
    await c.start();
    try {
      await waitFor(() => pulls.length >= 2, 2000, 'two pulls');
      const h = pulls[0];
      expect(h.sysFlag).to.equal(PullSysFlag.FLAG_SUSPEND | PullSysFlag.FLAG_SUBSCRIPTION | PullSysFlag.FLAG_LITE_PULL_MESSAGE);
      expect(h.sysFlag).to.equal(0x16);
      expect(h).to.include({ consumerGroup: 'G', topic: 'T', queueId: 0, queueOffset: 5, maxMsgNums: 10, commitOffset: 0, suspendTimeoutMillis: 20000, subscription: 'TagA || TagB', subVersion: 0 });
    } finally {
      await c.shutdown();
    }
  });

  it('keeps at most pullThreadNums pulls in flight; a paused queue is not pulled', async () => {
    const pulls: PullMessageRequestHeader[] = [];
    const state = { inFlight: 0, maxInFlight: 0 };
    const c = new DefaultLitePullConsumer({ consumerGroup: 'G', pullThreadNums: 2, client: fakeClient(pulls, state), offsetStore: memoryStore() });
    c.assign([mq(0), mq(1), mq(2), mq(3)]);
    c.pause([mq(3)]);
    await c.start();
    try {
      await waitFor(() => new Set(pulls.map((p) => p.queueId)).size >= 3 && pulls.length > 12, 3000, 'pulls of three queues');
      expect(state.maxInFlight).to.equal(2);
      expect(pulls.some((p) => p.queueId === 3)).to.equal(false);
    } finally {
      await c.shutdown();
    }
  });

  it('refuses poll before start, and mixing subscribe with assign', async () => {
    const c = new DefaultLitePullConsumer({ consumerGroup: 'G' });
    let err: unknown;
    try {
      await c.poll(0);
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).to.match(/not running/);
    c.assign([mq(0)]);
    expect(() => c.subscribe('T')).to.throw(/mutually exclusive/);
  });

  it('AssignedMessageQueue: offsets, seek, pause, per-topic updates', () => {
    const a = new AssignedMessageQueue();
    a.updateAssignedMessageQueue(undefined, [mq(0), mq(1), { topic: 'U', brokerName: 'b', queueId: 0 }]);
    expect(a.messageQueues()).to.have.length(3);
    expect(a.getPullOffset(mq(0))).to.equal(-1);
    const pq = a.getProcessQueue(mq(0))!;
    a.updatePullOffset(mq(0), 7, pq);
    expect(a.getPullOffset(mq(0))).to.equal(7);
    a.updatePullOffset(mq(1), 7, pq); // another queue's ProcessQueue: ignored
    expect(a.getPullOffset(mq(1))).to.equal(-1);
    a.setSeekOffset(mq(0), 3);
    expect(a.getSeekOffset(mq(0))).to.equal(3);
    a.pause([mq(1)]);
    expect(a.isPaused(mq(1))).to.equal(true);
    expect(a.isPaused(mq(0))).to.equal(false);
    expect(a.isPaused(mq(9))).to.equal(true);
    a.resume([mq(1)]);
    expect(a.isPaused(mq(1))).to.equal(false);
    a.updateAssignedMessageQueue('T', [mq(1)]);
    expect(pq.dropped).to.equal(true);
    expect(a.messageQueues().map((q) => `${q.topic}${q.queueId}`).sort()).to.deep.equal(['T1', 'U0']);
    a.removeAssignedMessageQueue('U');
    expect(a.messageQueues()).to.have.length(1);
  });
});
