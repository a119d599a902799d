/**
 * The frame codec, pure: a command's fields in, bytes out (and back). Nothing here mutates a command; the
 * opaque, flag, language and serialize type a lower layer chooses come in as EncodeOptions.
 *
 * Frame: `int32 length | int32 mark | header | body`, mark = serializeType << 24 | headerLength, length counts
 * everything after itself. Encoding allocates one buffer: the header is measured, then written at offset 8 of the
 * frame (as pg-protocol's Writer reserves its 5 header bytes), and the body copied after it.
 *
 * @see org.apache.rocketmq.remoting.protocol.RemotingCommand#fastEncodeHeader
 */
import { type CommandFields, type EncodeOptions, type RemotingCommandInit, SerializeType } from './command-fields';
import { ProtocolError } from './errors';
import { decodeJsonHeader, jsonHeaderString } from './serializer/json';
import { decodeRocketMQHeader, rocketMQHeaderLength, writeRocketMQHeader } from './serializer/rocketmq';

function bodyLengthOf(cmd: CommandFields): number {
  if (cmd.bodyParts) {
    let n = 0;
    for (const p of cmd.bodyParts) n += p.length;
    return n;
  }
  return cmd.body ? cmd.body.length : 0;
}

/**
 * Length prefix, mark and header in one buffer, with `extra` bytes of room after the header (0: the body is
 * written separately, as a transport does to send a large body without copying it).
 */
function encodeHead(cmd: CommandFields, options: EncodeOptions | undefined, bodyLength: number, extra: number): Buffer {
  const serializeType = options?.serializeType ?? cmd.serializeType;
  const opaque = options?.opaque ?? cmd.opaque;
  const flag = options?.flag ?? cmd.flag;
  const language = options?.language ?? cmd.language;
  let out: Buffer;
  let headerLength: number;
  if (serializeType === SerializeType.ROCKETMQ) {
    headerLength = rocketMQHeaderLength(cmd);
    out = Buffer.allocUnsafe(8 + headerLength + extra);
    writeRocketMQHeader(cmd, out, 8, opaque, flag, language);
  } else {
    const s = jsonHeaderString(cmd, opaque, flag, language, serializeType);
    headerLength = Buffer.byteLength(s, 'utf8');
    out = Buffer.allocUnsafe(8 + headerLength + extra);
    out.write(s, 8, 'utf8');
  }
  out.writeInt32BE(4 + headerLength + bodyLength, 0);
  out.writeInt32BE((serializeType << 24) | headerLength, 4);
  return out;
}

/** The frame's length prefix, mark and header; the body (if any) must be written right after it. */
export function encodeHeaderFrame(cmd: CommandFields, options?: EncodeOptions): Buffer {
  return encodeHead(cmd, options, bodyLengthOf(cmd), 0);
}

/** The whole frame, length prefix included, in one buffer. */
export function encodeFrame(cmd: CommandFields, options?: EncodeOptions): Buffer {
  const bodyLength = bodyLengthOf(cmd);
  const out = encodeHead(cmd, options, bodyLength, bodyLength);
  if (bodyLength === 0) return out;
  let o = out.length - bodyLength;
  if (cmd.bodyParts) {
    for (const p of cmd.bodyParts) o += p.copy(out, o);
  } else {
    cmd.body!.copy(out, o);
  }
  return out;
}

/** A frame payload (the bytes after the 4-byte length) to a command's fields. The body is a view, not a copy. */
export function decodePayload(payload: Buffer): RemotingCommandInit {
  if (payload.length < 4) throw new ProtocolError(`frame payload too short: ${payload.length} bytes`);
  const mark = payload.readInt32BE(0);
  const type = (mark >>> 24) & 0xff;
  const headerLength = mark & 0x00ffffff;
  if (headerLength > payload.length - 4) {
    throw new ProtocolError(`header length ${headerLength} exceeds frame payload of ${payload.length - 4} bytes`);
  }
  const header = payload.subarray(4, 4 + headerLength);
  let init: RemotingCommandInit;
  if (type === SerializeType.JSON) init = decodeJsonHeader(header);
  else if (type === SerializeType.ROCKETMQ) init = decodeRocketMQHeader(header);
  else throw new ProtocolError(`unknown serialize type ${type}`);
  const bodyLength = payload.length - 4 - headerLength;
  init.body = bodyLength > 0 ? payload.subarray(4 + headerLength) : null;
  return init;
}
