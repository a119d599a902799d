/**
 * Topic system flags (unit topics).
 *
 * @see org.apache.rocketmq.common.sysflag.TopicSysFlag
 */
export const TopicSysFlag = {
  FLAG_UNIT: 0x1 << 0,
  FLAG_UNIT_SUB: 0x1 << 1,
} as const;

export function buildTopicSysFlag(unit: boolean, hasUnitSub: boolean): number {
  let f = 0;
  if (unit) f |= TopicSysFlag.FLAG_UNIT;
  if (hasUnitSub) f |= TopicSysFlag.FLAG_UNIT_SUB;
  return f;
}

export function hasUnitFlag(sysFlag: number): boolean {
  return (sysFlag & TopicSysFlag.FLAG_UNIT) === TopicSysFlag.FLAG_UNIT;
}

export function hasUnitSubFlag(sysFlag: number): boolean {
  return (sysFlag & TopicSysFlag.FLAG_UNIT_SUB) === TopicSysFlag.FLAG_UNIT_SUB;
}
