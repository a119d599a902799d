/**
 * The fastjson dialect of JSON that Java RocketMQ writes its remoting bodies in (fastjson 1.2.69,
 * `RemotingSerializable.encode` / `decode`).
 *
 * What fastjson writes beyond standard JSON, and what this parser accepts:
 *   - maps with non-string keys: the key is written as a JSON value, unquoted:
 *       `{"brokerAddrs":{0:"127.0.0.1:10911"}}`                      (HashMap<Long,String>)
 *       `{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}}`   (HashMap<MessageQueue,...>)
 *     A JSON object whose keys are all strings becomes a plain JS object; an object with any non-string key
 *     becomes a {@link FastjsonMap} holding every [key, value] entry in wire order.
 *   - integers beyond Number.MAX_SAFE_INTEGER (Java longs): parsed as `bigint`, never rounded. Every other
 *     integer, and every number with a fraction or exponent, is a JS `number`.
 *
 * What fastjson writes, and what {@link toFastjson} reproduces:
 *   - bean fields in alphabetical order, null fields omitted (a plain JS object is a bean);
 *   - maps in their iteration order (a JS `Map` or {@link FastjsonMap} is a Java map), null values omitted,
 *     non-string keys written unquoted (numbers) or as inline objects (beans as keys);
 *   - enums as their names (pass strings), Sets and Lists as arrays (pass arrays or `Set`s);
 *   - Java doubles with Java's `Double.toString` spelling (`0.0`, `1.0E7`): wrap them with {@link javaDouble};
 *   - strings escaped as fastjson does: `"`, `\`, `\b \t \n \f \r`, other controls and U+007F..U+009F as `\u00XX`.
 * With `browserCompatible` (SerializerFeature.BrowserCompatible, which the name server uses for route data
 * answered to clients of 4.9.4 or later) non-string keys are quoted, every char from U+007F and `/` is escaped,
 * and longs beyond +-2^53 are written as strings; `mapSortField` sorts map entries by key (a TreeMap's order).
 *
 * @see com.alibaba.fastjson.serializer.SerializeWriter
 * @see com.alibaba.fastjson.serializer.MapSerializer
 * @see org.apache.rocketmq.remoting.protocol.RemotingSerializable
 */
import { ProtocolError } from '../errors';

/** A Java map whose keys are not all strings, entries in wire order. */
export class FastjsonMap<K = unknown, V = unknown> {
  constructor(readonly entries: Array<[K, V]> = []) {}

  get size(): number {
    return this.entries.length;
  }
}

/** A Java double: written with Java's Double.toString spelling (`4.0`, `1.0E-4`). */
export class JavaDouble {
  constructor(readonly value: number) {}
}

export function javaDouble(value: number): JavaDouble {
  return new JavaDouble(value);
}

// ---------------------------------------------------------------------------------------------------------
// Parser

