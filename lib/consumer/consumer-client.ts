/**
 * What a consumer uses of the shared MQClientInstance and its MQClientAPI, as a structural subset: the consumers
 * take the real instance in production and a small fake in unit tests.
 *
 * The consumer's port to the brokers is a RequestInvoker (invoke / invokeOneway / language): its requests are the
 * modules of protocol/requests/, sent with `call` / `callOneway` (lib/client/request-invoker.ts) or the functions
 * of lib/client/mq-client-api-consumer.ts; a fake answers them by request code (test/helpers/fake-broker.ts).
 * `sendMessage` is the one named method left: the push consumer's fallback of a failed send-back is a plain send
 * (SEND_MESSAGE_V2 in the client's serialize type, answered as a SendResult).
 *
 * @see org.apache.rocketmq.client.impl.factory.MQClientInstance
 * @see org.apache.rocketmq.client.impl.MQClientAPIImpl
 */
import type { MQClientAPI } from '../client/mq-client-api';
import type { MQClientInstance } from '../client/mq-client-instance';
import type { RequestInvoker } from '../client/request-invoker';

export type ConsumerClientAPI = RequestInvoker & Pick<MQClientAPI, 'sendMessage'>;

export type ConsumerClient = Pick<MQClientInstance,
  | 'clientId' | 'findBrokerAddressInSubscribe' | 'findBrokerAddressInPublish' | 'updateTopicRouteInfoFromNameServer'
  | 'findConsumerIdList' | 'registerConsumer' | 'unregisterConsumer' | 'sendHeartbeatToAllBrokerWithLock'
  | 'rebalanceImmediately' | 'checkClientInBroker'> & { readonly api: ConsumerClientAPI };

export type { MQConsumerInner } from '../client/inner';
export type { FindBrokerResult } from '../client/mq-client-instance';
export type { PullResultRaw } from '../client/mq-client-api-consumer';
