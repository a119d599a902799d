import { expect } from 'chai';
import { BrokerHeartbeatManager } from '../../../lib/controller/broker-heartbeat-manager';
import { componentLogger } from '../../../lib/logger';
import type { Channel } from '../../../lib/transport/connection';
import { waitFor } from '../../helpers/wait-for';

function channel(id: number): Channel & { closed: boolean } {
  return { id, remoteAddress: `127.0.0.1:${id}`, localAddress: '127.0.0.1:1', isActive: true, closed: false, close() { this.closed = true; } };
}

describe('controller: BrokerHeartbeatManager (Java DefaultBrokerHeartbeatManager)', () => {
  let now: number;
  let m: BrokerHeartbeatManager;
  let inactive: Array<[string | null, string, number | null]>;

  beforeEach(() => {
    now = 1_000_000;
    m = new BrokerHeartbeatManager({ scanNotActiveBrokerInterval: 5000 }, componentLogger('test'), () => now);
    inactive = [];
    m.registerBrokerLifecycleListener((c, b, id) => inactive.push([c, b, id]));
  });

  const beat = (id: number, ch: Channel | null, extra: Record<string, number> = {}) =>
    m.onBrokerHeartbeat({ clusterName: 'c', brokerName: 'b', brokerAddr: `a${id}`, brokerId: id, ...extra }, ch);

  it('keeps a broker alive for its heartbeat timeout (10 s when absent), and the scan removes it after, closing its channel', async () => {
    const ch = channel(1);
    beat(1, ch, { heartbeatTimeoutMills: 3000 });
    beat(2, channel(2));
    now += 3000;
    expect(m.isBrokerActive('c', 'b', 1)).to.equal(true);
    now += 1;
    expect(m.isBrokerActive('c', 'b', 1)).to.equal(false);
    expect(m.isBrokerActive('c', 'b', 2)).to.equal(true);
    m.scanNotActiveBroker();
    expect(ch.closed).to.equal(true);
    expect(m.getBrokerLiveInfo('c', 'b', 1)).to.equal(null);
    await waitFor(() => inactive.length === 1, 1000, 'the inactive event');
    expect(inactive[0]).to.deep.equal(['c', 'b', 1]);
    now += 7000;
    expect(m.isBrokerActive('c', 'b', 2)).to.equal(false);
  });

  it('removes the broker whose connection closed at once, and only that one', async () => {
    const ch1 = channel(11);
    beat(1, ch1);
    beat(2, channel(12));
    m.onBrokerChannelClose(channel(99));
    m.onBrokerChannelClose(ch1);
    expect(m.isBrokerActive('c', 'b', 1)).to.equal(false);
    expect(m.isBrokerActive('c', 'b', 2)).to.equal(true);
    await waitFor(() => inactive.length === 1, 1000, 'the inactive event');
    expect(inactive[0]).to.deep.equal(['c', 'b', 1]);
  });

  it('never lets an older epoch or a smaller offset of the same epoch overwrite what it knows; priority always updates', () => {
    beat(1, null, { epoch: 2, maxOffset: 100, electionPriority: 5 });
    beat(1, null, { epoch: 1, maxOffset: 500, electionPriority: 3 });
    expect(m.getBrokerLiveInfo('c', 'b', 1)).to.deep.include({ epoch: 2, maxOffset: 100, electionPriority: 3 });
    beat(1, null, { epoch: 2, maxOffset: 50 });
    expect(m.getBrokerLiveInfo('c', 'b', 1)).to.deep.include({ epoch: 2, maxOffset: 100, electionPriority: 2147483647 });
    beat(1, null, { epoch: 3, maxOffset: 10, confirmOffset: 7 });
    expect(m.getBrokerLiveInfo('c', 'b', 1)).to.deep.include({ epoch: 3, maxOffset: 10, confirmOffset: 7 });
    expect([...m.activeBrokersNum()].map(([c, v]) => [c, [...v]])).to.deep.equal([['c', [['b', 1]]]]);
  });
});
