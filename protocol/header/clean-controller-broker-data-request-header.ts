/**
 * CleanControllerBrokerDataRequestHeader: Forget a broker set, or some of its broker ids, in the controller (mqadmin cleanBrokerMetadata).
 *
 * Used by: CLEAN_BROKER_DATA (1011) request (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   clusterName                 string   optional  cluster
 *   brokerName                  string   required  broker set
 *   brokerControllerIdsToClean  string   optional  `;`-separated broker ids (absent: the whole set)
 *   isCleanLivingBroker         boolean  optional  clean even ids that are alive
 *   invokeTime                  long     optional  ms
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.admin.CleanControllerBrokerDataRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const CleanControllerBrokerDataRequestHeader = defineHeader('CleanControllerBrokerDataRequestHeader', {
  clusterName: { type: 'string' },
  brokerName: { type: 'string', required: true },
  brokerControllerIdsToClean: { type: 'string' },
  isCleanLivingBroker: { type: 'boolean' },
  invokeTime: { type: 'long' },
} as const);
export type CleanControllerBrokerDataRequestHeader = HeaderValues<typeof CleanControllerBrokerDataRequestHeader.schema>;
