/**
 * PullMessageResponseHeader: The broker's answer to a pull; the body holds the stored records.
 *
 * Used by: PULL_MESSAGE response (SUCCESS, PULL_NOT_FOUND, PULL_RETRY_IMMEDIATELY, PULL_OFFSET_MOVED).
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   suggestWhichBrokerId  long     required  broker id to pull from next (0 master, else a slave)
 *   nextBeginOffset       long     required  queue offset to pull from next
 *   minOffset             long     required  queue's min offset
 *   maxOffset             long     required  queue's max offset
 *   offsetDelta           long     5.x opt.  offset delta (5.x)
 *   topicSysFlag          int      5.x opt.  topic sys flag (5.x)
 *   groupSysFlag          int      5.x opt.  group sys flag (5.x)
 *   forbiddenType         int      5.x opt.  forbidden type (5.x)
 *
 * @see org.apache.rocketmq.common.protocol.header.PullMessageResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.PullMessageResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const PullMessageResponseHeader = defineHeader('PullMessageResponseHeader', {
  suggestWhichBrokerId: { type: 'long', required: true },
  nextBeginOffset: { type: 'long', required: true },
  minOffset: { type: 'long', required: true },
  maxOffset: { type: 'long', required: true },
  offsetDelta: { type: 'long' },
  topicSysFlag: { type: 'int' },
  groupSysFlag: { type: 'int' },
  forbiddenType: { type: 'int' },
} as const);
export type PullMessageResponseHeader = HeaderValues<typeof PullMessageResponseHeader.schema>;
