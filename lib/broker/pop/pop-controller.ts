/** The narrow port POP takes instead of the whole BrokerController (no import cycle through the controller). */
import type { BrokerConfig } from '../broker-config';
import type { Logger } from '../../logger';
import type { MessageStoreConfig } from '../../store/message-store-config';
import type { DefaultMessageStore } from '../../store/message-store';
import type { TopicConfigManager } from '../topic/topic-config-manager';
import type { SubscriptionGroupManager } from '../subscription/subscription-group-manager';
import type { ConsumerOffsetManager } from '../offset/consumer-offset-manager';
import type { BrokerStatsManager } from '../stats/broker-stats-manager';

/** What POP's processors and revive service use of the broker (the controller in production, fakes in unit tests). */
export interface PopController {
  readonly brokerConfig: BrokerConfig;
  readonly messageStoreConfig: Pick<MessageStoreConfig, 'storePathRootDir'>;
  readonly logger: Logger;
  /** The broker's own address, stamped on revived messages. */
  readonly storeHost: { address: string; port: number };
  readonly messageStore: Pick<DefaultMessageStore, 'getMaxOffsetInQueue' | 'getMinOffsetInQueue' | 'getMessage' | 'putMessage'>;
  readonly topicConfigManager: Pick<TopicConfigManager, 'selectTopicConfig' | 'createTopicInSendMessageBackMethod'>;
  readonly subscriptionGroupManager: Pick<SubscriptionGroupManager, 'findSubscriptionGroupConfig' | 'containsSubscriptionGroup'>;
  readonly consumerOffsetManager: Pick<ConsumerOffsetManager, 'queryOffset' | 'commitOffset'>;
  readonly brokerStatsManager: Pick<BrokerStatsManager, 'incBrokerGetNums' | 'incGroupGet'>;
}
