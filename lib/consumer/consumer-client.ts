/**
 * What a consumer uses of the shared MQClientInstance and its MQClientAPI, as a structural subset: the consumers
 * take the real instance in production and a small fake in unit tests.
 *
 * @see org.apache.rocketmq.client.impl.factory.MQClientInstance
 * @see org.apache.rocketmq.client.impl.MQClientAPIImpl
 */
import type { MQClientAPI } from '../client/mq-client-api';
import type { MQClientInstance } from '../client/mq-client-instance';

export type ConsumerClientAPI = Pick<MQClientAPI,
  | 'pullMessage' | 'queryConsumerOffset' | 'updateConsumerOffset' | 'updateConsumerOffsetOneway'
  | 'consumerSendMessageBack' | 'lockBatchMQ' | 'unlockBatchMQ' | 'getMaxOffset' | 'getMinOffset' | 'searchOffset'
  | 'sendMessage'>;

export type ConsumerClient = Pick<MQClientInstance,
  | 'clientId' | 'findBrokerAddressInSubscribe' | 'findBrokerAddressInPublish' | 'updateTopicRouteInfoFromNameServer'
  | 'findConsumerIdList' | 'registerConsumer' | 'unregisterConsumer' | 'sendHeartbeatToAllBrokerWithLock'
  | 'rebalanceImmediately' | 'checkClientInBroker'> & { readonly api: ConsumerClientAPI };

export type { MQConsumerInner } from '../client/inner';
export type { FindBrokerResult } from '../client/mq-client-instance';
export type { PullResultRaw } from '../client/mq-client-api-consumer';
