/**
 * The ROCKETMQ binary header: code i16, language u8, version i16, opaque i32, flag i32,
 * remark (i32 length + UTF-8), extFields (i32 total length, then per entry i16 key length + key, i32 value length + value).
 *
 * @see org.apache.rocketmq.remoting.protocol.RocketMQSerializable
 */
import { ProtocolError } from '../errors';
import { type CommandFields, type ExtFields, type RemotingCommandInit, SerializeType, languageCode, languageName } from '../command-fields';

/**
 * Header keys and values are mostly short ASCII (V2's one-letter keys, numbers, group and topic names): up to this
 * many characters they are measured, written and read in JS, without a call into the runtime for each.
 */
const SHORT = 32;

/** Bytes `s` takes in UTF-8. */
function utf8Length(s: string): number {
  const n = s.length;
  if (n > SHORT) return Buffer.byteLength(s, 'utf8');
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) > 0x7f) return Buffer.byteLength(s, 'utf8');
  return n;
}

/** Writes `s` as UTF-8 at `o` (room is the caller's); returns the bytes written. */
function writeUtf8(out: Buffer, s: string, o: number): number {
  const n = s.length;
  if (n > SHORT) return out.write(s, o, 'utf8');
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return out.write(s, o, 'utf8'); // starts over at o
    out[o + i] = c;
  }
  return n;
}

type SliceableBuffer = Buffer & { utf8Slice(start: number, end: number): string };

/**
 * Recently read short strings by a hash of their bytes: the same keys and most of the same values (group, topic,
 * flags) come in every request. A slot is checked byte for byte before it is used; only ASCII strings are kept.
 */
const RECENT: Array<string | undefined> = new Array<string | undefined>(1024);

/** The UTF-8 string in `buf[start, end)`. */
function readUtf8(buf: Buffer, start: number, end: number): string {
  const n = end - start;
  if (n === 0) return '';
  if (n > SHORT) return (buf as SliceableBuffer).utf8Slice(start, end);
  const slot = (n * 31 + buf[start] * 7 + buf[end - 1] * 13 + buf[start + (n >> 1)] * 3) & 1023;
  const seen = RECENT[slot];
  if (seen !== undefined && seen.length === n) {
    let i = 0;
    while (i < n && seen.charCodeAt(i) === buf[start + i]) i++;
    if (i === n) return seen;
  }
  const s = (buf as SliceableBuffer).utf8Slice(start, end);
  if (s.length === n) RECENT[slot] = s; // ASCII (a multi-byte or replaced sequence makes it shorter or unequal)
  return s;
}

/** The header's length in bytes. */
export function rocketMQHeaderLength(cmd: CommandFields): number {
  let n = 13 + 4 + 4;
  if (cmd.remark) n += utf8Length(cmd.remark);
  const ext = cmd.extFields;
  if (ext) {
    for (const key in ext) {
      const value = ext[key];
      if (value === undefined || value === null) continue;
      n += 6 + utf8Length(key) + utf8Length(value);
    }
  }
  return n;
}

/**
 * Writes the header into `out` at `offset` (room for rocketMQHeaderLength bytes is the caller's): strings are
 * written first and their lengths filled in after, so nothing is measured twice. Returns the end offset.
 */
export function writeRocketMQHeader(cmd: CommandFields, out: Buffer, offset: number, opaque: number, flag: number, language: string): number {
  let o = offset;
  out.writeInt16BE(cmd.code, o); o += 2;
  out.writeUInt8(languageCode(language), o); o += 1;
  out.writeInt16BE(cmd.version, o); o += 2;
  out.writeInt32BE(opaque, o); o += 4;
  out.writeInt32BE(flag, o); o += 4;
  const remarkLength = cmd.remark ? writeUtf8(out, cmd.remark, o + 4) : 0;
  out.writeInt32BE(remarkLength, o); o += 4 + remarkLength;
  const extAt = o;
  o += 4;
  const ext = cmd.extFields;
  if (ext) {
    for (const key in ext) {
      const value = ext[key];
      if (value === undefined || value === null) continue;
      const kl = writeUtf8(out, key, o + 2);
      out.writeInt16BE(kl, o);
      o += 2 + kl;
      const vl = writeUtf8(out, value, o + 4);
      out.writeInt32BE(vl, o);
      o += 4 + vl;
    }
  }
  out.writeInt32BE(o - extAt - 4, extAt);
  return o;
}

function need(header: Buffer, offset: number, n: number, what: string): void {
  if (n < 0 || offset + n > header.length) {
    throw new ProtocolError(`ROCKETMQ header truncated reading ${what} (${n} bytes at ${offset} of ${header.length})`);
  }
}

/** A ROCKETMQ header to the command's fields (no body). */
export function decodeRocketMQHeader(header: Buffer): RemotingCommandInit {
  need(header, 0, 17, 'fixed fields');
  let o = 0;
  const code = header.readInt16BE(o); o += 2;
  const language = languageName(header.readUInt8(o)); o += 1;
  const version = header.readInt16BE(o); o += 2;
  const opaque = header.readInt32BE(o); o += 4;
  const flag = header.readInt32BE(o); o += 4;
  const remarkLength = header.readInt32BE(o); o += 4;
  let remark: string | null = null;
  if (remarkLength !== 0) {
    need(header, o, remarkLength, 'remark');
    remark = readUtf8(header, o, o + remarkLength);
    o += remarkLength;
  }
  need(header, o, 4, 'extFields length');
  const extLength = header.readInt32BE(o); o += 4;
  need(header, o, extLength, 'extFields');
  let extFields: ExtFields | null = null;
  if (extLength > 0) {
    extFields = {};
    const end = o + extLength;
    while (o < end) {
      need(header, o, 2, 'extFields key length');
      const kl = header.readInt16BE(o); o += 2;
      need(header, o, kl, 'extFields key');
      const key = readUtf8(header, o, o + kl); o += kl;
      need(header, o, 4, 'extFields value length');
      const vl = header.readInt32BE(o); o += 4;
      if (o + vl > end) need(header, header.length, 1, 'extFields value');
      need(header, o, vl, 'extFields value');
      extFields[key] = readUtf8(header, o, o + vl); o += vl;
    }
  }
  return { code, language, version, opaque, flag, remark, extFields, body: null, serializeType: SerializeType.ROCKETMQ };
}
