/**
 * One client connection as the broker knows it from heartbeats.
 *
 * @see org.apache.rocketmq.broker.client.ClientChannelInfo
 */
import type { Channel } from '../../transport/connection';

export interface ClientChannelInfo {
  channel: Channel;
  clientId: string;
  /** LanguageCode name ("JAVA", ...). */
  language: string;
  version: number;
  lastUpdateTimestamp: number;
}

export function newClientChannelInfo(channel: Channel, clientId: string, language: string, version: number, now = Date.now()): ClientChannelInfo {
  return { channel, clientId, language, version, lastUpdateTimestamp: now };
}
