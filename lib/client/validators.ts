/**
 * Client-side checks of topics, groups and messages before anything is sent.
 * Codes as Java: -1 for a bad topic or group, MESSAGE_ILLEGAL (13) for a null, empty or oversize body.
 * Java appends a FAQ URL to these messages; we do not.
 *
 * @see org.apache.rocketmq.client.Validators
 */
import { MQClientError } from '../errors';
import { isNotAllowedSendTopic, isSystemTopic, isTopicOrGroupIllegal } from './mix-all';

/** ResponseCode.MESSAGE_ILLEGAL. */
const MESSAGE_ILLEGAL = 13;
/** MQClientException(String, Throwable) sets responseCode -1. */
const NO_CODE = -1;
const VALID_PATTERN = '^[%|a-zA-Z0-9_-]+$';

export const Validators = {
  CHARACTER_MAX_LENGTH: 255,
  TOPIC_MAX_LENGTH: 127,
} as const;

/** The parts of a message checkMessage looks at. */
export interface ValidatedMessage {
  topic: string;
  body?: Buffer | Uint8Array | string | null;
}

function isBlank(s: string | null | undefined): boolean {
  return s == null || s.trim().length === 0;
}

/** A group: not blank, at most 255 characters, only `[%|a-zA-Z0-9_-]`. */
export function checkGroup(group: string | null | undefined): void {
  if (group == null || isBlank(group)) throw new MQClientError(NO_CODE, 'the specified group is blank');
  if (group.length > Validators.CHARACTER_MAX_LENGTH) {
    throw new MQClientError(NO_CODE, 'the specified group is longer than group max length 255.');
  }
  if (isTopicOrGroupIllegal(group)) {
    throw new MQClientError(NO_CODE, `the specified group[${group}] contains illegal characters, allowing only ${VALID_PATTERN}`);
  }
}

/** A topic: not blank, at most 127 characters, only `[%|a-zA-Z0-9_-]`. */
export function checkTopic(topic: string | null | undefined): void {
  if (topic == null || isBlank(topic)) throw new MQClientError(NO_CODE, 'The specified topic is blank');
  if (topic.length > Validators.TOPIC_MAX_LENGTH) {
    throw new MQClientError(NO_CODE, `The specified topic is longer than topic max length ${Validators.TOPIC_MAX_LENGTH}.`);
  }
  if (isTopicOrGroupIllegal(topic)) {
    throw new MQClientError(NO_CODE, `The specified topic[${topic}] contains illegal characters, allowing only ${VALID_PATTERN}`);
  }
}

/** Refuses a system topic (TBW102, SCHEDULE_TOPIC_XXXX, rmq_sys_*...), as used when creating topics. */
export function checkNotSystemTopic(topic: string): void {
  if (isSystemTopic(topic)) throw new MQClientError(NO_CODE, `The topic[${topic}] is conflict with system topic.`);
}

/**
 * Refuses the topics no client may send to (SCHEDULE_TOPIC_XXXX, RMQ_SYS_TRANS_HALF_TOPIC, ...).
 * TBW102 is not among them in 4.9.8: Java lets a client send to it.
 */
export function checkNotAllowedSendTopic(topic: string): void {
  if (isNotAllowedSendTopic(topic)) throw new MQClientError(NO_CODE, `Sending message to topic[${topic}] is forbidden.`);
}

/** Validators.checkMessage: the topic, then a body that is present, non-empty and at most maxMessageSize bytes. */
export function checkMessage(msg: ValidatedMessage | null | undefined, maxMessageSize: number): void {
  if (msg == null) throw new MQClientError(MESSAGE_ILLEGAL, 'the message is null');
  checkTopic(msg.topic);
  checkNotAllowedSendTopic(msg.topic);
  if (msg.body == null) throw new MQClientError(MESSAGE_ILLEGAL, 'the message body is null');
  const length = typeof msg.body === 'string' ? Buffer.byteLength(msg.body, 'utf8') : msg.body.length;
  if (length === 0) throw new MQClientError(MESSAGE_ILLEGAL, 'the message body length is zero');
  if (length > maxMessageSize) {
    throw new MQClientError(MESSAGE_ILLEGAL, `the message body size over max value, MAX: ${maxMessageSize}`);
  }
}
