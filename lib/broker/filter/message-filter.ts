/**
 * The broker's per-pull message filter: tag hashes against the consume-queue entry, SQL92 against the message
 * properties read from the commit log.
 *
 * As in Java, a subscription is either a tag subscription (checked by the consume queue's tags code only) or an SQL92
 * one (checked by its expression only; Java's consume-queue step for SQL92 is a bloom-filter pre-check over
 * ConsumeQueueExt, which lets everything through when, as here, there is no bit map). An SQL92 selector sees the tag
 * as the `TAGS` property.
 *
 * @see org.apache.rocketmq.broker.filter.ExpressionMessageFilter
 * @see org.apache.rocketmq.broker.filter.MessageEvaluationContext
 */
import type { Logger } from '../../logger';
import { componentLogger } from '../../logger';
import { findProperty } from '../../../protocol/message/properties';
import { FilterExpressionError } from './filter-expression-error';
import { compileSql92, type Sql92Filter } from './sql92';

/** @see org.apache.rocketmq.common.filter.ExpressionType */
export const ExpressionType = {
  SQL92: 'SQL92',
  TAG: 'TAG',
} as const;
export type ExpressionType = (typeof ExpressionType)[keyof typeof ExpressionType];

/** Java's ExpressionType.isTagType: no type, an empty one, or TAG. */
export function isTagType(type: string | null | undefined): boolean {
  return type === null || type === undefined || type === '' || type === ExpressionType.TAG;
}

/** Java's SubscriptionData.SUB_ALL. */
export const SUB_ALL = '*';

/** The fields of a subscription (Java's SubscriptionData) the filter reads. */
export interface FilterSubscriptionData {
  topic?: string;
  subString: string;
  expressionType?: string | null;
  /** Java String.hashCode() of each subscribed tag. */
  codeSet?: Iterable<number>;
  classFilterMode?: boolean;
  subVersion?: number;
}

/** The cache size Java's SelectorParser keeps (compiled expressions and refusals, by expression text). */
export const DEFAULT_EXPRESSION_CACHE_SIZE = 100;

/**
 * Compiled SQL92 expressions by text, least recently used evicted; a refused expression is cached as its error, as
 * Java's SelectorParser.PARSE_CACHE does.
 */
export class CompiledExpressionCache {
  readonly #entries = new Map<string, Sql92Filter | FilterExpressionError>();

  constructor(readonly maxSize: number = DEFAULT_EXPRESSION_CACHE_SIZE) {}

  /** The compiled filter for `expression`; throws FilterExpressionError when Java refuses it. */
  get(expression: string): Sql92Filter {
    let entry = this.#entries.get(expression);
    if (entry !== undefined) {
      this.#entries.delete(expression);
      this.#entries.set(expression, entry);
    } else {
      try {
        entry = compileSql92(expression);
      } catch (e) {
        if (!(e instanceof FilterExpressionError)) throw e;
        entry = e;
      }
      this.#entries.set(expression, entry);
      if (this.#entries.size > this.maxSize) {
        const oldest = this.#entries.keys().next().value as string;
        this.#entries.delete(oldest);
      }
    }
    if (entry instanceof FilterExpressionError) throw entry;
    return entry;
  }

  get size(): number {
    return this.#entries.size;
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** A process-wide cache, shared by the broker's processors unless they bring their own. */
export const sharedExpressionCache = new CompiledExpressionCache();

export class ExpressionMessageFilter {
  readonly #codeSet: ReadonlySet<number>;
  readonly #subAll: boolean;
  readonly #tagType: boolean;
  readonly #log: Logger;
  /** The properties string the reader currently looks into (one reader, no closure per message). */
  #current = '';
  readonly #reader = (name: string): string | undefined => findProperty(this.#current, name);

  /**
   * @param subscriptionData the consumer's subscription (null: everything matches)
   * @param sqlFilter the compiled expression of an SQL92 subscription (see `create`); without it an SQL92
   *   subscription lets everything through, as Java's does without compiled filter data
   */
  constructor(
    readonly subscriptionData: FilterSubscriptionData | null,
    readonly sqlFilter: Sql92Filter | null = null,
    logger?: Logger,
  ) {
    this.#codeSet = new Set(subscriptionData?.codeSet ?? []);
    this.#subAll = subscriptionData?.subString === SUB_ALL;
    this.#tagType = isTagType(subscriptionData?.expressionType);
    this.#log = componentLogger('filter', logger);
  }

  /**
   * A filter for this subscription, compiling an SQL92 expression through the cache (once per expression text).
   * Throws FilterExpressionError for an expression Java refuses (the broker answers SUBSCRIPTION_PARSE_FAILED).
   */
  static create(
    subscriptionData: FilterSubscriptionData | null,
    cache: CompiledExpressionCache = sharedExpressionCache,
    logger?: Logger,
  ): ExpressionMessageFilter {
    let sqlFilter: Sql92Filter | null = null;
    if (subscriptionData && !subscriptionData.classFilterMode && !isTagType(subscriptionData.expressionType)) {
      if (subscriptionData.expressionType !== ExpressionType.SQL92) {
        throw new FilterExpressionError(`Unsupported expression type: ${subscriptionData.expressionType}`, subscriptionData.subString);
      }
      sqlFilter = cache.get(subscriptionData.subString);
    }
    return new ExpressionMessageFilter(subscriptionData, sqlFilter, logger);
  }

  /**
   * The consume-queue check: a tag subscription matches a tags code in its code set (compared as Java's
   * `tagsCode.intValue()`), or anything with `*`; entries without a tags code always match.
   */
  isMatchedByConsumeQueue(tagsCode: number | bigint | null | undefined): boolean {
    const sub = this.subscriptionData;
    if (sub === null || sub.classFilterMode) return true;
    if (!this.#tagType) return true;
    if (tagsCode === null || tagsCode === undefined) return true;
    if (this.#subAll) return true;
    const code = typeof tagsCode === 'bigint' ? Number(BigInt.asIntN(32, tagsCode)) : tagsCode | 0;
    return this.#codeSet.has(code);
  }

  /**
   * The commit-log check over the message's properties string (`name\u0001value\u0002...`): an SQL92 subscription
   * matches when its expression is TRUE; unknown and evaluation errors do not match.
   */
  isMatchedByCommitLog(propertiesString: string | null | undefined): boolean {
    const sub = this.subscriptionData;
    if (sub === null || sub.classFilterMode || this.#tagType) return true;
    const filter = this.sqlFilter;
    if (filter === null) return true;
    this.#current = propertiesString ?? '';
    try {
      return filter.evaluateRaw(this.#reader) === true;
    } catch (e) {
      if (this.#log.isLevelEnabled('debug')) {
        this.#log.debug({ topic: sub.topic, expression: filter.expression, err: e }, 'message filter error');
      }
      return false;
    } finally {
      this.#current = '';
    }
  }
}
