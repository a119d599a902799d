/**
 * PopMessageResponseHeader: the broker's answer to a POP; the body holds the stored records (SUCCESS only).
 *
 * Used by: POP_MESSAGE (200050) response: SUCCESS, POLLING_FULL (209), POLLING_TIMEOUT (210), PULL_NOT_FOUND.
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   popTime          long    required  broker time of the pop (the checkpoint's key, in extraInfo)
 *   invisibleTime    long    required  ms the messages stay invisible
 *   reviveQid        int     required  revive queue of the checkpoint (999 for orderly pops)
 *   restNum          long    required  messages left behind the pop
 *   startOffsetInfo  string  optional  per queue "retry queueId startOffset", ';'-joined (ExtraInfoUtil)
 *   msgOffsetInfo    string  optional  per queue "retry queueId o1,o2,...", ';'-joined
 *   orderCountInfo   string  optional  orderly pops: per queue / offset the delivery count
 *
 * @see org.apache.rocketmq.remoting.protocol.header.PopMessageResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const PopMessageResponseHeader = defineHeader('PopMessageResponseHeader', {
  popTime: { type: 'long', required: true },
  invisibleTime: { type: 'long', required: true },
  reviveQid: { type: 'int', required: true },
  restNum: { type: 'long', required: true },
  startOffsetInfo: { type: 'string' },
  msgOffsetInfo: { type: 'string' },
  orderCountInfo: { type: 'string' },
} as const);
export type PopMessageResponseHeader = HeaderValues<typeof PopMessageResponseHeader.schema>;
