/**
 * ApplyBrokerIdRequestHeader: A broker claims a broker id with its check code ("<brokerAddress>;<ms>", kept in its brokerIdentity file).
 *
 * Used by: CONTROLLER_APPLY_BROKER_ID (1013) request (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   clusterName        string   optional  cluster
 *   brokerName         string   optional  broker set
 *   appliedBrokerId    long     optional  the broker id claimed
 *   registerCheckCode  string   optional  "<brokerAddress>;<timestamp ms>"
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.register.ApplyBrokerIdRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ApplyBrokerIdRequestHeader = defineHeader('ApplyBrokerIdRequestHeader', {
  clusterName: { type: 'string' },
  brokerName: { type: 'string' },
  appliedBrokerId: { type: 'long' },
  registerCheckCode: { type: 'string' },
} as const);
export type ApplyBrokerIdRequestHeader = HeaderValues<typeof ApplyBrokerIdRequestHeader.schema>;
