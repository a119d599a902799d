/**
 * A subscription expression: tags (`"*"`, `"TagA || TagB"`) or an SQL92 filter evaluated by the broker.
 *
 * @see org.apache.rocketmq.client.consumer.MessageSelector
 * @see org.apache.rocketmq.common.filter.FilterAPI
 */
import { ExpressionType, isTagType } from '../../protocol/body/expression-type';
import { SUB_ALL, type SubscriptionData } from '../../protocol/body/heartbeat-data';
import { javaStringHashCode } from '../../protocol/message/java-hash';
import { ConfigError } from '../errors';

export class MessageSelector {
  private constructor(readonly type: ExpressionType, readonly expression: string) {}

  /** An SQL92 expression over message properties (needs enablePropertyFilter on the broker). */
  static bySql(sql: string): MessageSelector {
    return new MessageSelector(ExpressionType.SQL92, sql);
  }

  /** A tag expression; null, empty or `*` selects every message. */
  static byTag(tag: string | null | undefined): MessageSelector {
    return new MessageSelector(ExpressionType.TAG, tag ?? '');
  }

  getExpressionType(): ExpressionType {
    return this.type;
  }

  getExpression(): string {
    return this.expression;
  }
}

/** FilterAPI.buildSubscriptionData: tags split on `||` and trimmed, their Java hashCodes in codeSet. */
export function buildSubscriptionData(topic: string, subString: string | null | undefined): SubscriptionData {
  const sd: SubscriptionData = {
    classFilterMode: false,
    topic,
    subString: '',
    tagsSet: [],
    codeSet: [],
    subVersion: Date.now(),
    expressionType: ExpressionType.TAG,
  };
  if (subString == null || subString === '' || subString === SUB_ALL) {
    sd.subString = SUB_ALL;
    return sd;
  }
  sd.subString = subString;
  for (const tag of subString.split('||')) {
    const t = tag.trim();
    if (t.length > 0 && !sd.tagsSet.includes(t)) {
      sd.tagsSet.push(t);
      sd.codeSet.push(javaStringHashCode(t));
    }
  }
  if (sd.tagsSet.length === 0) throw new ConfigError(`subString split error: ${subString}`);
  return sd;
}

/** FilterAPI.build: a TAG expression as above, SQL92 kept verbatim for the broker. */
export function buildSubscriptionDataOfType(topic: string, subString: string | null | undefined, type: string | null | undefined): SubscriptionData {
  if (type == null || isTagType(type)) return buildSubscriptionData(topic, subString);
  if (subString == null || subString.trim() === '') throw new ConfigError(`Expression can't be null! ${type}`);
  return {
    classFilterMode: false, topic, subString, tagsSet: [], codeSet: [], subVersion: Date.now(), expressionType: type,
  };
}