class Parser {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new ProtocolError(`malformed fastjson body: ${what} at offset ${this.pos}`);
  }

  ws(): void {
    const t = this.text;
    let p = this.pos;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else break;
    }
    this.pos = p;
  }

  value(): unknown {
    this.ws();
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x7b: // {
        return this.object();
      case 0x5b: // [
        return this.array();
      case 0x22: // "
        return this.string();
      case 0x74: // t
        return this.literal('true', true);
      case 0x66: // f
        return this.literal('false', false);
      case 0x6e: // n
        return this.literal('null', null);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
        return this.fail(Number.isNaN(c) ? 'unexpected end' : `unexpected character ${JSON.stringify(this.text[this.pos])}`);
    }
  }

  literal<T>(word: string, v: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail(`expected ${word}`);
    this.pos += word.length;
    return v;
  }

  number(): number | bigint {
    const t = this.text;
    const start = this.pos;
    let p = start;
    if (t.charCodeAt(p) === 0x2d) p++;
    const digits0 = p;
    while (p < t.length && t.charCodeAt(p) >= 0x30 && t.charCodeAt(p) <= 0x39) p++;
    if (p === digits0) {
      this.pos = p;
      this.fail('expected digits');
    }
    let integer = true;
    if (t.charCodeAt(p) === 0x2e) {
      integer = false;
      p++;
      const d = p;
      while (p < t.length && t.charCodeAt(p) >= 0x30 && t.charCodeAt(p) <= 0x39) p++;
      if (p === d) {
        this.pos = p;
        this.fail('expected fraction digits');
      }
    }
    const e = t.charCodeAt(p);
    if (e === 0x65 || e === 0x45) {
      integer = false;
      p++;
      const s = t.charCodeAt(p);
      if (s === 0x2b || s === 0x2d) p++;
      const d = p;
      while (p < t.length && t.charCodeAt(p) >= 0x30 && t.charCodeAt(p) <= 0x39) p++;
      if (p === d) {
        this.pos = p;
        this.fail('expected exponent digits');
      }
    }
    // fastjson may suffix a type letter (L, S, B, F, D) with WriteClassName; accept and drop it.
    const suffix = t.charCodeAt(p);
    const raw = t.slice(start, p);
    if (suffix === 0x4c || suffix === 0x53 || suffix === 0x42) p++;
    else if (suffix === 0x46 || suffix === 0x44) {
      p++;
      integer = false;
    }
    this.pos = p;
    const n = Number(raw);
    if (integer && !Number.isSafeInteger(n)) return BigInt(raw);
    return n;
  }

  string(): string {
    const t = this.text;
    let p = this.pos + 1;
    let out = '';
    let chunk = p;
    for (;;) {
      if (p >= t.length) {
        this.pos = p;
        this.fail('unterminated string');
      }
      const c = t.charCodeAt(p);
      if (c === 0x22) {
        out += t.slice(chunk, p);
        this.pos = p + 1;
        return out;
      }
      if (c === 0x5c) {
        out += t.slice(chunk, p);
        const esc = t[p + 1];
        switch (esc) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case "'": out += "'"; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'v': out += '\v'; break;
          case '0': out += '\0'; break;
          case 'x': {
            const hex = t.slice(p + 2, p + 4);
            if (!/^[0-9a-fA-F]{2}$/.test(hex)) {
              this.pos = p;
              this.fail('bad \\x escape');
            }
            out += String.fromCharCode(parseInt(hex, 16));
            p += 2;
            break;
          }
          case 'u': {
            const hex = t.slice(p + 2, p + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
              this.pos = p;
              this.fail('bad \\u escape');
            }
            out += String.fromCharCode(parseInt(hex, 16));
            p += 4;
            break;
          }
          default:
            this.pos = p;
            this.fail('bad escape');
        }
        p += 2;
        chunk = p;
        continue;
      }
      p++;
    }
  }

  array(): unknown[] {
    this.pos++;
    const out: unknown[] = [];
    this.ws();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.text.charCodeAt(this.pos);
      this.pos++;
      if (c === 0x2c) continue;
      if (c === 0x5d) return out;
      this.pos--;
      this.fail('expected , or ]');
    }
  }

  object(): Record<string, unknown> | FastjsonMap {
    this.pos++;
    const entries: Array<[unknown, unknown]> = [];
    let allStrings = true;
    this.ws();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return {};
    }
    for (;;) {
      this.ws();
      const key = this.value();
      if (typeof key !== 'string') allStrings = false;
      this.ws();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail('expected :');
      this.pos++;
      entries.push([key, this.value()]);
      this.ws();
      const c = this.text.charCodeAt(this.pos);
      this.pos++;
      if (c === 0x2c) continue;
      if (c === 0x7d) break;
      this.pos--;
      this.fail('expected , or }');
    }
    if (!allStrings) return new FastjsonMap(entries);
    const obj: Record<string, unknown> = {};
    for (const [k, v] of entries) {
      if (k === '__proto__') Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
      else obj[k as string] = v;
    }
    return obj;
  }
}

/** Parses fastjson text; throws ProtocolError on anything malformed (including trailing garbage). */
export function parseFastjson(text: string): unknown {
  const p = new Parser(text);
  const v = p.value();
  p.ws();
  if (p.pos !== text.length) p.fail('trailing characters');
  return v;
}

// ---------------------------------------------------------------------------------------------------------
// Writer

export interface FastjsonWriteOptions {
  /** SerializerFeature.BrowserCompatible: quote non-string map keys, escape `/` and chars >= U+007F, big longs as strings. */
  browserCompatible?: boolean;
  /** SerializerFeature.MapSortField: map entries sorted by key. */
  mapSortField?: boolean;
}

const HEX = '0123456789ABCDEF';
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function hex4(c: number): string {
  return '\\u' + HEX[(c >> 12) & 15] + HEX[(c >> 8) & 15] + HEX[(c >> 4) & 15] + HEX[c & 15];
}

