/**
 * GetKVListByNamespaceRequestHeader: Lists a namespace's KV entries (answer in a JSON body).
 *
 * Used by: GET_KVLIST_BY_NAMESPACE (219) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   namespace  string   required  namespace
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.GetKVListByNamespaceRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.GetKVListByNamespaceRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetKVListByNamespaceRequestHeader = defineHeader('GetKVListByNamespaceRequestHeader', {
  namespace: { type: 'string', required: true },
} as const);
export type GetKVListByNamespaceRequestHeader = HeaderValues<typeof GetKVListByNamespaceRequestHeader.schema>;
