/**
 * VIEW_BROKER_STATS_DATA (315) response body: one stats item of the broker's BrokerStatsManager over the last minute,
 * hour and day. fastjson writes the fields in name order and the doubles in Java's spelling:
 * `{"statsDay":{"avgpt":0.0,"sum":0,"tps":0.0},"statsHour":{...},"statsMinute":{...}}`.
 *
 * @see org.apache.rocketmq.common.protocol.body.BrokerStatsData
 * @see org.apache.rocketmq.common.protocol.body.BrokerStatsItem
 */
import { asObject, double, long, parseBody } from './body-util';
import { encodeFastjson, javaDouble } from './fastjson';

export interface BrokerStatsItem {
  sum: number;
  tps: number;
  avgpt: number;
}

export interface BrokerStatsData {
  statsMinute: BrokerStatsItem;
  statsHour: BrokerStatsItem;
  statsDay: BrokerStatsItem;
}

function itemFromJson(v: unknown, what: string): BrokerStatsItem {
  const o = asObject(v, what);
  return { sum: long(o, 'sum'), tps: double(o, 'tps'), avgpt: double(o, 'avgpt') };
}

function itemToJson(i: BrokerStatsItem): Record<string, unknown> {
  return { avgpt: javaDouble(i.avgpt), sum: i.sum, tps: javaDouble(i.tps) };
}

export function decodeBrokerStatsData(buf: Buffer): BrokerStatsData {
  const o = parseBody(buf, 'BrokerStatsData');
  return {
    statsMinute: itemFromJson(o.statsMinute, 'statsMinute'),
    statsHour: itemFromJson(o.statsHour, 'statsHour'),
    statsDay: itemFromJson(o.statsDay, 'statsDay'),
  };
}

export function encodeBrokerStatsData(d: BrokerStatsData): Buffer {
  return encodeFastjson({ statsDay: itemToJson(d.statsDay), statsHour: itemToJson(d.statsHour), statsMinute: itemToJson(d.statsMinute) });
}