const NEEDS_ESCAPE = /["\\\u0000-\u001f\u007f-\u009f]/;
const NEEDS_ESCAPE_BROWSER = /["\\/\u0000-\u001f\u007f-\uffff]/;

/** A string as fastjson's SerializeWriter.writeStringWithDoubleQuote writes it. */
export function fastjsonString(s: string, browserCompatible = false): string {
  if (!(browserCompatible ? NEEDS_ESCAPE_BROWSER : NEEDS_ESCAPE).test(s)) return '"' + s + '"';
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    switch (c) {
      case 0x22: out += '\\"'; continue;
      case 0x5c: out += '\\\\'; continue;
      case 0x08: out += '\\b'; continue;
      case 0x09: out += '\\t'; continue;
      case 0x0a: out += '\\n'; continue;
      case 0x0c: out += '\\f'; continue;
      case 0x0d: out += '\\r'; continue;
      default:
    }
    if (browserCompatible) {
      if (c === 0x2f) out += '\\/';
      else if (c < 0x20 || c >= 0x7f) out += hex4(c);
      else out += s[i];
    } else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) out += hex4(c);
    else out += s[i];
  }
  return out + '"';
}

/** Java's Double.toString for finite values (NaN and infinities are written as null by fastjson). */
export function javaDoubleString(v: number): string {
  if (!Number.isFinite(v)) return 'null';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e7) {
    const s = String(v);
    return s.includes('.') ? s : s + '.0';
  }
  const [mant, exp] = v.toExponential().split('e');
  return (mant.includes('.') ? mant : mant + '.0') + 'E' + (exp.startsWith('+') ? exp.slice(1) : exp);
}

function compareKeys(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  return 0;
}

class Writer {
  out = '';
  constructor(readonly opts: FastjsonWriteOptions) {}

  value(v: unknown): void {
    if (v === null || v === undefined) {
      this.out += 'null';
      return;
    }
    switch (typeof v) {
      case 'string':
        this.out += fastjsonString(v, this.opts.browserCompatible);
        return;
      case 'boolean':
        this.out += v ? 'true' : 'false';
        return;
      case 'number':
        if (Number.isInteger(v)) this.long(v);
        else this.out += javaDoubleString(v);
        return;
      case 'bigint':
        this.long(v);
        return;
      default:
    }
    if (v instanceof JavaDouble) this.out += javaDoubleString(v.value);
    else if (Array.isArray(v) || v instanceof Set) this.array(v);
    else if (v instanceof Map) this.map([...v.entries()]);
    else if (v instanceof FastjsonMap) this.map(v.entries);
    else if (Buffer.isBuffer(v)) this.out += '"' + v.toString('base64') + '"';
    else if (typeof v === 'object') this.bean(v as Record<string, unknown>);
    else throw new TypeError(`cannot write ${typeof v} as fastjson`);
  }

  long(v: number | bigint): void {
    const big = typeof v === 'bigint' ? v > MAX_SAFE || v < -MAX_SAFE : v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER;
    if (this.opts.browserCompatible && big) this.out += '"' + String(v) + '"';
    else this.out += String(v);
  }

  array(v: Iterable<unknown>): void {
    this.out += '[';
    let first = true;
    for (const item of v) {
      if (!first) this.out += ',';
      first = false;
      this.value(item);
    }
    this.out += ']';
  }

  bean(o: Record<string, unknown>): void {
    const keys = Object.keys(o).sort();
    this.out += '{';
    let first = true;
    for (const k of keys) {
      const v = o[k];
      if (v === null || v === undefined) continue;
      if (!first) this.out += ',';
      first = false;
      this.out += fastjsonString(k, this.opts.browserCompatible) + ':';
      this.value(v);
    }
    this.out += '}';
  }

  map(entries: Array<[unknown, unknown]>): void {
    if (this.opts.mapSortField) entries = [...entries].sort((a, b) => compareKeys(a[0], b[0]));
    this.out += '{';
    let first = true;
    for (const [k, v] of entries) {
      if (v === null || v === undefined) continue;
      if (!first) this.out += ',';
      first = false;
      if (typeof k === 'string') this.out += fastjsonString(k, this.opts.browserCompatible);
      else if (this.opts.browserCompatible) this.out += fastjsonString(toFastjson(k), true);
      else this.value(k);
      this.out += ':';
      this.value(v);
    }
    this.out += '}';
  }
}

/** Writes a value the way fastjson's JSON.toJSONString does (see the module comment for the value model). */
export function toFastjson(value: unknown, options: FastjsonWriteOptions = {}): string {
  const w = new Writer(options);
  w.value(value);
  return w.out;
}

/** toFastjson as UTF-8 bytes, for a remoting body. */
export function encodeFastjson(value: unknown, options: FastjsonWriteOptions = {}): Buffer {
  return Buffer.from(toFastjson(value, options), 'utf8');
}

/** Parses a UTF-8 body. */
export function decodeFastjson(buf: Buffer): unknown {
  return parseFastjson(buf.toString('utf8'));
}
