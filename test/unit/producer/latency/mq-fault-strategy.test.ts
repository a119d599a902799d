import { expect } from 'chai';
import { MQFaultStrategy, LatencyFaultToleranceImpl, DEFAULT_MQ_FAULT_STRATEGY } from '../../../../lib/producer/latency';
import { ThreadLocalIndex } from '../../../../lib/client/thread-local-index';
import { topicRouteData2TopicPublishInfo } from '../../../../lib/client/route-convert';
import type { RouteQueues as TopicRouteData } from '../../../../lib/client/route-types';

function route(): TopicRouteData {
  return {
    queueDatas: [
      { brokerName: 'broker-b', readQueueNums: 2, writeQueueNums: 2, perm: 6, topicSysFlag: 0 },
      { brokerName: 'broker-a', readQueueNums: 2, writeQueueNums: 2, perm: 6, topicSysFlag: 0 },
    ],
    brokerDatas: [
      { cluster: 'c', brokerName: 'broker-a', brokerAddrs: new Map([[0, '10.0.0.1:10911']]) },
      { cluster: 'c', brokerName: 'broker-b', brokerAddrs: new Map([[0, '10.0.0.2:10911'], [1, '10.0.0.3:10911']]) },
    ],
  };
}

describe('MQFaultStrategy', () => {
  it('has 4.9.8 tables and computes durations from them', () => {
    expect(DEFAULT_MQ_FAULT_STRATEGY.latencyMax).to.deep.equal([50, 100, 550, 1000, 2000, 3000, 15000]);
    expect(DEFAULT_MQ_FAULT_STRATEGY.notAvailableDuration).to.deep.equal([0, 0, 30000, 60000, 120000, 180000, 600000]);
    const s = new MQFaultStrategy();
    expect([0, 49, 50, 549, 550, 999, 1000, 2999, 3000, 15000, 99999].map((l) => s.computeNotAvailableDuration(l)))
      .to.deep.equal([0, 0, 0, 0, 30000, 30000, 60000, 120000, 180000, 600000, 600000]);
  });

  it('without fault tolerance: round robin, avoiding the last broker', () => {
    const info = topicRouteData2TopicPublishInfo('T', route(), new ThreadLocalIndex(0));
    const s = new MQFaultStrategy();
    // queues: a0 a1 b0 b1; counter starts at 0, first increment → 1
    expect(s.selectOneMessageQueue(info, null)).to.deep.equal({ topic: 'T', brokerName: 'broker-a', queueId: 1 });
    expect(s.selectOneMessageQueue(info, 'broker-b')).to.deep.equal({ topic: 'T', brokerName: 'broker-a', queueId: 0 });
    expect(s.selectOneMessageQueue(info, 'broker-a')).to.deep.equal({ topic: 'T', brokerName: 'broker-b', queueId: 0 });
    s.updateFaultItem('broker-a', 10_000, true); // disabled: no effect
    expect(s.latencyFaultTolerance.faultItemTable.size).to.equal(0);
  });

  it('skips a faulty broker until its notAvailableDuration passes (fake clock)', () => {
    let now = 1_000_000;
    const info = topicRouteData2TopicPublishInfo('T', route(), new ThreadLocalIndex(0));
    const s = new MQFaultStrategy({ sendLatencyFaultEnable: true }, { now: () => now, whichItemWorst: new ThreadLocalIndex(0) });
    s.updateFaultItem('broker-a', 600, false); // 550 ≤ 600 → 30 s
    expect(s.latencyFaultTolerance.isAvailable('broker-a')).to.equal(false);
    for (let i = 0; i < 8; i++) expect(s.selectOneMessageQueue(info, null).brokerName).to.equal('broker-b');
    now += 29_999;
    expect(s.selectOneMessageQueue(info, null).brokerName).to.equal('broker-b');
    now += 1;
    expect(s.latencyFaultTolerance.isAvailable('broker-a')).to.equal(true);
    const brokers = new Set(Array.from({ length: 4 }, () => s.selectOneMessageQueue(info, null).brokerName));
    expect([...brokers].sort()).to.deep.equal(['broker-a', 'broker-b']);
  });

  it('isolation counts as 30 s; with every broker isolated it picks one of the least bad', () => {
    const now = 5_000;
    const info = topicRouteData2TopicPublishInfo('T', route(), new ThreadLocalIndex(0));
    const s = new MQFaultStrategy({ sendLatencyFaultEnable: true }, { now: () => now, whichItemWorst: new ThreadLocalIndex(0) });
    s.updateFaultItem('broker-a', 100, true); // isolation → 30000 ≥ 15000 → 600 s
    s.updateFaultItem('broker-b', 1000, false); // 60 s
    expect(s.latencyFaultTolerance.faultItemTable.get('broker-a')!.startTimestamp).to.equal(now + 600_000);
    // Both unavailable: sorted by latency, a (100) before b (1000); half = 1 → index 0 → broker-a.
    const mq = s.selectOneMessageQueue(info, null);
    expect(mq.brokerName).to.equal('broker-a');
    expect(mq.queueId).to.be.within(0, 1);
  });

  it('pickOneAtLeast: none, the single one, and rotation over the better half', () => {
    const now = 0;
    const t = new LatencyFaultToleranceImpl({ now: () => now, whichItemWorst: new ThreadLocalIndex(0) });
    expect(t.pickOneAtLeast()).to.equal(null);
    t.updateFaultItem('x', 10, 1000);
    expect(t.pickOneAtLeast()).to.equal('x');
    t.updateFaultItem('y', 5, 1000);
    t.updateFaultItem('z', 1, 0); // available → first
    t.updateFaultItem('w', 20, 1000);
    // sorted: z (available), y, x, w; half = 2 → alternates z, y
    expect([t.pickOneAtLeast(), t.pickOneAtLeast(), t.pickOneAtLeast()]).to.deep.equal(['y', 'z', 'y']);
    t.remove('z');
    expect(t.isAvailable('z')).to.equal(true);
  });
});
