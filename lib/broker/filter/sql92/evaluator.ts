/**
 * Compiles a parsed SQL92 selector once into a tree of closures. Evaluating a message then only reads properties and
 * compares: no parsing, no per-message allocation (a failed conversion throws one shared error object).
 *
 * Semantics are Java's (three-valued, `null` for unknown):
 * - `x = y`: null when x is null and y is not; FALSE when only y is null; TRUE when both are null; otherwise compared
 *   after type promotion (a property string is converted to the other side's type: Integer.valueOf, Long.valueOf,
 *   Double.valueOf, Boolean.valueOf; a failed conversion is an evaluation error, which fails the whole message).
 * - `>`, `>=`, `<`, `<=`: null when either side is null; two strings are both read as doubles.
 * - NOT / AND / OR: SQL three-valued logic with left-to-right short circuit.
 * - IN: null for a missing property; CONTAINS / STARTSWITH / ENDSWITH: FALSE for a missing or non-string value, and
 *   for an empty search string (with or without NOT).
 * - a bare property used as a boolean is FALSE when set (its value is a String, never a Boolean), null when missing.
 * - `-x` is null unless x is a number.
 *
 * @see org.apache.rocketmq.filter.expression.ComparisonExpression
 * @see org.apache.rocketmq.filter.expression.LogicExpression
 * @see org.apache.rocketmq.filter.expression.UnaryExpression
 */
import { JavaType, type JavaValue, comparatorFor, javaDoubleCompare, parseJavaDouble, toLongValue, CONVERSION_FAILED } from './java-values';
import type { Sql92Node } from './parser';

/** Reads one message property; undefined when the message does not have it. */
export type PropertyReader = (name: string) => string | undefined;

/** A compiled boolean expression: TRUE, FALSE, or null (unknown). Throws when Java's evaluation would throw. */
export type CompiledPredicate = (props: PropertyReader) => boolean | null;

type ValueFn = (props: PropertyReader) => JavaValue;

interface CompiledValue {
  /** The Java type of every non-null value this operand produces (NULL: it is always null). */
  javaType: JavaType;
  fn: ValueFn;
  /** Set when the value is a constant (after folding negations of numeric literals). */
  constant?: { value: JavaValue };
}

export function compilePredicate(node: Sql92Node): CompiledPredicate {
  const v = compileValue(node);
  return v.fn as CompiledPredicate;
}

function compileValue(node: Sql92Node): CompiledValue {
  switch (node.type) {
    case 'constant': {
      const value = node.value;
      return { javaType: node.valueType, fn: () => value, constant: { value } };
    }
    case 'property': {
      const name = node.name;
      return { javaType: JavaType.STRING, fn: (props) => props(name) ?? null };
    }
    case 'negate':
      return compileNegate(node.operand);
    case 'booleanCast': {
      const operand = compileValue(node.operand).fn;
      return {
        javaType: JavaType.BOOLEAN,
        fn: (props) => {
          const v = operand(props);
          if (v === null) return null;
          return typeof v === 'boolean' ? v : false;
        },
      };
    }
    case 'not': {
      const operand = compileValue(node.operand).fn;
      return {
        javaType: JavaType.BOOLEAN,
        fn: (props) => {
          const v = operand(props);
          return v === null ? null : !v;
        },
      };
    }
    case 'and': {
      const left = compileValue(node.left).fn;
      const right = compileValue(node.right).fn;
      return {
        javaType: JavaType.BOOLEAN,
        fn: (props) => {
          const lv = left(props);
          if (lv === false) return false;
          const rv = right(props);
          if (rv === false) return false;
          if (lv === null || rv === null) return null;
          return true;
        },
      };
    }
    case 'or': {
      const left = compileValue(node.left).fn;
      const right = compileValue(node.right).fn;
      return {
        javaType: JavaType.BOOLEAN,
        fn: (props) => {
          const lv = left(props);
          if (lv === true) return true;
          const rv = right(props);
          if (rv === true) return true;
          if (lv === null || rv === null) return null;
          return false;
        },
      };
    }
    case 'comparison':
      return { javaType: JavaType.BOOLEAN, fn: compileComparison(node.operator, compileValue(node.left), compileValue(node.right)) };
    case 'in': {
      const name = node.property;
      const not = node.not;
      const values = new Set(node.values);
      return {
        javaType: JavaType.BOOLEAN,
        fn: (props) => {
          const v = props(name);
          if (v === undefined) return null;
          return values.has(v) !== not;
        },
      };
    }
    case 'stringMatch':
      return { javaType: JavaType.BOOLEAN, fn: compileStringMatch(node.operator, node.not, node.search, compileValue(node.operand)) };
  }
}

