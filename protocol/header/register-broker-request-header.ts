/**
 * RegisterBrokerRequestHeader: A broker registering with a name server; the body is its topic config (plain JSON, or RegisterBrokerBody's deflated form when compressed).
 *
 * Used by: REGISTER_BROKER (103) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   brokerName              string   required  broker name
 *   brokerAddr              string   required  broker address ip:port
 *   clusterName             string   required  cluster name
 *   haServerAddr            string   required  HA address ip:port
 *   brokerId                long     required  0 master, else slave
 *   heartbeatTimeoutMillis  long     5.x opt.  heartbeat timeout (5.x)
 *   enableActingMaster      boolean  5.x opt.  acting master enabled (5.x)
 *   compressed              boolean  optional  body is RegisterBrokerBody's compressed form
 *   bodyCrc32               int      optional  CRC32 of the body (0: unchecked)
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.RegisterBrokerRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.RegisterBrokerRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const RegisterBrokerRequestHeader = defineHeader('RegisterBrokerRequestHeader', {
  brokerName: { type: 'string', required: true },
  brokerAddr: { type: 'string', required: true },
  clusterName: { type: 'string', required: true },
  haServerAddr: { type: 'string', required: true },
  brokerId: { type: 'long', required: true },
  heartbeatTimeoutMillis: { type: 'long' },
  enableActingMaster: { type: 'boolean' },
  compressed: { type: 'boolean' },
  bodyCrc32: { type: 'int' },
} as const);
export type RegisterBrokerRequestHeader = HeaderValues<typeof RegisterBrokerRequestHeader.schema>;
