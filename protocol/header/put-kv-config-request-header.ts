/**
 * PutKVConfigRequestHeader: Stores a name-server KV entry.
 *
 * Used by: PUT_KV_CONFIG (100) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   namespace  string   required  namespace
 *   key        string   required  key
 *   value      string   required  value
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.PutKVConfigRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.PutKVConfigRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const PutKVConfigRequestHeader = defineHeader('PutKVConfigRequestHeader', {
  namespace: { type: 'string', required: true },
  key: { type: 'string', required: true },
  value: { type: 'string', required: true },
} as const);
export type PutKVConfigRequestHeader = HeaderValues<typeof PutKVConfigRequestHeader.schema>;
