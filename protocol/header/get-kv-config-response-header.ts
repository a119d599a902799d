/**
 * GetKVConfigResponseHeader: The value (QUERY_NOT_FOUND when absent).
 *
 * Used by: GET_KV_CONFIG response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   value  string   optional  value
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.GetKVConfigResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.GetKVConfigResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetKVConfigResponseHeader = defineHeader('GetKVConfigResponseHeader', {
  value: { type: 'string' },
} as const);
export type GetKVConfigResponseHeader = HeaderValues<typeof GetKVConfigResponseHeader.schema>;
