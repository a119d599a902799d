/**
 * SearchOffsetRequestHeader: Finds the queue offset of a store time.
 *
 * Used by: SEARCH_OFFSET_BY_TIMESTAMP (29) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   topic         string   required  topic
 *   queueId       int      required  queue
 *   timestamp     long     required  store time, ms
 *   boundaryType  string   5.x opt.  LOWER or UPPER (5.x BoundaryType name)
 *   bname         string   optional  broker name the request is meant for (RpcRequestHeader)
 *   ns            string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd           boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway          boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo            boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.SearchOffsetRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.SearchOffsetRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const SearchOffsetRequestHeader = defineHeader('SearchOffsetRequestHeader', {
  topic: { type: 'string', required: true },
  queueId: { type: 'int', required: true },
  timestamp: { type: 'long', required: true },
  boundaryType: { type: 'string' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type SearchOffsetRequestHeader = HeaderValues<typeof SearchOffsetRequestHeader.schema>;
