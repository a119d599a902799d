/**
 * ElectMasterRequestHeader: Elect a master in a broker set: a broker electing itself, an admin designating one, or the controller after the master went away (brokerId -1).
 *
 * Used by: CONTROLLER_ELECT_MASTER (1002) request (5.x controller mode; no 4.9.8 peer sends it).
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   clusterName     string   required  cluster ("" when the controller triggers it)
 *   brokerName      string   required  broker set
 *   brokerId        long     required  who asks (-1: the controller)
 *   designateElect  boolean  required  elect brokerId or nothing (mqadmin electMaster)
 *   invokeTime      long     optional  ms
 *
 * @see org.apache.rocketmq.remoting.protocol.header.controller.ElectMasterRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ElectMasterRequestHeader = defineHeader('ElectMasterRequestHeader', {
  clusterName: { type: 'string', required: true },
  brokerName: { type: 'string', required: true },
  brokerId: { type: 'long', required: true },
  designateElect: { type: 'boolean', required: true },
  invokeTime: { type: 'long' },
} as const);
export type ElectMasterRequestHeader = HeaderValues<typeof ElectMasterRequestHeader.schema>;
