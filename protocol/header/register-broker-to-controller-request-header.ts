/**
 * RegisterBrokerToControllerRequestHeader: A broker with an applied id registers (its address may have changed).
 *
 * Used by: CONTROLLER_REGISTER_BROKER (1003) request (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   clusterName    string   optional  cluster
 *   brokerName     string   optional  broker set
 *   brokerId       long     optional  its broker id
 *   brokerAddress  string   optional  its address
 *   invokeTime     long     optional  ms (Java long: 0 unless set)
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.register.RegisterBrokerToControllerRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const RegisterBrokerToControllerRequestHeader = defineHeader('RegisterBrokerToControllerRequestHeader', {
  clusterName: { type: 'string' },
  brokerName: { type: 'string' },
  brokerId: { type: 'long' },
  brokerAddress: { type: 'string' },
  invokeTime: { type: 'long' },
} as const);
export type RegisterBrokerToControllerRequestHeader = HeaderValues<typeof RegisterBrokerToControllerRequestHeader.schema>;
