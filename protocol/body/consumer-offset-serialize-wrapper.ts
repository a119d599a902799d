/**
 * GET_ALL_CONSUMER_OFFSET (43) response body and config/consumerOffset.json:
 * offsetTable `"topic@group"` to `{queueId: offset}` (ConcurrentMap<Integer, Long>, keys unquoted on the wire).
 *
 * @see org.apache.rocketmq.common.protocol.body.ConsumerOffsetSerializeWrapper
 */
import { asLong, numberMap, parseBody, stringMap } from './body-util';
import { encodeFastjson } from './fastjson';

export interface ConsumerOffsetSerializeWrapper {
  offsetTable: Map<string, Map<number, number>>;
}

export function decodeConsumerOffsetSerializeWrapper(buf: Buffer): ConsumerOffsetSerializeWrapper {
  const o = parseBody(buf, 'ConsumerOffsetSerializeWrapper');
  return {
    offsetTable: stringMap(o, 'offsetTable', (v, k) => numberMap({ [k]: v }, k, (x) => asLong(x, k))),
  };
}

export function encodeConsumerOffsetSerializeWrapper(w: ConsumerOffsetSerializeWrapper): Buffer {
  return encodeFastjson({ offsetTable: w.offsetTable });
}
