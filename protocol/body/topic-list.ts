/**
 * GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206) and other topic listings: `{"topicList":[...],"brokerAddr":..}`.
 *
 * @see org.apache.rocketmq.common.protocol.body.TopicList
 */
import { parseBody, str, strArr } from './body-util';
import { encodeFastjson } from './fastjson';

export interface TopicList {
  /** A Java Set<String>. */
  topicList: string[];
  brokerAddr?: string;
}

export function decodeTopicList(buf: Buffer): TopicList {
  const o = parseBody(buf, 'TopicList');
  const t: TopicList = { topicList: strArr(o, 'topicList') };
  const addr = str(o, 'brokerAddr');
  if (addr !== undefined) t.brokerAddr = addr;
  return t;
}

export function encodeTopicList(t: TopicList): Buffer {
  return encodeFastjson({ brokerAddr: t.brokerAddr, topicList: t.topicList });
}
