/**
 * QUERY_CONSUME_QUEUE (321) response body: the queue's min/max index, the entries read from `index`, and, when a
 * consumer group was given, its subscription and filter data.
 *
 * @see org.apache.rocketmq.common.protocol.body.QueryConsumeQueueResponseBody
 * @see org.apache.rocketmq.common.protocol.body.ConsumeQueueData
 */
import { asObject, long, parseBody, str } from './body-util';
import { encodeFastjson } from './fastjson';
import { type SubscriptionData, subscriptionDataFromJson, subscriptionDataToJson } from './heartbeat-data';

export interface ConsumeQueueData {
  physicOffset: number;
  physicSize: number;
  tagsCode: number;
  extendDataJson: string | null;
  bitMap: string | null;
  eval: boolean;
  msg: string | null;
}

export interface QueryConsumeQueueResponseBody {
  subscriptionData: SubscriptionData | null;
  filterData: string | null;
  queueData: ConsumeQueueData[] | null;
  maxQueueIndex: number;
  minQueueIndex: number;
}

/** ConsumeQueueData.toString. */
export function consumeQueueDataToString(d: ConsumeQueueData): string {
  return `ConsumeQueueData{physicOffset=${d.physicOffset}, physicSize=${d.physicSize}, tagsCode=${d.tagsCode}, `
    + `extendDataJson='${d.extendDataJson ?? 'null'}', bitMap='${d.bitMap ?? 'null'}', eval=${d.eval}, msg='${d.msg ?? 'null'}'}`;
}

export function encodeQueryConsumeQueueResponseBody(b: QueryConsumeQueueResponseBody): Buffer {
  return encodeFastjson({
    filterData: b.filterData ?? undefined,
    maxQueueIndex: b.maxQueueIndex,
    minQueueIndex: b.minQueueIndex,
    queueData: b.queueData?.map((d) => ({
      bitMap: d.bitMap ?? undefined, eval: d.eval, extendDataJson: d.extendDataJson ?? undefined, msg: d.msg ?? undefined,
      physicOffset: d.physicOffset, physicSize: d.physicSize, tagsCode: d.tagsCode,
    })),
    subscriptionData: b.subscriptionData ? subscriptionDataToJson(b.subscriptionData) : undefined,
  });
}

export function decodeQueryConsumeQueueResponseBody(buf: Buffer): QueryConsumeQueueResponseBody {
  const o = parseBody(buf, 'QueryConsumeQueueResponseBody');
  const list = Array.isArray(o.queueData) ? o.queueData : null;
  return {
    subscriptionData: o.subscriptionData ? subscriptionDataFromJson(o.subscriptionData) : null,
    filterData: str(o, 'filterData') ?? null,
    queueData: list ? list.map((x) => {
      const d = asObject(x, 'ConsumeQueueData');
      return {
        physicOffset: long(d, 'physicOffset'), physicSize: long(d, 'physicSize'), tagsCode: long(d, 'tagsCode'),
        extendDataJson: str(d, 'extendDataJson') ?? null, bitMap: str(d, 'bitMap') ?? null, eval: d.eval === true, msg: str(d, 'msg') ?? null,
      };
    }) : null,
    maxQueueIndex: long(o, 'maxQueueIndex'),
    minQueueIndex: long(o, 'minQueueIndex'),
  };
}
