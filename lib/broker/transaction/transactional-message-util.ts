/**
 * Names the transaction machinery shares: the half and op topics, the remove tag and the internal consumer group
 * whose offsets record how far the check service has read both queues.
 *
 * @see org.apache.rocketmq.broker.transaction.queue.TransactionalMessageUtil
 * @see org.apache.rocketmq.common.topic.TopicValidator
 */
export const TransactionalMessageUtil = {
  /** Tag of an op message: the half message whose queue offset is the body has been committed or rolled back. */
  REMOVETAG: 'd',
  /** TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC: where prepared (half) messages wait, queue 0. */
  HALF_TOPIC: 'RMQ_SYS_TRANS_HALF_TOPIC',
  /** TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC: one op message per committed or rolled back half message. */
  OP_TOPIC: 'RMQ_SYS_TRANS_OP_HALF_TOPIC',
  /** TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC: half messages checked too many times end up here. */
  CHECK_MAX_TIME_TOPIC: 'TRANS_CHECK_MAX_TIME_TOPIC',
  /** MixAll.CID_SYS_RMQ_TRANS: the group whose consumer offsets track the half and op queues. */
  CONSUMER_GROUP: 'CID_RMQ_SYS_TRANS',
} as const;

export function buildHalfTopic(): string {
  return TransactionalMessageUtil.HALF_TOPIC;
}

export function buildOpTopic(): string {
  return TransactionalMessageUtil.OP_TOPIC;
}

export function buildConsumerGroup(): string {
  return TransactionalMessageUtil.CONSUMER_GROUP;
}

/** Java's Long.parseLong inside try/catch returning -1 (TransactionalMessageServiceImpl.getLong). */
export function parseLongOr(s: string | undefined, fallback = -1): number {
  if (s === undefined || !/^[+-]?\d+$/.test(s)) return fallback;
  const v = Number(s);
  return Number.isSafeInteger(v) ? v : fallback;
}

/** Java's Integer.parseInt inside try/catch returning -1 (TransactionalMessageServiceImpl.getInt). */
export function parseIntOr(s: string | undefined, fallback = -1): number {
  const v = parseLongOr(s, fallback);
  return v >= -2147483648 && v <= 2147483647 ? v : fallback;
}
