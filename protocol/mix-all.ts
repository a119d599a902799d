/**
 * Topic and group names and helpers shared by the client SDK.
 *
 * @see org.apache.rocketmq.common.MixAll
 * @see org.apache.rocketmq.common.topic.TopicValidator
 */

/** Names and prefixes of MixAll (4.9.8). */
export const MixAll = {
  NAMESRV_ADDR_ENV: 'NAMESRV_ADDR',
  NAMESRV_ADDR_PROPERTY: 'rocketmq.namesrv.addr',
  DEFAULT_NAMESRV_ADDR_LOOKUP: 'jmenv.tbsite.net',
  DEFAULT_PRODUCER_GROUP: 'DEFAULT_PRODUCER',
  DEFAULT_CONSUMER_GROUP: 'DEFAULT_CONSUMER',
  TOOLS_CONSUMER_GROUP: 'TOOLS_CONSUMER',
  SCHEDULE_CONSUMER_GROUP: 'SCHEDULE_CONSUMER',
  FILTERSRV_CONSUMER_GROUP: 'FILTERSRV_CONSUMER',
  MONITOR_CONSUMER_GROUP: '__MONITOR_CONSUMER',
  CLIENT_INNER_PRODUCER_GROUP: 'CLIENT_INNER_PRODUCER',
  SELF_TEST_PRODUCER_GROUP: 'SELF_TEST_P_GROUP',
  SELF_TEST_CONSUMER_GROUP: 'SELF_TEST_C_GROUP',
  ONS_HTTP_PROXY_GROUP: 'CID_ONS-HTTP-PROXY',
  CID_ONSAPI_PERMISSION_GROUP: 'CID_ONSAPI_PERMISSION',
  CID_ONSAPI_OWNER_GROUP: 'CID_ONSAPI_OWNER',
  CID_ONSAPI_PULL_GROUP: 'CID_ONSAPI_PULL',
  CID_RMQ_SYS_PREFIX: 'CID_RMQ_SYS_',
  CID_SYS_RMQ_TRANS: 'CID_RMQ_SYS_TRANS',
  /** The broker id of a master in BrokerData.brokerAddrs. */
  MASTER_ID: 0,
  RETRY_GROUP_TOPIC_PREFIX: '%RETRY%',
  DLQ_GROUP_TOPIC_PREFIX: '%DLQ%',
  REPLY_TOPIC_POSTFIX: 'REPLY_TOPIC',
  UNIQUE_MSG_QUERY_FLAG: '_UNIQUE_KEY_QUERY',
  DEFAULT_TRACE_REGION_ID: 'DefaultRegion',
  CONSUME_CONTEXT_TYPE: 'ConsumeContextType',
  REPLY_MESSAGE_FLAG: 'reply',
  LMQ_PREFIX: '%LMQ%',
  MULTI_DISPATCH_QUEUE_SPLITTER: ',',
  REQ_T: 'ReqT',
} as const;

/** `%RETRY%<group>`. */
export function getRetryTopic(consumerGroup: string): string {
  return MixAll.RETRY_GROUP_TOPIC_PREFIX + consumerGroup;
}

/** `%DLQ%<group>`. */
export function getDLQTopic(consumerGroup: string): string {
  return MixAll.DLQ_GROUP_TOPIC_PREFIX + consumerGroup;
}

/** `<cluster>_REPLY_TOPIC`. */
export function getReplyTopic(clusterName: string): string {
  return `${clusterName}_${MixAll.REPLY_TOPIC_POSTFIX}`;
}

/** A group whose name starts with `CID_RMQ_SYS_`. */
export function isSysConsumerGroup(consumerGroup: string): boolean {
  return consumerGroup.startsWith(MixAll.CID_RMQ_SYS_PREFIX);
}

export function isLmq(lmqMetaData: string | null | undefined): boolean {
  return lmqMetaData != null && lmqMetaData.startsWith(MixAll.LMQ_PREFIX);
}

/** The VIP channel of a broker listens on its port minus 2 (MixAll.brokerVIPChannel). */
export function brokerVIPChannel(isChange: boolean, brokerAddr: string): string {
  if (!isChange) return brokerAddr;
  const split = brokerAddr.lastIndexOf(':');
  return `${brokerAddr.substring(0, split)}:${Number.parseInt(brokerAddr.substring(split + 1), 10) - 2}`;
}

/** System topic names of TopicValidator (4.9.8). */
export const TopicValidator = {
  AUTO_CREATE_TOPIC_KEY_TOPIC: 'TBW102',
  RMQ_SYS_SCHEDULE_TOPIC: 'SCHEDULE_TOPIC_XXXX',
  RMQ_SYS_BENCHMARK_TOPIC: 'BenchmarkTest',
  RMQ_SYS_TRANS_HALF_TOPIC: 'RMQ_SYS_TRANS_HALF_TOPIC',
  RMQ_SYS_TRACE_TOPIC: 'RMQ_SYS_TRACE_TOPIC',
  RMQ_SYS_TRANS_OP_HALF_TOPIC: 'RMQ_SYS_TRANS_OP_HALF_TOPIC',
  RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC: 'TRANS_CHECK_MAX_TIME_TOPIC',
  RMQ_SYS_SELF_TEST_TOPIC: 'SELF_TEST_TOPIC',
  RMQ_SYS_OFFSET_MOVED_EVENT: 'OFFSET_MOVED_EVENT',
  SYSTEM_TOPIC_PREFIX: 'rmq_sys_',
  TOPIC_MAX_LENGTH: 127,
} as const;

const SYSTEM_TOPIC_SET: ReadonlySet<string> = new Set([
  TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC,
  TopicValidator.RMQ_SYS_SCHEDULE_TOPIC,
  TopicValidator.RMQ_SYS_BENCHMARK_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC,
  TopicValidator.RMQ_SYS_TRACE_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC,
  TopicValidator.RMQ_SYS_SELF_TEST_TOPIC,
  TopicValidator.RMQ_SYS_OFFSET_MOVED_EVENT,
]);

/** Topics a client may not send to. TBW102 and BenchmarkTest are system topics but not in this set (as Java). */
const NOT_ALLOWED_SEND_TOPIC_SET: ReadonlySet<string> = new Set([
  TopicValidator.RMQ_SYS_SCHEDULE_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC,
  TopicValidator.RMQ_SYS_SELF_TEST_TOPIC,
  TopicValidator.RMQ_SYS_OFFSET_MOVED_EVENT,
]);

/** TopicValidator.isSystemTopic: one of the system topics, or a name starting with `rmq_sys_`. */
export function isSystemTopic(topic: string): boolean {
  return SYSTEM_TOPIC_SET.has(topic) || topic.startsWith(TopicValidator.SYSTEM_TOPIC_PREFIX);
}

/** TopicValidator.isNotAllowedSendTopic. */
export function isNotAllowedSendTopic(topic: string): boolean {
  return NOT_ALLOWED_SEND_TOPIC_SET.has(topic);
}

/** The system topics (a copy). */
export function systemTopics(): string[] {
  return [...SYSTEM_TOPIC_SET];
}

/** TopicValidator.isTopicOrGroupIllegal: any character outside `[%|a-zA-Z0-9_-]`. */
export function isTopicOrGroupIllegal(str: string): boolean {
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i);
    const ok =
      (ch >= 0x30 && ch <= 0x39) || (ch >= 0x41 && ch <= 0x5a) || (ch >= 0x61 && ch <= 0x7a) ||
      ch === 0x25 /* % */ || ch === 0x2d /* - */ || ch === 0x5f /* _ */ || ch === 0x7c /* | */;
    if (!ok) return true;
  }
  return false;
}
