/**
 * A recursive-descent parser for RocketMQ's SQL92 selector grammar, producing an AST with the checks Java's expression
 * factories make while parsing (their failures become FilterExpressionError with Java's message).
 *
 * Grammar (SelectorParser.jj; 5.3.3 adds the CONTAINS / STARTSWITH / ENDSWITH rows, 4.9.8 lacks them):
 * ```
 * selector   := or                                   -- no end-of-input check: Java ignores what follows
 * or         := and ( OR and )*
 * and        := equality ( AND equality )*
 * equality   := comparison ( "=" comparison | "<>" comparison | IS NULL | IS NOT NULL )*
 * comparison := unary ( (">" | ">=" | "<" | "<=") unary
 *                     | [NOT] (CONTAINS | STARTSWITH | ENDSWITH) STRING
 *                     | [NOT] BETWEEN unary AND unary
 *                     | [NOT] IN "(" STRING ("," STRING)* ")" )*
 * unary      := "+" unary | "-" unary | NOT unary | primary   -- NOT binds tighter than comparisons: NOT a = 1 is (NOT a) = 1
 * primary    := literal | ID | "(" or ")"
 * literal    := STRING | DECIMAL | FLOAT | TRUE | FALSE | NULL
 * ```
 *
 * @see org.apache.rocketmq.filter.parser.SelectorParser
 * @see org.apache.rocketmq.filter.expression.ComparisonExpression (the create* checks)
 */
import { FilterExpressionError } from '../filter-expression-error';
import {
  JavaConversionError,
  JavaType,
  type JavaValue,
  comparatorFor,
  javaConversionFailure,
  javaDoubleToString,
  javaValueToString,
  toLongValue,
} from './java-values';
import { Lexer, TOKEN_IMAGE, TokenKind, decodeStringLiteral, javaCCEscape, javaCCPosition, type Token } from './lexer';

export type ComparisonOperator = '=' | '>' | '>=' | '<' | '<=';
export type StringMatchOperator = 'CONTAINS' | 'STARTSWITH' | 'ENDSWITH';

export type Sql92Node =
  /** A literal. TRUE, FALSE and NULL are Java's BooleanConstantExpression. */
  | { type: 'constant'; valueType: JavaType; value: JavaValue }
  | { type: 'property'; name: string }
  | { type: 'negate'; operand: Sql92Node }
  | { type: 'not'; operand: Sql92Node }
  /** A property used where a boolean is needed (Java's UnaryExpression.createBooleanCast). */
  | { type: 'booleanCast'; operand: Sql92Node }
  | { type: 'and' | 'or'; left: Sql92Node; right: Sql92Node }
  /** `=` is Java's doCreateEqual (also IS NULL, as `x = NULL`); `<>` is NOT of `=`. */
  | { type: 'comparison'; operator: ComparisonOperator; left: Sql92Node; right: Sql92Node }
  | { type: 'in'; property: string; values: readonly string[]; not: boolean }
  | { type: 'stringMatch'; operator: StringMatchOperator; not: boolean; operand: Sql92Node; search: string };

const PARSE_EXCEPTION = 'org.apache.rocketmq.filter.parser.ParseException';
const RUNTIME_EXCEPTION = 'java.lang.RuntimeException';

/** Whether Java's expression object for this node implements BooleanExpression. */
export function isBooleanNode(node: Sql92Node): boolean {
  switch (node.type) {
    case 'constant': return node.valueType === JavaType.BOOLEAN || node.valueType === JavaType.NULL;
    case 'property':
    case 'negate': return false;
    default: return true;
  }
}

