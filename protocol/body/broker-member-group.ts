/**
 * BrokerMemberGroup: a broker set's members, broker id to address. fastjson writes the Long keys unquoted:
 * `{"brokerAddrs":{1:"127.0.0.1:30911",2:"127.0.0.1:30921"},"brokerName":"b","cluster":"c"}`.
 *
 * @see org.apache.rocketmq.remoting.protocol.body.BrokerMemberGroup
 */
import { type JsonObject, asString, numberMap, reqStr } from './body-util';

export interface BrokerMemberGroup {
  cluster: string;
  brokerName: string;
  brokerAddrs: Map<number, string>;
}

export function brokerMemberGroupFromJson(o: JsonObject): BrokerMemberGroup {
  return {
    cluster: reqStr(o, 'cluster'),
    brokerName: reqStr(o, 'brokerName'),
    brokerAddrs: numberMap(o, 'brokerAddrs', (v) => asString(v, 'brokerAddrs')),
  };
}

export function brokerMemberGroupToJson(g: BrokerMemberGroup): JsonObject {
  const addrs = new Map([...g.brokerAddrs].sort((a, b) => a[0] - b[0]));
  return { brokerAddrs: addrs, brokerName: g.brokerName, cluster: g.cluster };
}
