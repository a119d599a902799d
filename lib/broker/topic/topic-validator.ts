/**
 * Topic name rules as the broker applies them. The names and sets are Java's TopicValidator / MixAll
 * (protocol/mix-all.ts); the broker adds its own name and cluster topics as system topics at start.
 *
 * @see org.apache.rocketmq.common.topic.TopicValidator
 * @see org.apache.rocketmq.common.MixAll
 */
import { TopicValidator, isSystemTopic as isBuiltInSystemTopic } from '../../../protocol/mix-all';

export { MixAll, TopicValidator, getRetryTopic, getDLQTopic, isSysConsumerGroup, isNotAllowedSendTopic } from '../../../protocol/mix-all';

const brokerSystemTopics = new Set<string>();

/** Registers a topic as a system topic (the broker's name and cluster topics are added at start). */
export function addSystemTopic(topic: string): void {
  brokerSystemTopics.add(topic);
}

export function isSystemTopic(topic: string): boolean {
  return isBuiltInSystemTopic(topic) || brokerSystemTopics.has(topic);
}

const VALID_TOPIC = /^[%|a-zA-Z0-9_-]+$/;

/** Java TopicValidator.validateTopic as the broker applies it: null when valid, else the remark. */
export function validateTopic(topic: string | undefined): string | null {
  if (!topic || topic.trim() === '') return 'The specified topic is blank.';
  if (!VALID_TOPIC.test(topic)) return 'The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$';
  if (topic.length > TopicValidator.TOPIC_MAX_LENGTH) return 'The specified topic is longer than topic max length.';
  return null;
}
