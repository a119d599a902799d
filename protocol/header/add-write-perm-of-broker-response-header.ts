/**
 * AddWritePermOfBrokerResponseHeader: How many topics changed.
 *
 * Used by: ADD_WRITE_PERM_OF_BROKER response.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   addTopicCount  int      required  topics changed
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.AddWritePermOfBrokerResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.AddWritePermOfBrokerResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const AddWritePermOfBrokerResponseHeader = defineHeader('AddWritePermOfBrokerResponseHeader', {
  addTopicCount: { type: 'int', required: true },
} as const);
export type AddWritePermOfBrokerResponseHeader = HeaderValues<typeof AddWritePermOfBrokerResponseHeader.schema>;
