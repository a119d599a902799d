/**
 * GetEarliestMsgStoretimeResponseHeader: The earliest store time.
 *
 * Used by: GET_EARLIEST_MSG_STORETIME response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   timestamp  long     required  store time, ms
 *
 * @see org.apache.rocketmq.common.protocol.header.GetEarliestMsgStoretimeResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetEarliestMsgStoretimeResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetEarliestMsgStoretimeResponseHeader = defineHeader('GetEarliestMsgStoretimeResponseHeader', {
  timestamp: { type: 'long', required: true },
} as const);
export type GetEarliestMsgStoretimeResponseHeader = HeaderValues<typeof GetEarliestMsgStoretimeResponseHeader.schema>;
