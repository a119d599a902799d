/**
 * RegisterBrokerResponseHeader: The master's addresses, for a slave.
 *
 * Used by: REGISTER_BROKER response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   haServerAddr  string   optional  master's HA address
 *   masterAddr    string   optional  master's address
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.RegisterBrokerResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.RegisterBrokerResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const RegisterBrokerResponseHeader = defineHeader('RegisterBrokerResponseHeader', {
  haServerAddr: { type: 'string' },
  masterAddr: { type: 'string' },
} as const);
export type RegisterBrokerResponseHeader = HeaderValues<typeof RegisterBrokerResponseHeader.schema>;
