/**
 * Namespaces: `<namespace>%<resource>`, keeping the `%RETRY%` / `%DLQ%` prefix in front and leaving system
 * topics and system groups untouched.
 *
 * @see org.apache.rocketmq.common.protocol.NamespaceUtil
 */
import { MixAll, isSysConsumerGroup, isSystemTopic } from './mix-all';

const NAMESPACE_SEPARATOR = '%';
const RETRY = MixAll.RETRY_GROUP_TOPIC_PREFIX;
const DLQ = MixAll.DLQ_GROUP_TOPIC_PREFIX;

type Str = string | null | undefined;

function isEmpty(s: Str): s is '' | null | undefined {
  return s == null || s.length === 0;
}

/** StringUtils.isNotBlank: not null and not only whitespace. */
function isNotBlank(s: Str): s is string {
  return s != null && s.trim().length > 0;
}

function withoutRetryAndDLQ(resource: Str): string {
  if (isEmpty(resource)) return '';
  if (isRetryTopic(resource)) return resource.substring(RETRY.length);
  if (isDLQTopic(resource)) return resource.substring(DLQ.length);
  return resource;
}

function isSystemResource(resource: Str): boolean {
  if (isEmpty(resource)) return false;
  return isSystemTopic(resource) || isSysConsumerGroup(resource);
}

function prefixOf(resource: string): string {
  return (isRetryTopic(resource) ? RETRY : '') + (isDLQTopic(resource) ? DLQ : '');
}

export const NamespaceUtil = {
  NAMESPACE_SEPARATOR,
  STRING_BLANK: '',
  RETRY_PREFIX_LENGTH: RETRY.length,
  DLQ_PREFIX_LENGTH: DLQ.length,

  withoutNamespace,

  /** `T` → `NS%T`, `%RETRY%G` → `%RETRY%NS%G`; system resources and already wrapped names are returned as they are. */
  wrapNamespace<T extends Str>(namespace: Str, resourceWithOutNamespace: T): T | string {
    if (isEmpty(namespace) || isEmpty(resourceWithOutNamespace)) return resourceWithOutNamespace;
    if (isSystemResource(resourceWithOutNamespace) || NamespaceUtil.isAlreadyWithNamespace(resourceWithOutNamespace, namespace)) {
      return resourceWithOutNamespace;
    }
    return prefixOf(resourceWithOutNamespace) + namespace + NAMESPACE_SEPARATOR + withoutRetryAndDLQ(resourceWithOutNamespace);
  },

  isAlreadyWithNamespace(resource: Str, namespace: Str): boolean {
    if (isEmpty(namespace) || isEmpty(resource) || isSystemResource(resource)) return false;
    return withoutRetryAndDLQ(resource).startsWith(namespace + NAMESPACE_SEPARATOR);
  },

  /** `%RETRY%` + wrapNamespace(namespace, group); null for an empty group. */
  wrapNamespaceAndRetry(namespace: Str, consumerGroup: Str): string | null {
    if (isEmpty(consumerGroup)) return null;
    return RETRY + NamespaceUtil.wrapNamespace(namespace, consumerGroup);
  },

  /** The namespace part of a resource, or "". */
  getNamespaceFromResource(resource: Str): string {
    if (isEmpty(resource) || isSystemResource(resource)) return '';
    const bare = withoutRetryAndDLQ(resource);
    const index = bare.indexOf(NAMESPACE_SEPARATOR);
    return index > 0 ? bare.substring(0, index) : '';
  },

  isRetryTopic,
  isDLQTopic,
} as const;

/**
 * Strips the namespace. With one argument, whatever precedes the first `%` (after a `%RETRY%` / `%DLQ%` prefix) is
 * removed: `MQ_INST_XX%T` → `T`, `%RETRY%MQ_INST_XX%G` → `%RETRY%G`. With two, only that namespace is, and an empty
 * namespace changes nothing: (`NS1%T`, `NS1`) → `T`; (`%RETRY%NS2%G`, `NS3`) → unchanged; (`NS2%T`, null) → unchanged.
 * The arity matters as in Java: pass the namespace argument, even when undefined, to get the two-argument form.
 */
export function withoutNamespace<T extends Str>(resourceWithNamespace: T): T | string;
export function withoutNamespace<T extends Str>(resourceWithNamespace: T, namespace: Str): T | string;
export function withoutNamespace<T extends Str>(resourceWithNamespace: T, namespace?: Str): T | string {
  if (arguments.length >= 2) {
    if (isEmpty(resourceWithNamespace) || isEmpty(namespace)) return resourceWithNamespace;
    if (withoutRetryAndDLQ(resourceWithNamespace).startsWith(namespace + NAMESPACE_SEPARATOR)) {
      return withoutNamespace(resourceWithNamespace);
    }
    return resourceWithNamespace;
  }
  if (isEmpty(resourceWithNamespace) || isSystemResource(resourceWithNamespace)) return resourceWithNamespace;
  const bare = withoutRetryAndDLQ(resourceWithNamespace);
  const index = bare.indexOf(NAMESPACE_SEPARATOR);
  if (index > 0) return prefixOf(resourceWithNamespace) + bare.substring(index + 1);
  return resourceWithNamespace;
}

export function isRetryTopic(resource: Str): boolean {
  return isNotBlank(resource) && resource.startsWith(RETRY);
}

export function isDLQTopic(resource: Str): boolean {
  return isNotBlank(resource) && resource.startsWith(DLQ);
}
