/**
 * GET_CONSUMER_LIST_BY_GROUP (38) response body: `{"consumerIdList":[...]}`.
 *
 * @see org.apache.rocketmq.common.protocol.header.GetConsumerListByGroupResponseBody
 */
import { parseBody, strArr } from './body-util';
import { encodeFastjson } from './fastjson';

export interface GetConsumerListByGroupResponseBody {
  consumerIdList: string[];
}

export function decodeGetConsumerListByGroupResponseBody(buf: Buffer): GetConsumerListByGroupResponseBody {
  return { consumerIdList: strArr(parseBody(buf, 'GetConsumerListByGroupResponseBody'), 'consumerIdList') };
}

export function encodeGetConsumerListByGroupResponseBody(b: GetConsumerListByGroupResponseBody): Buffer {
  return encodeFastjson({ consumerIdList: b.consumerIdList });
}
