/**
 * The members and subscriptions of one consumer group.
 *
 * @see org.apache.rocketmq.broker.client.ConsumerGroupInfo
 */
import type { Channel } from '../../transport/connection';
import type { ConsumeFromWhere, ConsumeType, MessageModel, SubscriptionData } from '../../../protocol/body/heartbeat-data';
import type { ClientChannelInfo } from './client-channel-info';

export class ConsumerGroupInfo {
  readonly subscriptionTable = new Map<string, SubscriptionData>();
  readonly channelInfoTable = new Map<Channel, ClientChannelInfo>();
  lastUpdateTimestamp = Date.now();

  constructor(
    readonly groupName: string,
    public consumeType: ConsumeType,
    public messageModel: MessageModel,
    public consumeFromWhere: ConsumeFromWhere,
  ) {}

  findChannel(clientId: string): ClientChannelInfo | undefined {
    for (const info of this.channelInfoTable.values()) if (info.clientId === clientId) return info;
    return undefined;
  }

  getAllClientId(): string[] {
    return [...this.channelInfoTable.values()].map((i) => i.clientId);
  }

  getAllChannel(): Channel[] {
    return [...this.channelInfoTable.keys()];
  }

  findSubscriptionData(topic: string): SubscriptionData | undefined {
    return this.subscriptionTable.get(topic);
  }

  unregisterChannel(info: ClientChannelInfo): boolean {
    return this.channelInfoTable.delete(info.channel);
  }

  doChannelCloseEvent(channel: Channel): boolean {
    return this.channelInfoTable.delete(channel);
  }

  /** Adds or refreshes the channel; true when the channel is new (the group's membership changed). */
  updateChannel(info: ClientChannelInfo, consumeType: ConsumeType, messageModel: MessageModel, consumeFromWhere: ConsumeFromWhere): boolean {
    this.consumeType = consumeType;
    this.messageModel = messageModel;
    this.consumeFromWhere = consumeFromWhere;
    const old = this.channelInfoTable.get(info.channel);
    let updated = false;
    if (!old) {
      this.channelInfoTable.set(info.channel, info);
      updated = true;
    } else if (old.clientId !== info.clientId) {
      this.channelInfoTable.set(info.channel, info);
    } else {
      old.lastUpdateTimestamp = info.lastUpdateTimestamp;
    }
    this.lastUpdateTimestamp = Date.now();
    return updated;
  }

  /** Replaces the subscriptions; true when a topic was added or removed. */
  updateSubscription(subList: readonly SubscriptionData[]): boolean {
    let updated = false;
    for (const sub of subList) {
      const old = this.subscriptionTable.get(sub.topic);
      if (!old) {
        this.subscriptionTable.set(sub.topic, sub);
        updated = true;
      } else if (sub.subVersion > old.subVersion) {
        this.subscriptionTable.set(sub.topic, sub);
      }
    }
    const topics = new Set(subList.map((s) => s.topic));
    for (const topic of [...this.subscriptionTable.keys()]) {
      if (!topics.has(topic)) {
        this.subscriptionTable.delete(topic);
        updated = true;
      }
    }
    this.lastUpdateTimestamp = Date.now();
    return updated;
  }
}
