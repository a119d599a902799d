/**
 * The topic route as the client uses it: the decoded GET_ROUTEINFO_BY_TOPIC body of protocol/body, and the
 * PermName bits. Re-exported here so the client layers have one place to import them from.
 *
 * @see org.apache.rocketmq.common.protocol.route.TopicRouteData
 */
import type { BrokerData } from '../../protocol/body/topic-route-data';
import { MASTER_ID } from '../../protocol/body/topic-route-data';

export type { QueueData, BrokerData, TopicRouteData } from '../../protocol/body/topic-route-data';
export { PermName, isReadable, isWriteable, isInherited, perm2String } from '../../protocol/body/perm-name';

/** The route parts the queue conversions read. */
export type RouteQueues = Pick<import('../../protocol/body/topic-route-data').TopicRouteData, 'queueDatas' | 'brokerDatas' | 'orderTopicConf'>;

/** The master's address of a broker group (id 0), if any. */
export function masterAddr(brokerData: BrokerData): string | undefined {
  return brokerData.brokerAddrs.get(MASTER_ID);
}
