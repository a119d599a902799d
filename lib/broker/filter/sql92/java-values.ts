/**
 * The Java value semantics the SQL92 filter depends on: Integer.valueOf / Long.valueOf / Double.valueOf of a property
 * string, Double.compare, Boolean.valueOf, and the type promotion of ComparisonExpression.__compare.
 *
 * Java types map to JavaScript values as: Integer → number, Long → number when it is a safe integer else bigint,
 * Double → number, String → string, Boolean → boolean, null → null. The static Java type of every operand is known
 * when an expression is compiled, so the comparator for a pair of types is chosen once.
 *
 * @see org.apache.rocketmq.filter.expression.ComparisonExpression#__compare
 */

export const JavaType = {
  INTEGER: 'Integer',
  LONG: 'Long',
  DOUBLE: 'Double',
  STRING: 'String',
  BOOLEAN: 'Boolean',
  NULL: 'null',
} as const;
export type JavaType = (typeof JavaType)[keyof typeof JavaType];

export type JavaValue = number | bigint | string | boolean | null;

/** Thrown (one shared instance, nothing allocated) when a value cannot be converted during an evaluation. */
export class JavaConversionError extends Error {
  constructor(readonly javaMessage: string) {
    super(javaMessage);
  }
}

/** The shared instance thrown on the evaluation path. */
export const CONVERSION_FAILED = new JavaConversionError('conversion failed');

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/**
 * Java's Integer.parseInt / Long.parseLong (radix 10): an optional sign, then ASCII digits, in range.
 * Returns undefined when Java throws NumberFormatException. (Java also accepts non-ASCII Unicode digits; those
 * are refused here.)
 */
export function parseJavaLong(s: string, isInt: boolean): number | bigint | undefined {
  const len = s.length;
  if (len === 0) return undefined;
  let i = 0;
  const first = s.charCodeAt(0);
  let negative = false;
  if (first === 45 || first === 43) {
    negative = first === 45;
    i = 1;
    if (len === 1) return undefined;
  }
  let value = 0;
  const digitsStart = i;
  for (; i < len; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return undefined;
    if (i - digitsStart < 15) value = value * 10 + c;
  }
  const digitCount = len - digitsStart;
  if (digitCount < 16) {
    const v = negative ? -value : value;
    if (isInt && (v < INT_MIN || v > INT_MAX)) return undefined;
    return v === 0 ? 0 : v; // never -0
  }
  const big = BigInt(s);
  if (isInt) return big < BigInt(INT_MIN) || big > BigInt(INT_MAX) ? undefined : Number(big);
  if (big < LONG_MIN || big > LONG_MAX) return undefined;
  return toLongValue(big);
}

/** A Long as a number when exactly representable, otherwise as a bigint. */
export function toLongValue(v: bigint): number | bigint {
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

const DECIMAL_RE = /^[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)$/;
const HEX_RE = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)[fFdD]?$/;

/**
 * Java's Double.valueOf(String): leading and trailing characters <= ' ' trimmed, an optional sign, NaN, Infinity,
 * a decimal with optional exponent and f/F/d/D suffix, or a hexadecimal float (`0x1.8p1`).
 * Returns undefined when Java throws NumberFormatException.
 */
export function parseJavaDouble(input: string): number | undefined {
  let start = 0;
  let end = input.length;
  while (start < end && input.charCodeAt(start) <= 32) start++;
  while (end > start && input.charCodeAt(end - 1) <= 32) end--;
  const s = start === 0 && end === input.length ? input : input.substring(start, end);
  if (s.length === 0) return undefined;
  if (DECIMAL_RE.test(s)) {
    const last = s.charCodeAt(s.length - 1);
    // f/F/d/D suffix (but not the "d" of a word: only digits or "." precede it here)
    const body = last === 102 || last === 70 || last === 100 || last === 68 ? s.substring(0, s.length - 1) : s;
    return Number(body);
  }
  const m = HEX_RE.exec(s);
  if (!m) return undefined;
  const intPart = m[2];
  const fracPart = m[3] ?? '';
  if (intPart.length === 0 && fracPart.length === 0) return undefined;
  let mantissa = 0n;
  for (const ch of intPart + fracPart) mantissa = mantissa * 16n + BigInt(parseInt(ch, 16));
  const exp = Number(m[4]) - 4 * fracPart.length;
  let v = Number(mantissa) * Math.pow(2, exp);
  if (!Number.isFinite(v) && mantissa !== 0n) v = Infinity;
  return m[1] === '-' ? -v : v;
}

/** Java's Double.compare: -0.0 < 0.0, NaN equal to itself and greater than everything. */
export function javaDoubleCompare(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) {
    if (a !== 0) return 0;
    const na = Object.is(a, -0);
    const nb = Object.is(b, -0);
    return na === nb ? 0 : na ? -1 : 1;
  }
  const aNaN = a !== a;
  const bNaN = b !== b;
  return aNaN === bNaN ? 0 : aNaN ? 1 : -1;
}

