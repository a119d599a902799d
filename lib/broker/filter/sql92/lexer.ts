/**
 * Tokens of RocketMQ's SQL92 selector grammar, read on demand as Java's JavaCC token manager does (a lexical error
 * after the end of the parsed expression is only seen when the parser asks for that token).
 *
 * Lexical rules of SelectorParser.jj (5.3.3, a superset of 4.9.8 which lacks CONTAINS / STARTSWITH / ENDSWITH):
 * - white space: space, \t, \n, \r, \f; comments `-- ...` (only when ended by a line break) and `/* ... *\/`;
 * - keywords, case-insensitive: NOT AND OR BETWEEN IN TRUE FALSE NULL IS CONTAINS STARTSWITH ENDSWITH;
 * - DECIMAL_LITERAL `0 | [1-9][0-9]*[lL]?` (no hex, no octal: `012` is three tokens `0`, `1`... of which the parser
 *   rejects the second), FLOATING_POINT_LITERAL `d+.d*(E)? | .d+(E)? | d+E` with E = `[eE][+-]?d+`;
 * - STRING_LITERAL `'...'` with `''` for a quote; ID `[a-zA-Z_$][a-zA-Z0-9_$]*` (no dots);
 * - operators = <> > >= < <= ( ) , + -.
 * The longest match wins; on a tie the keyword wins over ID.
 *
 * @see org.apache.rocketmq.filter.parser.SelectorParserTokenManager
 */
import { FilterExpressionError } from '../filter-expression-error';

export const TokenKind = {
  EOF: 0,
  NOT: 1,
  AND: 2,
  OR: 3,
  BETWEEN: 4,
  IN: 5,
  TRUE: 6,
  FALSE: 7,
  NULL: 8,
  IS: 9,
  CONTAINS: 10,
  STARTSWITH: 11,
  ENDSWITH: 12,
  DECIMAL_LITERAL: 13,
  FLOATING_POINT_LITERAL: 14,
  STRING_LITERAL: 15,
  ID: 16,
  EQ: 17,
  NE: 18,
  GT: 19,
  GE: 20,
  LT: 21,
  LE: 22,
  LPAREN: 23,
  RPAREN: 24,
  COMMA: 25,
  PLUS: 26,
  MINUS: 27,
} as const;
export type TokenKind = (typeof TokenKind)[keyof typeof TokenKind];

/** JavaCC's tokenImage, used in "Encountered ..." messages. */
export const TOKEN_IMAGE: Readonly<Record<TokenKind, string>> = {
  0: '<EOF>', 1: '"NOT"', 2: '"AND"', 3: '"OR"', 4: '"BETWEEN"', 5: '"IN"', 6: '"TRUE"', 7: '"FALSE"', 8: '"NULL"',
  9: '"IS"', 10: '"CONTAINS"', 11: '"STARTSWITH"', 12: '"ENDSWITH"', 13: '<DECIMAL_LITERAL>',
  14: '<FLOATING_POINT_LITERAL>', 15: '<STRING_LITERAL>', 16: '<ID>', 17: '"="', 18: '"<>"', 19: '">"', 20: '">="',
  21: '"<"', 22: '"<="', 23: '"("', 24: '")"', 25: '","', 26: '"+"', 27: '"-"',
};

const KEYWORDS: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  ['NOT', TokenKind.NOT], ['AND', TokenKind.AND], ['OR', TokenKind.OR], ['BETWEEN', TokenKind.BETWEEN],
  ['IN', TokenKind.IN], ['TRUE', TokenKind.TRUE], ['FALSE', TokenKind.FALSE], ['NULL', TokenKind.NULL],
  ['IS', TokenKind.IS], ['CONTAINS', TokenKind.CONTAINS], ['STARTSWITH', TokenKind.STARTSWITH],
  ['ENDSWITH', TokenKind.ENDSWITH],
]);

export interface Token {
  kind: TokenKind;
  /** The token's text as written. */
  image: string;
  /** Offset of the first character in the expression. */
  start: number;
}

const JAVA_TAB_SIZE = 8;

