/**
 * RegisterFilterServerResponseHeader: The broker's identity.
 *
 * Used by: REGISTER_FILTER_SERVER response (4.9.8 only).
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   brokerName  string   required  broker name
 *   brokerId    long     required  broker id
 *
 * @see org.apache.rocketmq.common.protocol.header.filtersrv.RegisterFilterServerResponseHeader (4.9.8)
 * (removed in 5.x)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const RegisterFilterServerResponseHeader = defineHeader('RegisterFilterServerResponseHeader', {
  brokerName: { type: 'string', required: true },
  brokerId: { type: 'long', required: true },
} as const);
export type RegisterFilterServerResponseHeader = HeaderValues<typeof RegisterFilterServerResponseHeader.schema>;
