/**
 * WipeWritePermOfBrokerResponseHeader: How many topics changed.
 *
 * Used by: WIPE_WRITE_PERM_OF_BROKER response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   wipeTopicCount  int      required  topics changed
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.WipeWritePermOfBrokerResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.WipeWritePermOfBrokerResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const WipeWritePermOfBrokerResponseHeader = defineHeader('WipeWritePermOfBrokerResponseHeader', {
  wipeTopicCount: { type: 'int', required: true },
} as const);
export type WipeWritePermOfBrokerResponseHeader = HeaderValues<typeof WipeWritePermOfBrokerResponseHeader.schema>;
