/**
 * System topic names and topic name rules as the broker applies them.
 *
 * @see org.apache.rocketmq.common.topic.TopicValidator
 * @see org.apache.rocketmq.common.MixAll
 */
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

export const MixAll = {
  RETRY_GROUP_TOPIC_PREFIX: '%RETRY%',
  DLQ_GROUP_TOPIC_PREFIX: '%DLQ%',
  REPLY_TOPIC_POSTFIX: 'REPLY_TOPIC',
  MASTER_ID: 0,
  TOOLS_CONSUMER_GROUP: 'TOOLS_CONSUMER',
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
} as const;

export function getRetryTopic(group: string): string {
  return MixAll.RETRY_GROUP_TOPIC_PREFIX + group;
}

export function getDLQTopic(group: string): string {
  return MixAll.DLQ_GROUP_TOPIC_PREFIX + group;
}

export function isSysConsumerGroup(group: string): boolean {
  return group.startsWith(MixAll.CID_RMQ_SYS_PREFIX);
}

const systemTopics = new Set<string>([
  TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, TopicValidator.RMQ_SYS_SCHEDULE_TOPIC, TopicValidator.RMQ_SYS_BENCHMARK_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC, TopicValidator.RMQ_SYS_TRACE_TOPIC, TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC, TopicValidator.RMQ_SYS_SELF_TEST_TOPIC, TopicValidator.RMQ_SYS_OFFSET_MOVED_EVENT,
]);
const notAllowedSendTopics = new Set<string>([
  TopicValidator.RMQ_SYS_SCHEDULE_TOPIC, TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC, TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC,
]);

/** Registers a topic as a system topic (the broker's name and cluster topics are added at start). */
export function addSystemTopic(topic: string): void {
  systemTopics.add(topic);
}

export function isSystemTopic(topic: string): boolean {
  return systemTopics.has(topic) || topic.startsWith(TopicValidator.SYSTEM_TOPIC_PREFIX);
}

export function isNotAllowedSendTopic(topic: string): boolean {
  return notAllowedSendTopics.has(topic);
}

const VALID_TOPIC = /^[%|a-zA-Z0-9_-]+$/;

/** Java TopicValidator.validateTopic as the broker applies it: null when valid, else the remark. */
export function validateTopic(topic: string | undefined): string | null {
  if (!topic || topic.trim() === '') return 'The specified topic is blank.';
  if (!VALID_TOPIC.test(topic)) return 'The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$';
  if (topic.length > TopicValidator.TOPIC_MAX_LENGTH) return 'The specified topic is longer than topic max length.';
  return null;
}
