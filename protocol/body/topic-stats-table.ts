/**
 * GET_TOPIC_STATS_INFO (202) response body: offsetTable HashMap<MessageQueue, TopicOffset>, queue beans as keys.
 *
 * @see org.apache.rocketmq.common.admin.TopicStatsTable
 * @see org.apache.rocketmq.common.admin.TopicOffset
 */
import type { MessageQueue } from '../message/message-queue';
import { type JsonObject, asObject, long, messageQueueBean, mqEntries, parseBody } from './body-util';
import { FastjsonMap, encodeFastjson } from './fastjson';

export interface TopicOffset {
  minOffset: number;
  maxOffset: number;
  lastUpdateTimestamp: number;
}

export interface TopicStatsTable {
  offsetTable: Array<[MessageQueue, TopicOffset]>;
}

export function decodeTopicStatsTable(buf: Buffer): TopicStatsTable {
  const o = parseBody(buf, 'TopicStatsTable');
  return {
    offsetTable: mqEntries(o, 'offsetTable', (v) => {
      const t = asObject(v, 'TopicOffset');
      return {
        minOffset: long(t, 'minOffset'),
        maxOffset: long(t, 'maxOffset'),
        lastUpdateTimestamp: long(t, 'lastUpdateTimestamp'),
      };
    }),
  };
}

export function encodeTopicStatsTable(s: TopicStatsTable): Buffer {
  const table = new FastjsonMap<JsonObject, JsonObject>(s.offsetTable.map(([mq, t]) => [
    messageQueueBean(mq),
    { lastUpdateTimestamp: t.lastUpdateTimestamp, maxOffset: t.maxOffset, minOffset: t.minOffset },
  ]));
  return encodeFastjson({ offsetTable: table });
}
