/**
 * Custom headers travel as string extFields. A header is described once by a schema; one generic pair of
 * functions turns values into extFields and back, checking required fields (Java's `@CFNotNull` + `checkFields()`).
 *
 * Integers and longs are decimal strings, booleans `true` / `false` (Java's `Boolean.parseBoolean`: anything
 * else is false). Longs are JS numbers: every offset and timestamp RocketMQ uses fits in 2^53.
 *
 * @see org.apache.rocketmq.remoting.protocol.RemotingCommand#decodeCommandCustomHeader
 */
import { ProtocolError } from '../errors';
import type { ExtFields } from '../remoting-command';

export type FieldType = 'string' | 'int' | 'long' | 'boolean';

export interface FieldSpec {
  readonly type: FieldType;
  readonly required?: boolean;
  /** The extFields key when it differs from the field name (SendMessageRequestHeaderV2's "a", "b", ...). */
  readonly key?: string;
}

export type HeaderSchema = Readonly<Record<string, FieldSpec>>;

type ValueOf<F extends FieldSpec> = F['type'] extends 'string' ? string : F['type'] extends 'boolean' ? boolean : number;

type RequiredKeys<S extends HeaderSchema> = { [K in keyof S]: S[K]['required'] extends true ? K : never }[keyof S];
type OptionalKeys<S extends HeaderSchema> = Exclude<keyof S, RequiredKeys<S>>;

/** The values of a header described by schema S: required fields mandatory, the rest optional. */
export type HeaderValues<S extends HeaderSchema> = { [K in RequiredKeys<S>]: ValueOf<S[K]> } & {
  [K in OptionalKeys<S>]?: ValueOf<S[K]>;
};

export interface HeaderCodec<S extends HeaderSchema> {
  readonly name: string;
  readonly schema: S;
  /** Values to extFields. Undefined and null fields are left out; a missing required field throws. */
  encode(values: HeaderValues<S>): ExtFields;
  /** extFields to values; unknown keys are ignored, a missing or malformed required field throws. */
  decode(extFields: ExtFields | null | undefined): HeaderValues<S>;
}

/**
 * A codec seen without its schema's static type, for tables keyed by request code: values are plain records.
 * Every `HeaderCodec<S>` is one.
 */
export interface AnyHeaderCodec {
  readonly name: string;
  readonly schema: HeaderSchema;
  encode(values: Readonly<Record<string, unknown>>): ExtFields;
  decode(extFields: ExtFields | null | undefined): Record<string, unknown>;
}

const INT_RE = /^[+-]?\d+$/;

/** `raw` as a number when it is an optionally signed run of decimal digits (the common case, checked without a regex); null otherwise. */
function plainDecimal(raw: string): number | null {
  const len = raw.length;
  let i = 0;
  if (len > 0) {
    const c = raw.charCodeAt(0);
    if (c === 45 || c === 43) i = 1; // - +
  }
  if (i >= len) return null;
  for (; i < len; i++) {
    const c = raw.charCodeAt(i);
    if (c < 48 || c > 57) return null;
  }
  return Number(raw);
}

function parseField(header: string, field: string, spec: FieldSpec, raw: string): string | number | boolean | undefined {
  switch (spec.type) {
    case 'string':
      return raw;
    case 'boolean':
      return raw.length === 4 && raw.toLowerCase() === 'true';
    case 'int':
    case 'long': {
      const fast = plainDecimal(raw);
      if (fast !== null && (spec.type === 'long' || (fast <= 2147483647 && fast >= -2147483648))) return fast;
      const s = raw.trim();
      if (!INT_RE.test(s)) {
        if (!spec.required && s === '') return undefined;
        throw new ProtocolError(`${header}: field ${field} is not an integer: ${JSON.stringify(raw)}`);
      }
      const n = Number(s);
      if (spec.type === 'int' && (n > 2147483647 || n < -2147483648)) {
        throw new ProtocolError(`${header}: field ${field} is out of int range: ${raw}`);
      }
      return n;
    }
  }
}

interface CompiledField {
  readonly field: string;
  readonly spec: FieldSpec;
  readonly key: string;
}

type Encoder = (values: Readonly<Record<string, unknown>>) => ExtFields;

/**
 * The encode loop unrolled into one function per schema, with the field names and keys as constants: a header on
 * the hot path (SEND_MESSAGE_V2's 14 fields, per send) then costs named property loads and stores instead of a
 * keyed store per field with a different key each time (a megamorphic access). Same semantics as the loop it
 * replaces: undefined and null are left out, a missing required field throws, anything else becomes a string.
 */
function compileEncoder(name: string, fields: readonly CompiledField[]): Encoder {
  let src = 'const o = {};\nlet x;\n';
  fields.forEach(({ field, spec, key }, i) => {
    src += `x = v[${JSON.stringify(field)}];\n`;
    src += 'if (x === undefined || x === null) {';
    if (spec.required) src += ` throw missing(${i});`;
    src += ` } else o[${JSON.stringify(key)}] = typeof x === 'string' ? x : String(x);\n`;
  });
  src += 'return o;';
  const missing = (i: number) => new ProtocolError(`${name}: required field ${fields[i].field} is missing`);
  // generated from the schema's own field names (JSON-quoted), never from input
  const body = new Function('missing', `return function encode(v) {\n${src}\n};`) as (m: typeof missing) => Encoder;
  return body(missing);
}

type Decoder = (extFields: ExtFields | null | undefined) => Record<string, unknown>;

/** The decode loop unrolled the same way (see compileEncoder); string fields are copied as they are, the rest go through parseField. */
function compileDecoder(name: string, fields: readonly CompiledField[]): Decoder {
  let src = 'const o = {};\nlet raw;\nlet x;\n';
  fields.forEach(({ field, spec, key }, i) => {
    src += `raw = e ? e[${JSON.stringify(key)}] : undefined;\n`;
    src += 'if (raw === undefined || raw === null) {';
    if (spec.required) src += ` throw missing(${i});`;
    src += ' } else ';
    if (spec.type === 'string') src += `o[${JSON.stringify(field)}] = raw;\n`;
    else src += `{ x = parse(${i}, raw); if (x !== undefined) o[${JSON.stringify(field)}] = x; }\n`;
  });
  src += 'return o;';
  const missing = (i: number) => new ProtocolError(`${name}: required field ${fields[i].field} is missing`);
  const parse = (i: number, raw: string) => parseField(name, fields[i].field, fields[i].spec, raw);
  // generated from the schema's own field names (JSON-quoted), never from input
  const make = new Function('missing', 'parse', `return function decode(e) {\n${src}\n};`) as (m: typeof missing, p: typeof parse) => Decoder;
  return make(missing, parse);
}

export function defineHeader<S extends HeaderSchema>(name: string, schema: S): HeaderCodec<S> {
  const fields: CompiledField[] = Object.keys(schema).map((field) => ({ field, spec: schema[field], key: schema[field].key ?? field }));
  const encode = compileEncoder(name, fields);
  const decode = compileDecoder(name, fields);
  return {
    name,
    schema,
    encode(values: HeaderValues<S>): ExtFields {
      return encode(values as Readonly<Record<string, unknown>>);
    },
    decode(extFields: ExtFields | null | undefined): HeaderValues<S> {
      return decode(extFields) as HeaderValues<S>;
    },
  };
}
