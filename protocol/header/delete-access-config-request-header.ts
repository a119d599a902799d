/**
 * DeleteAccessConfigRequestHeader: Deletes a plain-ACL account.
 *
 * Used by: DELETE_ACL_CONFIG (51) request (4.9.8 ACL 1.0 only).
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   accessKey  string   required  access key
 *
 * @see org.apache.rocketmq.common.protocol.header.DeleteAccessConfigRequestHeader (4.9.8)
 * (removed in 5.x)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const DeleteAccessConfigRequestHeader = defineHeader('DeleteAccessConfigRequestHeader', {
  accessKey: { type: 'string', required: true },
} as const);
export type DeleteAccessConfigRequestHeader = HeaderValues<typeof DeleteAccessConfigRequestHeader.schema>;
