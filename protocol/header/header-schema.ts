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

function parseField(header: string, field: string, spec: FieldSpec, raw: string): string | number | boolean | undefined {
  switch (spec.type) {
    case 'string':
      return raw;
    case 'boolean':
      return raw.length === 4 && raw.toLowerCase() === 'true';
    case 'int':
    case 'long': {
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

export function defineHeader<S extends HeaderSchema>(name: string, schema: S): HeaderCodec<S> {
  const fields = Object.keys(schema).map((field) => ({ field, spec: schema[field], key: schema[field].key ?? field }));
  return {
    name,
    schema,
    encode(values: HeaderValues<S>): ExtFields {
      const out: ExtFields = {};
      const v = values as Record<string, unknown>;
      for (const { field, spec, key } of fields) {
        const value = v[field];
        if (value === undefined || value === null) {
          if (spec.required) throw new ProtocolError(`${name}: required field ${field} is missing`);
          continue;
        }
        out[key] = typeof value === 'string' ? value : String(value);
      }
      return out;
    },
    decode(extFields: ExtFields | null | undefined): HeaderValues<S> {
      const out: Record<string, unknown> = {};
      for (const { field, spec, key } of fields) {
        const raw = extFields ? extFields[key] : undefined;
        if (raw === undefined || raw === null) {
          if (spec.required) throw new ProtocolError(`${name}: required field ${field} is missing`);
          continue;
        }
        const value = parseField(name, field, spec, raw);
        if (value !== undefined) out[field] = value;
      }
      return out as HeaderValues<S>;
    },
  };
}
