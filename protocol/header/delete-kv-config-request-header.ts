/**
 * DeleteKVConfigRequestHeader: Deletes a name-server KV entry.
 *
 * Used by: DELETE_KV_CONFIG (102) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   namespace  string   required  namespace
 *   key        string   required  key
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.DeleteKVConfigRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.DeleteKVConfigRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const DeleteKVConfigRequestHeader = defineHeader('DeleteKVConfigRequestHeader', {
  namespace: { type: 'string', required: true },
  key: { type: 'string', required: true },
} as const);
export type DeleteKVConfigRequestHeader = HeaderValues<typeof DeleteKVConfigRequestHeader.schema>;
