/**
 * The broker: controller, configuration, managers and the in-process cluster helper.
 */
export { BrokerController, type BrokerControllerOptions } from './broker-controller';
export {
  type BrokerConfig, DEFAULT_BROKER_CONFIG, type LoadedBrokerConf, applyBrokerProperties, loadBrokerConf, resolveBrokerConfig,
} from './broker-config';
export type { BrokerProcessor } from './processor/broker-processor';
export type { BrokerService, ScheduleMessageServiceHook } from './broker-hooks';
export { TopicConfigManager } from './topic/topic-config-manager';
export { SubscriptionGroupManager } from './subscription/subscription-group-manager';
export { ConsumerOffsetManager } from './offset/consumer-offset-manager';
export { ProducerManager } from './client-manager/producer-manager';
export { ConsumerManager } from './client-manager/consumer-manager';
export { Broker2Client } from './client-manager/broker2-client';
export { PullRequestHoldService } from './longpolling/pull-request-hold-service';
export { BrokerOuterAPI } from './out/broker-outer-api';
export { SlaveSynchronize } from './slave/slave-synchronize';
export { BrokerReplication } from './slave/broker-replication';
export { PlainAccessValidator } from './acl/plain-access-validator';
export { PlainPermissionManager, type AclConfig } from './acl/plain-permission-manager';
export type { PlainAccessConfig } from './acl/plain-access-resource';
export { AclConfigProcessor } from './acl/acl-config-processor';
