/**
 * GetAllTopicConfigResponseHeader: No fields: the topic config is the body.
 *
 * Used by: GET_ALL_TOPIC_CONFIG (21) response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   (none)
 *
 * @see org.apache.rocketmq.common.protocol.header.GetAllTopicConfigResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetAllTopicConfigResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetAllTopicConfigResponseHeader = defineHeader('GetAllTopicConfigResponseHeader', {

} as const);
export type GetAllTopicConfigResponseHeader = HeaderValues<typeof GetAllTopicConfigResponseHeader.schema>;