/** Java's toString() of the expression, used in its error messages. */
export function nodeToString(node: Sql92Node): string {
  switch (node.type) {
    case 'constant': {
      const v = node.value;
      if (v === null) return 'NULL';
      if (node.valueType === JavaType.BOOLEAN) return v ? 'TRUE' : 'FALSE';
      if (node.valueType === JavaType.STRING) return "'" + (v as string).replace(/'/g, "''") + "'";
      if (node.valueType === JavaType.DOUBLE) return javaDoubleToString(v as number);
      return String(v);
    }
    case 'property': return node.name;
    case 'negate': return '(- ' + nodeToString(node.operand) + ')';
    case 'not': return '(NOT ' + nodeToString(node.operand) + ')';
    case 'booleanCast': return nodeToString(node.operand);
    case 'and': return '(' + nodeToString(node.left) + ' && ' + nodeToString(node.right) + ')';
    case 'or': return '(' + nodeToString(node.left) + ' || ' + nodeToString(node.right) + ')';
    case 'comparison':
      return '(' + nodeToString(node.left) + ' ' + (node.operator === '=' ? '==' : node.operator) + ' ' + nodeToString(node.right) + ')';
    case 'in': return node.property + (node.not ? ' NOT IN' : ' IN') + ' ( ' + node.values.join(', ') + ' )';
    case 'stringMatch': return '(' + (node.not ? 'NOT ' : '') + node.operator + ' ' + nodeToString(node.operand) + ')';
  }
}

const NULL_CONSTANT: Sql92Node = { type: 'constant', valueType: JavaType.NULL, value: null };
const TRUE_CONSTANT: Sql92Node = { type: 'constant', valueType: JavaType.BOOLEAN, value: true };
const FALSE_CONSTANT: Sql92Node = { type: 'constant', valueType: JavaType.BOOLEAN, value: false };

const DOUBLE_MAX = 1.7976931348623157e308;
const DOUBLE_MIN = 5e-324;

export function parseSql92(expression: string): Sql92Node {
  return new Parser(expression).parse();
}

class Parser {
  readonly #lexer: Lexer;
  readonly #buffer: Token[] = [];
  #last: Token | undefined;

  constructor(readonly src: string) {
    this.#lexer = new Lexer(src);
  }

  parse(): Sql92Node {
    return this.#asBoolean(this.#or());
  }

  // ---- tokens

  #peek(n = 0): Token {
    while (this.#buffer.length <= n) this.#buffer.push(this.#lexer.next());
    return this.#buffer[n];
  }

  #take(): Token {
    const t = this.#peek();
    this.#buffer.shift();
    this.#last = t;
    return t;
  }

  #expect(kind: TokenKind): Token {
    if (this.#peek().kind !== kind) throw this.#unexpected();
    return this.#take();
  }

  #unexpected(): FilterExpressionError {
    const tok = this.#peek();
    // JavaCC places the EOF token on the last character read.
    const index = tok.kind === TokenKind.EOF ? Math.max(0, this.src.length - 1) : tok.start;
    // (an empty expression has no character: JavaCC reports line 0, column 0)
    const { line, column } = this.src.length === 0 ? { line: 0, column: 0 } : javaCCPosition(this.src, index);
    const shown = tok.kind === TokenKind.EOF ? TOKEN_IMAGE[TokenKind.EOF] : ` ${TOKEN_IMAGE[tok.kind]} "${javaCCEscape(tok.image)} "`;
    return new FilterExpressionError(`${PARSE_EXCEPTION}: Encountered "${shown}" at line ${line}, column ${column}.`, this.src, line, column);
  }

  #semantic(message: string): FilterExpressionError {
    const at = this.#last ? javaCCPosition(this.src, this.#last.start) : undefined;
    return new FilterExpressionError(message, this.src, at?.line, at?.column);
  }

  // ---- grammar

  #or(): Sql92Node {
    let left = this.#and();
    while (this.#peek().kind === TokenKind.OR) {
      this.#take();
      const right = this.#and();
      left = { type: 'or', left: this.#asBoolean(left), right: this.#asBoolean(right) };
    }
    return left;
  }

  #and(): Sql92Node {
    let left = this.#equality();
    while (this.#peek().kind === TokenKind.AND) {
      this.#take();
      const right = this.#equality();
      left = { type: 'and', left: this.#asBoolean(left), right: this.#asBoolean(right) };
    }
    return left;
  }

  #equality(): Sql92Node {
    let left = this.#comparison();
    for (;;) {
      const kind = this.#peek().kind;
      if (kind === TokenKind.EQ) {
        this.#take();
        left = this.#createEqual(left, this.#comparison());
      } else if (kind === TokenKind.NE) {
        this.#take();
        left = { type: 'not', operand: this.#createEqual(left, this.#comparison()) };
      } else if (kind === TokenKind.IS) {
        this.#take();
        if (this.#peek().kind === TokenKind.NULL) {
          this.#take();
          left = { type: 'comparison', operator: '=', left, right: NULL_CONSTANT };
        } else {
          this.#expect(TokenKind.NOT);
          this.#expect(TokenKind.NULL);
          left = { type: 'not', operand: { type: 'comparison', operator: '=', left, right: NULL_CONSTANT } };
        }
      } else {
        return left;
      }
    }
  }

  #comparison(): Sql92Node {
    let left = this.#unary();
    for (;;) {
      const kind = this.#peek().kind;
      switch (kind) {
        case TokenKind.GT:
        case TokenKind.GE:
        case TokenKind.LT:
        case TokenKind.LE: {
          this.#take();
          const operator = (kind === TokenKind.GT ? '>' : kind === TokenKind.GE ? '>=' : kind === TokenKind.LT ? '<' : '<=') as ComparisonOperator;
          left = this.#createLessThanLike(operator, left, this.#unary());
          continue;
        }
        case TokenKind.CONTAINS:
        case TokenKind.STARTSWITH:
        case TokenKind.ENDSWITH:
          this.#take();
          left = this.#stringMatch(kind, false, left);
          continue;
        case TokenKind.BETWEEN:
          this.#take();
          left = this.#between(left, false);
          continue;
        case TokenKind.IN:
          this.#take();
          left = this.#in(left, false);
          continue;
        case TokenKind.NOT: {
          const next = this.#peek(1).kind;
          if (next === TokenKind.CONTAINS || next === TokenKind.STARTSWITH || next === TokenKind.ENDSWITH) {
            this.#take();
            this.#take();
            left = this.#stringMatch(next, true, left);
          } else if (next === TokenKind.BETWEEN) {
            this.#take();
            this.#take();
            left = this.#between(left, true);
          } else if (next === TokenKind.IN) {
            this.#take();
            this.#take();
            left = this.#in(left, true);
          } else {
            throw this.#unexpected();
          }
          continue;
        }
        default:
          return left;
      }
    }
  }

  #stringMatch(kind: TokenKind, not: boolean, operand: Sql92Node): Sql92Node {
    const operator: StringMatchOperator = kind === TokenKind.CONTAINS ? 'CONTAINS' : kind === TokenKind.STARTSWITH ? 'STARTSWITH' : 'ENDSWITH';
    const search = decodeStringLiteral(this.#expect(TokenKind.STRING_LITERAL).image);
    return { type: 'stringMatch', operator, not, operand, search };
  }

  #between(value: Sql92Node, not: boolean): Sql92Node {
    const low = this.#unary();
    this.#expect(TokenKind.AND);
    const high = this.#unary();
    if (not) {
      return { type: 'or', left: this.#createLessThanLike('<', value, low), right: this.#createLessThanLike('>', value, high) };
    }
    if (low.type === 'constant' && high.type === 'constant') {
      if (low.value === null || high.value === null) {
        throw this.#semantic(`${RUNTIME_EXCEPTION}: Illegal values of between, values can not be null!`);
      }
      let ret: number;
      try {
        ret = comparatorFor(high.valueType, low.valueType)(high.value, low.value);
      } catch (e) {
        if (!(e instanceof JavaConversionError)) throw e;
        throw this.#semantic(javaConversionFailure(high.valueType, high.value, low.valueType, low.value));
      }
      if (ret < 0) {
        throw this.#semantic(
          `${RUNTIME_EXCEPTION}: Illegal values of between, left value(${javaValueToString(low.valueType, low.value)}) must less than or equal to right value(${javaValueToString(high.valueType, high.value)})`,
        );
      }
    }
    return { type: 'and', left: this.#createLessThanLike('>=', value, low), right: this.#createLessThanLike('<=', value, high) };
  }

  #in(left: Sql92Node, not: boolean): Sql92Node {
    this.#expect(TokenKind.LPAREN);
    const values = [decodeStringLiteral(this.#expect(TokenKind.STRING_LITERAL).image)];
    while (this.#peek().kind === TokenKind.COMMA) {
      this.#take();
      values.push(decodeStringLiteral(this.#expect(TokenKind.STRING_LITERAL).image));
    }
    this.#expect(TokenKind.RPAREN);
    if (left.type !== 'property') {
      throw this.#semantic(`${RUNTIME_EXCEPTION}: Expected a property for In expression, got: ${nodeToString(left)}`);
    }
    return { type: 'in', property: left.name, values, not };
  }

  #unary(): Sql92Node {
    const kind = this.#peek().kind;
    if (kind === TokenKind.PLUS) {
      this.#take();
      return this.#unary();
    }
    if (kind === TokenKind.MINUS) {
      this.#take();
      return { type: 'negate', operand: this.#unary() };
    }
    if (kind === TokenKind.NOT) {
      this.#take();
      return { type: 'not', operand: this.#asBoolean(this.#unary()) };
    }
    return this.#primary();
  }

  #primary(): Sql92Node {
    const tok = this.#peek();
    switch (tok.kind) {
      case TokenKind.STRING_LITERAL:
        this.#take();
        return { type: 'constant', valueType: JavaType.STRING, value: decodeStringLiteral(tok.image) };
      case TokenKind.DECIMAL_LITERAL:
        this.#take();
        return this.#decimal(tok.image);
      case TokenKind.FLOATING_POINT_LITERAL:
        this.#take();
        return this.#float(tok.image);
      case TokenKind.TRUE:
        this.#take();
        return TRUE_CONSTANT;
      case TokenKind.FALSE:
        this.#take();
        return FALSE_CONSTANT;
      case TokenKind.NULL:
        this.#take();
        return NULL_CONSTANT;
      case TokenKind.ID:
        this.#take();
        return { type: 'property', name: tok.image };
      case TokenKind.LPAREN: {
        this.#take();
        const inner = this.#or();
        this.#expect(TokenKind.RPAREN);
        return inner;
      }
      default:
        throw this.#unexpected();
    }
  }

  /** ConstantExpression.createFromDecimal: a Long, narrowed to Integer when it fits. */
  #decimal(image: string): Sql92Node {
    const text = image.endsWith('l') || image.endsWith('L') ? image.substring(0, image.length - 1) : image;
    const v = BigInt(text);
    if (v > 9223372036854775807n) {
      throw this.#semantic(`java.lang.NumberFormatException: For input string: "${text}"`);
    }
    if (v <= 2147483647n) return { type: 'constant', valueType: JavaType.INTEGER, value: Number(v) };
    return { type: 'constant', valueType: JavaType.LONG, value: toLongValue(v) };
  }

  /** ConstantExpression.createFloat: refuses values above Double.MAX_VALUE and below Double.MIN_VALUE (so 0.0 too). */
  #float(image: string): Sql92Node {
    const v = Number(image);
    if (v > DOUBLE_MAX) throw this.#semantic(`${RUNTIME_EXCEPTION}: ${image} is greater than 1.7976931348623157E308`);
    if (v < DOUBLE_MIN) throw this.#semantic(`${RUNTIME_EXCEPTION}: ${image} is less than 4.9E-324`);
    return { type: 'constant', valueType: JavaType.DOUBLE, value: v };
  }

  // ---- Java's factory checks

  #asBoolean(node: Sql92Node): Sql92Node {
    if (isBooleanNode(node)) return node;
    if (node.type === 'property') return { type: 'booleanCast', operand: node };
    throw this.#semantic(`${PARSE_EXCEPTION}: Expression will not result in a boolean value: ${nodeToString(node)}`);
  }

  #createEqual(left: Sql92Node, right: Sql92Node): Sql92Node {
    for (const operand of [left, right]) {
      if (operand.type === 'constant' && operand.value === null) {
        throw this.#semantic(`${RUNTIME_EXCEPTION}: '${nodeToString(operand)}' cannot be compared.`);
      }
    }
    if (left.type === 'constant' && right.type === 'constant' && isBooleanNode(left) && !isBooleanNode(right)) {
      throw this.#semantic(`${RUNTIME_EXCEPTION}: '${nodeToString(left)}' cannot be compared with '${nodeToString(right)}'`);
    }
    return { type: 'comparison', operator: '=', left, right };
  }

  #createLessThanLike(operator: ComparisonOperator, left: Sql92Node, right: Sql92Node): Sql92Node {
    for (const operand of [left, right]) {
      const numericConstant =
        operand.type === 'constant' &&
        (operand.valueType === JavaType.INTEGER || operand.valueType === JavaType.LONG || operand.valueType === JavaType.DOUBLE);
      if ((operand.type === 'constant' && !numericConstant) || (operand.type !== 'constant' && isBooleanNode(operand))) {
        throw this.#semantic(`${RUNTIME_EXCEPTION}: Value '${nodeToString(operand)}' cannot be compared.`);
      }
    }
    return { type: 'comparison', operator, left, right };
  }
}
