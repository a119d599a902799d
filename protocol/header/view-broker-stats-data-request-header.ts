/**
 * ViewBrokerStatsDataRequestHeader: Reads a broker stats item.
 *
 * Used by: VIEW_BROKER_STATS_DATA (315) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   statsName  string   required  stats name
 *   statsKey   string   required  stats key
 *
 * @see org.apache.rocketmq.common.protocol.header.ViewBrokerStatsDataRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.ViewBrokerStatsDataRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ViewBrokerStatsDataRequestHeader = defineHeader('ViewBrokerStatsDataRequestHeader', {
  statsName: { type: 'string', required: true },
  statsKey: { type: 'string', required: true },
} as const);
export type ViewBrokerStatsDataRequestHeader = HeaderValues<typeof ViewBrokerStatsDataRequestHeader.schema>;
