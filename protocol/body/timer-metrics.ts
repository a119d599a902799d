/**
 * GET_TIMER_METRICS (61)'s answer and the broker's `config/timermetrics` file: the timer messages waiting in the
 * wheel per real topic, with a data version a slave compares before it copies them (Java's SlaveSynchronize).
 *
 *   {"dataVersion":{"counter":3,"stateVersion":0,"timestamp":1700000000000},
 *    "timingCount":{"TopicA":{"count":2,"timeStamp":1700000000000}}}
 *
 * @see org.apache.rocketmq.store.timer.TimerMetrics.TimerMetricsSerializeWrapper (5.3.3)
 */
import { type JsonObject, asObject, long, parseBody, stringMap } from './body-util';
import { type DataVersion, dataVersionFromJson, newDataVersion } from './data-version';
import { encodeFastjson } from './fastjson';

/** One topic's count (Java's TimerMetrics.Metric: an AtomicLong count and the time of its last change). */
export interface TimerMetric {
  count: number;
  timeStamp: number;
}

export interface TimerMetricsSerializeWrapper {
  timingCount: Map<string, TimerMetric>;
  dataVersion: DataVersion;
}

export function timerMetricsFromJson(o: JsonObject): TimerMetricsSerializeWrapper {
  return {
    timingCount: stringMap(o, 'timingCount', (v, key) => {
      const m = asObject(v, `timingCount.${key}`);
      return { count: long(m, 'count'), timeStamp: long(m, 'timeStamp') };
    }),
    dataVersion: o.dataVersion ? dataVersionFromJson(o.dataVersion) : newDataVersion(),
  };
}

export function timerMetricsToJson(w: TimerMetricsSerializeWrapper): JsonObject {
  const timingCount = new Map<string, JsonObject>();
  for (const [topic, m] of w.timingCount) timingCount.set(topic, { count: m.count, timeStamp: m.timeStamp });
  // a 5.x DataVersion always writes its stateVersion
  const v = w.dataVersion;
  return { dataVersion: { counter: v.counter, stateVersion: v.stateVersion ?? 0, timestamp: v.timestamp }, timingCount };
}

export function decodeTimerMetrics(buf: Buffer): TimerMetricsSerializeWrapper {
  return timerMetricsFromJson(parseBody(buf, 'TimerMetricsSerializeWrapper'));
}

/** Java's TimerMetrics.encode() (fastjson, fields in alphabetical order). */
export function encodeTimerMetrics(w: TimerMetricsSerializeWrapper): Buffer {
  return encodeFastjson(timerMetricsToJson(w));
}
