/**
 * Producer groups by name, from heartbeats; channel expiry and close. Also finds a producer channel of a group
 * for CHECK_TRANSACTION_STATE.
 *
 * @see org.apache.rocketmq.broker.client.ProducerManager
 */
import type { Logger } from '../../logger';
import type { Channel } from '../../transport/connection';
import type { ClientChannelInfo } from './client-channel-info';

export class ProducerManager {
  readonly groupChannelTable = new Map<string, Map<Channel, ClientChannelInfo>>();
  readonly clientChannelTable = new Map<string, Channel>();
  #positive = 0;

  constructor(private readonly logger: Logger, private readonly channelExpiredTimeout = 120000) {}

  registerProducer(group: string, info: ClientChannelInfo): void {
    let m = this.groupChannelTable.get(group);
    if (!m) {
      m = new Map();
      this.groupChannelTable.set(group, m);
    }
    const old = m.get(info.channel);
    if (old) old.lastUpdateTimestamp = info.lastUpdateTimestamp;
    else {
      m.set(info.channel, info);
      this.clientChannelTable.set(info.clientId, info.channel);
      this.logger.info({ group, clientId: info.clientId }, 'new producer connected');
    }
  }

  unregisterProducer(group: string, info: ClientChannelInfo): void {
    const m = this.groupChannelTable.get(group);
    if (!m) return;
    if (m.delete(info.channel)) this.clientChannelTable.delete(info.clientId);
    if (m.size === 0) this.groupChannelTable.delete(group);
  }

  doChannelCloseEvent(remoteAddr: string, channel: Channel): void {
    for (const [group, m] of [...this.groupChannelTable]) {
      const info = m.get(channel);
      if (!info) continue;
      m.delete(channel);
      this.clientChannelTable.delete(info.clientId);
      this.logger.info({ group, remoteAddr }, 'producer channel closed, removed from group');
      if (m.size === 0) this.groupChannelTable.delete(group);
    }
  }

  scanNotActiveChannel(now = Date.now()): void {
    for (const [group, m] of [...this.groupChannelTable]) {
      for (const [channel, info] of [...m]) {
        if (now - info.lastUpdateTimestamp > this.channelExpiredTimeout) {
          m.delete(channel);
          this.clientChannelTable.delete(info.clientId);
          this.logger.warn({ group, clientId: info.clientId, remoteAddr: channel.remoteAddress }, 'producer channel expired, removed');
          channel.close();
        }
      }
      if (m.size === 0) this.groupChannelTable.delete(group);
    }
  }

  /** An active channel of the group, round-robin (Java getAvailableChannel). */
  getAvailableChannel(group: string): Channel | null {
    const m = this.groupChannelTable.get(group);
    if (!m || m.size === 0) return null;
    const channels = [...m.keys()].filter((c) => c.isActive);
    if (channels.length === 0) return null;
    this.#positive = (this.#positive + 1) & 0x7fffffff;
    return channels[this.#positive % channels.length];
  }

  findChannel(clientId: string): Channel | undefined {
    return this.clientChannelTable.get(clientId);
  }
}
