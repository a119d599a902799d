/**
 * AddWritePermOfBrokerRequestHeader: Restores a broker's write permission in the name server's routes.
 *
 * Used by: ADD_WRITE_PERM_OF_BROKER (327) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   brokerName  string   required  broker name
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.AddWritePermOfBrokerRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.AddWritePermOfBrokerRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const AddWritePermOfBrokerRequestHeader = defineHeader('AddWritePermOfBrokerRequestHeader', {
  brokerName: { type: 'string', required: true },
} as const);
export type AddWritePermOfBrokerRequestHeader = HeaderValues<typeof AddWritePermOfBrokerRequestHeader.schema>;
