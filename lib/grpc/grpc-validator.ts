/**
 * The request checks of Java's proxy: topic and group names, system topics and groups, invisible time bounds.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.common.GrpcValidator
 */
import { isSysConsumerGroup, isSystemTopic } from '../../protocol/mix-all';
import { GrpcProxyError } from '../errors';
import type { GrpcProxyConfig } from './grpc-proxy-config';
import type { PbResource } from './pb';

const VALID_NAME = /^[%|a-zA-Z0-9_-]+$/;
const TOPIC_MAX_LENGTH = 127;
const GROUP_MAX_LENGTH = 255;

/** Validators.checkTopic, then no system topic; ILLEGAL_TOPIC otherwise. */
export function validateTopic(topic: PbResource | null | undefined): string {
  const name = topic?.name ?? '';
  if (name.trim() === '') throw new GrpcProxyError('ILLEGAL_TOPIC', 'The specified topic is blank');
  if (name.length > TOPIC_MAX_LENGTH) throw new GrpcProxyError('ILLEGAL_TOPIC', `The specified topic is longer than topic max length ${TOPIC_MAX_LENGTH}.`);
  if (!VALID_NAME.test(name)) throw new GrpcProxyError('ILLEGAL_TOPIC', `The specified topic[${name}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`);
  if (isSystemTopic(name)) throw new GrpcProxyError('ILLEGAL_TOPIC', 'cannot access system topic');
  return name;
}

/** Validators.checkGroup, then no system group; ILLEGAL_CONSUMER_GROUP otherwise. */
export function validateConsumerGroup(group: PbResource | null | undefined): string {
  const name = group?.name ?? '';
  if (name.trim() === '') throw new GrpcProxyError('ILLEGAL_CONSUMER_GROUP', 'the specified group is blank');
  if (name.length > GROUP_MAX_LENGTH) throw new GrpcProxyError('ILLEGAL_CONSUMER_GROUP', 'the specified group is longer than group max length 255.');
  if (!VALID_NAME.test(name)) throw new GrpcProxyError('ILLEGAL_CONSUMER_GROUP', `the specified group[${name}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`);
  if (isSysConsumerGroup(name)) throw new GrpcProxyError('ILLEGAL_CONSUMER_GROUP', 'cannot use system consumer group');
  return name;
}

export function validateInvisibleTime(invisibleTime: number, config: GrpcProxyConfig, minInvisibleTime = 0): void {
  if (invisibleTime < minInvisibleTime) throw new GrpcProxyError('ILLEGAL_INVISIBLE_TIME', `the invisibleTime is too small. min is ${minInvisibleTime}`);
  if (config.maxInvisibleTimeMills > 0 && invisibleTime > config.maxInvisibleTimeMills) {
    throw new GrpcProxyError('ILLEGAL_INVISIBLE_TIME', `the invisibleTime is too large. max is ${config.maxInvisibleTimeMills}`);
  }
}
