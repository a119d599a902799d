/**
 * GetBrokerConfigResponseHeader: The broker config's data version; the config is the body.
 *
 * Used by: GET_BROKER_CONFIG (26) response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   version  string   required  DataVersion as JSON
 *
 * @see org.apache.rocketmq.common.protocol.header.GetBrokerConfigResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.GetBrokerConfigResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetBrokerConfigResponseHeader = defineHeader('GetBrokerConfigResponseHeader', {
  version: { type: 'string', required: true },
} as const);
export type GetBrokerConfigResponseHeader = HeaderValues<typeof GetBrokerConfigResponseHeader.schema>;
