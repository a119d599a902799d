/**
 * QueryMessageRequestHeader: Looks messages up in the index by key (or by unique key).
 *
 * Used by: QUERY_MESSAGE (12) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   topic              string   required  topic
 *   key                string   required  message key, or UNIQ_KEY with the unique-key flag
 *   maxNum             int      required  most messages to return
 *   beginTimestamp     long     required  from, ms
 *   endTimestamp       long     required  to, ms
 *   _UNIQUE_KEY_QUERY  boolean  optional  "true" when key is a UNIQ_KEY (MixAll.UNIQUE_MSG_QUERY_FLAG), not a Java field
 *   bname              string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns                 string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd                boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway               boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo                 boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.QueryMessageRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.QueryMessageRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const QueryMessageRequestHeader = defineHeader('QueryMessageRequestHeader', {
  topic: { type: 'string', required: true },
  key: { type: 'string', required: true },
  maxNum: { type: 'int', required: true },
  beginTimestamp: { type: 'long', required: true },
  endTimestamp: { type: 'long', required: true },
  uniqueKeyQuery: { type: 'boolean', key: '_UNIQUE_KEY_QUERY' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type QueryMessageRequestHeader = HeaderValues<typeof QueryMessageRequestHeader.schema>;