/** 1-based line and column of `index`, counted as JavaCC's SimpleCharStream does (tabs advance to multiples of 8). */
export function javaCCPosition(src: string, index: number): { line: number; column: number } {
  let line = 1;
  let column = 0;
  let prevCR = false;
  let prevLF = false;
  const end = Math.min(index, src.length - 1);
  for (let i = 0; i <= end; i++) {
    const c = src.charCodeAt(i);
    column++;
    if (prevLF) {
      prevLF = false;
      line++;
      column = 1;
    } else if (prevCR) {
      prevCR = false;
      if (c === 10) prevLF = true;
      else {
        line++;
        column = 1;
      }
    }
    if (c === 13) prevCR = true;
    else if (c === 10) prevLF = true;
    else if (c === 9) {
      column--;
      column += JAVA_TAB_SIZE - (column % JAVA_TAB_SIZE);
    }
  }
  if (index >= src.length) column++; // EOF: one past the last character
  return { line, column };
}

/** JavaCC's addEscapes for error messages. */
export function javaCCEscape(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    switch (ch) {
      case 0: continue;
      case 8: out += '\\b'; continue;
      case 9: out += '\\t'; continue;
      case 10: out += '\\n'; continue;
      case 12: out += '\\f'; continue;
      case 13: out += '\\r'; continue;
      case 34: out += '\\"'; continue;
      case 39: out += "\\'"; continue;
      case 92: out += '\\\\'; continue;
    }
    if (ch < 0x20 || ch > 0x7e) out += '\\u' + ch.toString(16).padStart(4, '0');
    else out += s[i];
  }
  return out;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isIdStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;
}
function isIdPart(c: number): boolean {
  return isIdStart(c) || isDigit(c);
}

export class Lexer {
  #pos = 0;

  constructor(readonly src: string) {}

  /** Reads the next token; throws FilterExpressionError (Java's TokenMgrError) on a character no token starts with. */
  next(): Token {
    const src = this.src;
    this.#skipIgnored();
    const start = this.#pos;
    if (start >= src.length) return { kind: TokenKind.EOF, image: '', start };
    const c = src.charCodeAt(start);

    if (isIdStart(c)) {
      let i = start + 1;
      while (i < src.length && isIdPart(src.charCodeAt(i))) i++;
      this.#pos = i;
      const image = src.substring(start, i);
      return { kind: KEYWORDS.get(image.toUpperCase()) ?? TokenKind.ID, image, start };
    }
    if (isDigit(c) || c === 46 /* . */) return this.#number(start);
    if (c === 39 /* ' */) return this.#string(start);

    const c1 = start + 1 < src.length ? src.charCodeAt(start + 1) : -1;
    let kind: TokenKind;
    let len = 1;
    switch (c) {
      case 61: kind = TokenKind.EQ; break;
      case 62:
        if (c1 === 61) { kind = TokenKind.GE; len = 2; } else kind = TokenKind.GT;
        break;
      case 60:
        if (c1 === 62) { kind = TokenKind.NE; len = 2; } else if (c1 === 61) { kind = TokenKind.LE; len = 2; } else kind = TokenKind.LT;
        break;
      case 40: kind = TokenKind.LPAREN; break;
      case 41: kind = TokenKind.RPAREN; break;
      case 44: kind = TokenKind.COMMA; break;
      case 43: kind = TokenKind.PLUS; break;
      case 45: kind = TokenKind.MINUS; break;
      default:
        throw this.#lexicalError(start, false, '');
    }
    this.#pos = start + len;
    return { kind, image: src.substring(start, start + len), start };
  }

