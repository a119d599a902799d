/**
 * NotificationResponseHeader: whether messages are there to pop.
 *
 * Used by: NOTIFICATION (200054) response.
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   hasMsg       boolean  required  a pop would find messages
 *   pollingFull  boolean  optional  the broker's polling table is full
 *
 * @see org.apache.rocketmq.remoting.protocol.header.NotificationResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const NotificationResponseHeader = defineHeader('NotificationResponseHeader', {
  hasMsg: { type: 'boolean', required: true },
  pollingFull: { type: 'boolean' },
} as const);
export type NotificationResponseHeader = HeaderValues<typeof NotificationResponseHeader.schema>;
