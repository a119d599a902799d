/**
 * GET_BROKER_CLUSTER_INFO (106) response body. The name server writes it with plain fastjson
 * (`clusterInfo.encode()`), so brokerAddrs keys are unquoted: `{"brokerAddrs":{0:"127.0.0.1:10911"}}`.
 *
 * @see org.apache.rocketmq.common.protocol.body.ClusterInfo
 */
import { type JsonObject, mapValues, parseBody, stringMap, strArr } from './body-util';
import { encodeFastjson } from './fastjson';
import { type BrokerData, brokerDataFromJson, brokerDataToJson } from './topic-route-data';

export interface ClusterInfo {
  /** brokerName to BrokerData. */
  brokerAddrTable: Map<string, BrokerData>;
  /** clusterName to broker names (a Java Set). */
  clusterAddrTable: Map<string, string[]>;
}

export function clusterInfoFromJson(o: JsonObject): ClusterInfo {
  return {
    brokerAddrTable: stringMap(o, 'brokerAddrTable', brokerDataFromJson),
    clusterAddrTable: stringMap(o, 'clusterAddrTable', (v, k) => strArr({ [k]: v }, k)),
  };
}

export function clusterInfoToJson(c: ClusterInfo): JsonObject {
  return {
    brokerAddrTable: mapValues(c.brokerAddrTable, brokerDataToJson),
    clusterAddrTable: c.clusterAddrTable,
  };
}

export function decodeClusterInfo(buf: Buffer): ClusterInfo {
  return clusterInfoFromJson(parseBody(buf, 'ClusterInfo'));
}

export function encodeClusterInfo(c: ClusterInfo): Buffer {
  return encodeFastjson(clusterInfoToJson(c));
}

/** Java's retrieveAllClusterNames. */
export function retrieveAllClusterNames(c: ClusterInfo): string[] {
  return [...c.clusterAddrTable.keys()];
}

/** Java's retrieveAllAddrByCluster: every broker address of a cluster. */
export function retrieveAllAddrByCluster(c: ClusterInfo, cluster: string): string[] {
  const out: string[] = [];
  for (const name of c.clusterAddrTable.get(cluster) ?? []) {
    const b = c.brokerAddrTable.get(name);
    if (b) out.push(...b.brokerAddrs.values());
  }
  return out;
}
