/**
 * What a producer or consumer registered in an MQClientInstance implements, so that the instance can refresh its
 * routes, build heartbeats and hand it the requests brokers send to clients.
 *
 * @see org.apache.rocketmq.client.impl.producer.MQProducerInner
 * @see org.apache.rocketmq.client.impl.consumer.MQConsumerInner
 */
import type { ConsumeMessageDirectlyResult } from '../../protocol/body/consume-message-directly-result';
import type { ConsumerRunningInfo } from '../../protocol/body/consumer-running-info';
import type { ConsumeFromWhere, ConsumeType, MessageModel, SubscriptionData } from '../../protocol/body/heartbeat-data';
import type { CheckTransactionStateRequestHeader } from '../../protocol/header/check-transaction-state-request-header';
import type { MessageExt } from '../../protocol/message/message';
import type { MessageQueue } from '../../protocol/message/message-queue';
import type { TopicPublishInfo } from './topic-publish-info';

export interface MQProducerInner {
  /** Topics this producer sends to (their routes are refreshed every pollNameServerInterval). */
  getPublishTopicList(): Iterable<string>;
  /** True when the topic has no usable publish info yet. */
  isPublishTopicNeedUpdate(topic: string): boolean;
  updateTopicPublishInfo(topic: string, info: TopicPublishInfo): void;
  isUnitMode(): boolean;
  /** CHECK_TRANSACTION_STATE from `brokerAddr` for a half message (transaction producers only). */
  checkTransactionState?(brokerAddr: string, msg: MessageExt, header: CheckTransactionStateRequestHeader): void;
}

export interface MQConsumerInner {
  groupName(): string;
  messageModel(): MessageModel;
  consumeType(): ConsumeType;
  consumeFromWhere(): ConsumeFromWhere;
  subscriptions(): SubscriptionData[];
  isUnitMode(): boolean;
  doRebalance(): void | Promise<void>;
  persistConsumerOffset(): void | Promise<void>;
  updateTopicSubscribeInfo(topic: string, info: MessageQueue[]): void;
  isSubscribeTopicNeedUpdate(topic: string): boolean;
  consumerRunningInfo(): ConsumerRunningInfo;
  /** RESET_CONSUMER_CLIENT_OFFSET. */
  resetOffset?(topic: string, offsetTable: Array<[MessageQueue, number]>): void | Promise<void>;
  /** GET_CONSUMER_STATUS_FROM_CLIENT: the offsets of the topic's queues this consumer holds. */
  getConsumerStatus?(topic: string): Array<[MessageQueue, number]>;
  /** CONSUME_MESSAGE_DIRECTLY. */
  consumeMessageDirectly?(msg: MessageExt, brokerName: string | undefined): Promise<ConsumeMessageDirectlyResult>;
}
