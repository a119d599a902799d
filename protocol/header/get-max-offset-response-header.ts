/**
 * GetMaxOffsetResponseHeader: A queue's max offset.
 *
 * Used by: GET_MAX_OFFSET response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   offset  long     required  max offset
 *
 * @see org.apache.rocketmq.common.protocol.header.GetMaxOffsetResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetMaxOffsetResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetMaxOffsetResponseHeader = defineHeader('GetMaxOffsetResponseHeader', {
  offset: { type: 'long', required: true },
} as const);
export type GetMaxOffsetResponseHeader = HeaderValues<typeof GetMaxOffsetResponseHeader.schema>;
