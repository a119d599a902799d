/**
 * QueryMessageResponseHeader: Index state with the found messages in the body.
 *
 * Used by: QUERY_MESSAGE response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   indexLastUpdateTimestamp  long     required  last index update time
 *   indexLastUpdatePhyoffset  long     required  commit-log offset the index reached
 *
 * @see org.apache.rocketmq.common.protocol.header.QueryMessageResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.QueryMessageResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const QueryMessageResponseHeader = defineHeader('QueryMessageResponseHeader', {
  indexLastUpdateTimestamp: { type: 'long', required: true },
  indexLastUpdatePhyoffset: { type: 'long', required: true },
} as const);
export type QueryMessageResponseHeader = HeaderValues<typeof QueryMessageResponseHeader.schema>;
