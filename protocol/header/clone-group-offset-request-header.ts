/**
 * CloneGroupOffsetRequestHeader: Copies one group's offsets to another.
 *
 * Used by: CLONE_GROUP_OFFSET (314) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   srcGroup   string   required  source group
 *   destGroup  string   required  destination group
 *   topic      string   optional  only this topic
 *   offline    boolean  optional  source group is offline
 *   bname      string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns         string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd        boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway       boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.CloneGroupOffsetRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.CloneGroupOffsetRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const CloneGroupOffsetRequestHeader = defineHeader('CloneGroupOffsetRequestHeader', {
  srcGroup: { type: 'string', required: true },
  destGroup: { type: 'string', required: true },
  topic: { type: 'string' },
  offline: { type: 'boolean' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
} as const);
export type CloneGroupOffsetRequestHeader = HeaderValues<typeof CloneGroupOffsetRequestHeader.schema>;
