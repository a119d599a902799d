/**
 * What a consumer needs from the shared client instance (MQClientInstance + MQClientAPI), as one narrow interface.
 * The consumers are written and unit-tested against it; `lib/client` supplies the real implementation, and tests
 * supply fakes.
 *
 * @see org.apache.rocketmq.client.impl.factory.MQClientInstance
 * @see org.apache.rocketmq.client.impl.MQClientAPIImpl
 * @see org.apache.rocketmq.client.impl.consumer.MQConsumerInner
 */
import type { ConsumeFromWhere, ConsumeType, MessageModel, SubscriptionData } from '../../protocol/body/heartbeat-data';
import type { ConsumerRunningInfo } from '../../protocol/body/consumer-running-info';
import type { ConsumeMessageDirectlyResult } from '../../protocol/body/consume-message-directly-result';
import type { PullMessageRequestHeader } from '../../protocol/header/pull-message-request-header';
import type { PullMessageResponseHeader } from '../../protocol/header/pull-message-response-header';
import type { Message, MessageExt } from '../../protocol/message/message';
import type { MessageQueue } from '../../protocol/message/message-queue';

/** MQClientInstance.findBrokerAddressInSubscribe's answer. */
export interface FindBrokerResult {
  brokerAddr: string;
  slave: boolean;
}

/** A PULL_MESSAGE response before PullAPIWrapper.processPullResult. */
export interface RawPullResponse {
  code: number;
  remark?: string | null;
  header?: PullMessageResponseHeader;
  body?: Buffer | null;
}

/** Offsets headers: QUERY_CONSUMER_OFFSET / UPDATE_CONSUMER_OFFSET. */
export interface ConsumerOffsetHeader {
  consumerGroup: string;
  topic: string;
  queueId: number;
  commitOffset?: number;
}

/** The requests of MQClientAPIImpl a consumer sends. Failures are MQBrokerError / Remoting*Error. */
export interface ConsumerClientAPI {
  pullMessage(addr: string, header: PullMessageRequestHeader, timeoutMillis: number): Promise<RawPullResponse>;
  /** Throws MQBrokerError with QUERY_NOT_FOUND (22) when the broker knows no offset. */
  queryConsumerOffset(addr: string, header: ConsumerOffsetHeader, timeoutMillis: number): Promise<number>;
  updateConsumerOffset(addr: string, header: ConsumerOffsetHeader & { commitOffset: number }, timeoutMillis: number): Promise<void>;
  updateConsumerOffsetOneway(addr: string, header: ConsumerOffsetHeader & { commitOffset: number }, timeoutMillis: number): Promise<void>;
  consumerSendMessageBack(
    addr: string, msg: MessageExt, consumerGroup: string, delayLevel: number, timeoutMillis: number, maxReconsumeTimes: number,
  ): Promise<void>;
  lockBatchMQ(addr: string, body: { consumerGroup: string; clientId: string; mqSet: MessageQueue[] }, timeoutMillis: number): Promise<MessageQueue[]>;
  unlockBatchMQ(
    addr: string, body: { consumerGroup: string; clientId: string; mqSet: MessageQueue[] }, timeoutMillis: number, oneway: boolean,
  ): Promise<void>;
  getMaxOffset(addr: string, topic: string, queueId: number, timeoutMillis: number): Promise<number>;
  getMinOffset(addr: string, topic: string, queueId: number, timeoutMillis: number): Promise<number>;
  searchOffset(addr: string, topic: string, queueId: number, timestamp: number, timeoutMillis: number): Promise<number>;
}

/** MQConsumerInner: what the client instance calls on a registered consumer. */
export interface MQConsumerInner {
  groupName(): string;
  messageModel(): MessageModel;
  consumeType(): ConsumeType;
  consumeFromWhere(): ConsumeFromWhere;
  subscriptions(): SubscriptionData[];
  doRebalance(): Promise<void>;
  persistConsumerOffset(): Promise<void>;
  updateTopicSubscribeInfo(topic: string, info: MessageQueue[]): void;
  isSubscribeTopicNeedUpdate(topic: string): boolean;
  isUnitMode(): boolean;
  consumerRunningInfo(): ConsumerRunningInfo;
  /** RESET_CONSUMER_CLIENT_OFFSET. */
  resetOffset(topic: string, offsetTable: Array<[MessageQueue, number]>): Promise<void>;
  /** GET_CONSUMER_STATUS_FROM_CLIENT: the offsets of the topic's queues this client consumes. */
  getConsumeStatus(topic: string): Array<[MessageQueue, number]>;
  /** CONSUME_MESSAGE_DIRECTLY. */
  consumeMessageDirectly(msg: MessageExt, brokerName: string | undefined): Promise<ConsumeMessageDirectlyResult>;
}

/** The client instance as the consumers use it. */
export interface ConsumerClient {
  readonly clientId: string;
  readonly api: ConsumerClientAPI;
  findBrokerAddressInSubscribe(brokerName: string, brokerId: number, onlyThisBroker: boolean): FindBrokerResult | undefined;
  findBrokerAddressInPublish(brokerName: string): string | undefined;
  /** Refreshes the topic's route; afterwards `topicSubscribeInfo(topic)` answers from it. */
  updateTopicRouteInfoFromNameServer(topic: string): Promise<boolean>;
  /** The readable queues of a topic from the cached route (undefined when unknown). */
  topicSubscribeInfo(topic: string): MessageQueue[] | undefined;
  /** GET_CONSUMER_LIST_BY_GROUP at one broker of the topic. */
  findConsumerIdList(topic: string, group: string): Promise<string[] | undefined>;
  /** False when the group is already registered in this instance. */
  registerConsumer(group: string, consumer: MQConsumerInner): boolean;
  unregisterConsumer(group: string): Promise<void>;
  sendHeartbeatToAllBrokers(): Promise<void>;
  /** Wakes every registered consumer's rebalance now. */
  rebalanceImmediately(): void;
  /** Sends through the instance's inner producer (used when CONSUMER_SEND_MSG_BACK fails). */
  sendMessage(msg: Message): Promise<void>;
  /** Reference-counted; the consumers call it from their own start()/shutdown(). */
  start(): Promise<void>;
  shutdown(): Promise<void>;
}
