/**
 * The parts of a topic route the client uses, with Java's field names so that the decoded
 * GET_ROUTEINFO_BY_TOPIC body fits structurally. PermName bits live here for now.
 *
 * @see org.apache.rocketmq.common.protocol.route.TopicRouteData
 * @see org.apache.rocketmq.common.protocol.route.QueueData
 * @see org.apache.rocketmq.common.protocol.route.BrokerData
 * @see org.apache.rocketmq.common.constant.PermName
 */

/** Queues of one broker for one topic. */
export interface QueueData {
  brokerName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicSysFlag: number;
}

/** One broker group: its name and addresses by broker id (0 is the master). JSON keys arrive as strings. */
export interface BrokerData {
  cluster: string;
  brokerName: string;
  brokerAddrs: Record<string | number, string>;
}

/** The route of a topic as the name server returns it. */
export interface TopicRouteData {
  /** "brokerName:queueNums;..." for an ordered topic configured on the name server, else empty or absent. */
  orderTopicConf?: string | null;
  queueDatas: QueueData[];
  brokerDatas: BrokerData[];
  filterServerTable?: Record<string, string[]>;
}

/** Permission bits of a topic or broker. */
export const PermName = {
  PERM_PRIORITY: 0x1 << 3,
  PERM_READ: 0x1 << 2,
  PERM_WRITE: 0x1 << 1,
  PERM_INHERIT: 0x1,
} as const;

export function isReadable(perm: number): boolean {
  return (perm & PermName.PERM_READ) === PermName.PERM_READ;
}

export function isWriteable(perm: number): boolean {
  return (perm & PermName.PERM_WRITE) === PermName.PERM_WRITE;
}

export function isInherited(perm: number): boolean {
  return (perm & PermName.PERM_INHERIT) === PermName.PERM_INHERIT;
}

/** "RWX" with "-" for a missing bit (PermName.perm2String). */
export function perm2String(perm: number): string {
  return (isReadable(perm) ? 'R' : '-') + (isWriteable(perm) ? 'W' : '-') + (isInherited(perm) ? 'X' : '-');
}

/** The master's address of a broker group (id 0), if any. */
export function masterAddr(brokerData: BrokerData): string | undefined {
  return Object.prototype.hasOwnProperty.call(brokerData.brokerAddrs, '0') ? brokerData.brokerAddrs['0'] : undefined;
}
