/**
 * Consumer groups by name, from heartbeats; channel expiry and close; membership changes reported to a listener
 * (which sends NOTIFY_CONSUMER_IDS_CHANGED).
 *
 * @see org.apache.rocketmq.broker.client.ConsumerManager
 * @see org.apache.rocketmq.broker.client.DefaultConsumerIdsChangeListener
 */
import type { Logger } from '../../logger';
import type { Channel } from '../../transport/connection';
import type { ConsumeFromWhere, ConsumeType, MessageModel, SubscriptionData } from '../../../protocol/body/heartbeat-data';
import type { ClientChannelInfo } from './client-channel-info';
import { ConsumerGroupInfo } from './consumer-group-info';

export const ConsumerGroupEvent = { CHANGE: 'CHANGE', UNREGISTER: 'UNREGISTER', REGISTER: 'REGISTER' } as const;
export type ConsumerGroupEvent = (typeof ConsumerGroupEvent)[keyof typeof ConsumerGroupEvent];

/** CHANGE carries the group's channels; REGISTER the subscriptions; UNREGISTER nothing. */
export type ConsumerIdsChangeListener = (event: ConsumerGroupEvent, group: string, args: { channels?: Channel[]; subscriptions?: SubscriptionData[] }) => void;

export class ConsumerManager {
  readonly consumerTable = new Map<string, ConsumerGroupInfo>();
  /** The groups each channel is in, so a closed connection costs its own groups, not all of them (Java scans all). */
  readonly #groupsByChannel = new Map<Channel, Set<string>>();

  constructor(
    private readonly logger: Logger,
    private readonly listener: ConsumerIdsChangeListener,
    private readonly channelExpiredTimeout = 120000,
  ) {}

  getConsumerGroupInfo(group: string): ConsumerGroupInfo | undefined {
    return this.consumerTable.get(group);
  }

  findSubscriptionData(group: string, topic: string): SubscriptionData | undefined {
    return this.consumerTable.get(group)?.findSubscriptionData(topic);
  }

  findChannel(group: string, clientId: string): ClientChannelInfo | undefined {
    return this.consumerTable.get(group)?.findChannel(clientId);
  }

  /** Registers or refreshes a consumer; true when the group's members or subscriptions changed. */
  registerConsumer(
    group: string,
    info: ClientChannelInfo,
    consumeType: ConsumeType,
    messageModel: MessageModel,
    consumeFromWhere: ConsumeFromWhere,
    subList: readonly SubscriptionData[],
    isNotifyConsumerIdsChangedEnable: boolean,
  ): boolean {
    let g = this.consumerTable.get(group);
    if (!g) {
      g = new ConsumerGroupInfo(group, consumeType, messageModel, consumeFromWhere);
      this.consumerTable.set(group, g);
    }
    const r1 = g.updateChannel(info, consumeType, messageModel, consumeFromWhere);
    let groups = this.#groupsByChannel.get(info.channel);
    if (!groups) {
      groups = new Set();
      this.#groupsByChannel.set(info.channel, groups);
    }
    groups.add(group);
    const r2 = g.updateSubscription(subList);
    if (r1 || r2) {
      if (isNotifyConsumerIdsChangedEnable) this.listener(ConsumerGroupEvent.CHANGE, group, { channels: g.getAllChannel() });
    }
    this.listener(ConsumerGroupEvent.REGISTER, group, { subscriptions: [...g.subscriptionTable.values()] });
    return r1 || r2;
  }

  unregisterConsumer(group: string, info: ClientChannelInfo, isNotifyConsumerIdsChangedEnable: boolean): void {
    const g = this.consumerTable.get(group);
    if (!g) return;
    g.unregisterChannel(info);
    this.#forget(info.channel, group);
    if (g.channelInfoTable.size === 0) {
      this.consumerTable.delete(group);
      this.logger.info({ group }, 'unregister consumer ok, no any connection, and remove consumer group');
      this.listener(ConsumerGroupEvent.UNREGISTER, group, {});
    }
    if (isNotifyConsumerIdsChangedEnable) this.listener(ConsumerGroupEvent.CHANGE, group, { channels: g.getAllChannel() });
  }

  /** A closed channel leaves every group; the remaining members are told. */
  doChannelCloseEvent(remoteAddr: string, channel: Channel): void {
    const groups = this.#groupsByChannel.get(channel);
    if (!groups) return;
    this.#groupsByChannel.delete(channel);
    for (const group of groups) {
      const g = this.consumerTable.get(group);
      if (!g?.doChannelCloseEvent(channel)) continue;
      this.logger.info({ group, remoteAddr }, 'consumer channel closed, removed from group');
      if (g.channelInfoTable.size === 0) {
        this.consumerTable.delete(group);
        this.listener(ConsumerGroupEvent.UNREGISTER, group, {});
      }
      this.listener(ConsumerGroupEvent.CHANGE, group, { channels: g.getAllChannel() });
    }
  }

  /** Drops channels without a heartbeat for channelExpiredTimeout and closes them (Java scanNotActiveChannel). */
  scanNotActiveChannel(now = Date.now()): void {
    for (const [group, g] of [...this.consumerTable]) {
      for (const [channel, info] of [...g.channelInfoTable]) {
        if (now - info.lastUpdateTimestamp > this.channelExpiredTimeout) {
          this.logger.warn({ group, clientId: info.clientId, remoteAddr: channel.remoteAddress }, 'consumer channel expired, removed');
          g.channelInfoTable.delete(channel);
          this.#forget(channel, group);
          channel.close();
        }
      }
      if (g.channelInfoTable.size === 0) {
        this.consumerTable.delete(group);
        this.listener(ConsumerGroupEvent.UNREGISTER, group, {});
      }
    }
  }

  #forget(channel: Channel, group: string): void {
    const groups = this.#groupsByChannel.get(channel);
    if (!groups) return;
    groups.delete(group);
    if (groups.size === 0) this.#groupsByChannel.delete(channel);
  }

  /** Groups subscribed to `topic`. */
  queryTopicConsumeByWho(topic: string): Set<string> {
    const groups = new Set<string>();
    for (const [group, g] of this.consumerTable) if (g.subscriptionTable.has(topic)) groups.add(group);
    return groups;
  }
}
