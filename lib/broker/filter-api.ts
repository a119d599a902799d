/**
 * Builds a SubscriptionData from a topic and a subscription expression as the broker does for pulls with the
 * SUBSCRIPTION flag: tag expressions `a || b` become a tag set and their String.hashCode() set.
 *
 * @see org.apache.rocketmq.common.filter.FilterAPI#build
 */
import { type SubscriptionData, SUB_ALL } from '../../protocol/body/heartbeat-data';
import { javaStringHashCode } from '../../protocol/message/java-hash';
import { isTagType } from './filter/message-filter';

export function buildSubscriptionData(topic: string, subString: string | undefined, expressionType?: string): SubscriptionData {
  const sub: SubscriptionData = {
    classFilterMode: false,
    topic,
    subString: subString ?? '',
    tagsSet: [],
    codeSet: [],
    subVersion: Date.now(),
    expressionType: expressionType || 'TAG',
  };
  if (!isTagType(expressionType)) return sub;
  if (!subString || subString === SUB_ALL || subString.trim() === '') {
    sub.subString = SUB_ALL;
    return sub;
  }
  for (const tag of subString.split('||')) {
    const t = tag.trim();
    if (t.length > 0 && !sub.tagsSet.includes(t)) {
      sub.tagsSet.push(t);
      sub.codeSet.push(javaStringHashCode(t));
    }
  }
  return sub;
}

/** Java PullSysFlag bits. */
export const PullSysFlag = {
  FLAG_COMMIT_OFFSET: 0x1,
  FLAG_SUSPEND: 0x1 << 1,
  FLAG_SUBSCRIPTION: 0x1 << 2,
  FLAG_CLASS_FILTER: 0x1 << 3,
  FLAG_LITE_PULL_MESSAGE: 0x1 << 4,
} as const;
