import { expect } from 'chai';
import pino from 'pino';
import { encodeReceiptHandle } from '../../../protocol/grpc/receipt-handle';
import { newSubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import { GrpcProxyError } from '../../../lib/errors';
import type { ActivityContext } from '../../../lib/grpc/activity-context';
import type { ConsumerProcessor } from '../../../lib/grpc/consumer-processor';
import type { GrpcClientChannel } from '../../../lib/grpc/grpc-client-channel';
import { DEFAULT_GRPC_PROXY_CONFIG } from '../../../lib/grpc/grpc-proxy-config';
import { ReceiptHandleManager, newMessageReceiptHandle, renewDelay } from '../../../lib/grpc/receipt-handle-manager';

const T0 = 1_700_000_000_000;

function handle(retrieveTime: number, invisibleTime: number, offset = 7): string {
  return encodeReceiptHandle({ startOffset: offset, retrieveTime, invisibleTime, reviveQueueId: 0, topicType: '0', brokerName: 'b', queueId: 0, offset, commitLogOffset: 100 });
}

interface Change { handle: string; invisibleTime: number }

function setup(online = true) {
  const changes: Change[] = [];
  let failWith: Error | null = null;
  let clock = T0;
  const consumer = {
    async changeInvisibleTime(h: { receiptHandle: string; offset: number }, _g: string, _t: string, invisibleTime: number) {
      changes.push({ handle: h.receiptHandle, invisibleTime });
      if (failWith) throw failWith;
      return handle(clock, invisibleTime, h.offset);
    },
  } as unknown as ConsumerProcessor;
  const state = { online };
  const a = {
    config: { ...DEFAULT_GRPC_PROXY_CONFIG },
    logger: pino({ level: 'silent' }),
    broker: {
      consumerManager: { findChannel: () => (state.online ? {} : undefined) },
      subscriptionGroupManager: { findSubscriptionGroupConfig: (g: string) => newSubscriptionGroupConfig(g) },
    },
  } as unknown as ActivityContext;
  const m = new ReceiptHandleManager(a, consumer);
  const channel = { clientId: 'c1' } as GrpcClientChannel;
  return {
    m, channel, changes, state,
    fail(err: Error | null) { failWith = err; },
    at(now: number) { clock = now; },
  };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('lib/grpc/receipt-handle-manager (DefaultReceiptHandleManager)', () => {
  it('renews a handle only when less than renewAheadTimeMillis is left, by RenewStrategyPolicy; a removal answers the newest handle', async () => {
    const s = setup();
    const original = handle(T0, 60_000);
    s.m.addReceiptHandle(s.channel, 'G', 'M1', newMessageReceiptHandle('G', 'T', 0, original, 'M1', 7, 0));
    s.m.scheduleRenewTask(T0 + 49_000);
    await settle();
    expect(s.changes).to.deep.equal([]);
    s.at(T0 + 50_000);
    s.m.scheduleRenewTask(T0 + 50_000);
    await settle();
    expect(s.changes).to.deep.equal([{ handle: original, invisibleTime: 60_000 }]);
    // The renewed handle (60 s from T0 + 50 s): due again 10 s before its end, with the next delay (3 min).
    s.at(T0 + 100_000);
    s.m.scheduleRenewTask(T0 + 100_000);
    await settle();
    expect(s.changes.map((c) => c.invisibleTime)).to.deep.equal([60_000, renewDelay(1)]);
    expect(renewDelay(1)).to.equal(180_000);
    expect(renewDelay(99)).to.equal(3_600_000);
    const kept = await s.m.removeReceiptHandle('c1', 'G', 'M1', original);
    expect(kept?.receiptHandleStr).to.equal(handle(T0 + 100_000, 180_000));
    expect(kept?.renewTimes).to.equal(2);
    expect(s.m.size).to.equal(0);
    expect(await s.m.removeReceiptHandle('c1', 'G', 'M1', original)).to.equal(undefined);
  });

  it('gives a handle up after maxRenewRetryTimes failures, at once on INVALID_RECEIPT_HANDLE', async () => {
    const s = setup();
    s.m.addReceiptHandle(s.channel, 'G', 'M1', newMessageReceiptHandle('G', 'T', 0, handle(T0, 1000, 1), 'M1', 1, 0));
    s.m.addReceiptHandle(s.channel, 'G', 'M2', newMessageReceiptHandle('G', 'T', 0, handle(T0, 1000, 2), 'M2', 2, 0));
    s.fail(new Error('broker busy'));
    for (let i = 0; i < 3; i++) {
      s.m.scheduleRenewTask(T0);
      await settle();
    }
    expect(s.m.size).to.equal(2);
    s.m.scheduleRenewTask(T0);
    await settle();
    expect(s.m.size).to.equal(0);
    s.m.addReceiptHandle(s.channel, 'G', 'M3', newMessageReceiptHandle('G', 'T', 0, handle(T0, 1000, 3), 'M3', 3, 0));
    s.fail(new GrpcProxyError('INVALID_RECEIPT_HANDLE', 'expired'));
    s.m.scheduleRenewTask(T0);
    await settle();
    expect(s.m.size).to.equal(0);
  });

  it('held past renewMaxTimeMillis: nacked with the group\'s retry delay and no longer renewed', async () => {
    const s = setup();
    s.m.addReceiptHandle(s.channel, 'G', 'M1', newMessageReceiptHandle('G', 'T', 0, handle(T0, 1000), 'M1', 7, 3));
    s.m.scheduleRenewTask(T0 + 3 * 3600_000);
    await settle();
    // CustomizedRetryPolicy.nextDelayDuration(3): next[5] = 2 min (a renewal would be 1 min).
    expect(s.changes.map((c) => c.invisibleTime)).to.deep.equal([120_000]);
    expect(s.m.size).to.equal(0);
  });

  it('a client gone from its group: its handles are made visible after invisibleTimeMillisWhenClear; shutdown clears the rest', async () => {
    const s = setup();
    s.m.addReceiptHandle(s.channel, 'G', 'M1', newMessageReceiptHandle('G', 'T', 0, handle(T0, 60_000, 1), 'M1', 1, 0));
    s.m.addReceiptHandle(s.channel, 'G', 'M2', newMessageReceiptHandle('G', 'T', 0, handle(T0, 60_000, 2), 'M2', 2, 0));
    s.state.online = false;
    s.m.scheduleRenewTask(T0);
    await settle();
    expect(s.changes.map((c) => c.invisibleTime)).to.deep.equal([1000, 1000]);
    expect(s.m.size).to.equal(0);
    s.state.online = true;
    s.m.addReceiptHandle({ clientId: 'c2' } as GrpcClientChannel, 'G', 'M3', newMessageReceiptHandle('G', 'T', 0, handle(T0, 60_000, 3), 'M3', 3, 0));
    await s.m.shutdown();
    expect(s.changes.map((c) => c.invisibleTime)).to.deep.equal([1000, 1000, 1000]);
    s.m.addReceiptHandle(s.channel, 'G', 'M4', newMessageReceiptHandle('G', 'T', 0, handle(T0, 60_000, 4), 'M4', 4, 0));
    expect(s.m.size).to.equal(0);
  });
});
