/**
 * RocketMQ's SQL92 property filter: `compileSql92(expression)` parses and checks an expression once (as Java's
 * broker does per subscription version) and returns a filter evaluated over message properties.
 *
 * Accepted language: the 5.3.3 grammar, a superset of 4.9.8's (it adds `CONTAINS`, `STARTSWITH`, `ENDSWITH` and their
 * NOT forms; the price is that those three words are reserved and can no longer name a property, as in 5.3.3).
 *
 * @see org.apache.rocketmq.filter.SqlFilter
 * @see org.apache.rocketmq.filter.parser.SelectorParser#parse
 */
import { FilterExpressionError } from '../filter-expression-error';
import { compilePredicate, type CompiledPredicate, type PropertyReader } from './evaluator';
import { parseSql92, type Sql92Node } from './parser';

export { FilterExpressionError };
export type { PropertyReader, CompiledPredicate, Sql92Node };
export { parseSql92 };

export class Sql92Filter {
  readonly #predicate: CompiledPredicate;

  constructor(
    /** The expression text as the client sent it. */
    readonly expression: string,
    /** The checked syntax tree. */
    readonly ast: Sql92Node,
  ) {
    this.#predicate = compilePredicate(ast);
  }

  /**
   * Whether a message with these properties matches: TRUE only; unknown (null) and evaluation errors (a property
   * that cannot be converted to the compared type) are "not matched", as in Java's ExpressionMessageFilter.
   */
  evaluate(props: PropertyReader): boolean {
    try {
      return this.#predicate(props) === true;
    } catch {
      return false;
    }
  }

  /** Java's three-valued result (TRUE, FALSE, null); throws when Java's evaluation would throw. */
  evaluateRaw(props: PropertyReader): boolean | null {
    return this.#predicate(props);
  }
}

/**
 * Parses and compiles an SQL92 selector. Throws FilterExpressionError, whose message is the remark Java's broker
 * answers CHECK_CLIENT_CONFIG with, for an expression Java refuses.
 */
export function compileSql92(expression: string): Sql92Filter {
  if (typeof expression !== 'string') throw new FilterExpressionError('java.lang.NullPointerException', String(expression));
  return new Sql92Filter(expression, parseSql92(expression));
}
