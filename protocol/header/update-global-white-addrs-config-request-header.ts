/**
 * UpdateGlobalWhiteAddrsConfigRequestHeader: Sets the global white addresses.
 *
 * Used by: UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53) request (4.9.8 ACL 1.0 only).
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   globalWhiteAddrs  string   required  addresses, comma-separated
 *   aclFileFullPath   string   required  ACL file path
 *
 * @see org.apache.rocketmq.common.protocol.header.UpdateGlobalWhiteAddrsConfigRequestHeader (4.9.8)
 * (removed in 5.x)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const UpdateGlobalWhiteAddrsConfigRequestHeader = defineHeader('UpdateGlobalWhiteAddrsConfigRequestHeader', {
  globalWhiteAddrs: { type: 'string', required: true },
  aclFileFullPath: { type: 'string', required: true },
} as const);
export type UpdateGlobalWhiteAddrsConfigRequestHeader = HeaderValues<typeof UpdateGlobalWhiteAddrsConfigRequestHeader.schema>;
