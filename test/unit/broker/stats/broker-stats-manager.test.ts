import { expect } from 'chai';
import { BrokerStatsManager, GROUP_GET_NUMS, TOPIC_PUT_NUMS } from '../../../../lib/broker/stats/broker-stats-manager';
import { Exposition, Histogram } from '../../../../lib/util/prometheus';
import { decodeBrokerStatsData, encodeBrokerStatsData } from '../../../../protocol/body/broker-stats-data';

describe('BrokerStatsManager (Java StatsItem windows)', () => {
  it('minute window: the last 7 samples of 10 s; sum, tps and avgpt as Java computes them', () => {
    let now = 1_000_000;
    const m = new BrokerStatsManager({ clusterName: 'C', now: () => now });
    m.incTopicPutNums('T', 4, 2);
    m.sampleNow(); // first sample: a zero snapshot 10 s back, then (now, times 2, value 4)
    expect(m.statsData(TOPIC_PUT_NUMS, 'T')!.statsMinute).to.deep.equal({ sum: 4, tps: 0.4, avgpt: 2 });
    for (let i = 0; i < 10; i++) {
      now += 10_000;
      m.incTopicPutNums('T', 10, 1);
      m.sampleNow();
    }
    // 7 samples kept: 6 intervals of 10 s, 10 messages each
    expect(m.statsData(TOPIC_PUT_NUMS, 'T')!.statsMinute).to.deep.equal({ sum: 60, tps: 1, avgpt: 10 });
    // the hour window took its first sample at tick 0 only (next at tick 60)
    expect(m.statsData(TOPIC_PUT_NUMS, 'T')!.statsHour.sum).to.equal(4);
    expect(m.statsData(TOPIC_PUT_NUMS, 'X')).to.equal(null);
  });

  it('keys group items topic@group, and keeps broker-wide items under the cluster name', () => {
    const m = new BrokerStatsManager({ clusterName: 'C' });
    m.incGroupGet('G', 'T', 3, 300);
    m.incBrokerPutNums(5);
    expect([...m.items(GROUP_GET_NUMS).keys()]).to.deep.equal(['T@G']);
    expect(m.brokerPut.value).to.equal(5);
    m.shutdown();
  });

  it('BrokerStatsData body: fastjson field order and Java doubles, both ways', () => {
    const body = encodeBrokerStatsData({ statsMinute: { sum: 60, tps: 1, avgpt: 10 }, statsHour: { sum: 0, tps: 0, avgpt: 0 }, statsDay: { sum: 4, tps: 0.5, avgpt: 2 } });
    expect(body.toString()).to.equal('{"statsDay":{"avgpt":2.0,"sum":4,"tps":0.5},"statsHour":{"avgpt":0.0,"sum":0,"tps":0.0},"statsMinute":{"avgpt":10.0,"sum":60,"tps":1.0}}');
    expect(decodeBrokerStatsData(body).statsMinute).to.deep.equal({ sum: 60, tps: 1, avgpt: 10 });
  });
});

describe('Prometheus exposition', () => {
  it('escapes label values, writes histograms cumulatively with +Inf, sum and count', () => {
    const h = new Histogram('x_seconds', 'X.', [0.1, 1]);
    h.observe(0.05);
    h.observe(0.5);
    h.observe(3);
    const text = new Exposition().gauge('g', 'A "g".', [[{ topic: 'a"b\\c\nd' }, 1.5]]).histogram(h, { broker: 'b' }).text();
    expect(text).to.equal([
      '# HELP g A "g".', '# TYPE g gauge', 'g{topic="a\\"b\\\\c\\nd"} 1.5',
      '# HELP x_seconds X.', '# TYPE x_seconds histogram',
      'x_seconds_bucket{broker="b",le="0.1"} 1', 'x_seconds_bucket{broker="b",le="1"} 2', 'x_seconds_bucket{broker="b",le="+Inf"} 3',
      'x_seconds_sum{broker="b"} 3.55', 'x_seconds_count{broker="b"} 3', '',
    ].join('\n'));
  });
});
