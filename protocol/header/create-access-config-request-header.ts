/**
 * CreateAccessConfigRequestHeader: Creates or updates a plain-ACL account.
 *
 * Used by: UPDATE_AND_CREATE_ACL_CONFIG (50) request (4.9.8 ACL 1.0 only).
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   accessKey           string   required  access key
 *   secretKey           string   optional  secret key
 *   whiteRemoteAddress  string   optional  white remote address
 *   admin               boolean  optional  admin account
 *   defaultTopicPerm    string   optional  default topic permission
 *   defaultGroupPerm    string   optional  default group permission
 *   topicPerms          string   optional  topic permissions, comma-separated
 *   groupPerms          string   optional  group permissions, comma-separated
 *
 * @see org.apache.rocketmq.common.protocol.header.CreateAccessConfigRequestHeader (4.9.8)
 * (removed in 5.x)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const CreateAccessConfigRequestHeader = defineHeader('CreateAccessConfigRequestHeader', {
  accessKey: { type: 'string', required: true },
  secretKey: { type: 'string' },
  whiteRemoteAddress: { type: 'string' },
  admin: { type: 'boolean' },
  defaultTopicPerm: { type: 'string' },
  defaultGroupPerm: { type: 'string' },
  topicPerms: { type: 'string' },
  groupPerms: { type: 'string' },
} as const);
export type CreateAccessConfigRequestHeader = HeaderValues<typeof CreateAccessConfigRequestHeader.schema>;
