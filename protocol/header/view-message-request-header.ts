/**
 * ViewMessageRequestHeader: Reads one stored message by commit-log offset (decoded from an offset msgId).
 *
 * Used by: VIEW_MESSAGE_BY_ID (33) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   offset  long     required  commit-log offset
 *   topic   string   5.x opt.  topic (5.x)
 *
 * @see org.apache.rocketmq.common.protocol.header.ViewMessageRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.ViewMessageRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ViewMessageRequestHeader = defineHeader('ViewMessageRequestHeader', {
  offset: { type: 'long', required: true },
  topic: { type: 'string' },
} as const);
export type ViewMessageRequestHeader = HeaderValues<typeof ViewMessageRequestHeader.schema>;
