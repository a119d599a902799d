/**
 * The narrow port the gRPC endpoint takes instead of the whole BrokerController: configuration, the metadata it
 * reads (topics, subscription groups), the client managers its clients are registered in, and the processor table
 * its RPCs go through (send, POP, ack, change invisible time, send-back) exactly as a remoting request does, and
 * its ACL. Never the store.
 */
import type { BrokerConfig } from '../broker/broker-config';
import type { BrokerProcessor } from '../broker/processor/broker-processor';
import type { TopicConfigManager } from '../broker/topic/topic-config-manager';
import type { SubscriptionGroupManager } from '../broker/subscription/subscription-group-manager';
import type { ProducerManager } from '../broker/client-manager/producer-manager';
import type { ConsumerManager } from '../broker/client-manager/consumer-manager';
import type { PlainAccessValidator } from '../broker/acl/plain-access-validator';
import type { Logger } from '../logger';

export interface GrpcBrokerPort {
  readonly brokerConfig: Pick<BrokerConfig, 'brokerName' | 'brokerIP1' | 'brokerClusterName' | 'grpcServerPort' | 'autoCreateSubscriptionGroup'>;
  readonly logger: Logger;
  readonly topicConfigManager: Pick<TopicConfigManager, 'selectTopicConfig'>;
  readonly subscriptionGroupManager: Pick<SubscriptionGroupManager, 'findSubscriptionGroupConfig'>;
  readonly producerManager: Pick<ProducerManager, 'registerProducer' | 'unregisterProducer'>;
  readonly consumerManager: Pick<ConsumerManager, 'registerConsumer' | 'unregisterConsumer' | 'getConsumerGroupInfo' | 'findChannel'>;
  /** The processors by request code (what the remoting server dispatches to). */
  readonly processors: ReadonlyMap<number, BrokerProcessor>;
  /** The broker's ACL (aclEnable=true: its plain_acl.yml accounts), which gRPC requests pass as remoting ones do; else null. */
  readonly accessValidator: Pick<PlainAccessValidator, 'validate'> | null;
}

