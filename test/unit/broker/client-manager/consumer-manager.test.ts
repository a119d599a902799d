import { expect } from 'chai';
import pino from 'pino';
import { ConsumerManager, type ConsumerGroupEvent } from '../../../../lib/broker/client-manager/consumer-manager';
import { ConsumerGroupInfo } from '../../../../lib/broker/client-manager/consumer-group-info';
import { newClientChannelInfo } from '../../../../lib/broker/client-manager/client-channel-info';
import type { Channel } from '../../../../lib/transport/connection';

let ids = 0;
function channel(): Channel & { closed: boolean } {
  const id = ++ids;
  return { id, remoteAddress: `127.0.0.1:${id}`, localAddress: '127.0.0.1:10911', isActive: true, closed: false, close() { this.closed = true; } };
}

describe('ConsumerManager: a closed connection costs its own groups', () => {
  const events: Array<[ConsumerGroupEvent, string]> = [];
  let m: ConsumerManager;
  const register = (group: string, ch: Channel, clientId: string) =>
    m.registerConsumer(group, newClientChannelInfo(ch, clientId, 'JAVA', 1), 'CONSUME_PASSIVELY', 'CLUSTERING', 'CONSUME_FROM_LAST_OFFSET', [], true);

  beforeEach(() => {
    events.length = 0;
    m = new ConsumerManager(pino({ level: 'silent' }), (event, group) => { if (event !== 'REGISTER') events.push([event, group]); });
  });

  it('removes the channel from its groups only, each once, and reports the changes', () => {
    const a = channel();
    const b = channel();
    register('G1', a, 'a');
    register('G2', a, 'a');
    register('G2', b, 'b');
    events.length = 0;
    m.doChannelCloseEvent(a.remoteAddress, a);
    expect(m.consumerTable.has('G1')).to.equal(false);
    expect(m.getConsumerGroupInfo('G2')?.getAllClientId()).to.deep.equal(['b']);
    expect(events).to.have.deep.members([['UNREGISTER', 'G1'], ['CHANGE', 'G1'], ['CHANGE', 'G2']]);
    events.length = 0;
    m.doChannelCloseEvent(a.remoteAddress, a);
    expect(events).to.deep.equal([]);
  });

  it('looks at no other group: 2,000 groups, one closed channel, two groups visited', () => {
    for (let i = 0; i < 2000; i++) register(`G${i}`, channel(), `c${i}`);
    const x = channel();
    register('G7', x, 'x');
    register('G1999', x, 'x');
    let visited = 0;
    const original = ConsumerGroupInfo.prototype.doChannelCloseEvent;
    ConsumerGroupInfo.prototype.doChannelCloseEvent = function (this: ConsumerGroupInfo, ch: Channel) {
      visited++;
      return original.call(this, ch);
    };
    try {
      m.doChannelCloseEvent(x.remoteAddress, x);
    } finally {
      ConsumerGroupInfo.prototype.doChannelCloseEvent = original;
    }
    expect(visited).to.equal(2);
    expect(m.getConsumerGroupInfo('G7')?.getAllClientId()).to.deep.equal(['c7']);
  });

  it('an unregistered or expired channel leaves the index too', () => {
    const a = channel();
    register('G1', a, 'a');
    m.unregisterConsumer('G1', newClientChannelInfo(a, 'a', 'JAVA', 1), true);
    const b = channel();
    m.registerConsumer('G2', newClientChannelInfo(b, 'b', 'JAVA', 1, Date.now() - 10 * 60_000), 'CONSUME_PASSIVELY', 'CLUSTERING', 'CONSUME_FROM_LAST_OFFSET', [], true);
    m.scanNotActiveChannel();
    expect(b.closed).to.equal(true);
    expect(m.consumerTable.size).to.equal(0);
    events.length = 0;
    m.doChannelCloseEvent(a.remoteAddress, a);
    m.doChannelCloseEvent(b.remoteAddress, b);
    expect(events).to.deep.equal([]);
  });
});
