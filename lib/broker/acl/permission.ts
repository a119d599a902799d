/**
 * ACL 1.0 permission bits and their parsing, as Java's Permission: DENY 1, ANY 2, PUB 4, SUB 8; the request codes
 * that need an admin account; "Res=Perm" resource lists.
 *
 * @see org.apache.rocketmq.acl.common.Permission (4.9.8)
 * @see org.apache.rocketmq.acl.common.AclConstants
 */
import { RequestCode } from '../../../protocol/code/request-code';
import { AclException } from '../../errors';

export const Permission = { DENY: 1, ANY: 2, PUB: 4, SUB: 8 } as const;

/** The five codes of Permission.ADMIN_CODE; every other code is open to any account (as in 4.9.8). */
export const ADMIN_CODE: ReadonlySet<number> = new Set([
  RequestCode.UPDATE_AND_CREATE_TOPIC,
  RequestCode.UPDATE_BROKER_CONFIG,
  RequestCode.DELETE_TOPIC_IN_BROKER,
  RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
  RequestCode.DELETE_SUBSCRIPTIONGROUP,
]);

export function needAdminPerm(code: number): boolean {
  return ADMIN_CODE.has(code);
}

export function checkPermission(neededPerm: number, ownedPerm: number): boolean {
  if ((ownedPerm & Permission.DENY) > 0) return false;
  if ((neededPerm & Permission.ANY) > 0) return (ownedPerm & Permission.PUB) > 0 || (ownedPerm & Permission.SUB) > 0;
  return (neededPerm & ownedPerm) > 0;
}

/** "PUB", "SUB", "PUB|SUB", "SUB|PUB", "DENY"; anything else (or nothing) is DENY. */
export function parsePermFromString(permString: string | null | undefined): number {
  if (permString === null || permString === undefined) return Permission.DENY;
  switch (permString.trim()) {
    case 'PUB': return Permission.PUB;
    case 'SUB': return Permission.SUB;
    case 'PUB|SUB':
    case 'SUB|PUB': return Permission.PUB | Permission.SUB;
    default: return Permission.DENY;
  }
}

/** Apache StringUtils.split: separators collapse, no empty tokens. */
export function splitNonEmpty(s: string, sep: string): string[] {
  return s.split(sep).filter((t) => t.length > 0);
}

/** Each "Res=Perm" as [resource, perm]; a malformed entry throws as Permission.parseResourcePerms does. */
export function parseResourcePerms(isTopic: boolean, resources: readonly string[] | null | undefined): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  for (const resource of resources ?? []) {
    const items = splitNonEmpty(resource, '=');
    if (items.length !== 2) {
      throw new AclException(`Parse resource permission failed for ${isTopic ? 'topic' : 'group'}:${resource}`);
    }
    out.push([items[0].trim(), parsePermFromString(items[1].trim())]);
  }
  return out;
}

/** The check UPDATE_AND_CREATE_ACL_CONFIG runs on topicPerms / groupPerms (Permission.checkResourcePerms). */
export function checkResourcePerms(resources: readonly string[] | null | undefined): void {
  for (const resource of resources ?? []) {
    const items = splitNonEmpty(resource, '=');
    if (items.length !== 2) {
      throw new AclException(`Parse Resource format error for ${resource}.\nThe expected resource format is 'Res=Perm'. For example: topicA=SUB`);
    }
    if (items[1].trim() !== 'DENY' && parsePermFromString(items[1].trim()) === Permission.DENY) {
      throw new AclException(`Parse resource permission error for ${resource}.\nThe expected permissions are 'SUB' or 'PUB' or 'SUB|PUB' or 'PUB|SUB'.`);
    }
  }
}
