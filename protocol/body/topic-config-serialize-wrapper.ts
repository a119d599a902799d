/**
 * A broker's topic table with its data version: the REGISTER_BROKER payload and config/topics.json.
 * 5.x adds mappingDataVersion, topicQueueMappingInfoMap and topicQueueMappingDetailMap (kept as parsed).
 *
 * @see org.apache.rocketmq.common.protocol.body.TopicConfigSerializeWrapper
 */
import { type JsonObject, mapValues, parseBody, stringMap } from './body-util';
import { type DataVersion, dataVersionFromJson, dataVersionToJson, newDataVersion } from './data-version';
import { encodeFastjson } from './fastjson';
import { type TopicConfig, topicConfigFromJson, topicConfigToJson } from './topic-config';

export interface TopicConfigSerializeWrapper {
  topicConfigTable: Map<string, TopicConfig>;
  dataVersion: DataVersion;
  /** 5.x only. */
  mappingDataVersion?: DataVersion;
  /** 5.x only, as parsed. */
  topicQueueMappingInfoMap?: unknown;
  /** 5.x only, as parsed. */
  topicQueueMappingDetailMap?: unknown;
}

export function topicConfigSerializeWrapperFromJson(o: JsonObject): TopicConfigSerializeWrapper {
  const w: TopicConfigSerializeWrapper = {
    topicConfigTable: stringMap(o, 'topicConfigTable', topicConfigFromJson),
    dataVersion: o.dataVersion ? dataVersionFromJson(o.dataVersion) : newDataVersion(),
  };
  if (o.mappingDataVersion) w.mappingDataVersion = dataVersionFromJson(o.mappingDataVersion);
  if (o.topicQueueMappingInfoMap !== undefined) w.topicQueueMappingInfoMap = o.topicQueueMappingInfoMap;
  if (o.topicQueueMappingDetailMap !== undefined) w.topicQueueMappingDetailMap = o.topicQueueMappingDetailMap;
  return w;
}

export function topicConfigSerializeWrapperToJson(w: TopicConfigSerializeWrapper): JsonObject {
  return {
    dataVersion: dataVersionToJson(w.dataVersion),
    mappingDataVersion: w.mappingDataVersion && dataVersionToJson(w.mappingDataVersion),
    topicConfigTable: mapValues(w.topicConfigTable, topicConfigToJson),
    topicQueueMappingDetailMap: w.topicQueueMappingDetailMap,
    topicQueueMappingInfoMap: w.topicQueueMappingInfoMap,
  };
}

export function decodeTopicConfigSerializeWrapper(buf: Buffer): TopicConfigSerializeWrapper {
  return topicConfigSerializeWrapperFromJson(parseBody(buf, 'TopicConfigSerializeWrapper'));
}

export function encodeTopicConfigSerializeWrapper(w: TopicConfigSerializeWrapper): Buffer {
  return encodeFastjson(topicConfigSerializeWrapperToJson(w));
}
