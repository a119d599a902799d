/**
 * SearchOffsetResponseHeader: The offset found.
 *
 * Used by: SEARCH_OFFSET_BY_TIMESTAMP response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   offset  long     required  queue offset
 *
 * @see org.apache.rocketmq.common.protocol.header.SearchOffsetResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.SearchOffsetResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const SearchOffsetResponseHeader = defineHeader('SearchOffsetResponseHeader', {
  offset: { type: 'long', required: true },
} as const);
export type SearchOffsetResponseHeader = HeaderValues<typeof SearchOffsetResponseHeader.schema>;
