/**
 * GetBrokerAclConfigResponseHeader: A broker's ACL config versions.
 *
 * Used by: GET_BROKER_CLUSTER_ACL_INFO (52) response (4.9.8 ACL 1.0 only).
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   version            string   required  ACL data version
 *   allAclFileVersion  string   optional  versions of every ACL file
 *   brokerName         string   required  broker name
 *   brokerAddr         string   required  broker address
 *   clusterName        string   required  cluster name
 *
 * @see org.apache.rocketmq.common.protocol.header.GetBrokerAclConfigResponseHeader (4.9.8)
 * (removed in 5.x)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const GetBrokerAclConfigResponseHeader = defineHeader('GetBrokerAclConfigResponseHeader', {
  version: { type: 'string', required: true },
  allAclFileVersion: { type: 'string' },
  brokerName: { type: 'string', required: true },
  brokerAddr: { type: 'string', required: true },
  clusterName: { type: 'string', required: true },
} as const);
export type GetBrokerAclConfigResponseHeader = HeaderValues<typeof GetBrokerAclConfigResponseHeader.schema>;
