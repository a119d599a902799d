/**
 * QueryDataVersionResponseHeader: Whether the versions differ.
 *
 * Used by: QUERY_DATA_VERSION response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   changed  boolean  required  the name server's version differs
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.QueryDataVersionResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.QueryDataVersionResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const QueryDataVersionResponseHeader = defineHeader('QueryDataVersionResponseHeader', {
  changed: { type: 'boolean', required: true },
} as const);
export type QueryDataVersionResponseHeader = HeaderValues<typeof QueryDataVersionResponseHeader.schema>;
