/**
 * GET_TIMER_METRICS (61)'s body and config/timermetrics: Java 5.3.3's TimerMetrics JSON. The expected text is what
 * Java 5.3.3's TimerMetrics.encode() (and its persist()) printed for the same table and data version.
 */
import { expect } from 'chai';
import { decodeTimerMetrics, encodeTimerMetrics } from '../../../../protocol/body/timer-metrics';
import { ProtocolError } from '../../../../lib/errors';

const JAVA_5_3_3 = '{"dataVersion":{"counter":3,"stateVersion":0,"timestamp":1700000000000},"timingCount":{"TopicA":{"count":2,"timeStamp":1700000000123}}}';

describe('protocol/body/timer-metrics', () => {
  it('encodes as Java 5.3.3 TimerMetrics.encode() does', () => {
    const body = encodeTimerMetrics({
      dataVersion: { counter: 3, timestamp: 1700000000000 },
      timingCount: new Map([['TopicA', { count: 2, timeStamp: 1700000000123 }]]),
    });
    expect(body.toString('utf8')).to.equal(JAVA_5_3_3);
  });

  it('decodes Java\'s JSON, an empty table, and refuses a body that is not JSON', () => {
    const w = decodeTimerMetrics(Buffer.from(JAVA_5_3_3));
    expect(w.dataVersion).to.deep.equal({ counter: 3, stateVersion: 0, timestamp: 1700000000000 });
    expect([...w.timingCount]).to.deep.equal([['TopicA', { count: 2, timeStamp: 1700000000123 }]]);
    expect(decodeTimerMetrics(Buffer.from('{"dataVersion":{"counter":0,"stateVersion":0,"timestamp":1},"timingCount":{}}')).timingCount.size).to.equal(0);
    expect(() => decodeTimerMetrics(Buffer.from('not json'))).to.throw(ProtocolError);
  });
});
