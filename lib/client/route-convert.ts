/**
 * Topic route → the queues a producer writes to and the queues a consumer reads from.
 *
 * @see org.apache.rocketmq.client.impl.factory.MQClientInstance#topicRouteData2TopicPublishInfo
 * @see org.apache.rocketmq.client.impl.factory.MQClientInstance#topicRouteData2TopicSubscribeInfo
 */
import { messageQueueKey, type MessageQueue } from '../../protocol/message/message-queue';
import { isReadable, isWriteable, masterAddr, type TopicRouteData } from './route-types';
import { TopicPublishInfo } from './topic-publish-info';
import type { ThreadLocalIndex } from './thread-local-index';

/**
 * The publish queues of a topic. With `orderTopicConf` ("brokerA:4;brokerB:2"), exactly those queues, in that
 * order, and `orderTopic` set. Otherwise, for every writable QueueData sorted by brokerName whose broker group is
 * in the route and has a master (id 0), queue ids 0 .. writeQueueNums-1.
 */
export function topicRouteData2TopicPublishInfo(topic: string, route: TopicRouteData, sendWhichQueue?: ThreadLocalIndex): TopicPublishInfo {
  const info = new TopicPublishInfo(sendWhichQueue);
  info.topicRouteData = route;
  if (route.orderTopicConf != null && route.orderTopicConf.length > 0) {
    for (const broker of javaSplit(route.orderTopicConf, ';')) {
      const item = javaSplit(broker, ':');
      const nums = parseJavaInt(item[1]);
      for (let i = 0; i < nums; i++) info.messageQueueList.push({ topic, brokerName: item[0], queueId: i });
    }
    info.orderTopic = true;
  } else {
    const qds = [...route.queueDatas].sort((a, b) => (a.brokerName === b.brokerName ? 0 : a.brokerName < b.brokerName ? -1 : 1));
    for (const qd of qds) {
      if (!isWriteable(qd.perm)) continue;
      const brokerData = route.brokerDatas.find((bd) => bd.brokerName === qd.brokerName);
      if (!brokerData || masterAddr(brokerData) === undefined) continue;
      for (let i = 0; i < qd.writeQueueNums; i++) info.messageQueueList.push({ topic, brokerName: qd.brokerName, queueId: i });
    }
    info.orderTopic = false;
  }
  return info;
}

/** The subscribe queues of a topic: for every readable QueueData, queue ids 0 .. readQueueNums-1, without duplicates. */
export function topicRouteData2TopicSubscribeInfo(topic: string, route: TopicRouteData): MessageQueue[] {
  const seen = new Map<string, MessageQueue>();
  for (const qd of route.queueDatas) {
    if (!isReadable(qd.perm)) continue;
    for (let i = 0; i < qd.readQueueNums; i++) {
      const mq = { topic, brokerName: qd.brokerName, queueId: i };
      const key = messageQueueKey(mq);
      if (!seen.has(key)) seen.set(key, mq);
    }
  }
  return [...seen.values()];
}

/** Integer.parseInt: a malformed number throws (as Java's NumberFormatException would). */
function parseJavaInt(s: string | undefined): number {
  if (s === undefined || !/^[+-]?\d+$/.test(s)) throw new RangeError(`For input string: "${s ?? 'null'}"`);
  const n = Number.parseInt(s, 10);
  if (n > 0x7fffffff || n < -0x80000000) throw new RangeError(`For input string: "${s}"`);
  return n;
}

/** String.split with a literal one-character separator: trailing empty strings are dropped. */
function javaSplit(s: string, sep: string): string[] {
  const parts = s.split(sep);
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 1 && parts[0] === '' && s.length > 0) return [];
  return parts;
}
