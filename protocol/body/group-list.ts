/**
 * QUERY_TOPIC_CONSUME_BY_WHO (300) response body: `{"groupList":[...]}` (a Java HashSet).
 *
 * @see org.apache.rocketmq.common.protocol.body.GroupList
 */
import { parseBody, strArr } from './body-util';
import { encodeFastjson } from './fastjson';

export interface GroupList {
  groupList: string[];
}

export function decodeGroupList(buf: Buffer): GroupList {
  return { groupList: strArr(parseBody(buf, 'GroupList'), 'groupList') };
}

export function encodeGroupList(g: GroupList): Buffer {
  return encodeFastjson({ groupList: g.groupList });
}