  #skipIgnored(): void {
    const src = this.src;
    const len = src.length;
    for (;;) {
      const c = src.charCodeAt(this.#pos);
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12) {
        this.#pos++;
        continue;
      }
      if (c === 45 && src.charCodeAt(this.#pos + 1) === 45) {
        // "--" comment: a token only when a line break ends it; otherwise these are two "-" tokens.
        let i = this.#pos + 2;
        while (i < len && src.charCodeAt(i) !== 10 && src.charCodeAt(i) !== 13) i++;
        if (i >= len) return;
        this.#pos = src.charCodeAt(i) === 13 && src.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
        continue;
      }
      if (c === 47 /* / */ && src.charCodeAt(this.#pos + 1) === 42 /* * */) {
        const endIdx = src.indexOf('*/', this.#pos + 2);
        if (endIdx < 0) throw this.#lexicalError(len, true, src.substring(this.#pos));
        this.#pos = endIdx + 2;
        continue;
      }
      return;
    }
  }

  #number(start: number): Token {
    const src = this.src;
    let i = start;
    while (i < src.length && isDigit(src.charCodeAt(i))) i++;
    const digits = i - start;
    let decimalEnd = -1;
    if (digits > 0) {
      if (src.charCodeAt(start) === 48) decimalEnd = start + 1;
      else {
        const s = src.charCodeAt(i);
        decimalEnd = s === 108 || s === 76 ? i + 1 : i;
      }
    }
    let floatEnd = -1;
    if (digits > 0 && src.charCodeAt(i) === 46) {
      let j = i + 1;
      while (j < src.length && isDigit(src.charCodeAt(j))) j++;
      floatEnd = this.#exponent(j);
    } else if (digits === 0) {
      // starts with "."
      let j = start + 1;
      while (j < src.length && isDigit(src.charCodeAt(j))) j++;
      if (j > start + 1) floatEnd = this.#exponent(j);
    } else {
      const e = this.#exponent(i);
      if (e > i) floatEnd = e;
    }
    if (floatEnd > decimalEnd) {
      this.#pos = floatEnd;
      return { kind: TokenKind.FLOATING_POINT_LITERAL, image: src.substring(start, floatEnd), start };
    }
    if (decimalEnd < 0) {
      // a "." not followed by a digit: JavaCC fails on the character after it
      const at = start + 1;
      throw this.#lexicalError(at, at >= src.length, at >= src.length ? '' : '.');
    }
    this.#pos = decimalEnd;
    return { kind: TokenKind.DECIMAL_LITERAL, image: src.substring(start, decimalEnd), start };
  }

  /** The end of an optional exponent starting at `i` (returns `i` when there is none). */
  #exponent(i: number): number {
    const src = this.src;
    const e = src.charCodeAt(i);
    if (e !== 101 && e !== 69) return i;
    let j = i + 1;
    const sign = src.charCodeAt(j);
    if (sign === 43 || sign === 45) j++;
    const digitsStart = j;
    while (j < src.length && isDigit(src.charCodeAt(j))) j++;
    return j > digitsStart ? j : i;
  }

  #string(start: number): Token {
    const src = this.src;
    let i = start + 1;
    let lastAccept = -1;
    while (i < src.length) {
      if (src.charCodeAt(i) === 39) {
        lastAccept = i + 1;
        if (src.charCodeAt(i + 1) === 39) {
          i += 2;
          continue;
        }
        break;
      }
      i++;
    }
    if (lastAccept < 0) {
      const seen = src.substring(start);
      throw this.#lexicalError(src.length, true, seen.length > 1 ? seen : '');
    }
    this.#pos = lastAccept;
    return { kind: TokenKind.STRING_LITERAL, image: src.substring(start, lastAccept), start };
  }

  #lexicalError(index: number, eof: boolean, after: string): FilterExpressionError {
    const { line, column } = javaCCPosition(this.src, eof ? this.src.length : index);
    const ch = this.src.charCodeAt(index);
    const encountered = eof ? '<EOF> ' : `"${javaCCEscape(this.src[index])}" (${ch}), `;
    return new FilterExpressionError(
      `org.apache.rocketmq.filter.parser.TokenMgrError: Lexical error at line ${line}, column ${column}.  Encountered: ${encountered}after : "${javaCCEscape(after)}"`,
      this.src,
      line,
      column,
    );
  }
}

/** The value of a STRING_LITERAL image: quotes removed, `''` read as `'`. */
export function decodeStringLiteral(image: string): string {
  let out = '';
  for (let i = 1; i < image.length - 1; i++) {
    const c = image[i];
    if (c === "'") i++;
    out += c;
  }
  return out;
}
