/**
 * RegisterFilterServerRequestHeader: A filter server registering with its broker.
 *
 * Used by: REGISTER_FILTER_SERVER (301) request (4.9.8 only).
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   filterServerAddr  string   required  filter server address
 *
 * @see org.apache.rocketmq.common.protocol.header.filtersrv.RegisterFilterServerRequestHeader (4.9.8)
 * (removed in 5.x)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const RegisterFilterServerRequestHeader = defineHeader('RegisterFilterServerRequestHeader', {
  filterServerAddr: { type: 'string', required: true },
} as const);
export type RegisterFilterServerRequestHeader = HeaderValues<typeof RegisterFilterServerRequestHeader.schema>;
