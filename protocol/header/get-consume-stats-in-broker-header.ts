/**
 * GetConsumeStatsInBrokerHeader: Asks a broker's consume stats of all groups.
 *
 * Used by: GET_BROKER_CONSUME_STATS (317) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   isOrder  boolean  required  ordered groups only
 *
 * @see org.apache.rocketmq.common.protocol.header.GetConsumeStatsInBrokerHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetConsumeStatsInBrokerHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetConsumeStatsInBrokerHeader = defineHeader('GetConsumeStatsInBrokerHeader', {
  isOrder: { type: 'boolean', required: true },
} as const);
export type GetConsumeStatsInBrokerHeader = HeaderValues<typeof GetConsumeStatsInBrokerHeader.schema>;
