/**
 * ChangeInvisibleTimeResponseHeader: the new checkpoint of the message (the client builds its new extraInfo
 * from it).
 *
 * Used by: CHANGE_MESSAGE_INVISIBLETIME (200053) response.
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   popTime        long  required  broker time of the change (the new checkpoint's pop time)
 *   invisibleTime  long  required  ms the message stays invisible from popTime
 *   reviveQid      int   required  revive queue of the new checkpoint
 *
 * @see org.apache.rocketmq.remoting.protocol.header.ChangeInvisibleTimeResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ChangeInvisibleTimeResponseHeader = defineHeader('ChangeInvisibleTimeResponseHeader', {
  popTime: { type: 'long', required: true },
  invisibleTime: { type: 'long', required: true },
  reviveQid: { type: 'int', required: true },
} as const);
export type ChangeInvisibleTimeResponseHeader = HeaderValues<typeof ChangeInvisibleTimeResponseHeader.schema>;
