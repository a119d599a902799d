/**
 * GetTopicsByClusterRequestHeader: Lists a cluster's topics.
 *
 * Used by: GET_TOPICS_BY_CLUSTER (224) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   cluster  string   required  cluster name
 *
 * @see org.apache.rocketmq.common.protocol.header.GetTopicsByClusterRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetTopicsByClusterRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetTopicsByClusterRequestHeader = defineHeader('GetTopicsByClusterRequestHeader', {
  cluster: { type: 'string', required: true },
} as const);
export type GetTopicsByClusterRequestHeader = HeaderValues<typeof GetTopicsByClusterRequestHeader.schema>;
