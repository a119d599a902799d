/**
 * GET_ROUTEINFO_BY_TOPIC (105) response body.
 *
 * The name server writes it in one of two ways (DefaultRequestProcessor.getRouteInfoByTopic, 4.9.8):
 *   - request version >= V4_9_4 or header acceptStandardJsonOnly=true: BrowserCompatible + QuoteFieldNames +
 *     MapSortField, so brokerAddrs reads `{"0":"host:port"}` (what every 4.9.8 client gets);
 *   - older clients: plain fastjson, `{0:"host:port"}`.
 * `encodeTopicRouteData(v, { standardJson })` picks the form. 5.x adds `enableActingMaster` to BrokerData
 * and `topicQueueMappingByBroker` to the route (kept when present).
 *
 * @see org.apache.rocketmq.common.protocol.route.TopicRouteData
 * @see org.apache.rocketmq.common.protocol.route.BrokerData
 * @see org.apache.rocketmq.common.protocol.route.QueueData
 */
import {
  type JsonObject, asObject, bool, entries, int, numberMap, objArr, parseBody, reqStr, str, strArr,
} from './body-util';
import { encodeFastjson } from './fastjson';

export interface QueueData {
  brokerName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicSysFlag: number;
}

export interface BrokerData {
  cluster: string;
  brokerName: string;
  /** brokerId (0 = master) to address; a Java HashMap<Long, String>. */
  brokerAddrs: Map<number, string>;
  /** 5.x only. */
  enableActingMaster?: boolean;
}

export interface TopicRouteData {
  orderTopicConf?: string;
  queueDatas: QueueData[];
  brokerDatas: BrokerData[];
  /** broker address to filter server addresses. */
  filterServerTable: Map<string, string[]>;
  /** 5.x static topic mapping, kept as parsed. */
  topicQueueMappingByBroker?: unknown;
}

export const MASTER_ID = 0;

export function queueDataFromJson(v: unknown): QueueData {
  const o = asObject(v, 'QueueData');
  return {
    brokerName: reqStr(o, 'brokerName'),
    readQueueNums: int(o, 'readQueueNums'),
    writeQueueNums: int(o, 'writeQueueNums'),
    perm: int(o, 'perm'),
    topicSysFlag: int(o, 'topicSysFlag'),
  };
}

export function queueDataToJson(q: QueueData): JsonObject {
  return {
    brokerName: q.brokerName,
    perm: q.perm,
    readQueueNums: q.readQueueNums,
    topicSysFlag: q.topicSysFlag,
    writeQueueNums: q.writeQueueNums,
  };
}

export function brokerDataFromJson(v: unknown): BrokerData {
  const o = asObject(v, 'BrokerData');
  const b: BrokerData = {
    cluster: reqStr(o, 'cluster'),
    brokerName: reqStr(o, 'brokerName'),
    brokerAddrs: numberMap(o, 'brokerAddrs', (a) => String(a)),
  };
  if (o.enableActingMaster !== undefined) b.enableActingMaster = bool(o, 'enableActingMaster');
  return b;
}

export function brokerDataToJson(b: BrokerData): JsonObject {
  return {
    brokerAddrs: b.brokerAddrs,
    brokerName: b.brokerName,
    cluster: b.cluster,
    enableActingMaster: b.enableActingMaster,
  };
}

/** Java's BrokerData.selectBrokerAddr without the random pick: the master's address, else any. */
export function selectBrokerAddr(b: BrokerData): string | undefined {
  return b.brokerAddrs.get(MASTER_ID) ?? b.brokerAddrs.values().next().value;
}

export function topicRouteDataFromJson(o: JsonObject): TopicRouteData {
  const filterServerTable = new Map<string, string[]>();
  for (const [k, v] of entries(o, 'filterServerTable')) {
    filterServerTable.set(String(k), strArr({ v }, 'v'));
  }
  const r: TopicRouteData = {
    queueDatas: objArr(o, 'queueDatas', queueDataFromJson),
    brokerDatas: objArr(o, 'brokerDatas', brokerDataFromJson),
    filterServerTable,
  };
  const otc = str(o, 'orderTopicConf');
  if (otc !== undefined) r.orderTopicConf = otc;
  if (o.topicQueueMappingByBroker !== undefined) r.topicQueueMappingByBroker = o.topicQueueMappingByBroker;
  return r;
}

export function topicRouteDataToJson(r: TopicRouteData): JsonObject {
  return {
    brokerDatas: r.brokerDatas.map(brokerDataToJson),
    filterServerTable: r.filterServerTable,
    orderTopicConf: r.orderTopicConf,
    queueDatas: r.queueDatas.map(queueDataToJson),
    topicQueueMappingByBroker: r.topicQueueMappingByBroker,
  };
}

export function decodeTopicRouteData(buf: Buffer): TopicRouteData {
  return topicRouteDataFromJson(parseBody(buf, 'TopicRouteData'));
}

export interface TopicRouteEncodeOptions {
  /** The standard-JSON form (quoted keys): for request version >= V4_9_4 or acceptStandardJsonOnly. */
  standardJson?: boolean;
}

export function encodeTopicRouteData(r: TopicRouteData, options: TopicRouteEncodeOptions = {}): Buffer {
  const json = topicRouteDataToJson(r);
  return options.standardJson
    ? encodeFastjson(json, { browserCompatible: true, mapSortField: true })
    : encodeFastjson(json);
}
