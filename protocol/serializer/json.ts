/**
 * The JSON header (RemotingSerializable over fastjson): fields in fastjson's alphabetical order, nulls omitted,
 * language as its enum name.
 *
 * @see org.apache.rocketmq.remoting.protocol.RemotingSerializable
 */
import { ProtocolError } from '../errors';
import { type CommandFields, type ExtFields, type RemotingCommandInit, SerializeType } from '../command-fields';

/** JSON.stringify(s), without the call for the usual short printable ASCII key or value (nothing to escape). */
function quote(s: string): string {
  const n = s.length;
  if (n > 64) return JSON.stringify(s);
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(s);
  }
  return '"' + s + '"';
}

/** The header as a JSON string; opaque, flag, language and serialize type are given (see EncodeOptions). */
export function jsonHeaderString(cmd: CommandFields, opaque: number, flag: number, language: string, serializeType: SerializeType): string {
  let s = '{"code":' + cmd.code;
  if (cmd.extFields) {
    s += ',"extFields":{';
    let first = true;
    for (const key in cmd.extFields) {
      const value = cmd.extFields[key];
      if (value === undefined || value === null) continue;
      s += (first ? '' : ',') + quote(key) + ':' + quote(value);
      first = false;
    }
    s += '}';
  }
  s += ',"flag":' + flag + ',"language":"' + language + '","opaque":' + opaque;
  if (cmd.remark !== null && cmd.remark !== undefined) s += ',"remark":' + quote(cmd.remark);
  s += ',"serializeTypeCurrentRPC":"' + (serializeType === SerializeType.ROCKETMQ ? 'ROCKETMQ' : 'JSON') + '"';
  s += ',"version":' + cmd.version + '}';
  return s;
}

function int(value: unknown, field: string, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  throw new ProtocolError(`JSON header field ${field} is not an integer`);
}

/** A JSON header to the command's fields (no body). */
export function decodeJsonHeader(header: Buffer): RemotingCommandInit {
  let obj: unknown;
  try {
    obj = JSON.parse(header.toString('utf8'));
  } catch (err) {
    throw new ProtocolError('malformed JSON header', { cause: err });
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new ProtocolError('JSON header is not an object');
  const h = obj as Record<string, unknown>;
  let extFields: ExtFields | null = null;
  if (h.extFields !== undefined && h.extFields !== null) {
    if (typeof h.extFields !== 'object' || Array.isArray(h.extFields)) throw new ProtocolError('extFields is not an object');
    // the parsed object is reused: only non-string values are converted (no copy, no entries array per frame)
    const ext = h.extFields as Record<string, unknown>;
    for (const k in ext) {
      const v = ext[k];
      if (typeof v === 'string') continue;
      if (v === null || v === undefined) delete ext[k];
      else ext[k] = String(v);
    }
    extFields = ext as ExtFields;
  }
  if (h.code === undefined) throw new ProtocolError('JSON header has no code');
  return {
    code: int(h.code, 'code', 0),
    language: typeof h.language === 'string' ? h.language : 'JAVA',
    version: int(h.version, 'version', 0),
    opaque: int(h.opaque, 'opaque', 0),
    flag: int(h.flag, 'flag', 0),
    remark: typeof h.remark === 'string' ? h.remark : null,
    extFields,
    body: null,
    serializeType: SerializeType.JSON,
  };
}