/** Exact comparison of two longs held as number or bigint. */
function longCompare(a: number | bigint, b: number | bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function stringCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function booleanCompare(a: boolean, b: boolean): number {
  return a === b ? 0 : a ? 1 : -1;
}

/** Java's Boolean.valueOf(String): "true" ignoring case. */
export function javaBooleanValueOf(s: string): boolean {
  return s.length === 4 && s.toLowerCase() === 'true';
}

export type Comparator = (l: JavaValue, r: JavaValue) => number;

const MINUS_ONE: Comparator = () => -1;

/**
 * The comparator Java applies to two non-null values of the given static types (ComparisonExpression.__compare with
 * convertStringExpressions, which SelectorParser.parse always sets). A failed String conversion throws
 * CONVERSION_FAILED (Java: RuntimeException(NumberFormatException)); Boolean against String throws it too (Java: a
 * ClassCastException, its code casts the Boolean to String). Other unrelated pairs compare as -1.
 */
export function comparatorFor(lt: JavaType, rt: JavaType): Comparator {
  const isLong = (t: JavaType) => t === JavaType.INTEGER || t === JavaType.LONG;
  if (lt === rt) {
    switch (lt) {
      case JavaType.BOOLEAN: return (l, r) => booleanCompare(l as boolean, r as boolean);
      case JavaType.INTEGER:
      case JavaType.LONG: return (l, r) => longCompare(l as number | bigint, r as number | bigint);
      case JavaType.DOUBLE: return (l, r) => javaDoubleCompare(l as number, r as number);
      case JavaType.STRING: return (l, r) => stringCompare(l as string, r as string);
      default: return MINUS_ONE;
    }
  }
  if (lt === JavaType.BOOLEAN) {
    return rt === JavaType.STRING ? throwConversion : MINUS_ONE;
  }
  if (isLong(lt)) {
    if (isLong(rt)) return (l, r) => longCompare(l as number | bigint, r as number | bigint);
    if (rt === JavaType.DOUBLE) return (l, r) => javaDoubleCompare(Number(l), r as number);
    if (rt === JavaType.STRING) {
      const isInt = lt === JavaType.INTEGER;
      return (l, r) => {
        const v = parseJavaLong(r as string, isInt);
        if (v === undefined) throw CONVERSION_FAILED;
        return longCompare(l as number | bigint, v);
      };
    }
    return MINUS_ONE;
  }
  if (lt === JavaType.DOUBLE) {
    if (isLong(rt)) return (l, r) => javaDoubleCompare(l as number, Number(r));
    if (rt === JavaType.STRING) {
      return (l, r) => {
        const v = parseJavaDouble(r as string);
        if (v === undefined) throw CONVERSION_FAILED;
        return javaDoubleCompare(l as number, v);
      };
    }
    return MINUS_ONE;
  }
  if (lt === JavaType.STRING) {
    switch (rt) {
      case JavaType.BOOLEAN: return (l, r) => booleanCompare(javaBooleanValueOf(l as string), r as boolean);
      case JavaType.INTEGER:
      case JavaType.LONG: {
        const isInt = rt === JavaType.INTEGER;
        return (l, r) => {
          const v = parseJavaLong(l as string, isInt);
          if (v === undefined) throw CONVERSION_FAILED;
          return longCompare(v, r as number | bigint);
        };
      }
      case JavaType.DOUBLE:
        return (l, r) => {
          const v = parseJavaDouble(l as string);
          if (v === undefined) throw CONVERSION_FAILED;
          return javaDoubleCompare(v, r as number);
        };
      default: return MINUS_ONE;
    }
  }
  return MINUS_ONE;
}

function throwConversion(): number {
  throw CONVERSION_FAILED;
}

/**
 * Why `comparatorFor(lt, rt)` fails for these two values, as the text of the Java exception (used for the
 * parse-time check of BETWEEN bounds, whose message reaches the client).
 */
export function javaConversionFailure(lt: JavaType, l: JavaValue, rt: JavaType, r: JavaValue): string {
  if (lt === JavaType.BOOLEAN && rt === JavaType.STRING) {
    return "java.lang.ClassCastException: class java.lang.Boolean cannot be cast to class java.lang.String (java.lang.Boolean and java.lang.String are in module java.base of loader 'bootstrap')";
  }
  const input = lt === JavaType.STRING ? (l as string) : (r as string);
  const target = lt === JavaType.STRING ? rt : lt;
  const text = target === JavaType.DOUBLE && input.trim().length === 0 ? 'empty String' : `For input string: "${input}"`;
  return `java.lang.RuntimeException: java.lang.NumberFormatException: ${text}`;
}

/** Java's Double.toString (for the shortest digits JavaScript gives). */
export function javaDoubleToString(d: number): string {
  if (d !== d) return 'NaN';
  if (d === Infinity) return 'Infinity';
  if (d === -Infinity) return '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(d);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : s + '.0';
  }
  const [mantissa, exponent] = d.toExponential().split('e');
  return (mantissa.includes('.') ? mantissa : mantissa + '.0') + 'E' + (exponent.startsWith('+') ? exponent.substring(1) : exponent);
}

/** Java's toString of a value (String.valueOf). */
export function javaValueToString(type: JavaType, v: JavaValue): string {
  if (v === null) return 'null';
  if (type === JavaType.DOUBLE) return javaDoubleToString(v as number);
  return String(v);
}
