/**
 * What a request needs (parsed from it) and what an account owns (built from plain_acl.yml): both are Java's
 * PlainAccessResource. Resources are topics; a group is the retry topic `%RETRY%<group>`.
 *
 * @see org.apache.rocketmq.acl.plain.PlainAccessResource (4.9.8)
 * @see org.apache.rocketmq.acl.plain.PlainAccessConfig
 */
import { MixAll } from '../../../protocol/mix-all';
import { Permission } from './permission';
import type { RemoteAddressStrategy } from './remote-address-strategy';

/** One account of plain_acl.yml, as Java's PlainAccessConfig. */
export interface PlainAccessConfig {
  accessKey: string | null;
  secretKey: string | null;
  whiteRemoteAddress: string | null;
  admin: boolean;
  defaultTopicPerm: string | null;
  defaultGroupPerm: string | null;
  topicPerms: string[] | null;
  groupPerms: string[] | null;
}

export function isRetryTopic(topic: string | null | undefined): boolean {
  return typeof topic === 'string' && topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX);
}

export function getRetryTopic(group: string | null | undefined): string | null {
  return group === null || group === undefined ? null : MixAll.RETRY_GROUP_TOPIC_PREFIX + group;
}

/** "group:<g>" for a retry topic, "topic:<t>" otherwise (PlainAccessResource.printStr). */
export function printStr(resource: string, isGroup: boolean): string {
  return isGroup ? `group:${resource.substring(MixAll.RETRY_GROUP_TOPIC_PREFIX.length)}` : `topic:${resource}`;
}

/** What a request asks for. */
export class PlainAccessResource {
  accessKey: string | null = null;
  signature: string | null = null;
  secretToken: string | null = null;
  /** The client's IP (the remote address without its port). */
  whiteRemoteAddress: string | null = null;
  requestCode = 0;
  /** Resource → needed permission, in insertion order (checked in Java's HashMap order). */
  resourcePermMap: Map<string, number> | null = null;
  /** The signed content: extFields and body (null when the request had no extFields). */
  extFields: Record<string, string> | null = null;
  body: Buffer | null = null;
  /**
   * The signed content of a 5.x gRPC request (its x-mq-date-time header's bytes); when set, the signature is checked
   * over it instead of extFields and body (5.x PlainAccessResource.content).
   */
  content: Buffer | null = null;

  addResourceAndPerm(resource: string | null | undefined, perm: number): void {
    if (resource === null || resource === undefined) return;
    (this.resourcePermMap ??= new Map()).set(resource, perm);
  }
}

/** What an account owns. */
export interface OwnedAccess {
  readonly accessKey: string;
  readonly secretKey: string;
  readonly whiteRemoteAddress: string | null;
  readonly admin: boolean;
  readonly defaultTopicPerm: number;
  readonly defaultGroupPerm: number;
  readonly resourcePermMap: Map<string, number> | null;
  readonly remoteAddressStrategy: RemoteAddressStrategy;
}

export const DEFAULT_PERM = Permission.DENY;