function compileNegate(operandNode: Sql92Node): CompiledValue {
  const operand = compileValue(operandNode);
  if (operand.constant) {
    const v = operand.constant.value;
    let negated: JavaValue = null;
    switch (operand.javaType) {
      case JavaType.INTEGER:
        // Java's int negation wraps at Integer.MIN_VALUE (unreachable from a literal, which is positive)
        negated = (v as number) === -2147483648 ? v : v === 0 ? 0 : -(v as number);
        break;
      case JavaType.LONG:
        negated = typeof v === 'bigint' ? toLongValue(-v) : v === 0 ? 0 : -(v as number);
        break;
      case JavaType.DOUBLE:
        negated = -(v as number);
        break;
      default:
        negated = null; // not a Number: Java's negate gives null
    }
    const javaType = negated === null ? JavaType.NULL : operand.javaType;
    return { javaType, fn: () => negated, constant: { value: negated } };
  }
  // A property is a String and a boolean expression a Boolean: never a Number, so always null (after evaluating the
  // operand, whose evaluation may still fail as in Java).
  const fn = operand.fn;
  return { javaType: JavaType.NULL, fn: (props) => { fn(props); return null; } };
}

function compileComparison(operator: '=' | '>' | '>=' | '<' | '<=', l: CompiledValue, r: CompiledValue): ValueFn {
  const left = l.fn;
  const right = r.fn;
  if (operator === '=') {
    if (l.javaType === JavaType.NULL || r.javaType === JavaType.NULL) {
      // One side is always null: the result only depends on whether the other one is.
      return (props) => {
        const lv = left(props);
        const rv = right(props);
        if (lv === null) return rv === null ? true : null;
        return false; // rv is the side that is always null
      };
    }
    const compare = comparatorFor(l.javaType, r.javaType);
    return (props) => {
      const lv = left(props);
      const rv = right(props);
      if (lv === null) return rv === null ? true : null;
      if (rv === null) return false;
      return compare(lv, rv) === 0;
    };
  }
  const test = operator === '>' ? gt : operator === '>=' ? ge : operator === '<' ? lt : le;
  if (l.javaType === JavaType.STRING && r.javaType === JavaType.STRING) {
    // Java refuses to order strings: it reads both as doubles, failing the evaluation when it cannot.
    return (props) => {
      const lv = left(props);
      if (lv === null) return null;
      const rv = right(props);
      if (rv === null) return null;
      const ld = parseJavaDouble(lv as string);
      const rd = parseJavaDouble(rv as string);
      if (ld === undefined || rd === undefined) throw CONVERSION_FAILED;
      return test(javaDoubleCompare(ld, rd));
    };
  }
  if (l.javaType === JavaType.NULL || r.javaType === JavaType.NULL) {
    return (props) => {
      if (left(props) === null) return null;
      right(props);
      return null;
    };
  }
  const compare = comparatorFor(l.javaType, r.javaType);
  return (props) => {
    const lv = left(props);
    if (lv === null) return null;
    const rv = right(props);
    if (rv === null) return null;
    return test(compare(lv, rv));
  };
}

function gt(c: number): boolean {
  return c > 0;
}
function ge(c: number): boolean {
  return c >= 0;
}
function lt(c: number): boolean {
  return c < 0;
}
function le(c: number): boolean {
  return c <= 0;
}

function compileStringMatch(operator: 'CONTAINS' | 'STARTSWITH' | 'ENDSWITH', not: boolean, search: string, operand: CompiledValue): ValueFn {
  if (search.length === 0) return () => false;
  const fn = operand.fn;
  const test =
    operator === 'CONTAINS'
      ? (s: string) => s.includes(search)
      : operator === 'STARTSWITH'
        ? (s: string) => s.startsWith(search)
        : (s: string) => s.endsWith(search);
  return (props) => {
    const v = fn(props);
    if (typeof v !== 'string') return false;
    return test(v) !== not;
  };
}
