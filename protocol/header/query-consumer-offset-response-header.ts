/**
 * QueryConsumerOffsetResponseHeader: The committed offset.
 *
 * Used by: QUERY_CONSUMER_OFFSET response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   offset  long     required  committed offset
 *
 * @see org.apache.rocketmq.common.protocol.header.QueryConsumerOffsetResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.QueryConsumerOffsetResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const QueryConsumerOffsetResponseHeader = defineHeader('QueryConsumerOffsetResponseHeader', {
  offset: { type: 'long', required: true },
} as const);
export type QueryConsumerOffsetResponseHeader = HeaderValues<typeof QueryConsumerOffsetResponseHeader.schema>;
