/**
 * Topic and broker permission bits.
 *
 * @see org.apache.rocketmq.common.constant.PermName
 */
export const PermName = {
  PERM_PRIORITY: 0x1 << 3,
  PERM_READ: 0x1 << 2,
  PERM_WRITE: 0x1 << 1,
  PERM_INHERIT: 0x1 << 0,
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

/** Java's PermName.perm2String: `RWX` with `-` for an absent bit (X = inherit). */
export function perm2String(perm: number): string {
  return (isReadable(perm) ? 'R' : '-') + (isWriteable(perm) ? 'W' : '-') + (isInherited(perm) ? 'X' : '-');
}
