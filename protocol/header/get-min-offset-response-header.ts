/**
 * GetMinOffsetResponseHeader: A queue's min offset.
 *
 * Used by: GET_MIN_OFFSET response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   offset  long     required  min offset
 *
 * @see org.apache.rocketmq.common.protocol.header.GetMinOffsetResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetMinOffsetResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetMinOffsetResponseHeader = defineHeader('GetMinOffsetResponseHeader', {
  offset: { type: 'long', required: true },
} as const);
export type GetMinOffsetResponseHeader = HeaderValues<typeof GetMinOffsetResponseHeader.schema>;
