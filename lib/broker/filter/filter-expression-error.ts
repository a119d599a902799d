/**
 * The error raised for a filter expression the broker cannot compile.
 *
 * The message is the text Java's broker puts in the remark of its CHECK_CLIENT_CONFIG answer: the `toString()` of the
 * exception that made parsing fail (Java's MQFilterException wraps it as its cause and `getMessage()` returns the cause's
 * `toString()`), e.g. `org.apache.rocketmq.filter.parser.ParseException: Encountered "<EOF>" at line 1, column 10.` or
 * `java.lang.RuntimeException: Value '(NOT a)' cannot be compared.`
 *
 * @see org.apache.rocketmq.filter.expression.MQFilterException
 */
import { RocketMQError, type RocketMQErrorOptions } from '../../errors';

/** Java's ResponseCode.SUBSCRIPTION_PARSE_FAILED, the code of a refused expression. */
export const SUBSCRIPTION_PARSE_FAILED = 23;

export class FilterExpressionError extends RocketMQError {
  /** Java's response code for a subscription whose expression does not compile. */
  readonly responseCode = SUBSCRIPTION_PARSE_FAILED;

  constructor(
    message: string,
    /** The expression text as given. */
    readonly expression: string,
    /** 1-based line and column of the offending token (JavaCC's counting, tabs to multiples of 8), when known. */
    readonly line?: number,
    readonly column?: number,
    options: RocketMQErrorOptions = {},
  ) {
    super(message, { retriable: false, ...options });
  }
}
