/**
 * The body of SEND_BATCH_MESSAGE (320): per message
 * `TOTALSIZE i32 | MAGICCODE i32 (0) | BODYCRC i32 (0) | FLAG i32 | BODY i32 + bytes | PROPERTIES i16 + UTF-8`.
 * The Java client writes 0 for MAGICCODE and BODYCRC; the broker fills them in when it stores each message.
 * Topic and queue travel in the request header and are shared by the whole batch.
 *
 * @see org.apache.rocketmq.common.message.MessageDecoder#encodeMessages / decodeMessages
 * @see org.apache.rocketmq.common.message.MessageBatch
 */
import { ProtocolError } from '../errors';
import { propertiesToString, stringToProperties, type MessageProperties } from './properties';

/** What each batch entry carries; the topic comes from the request header. */
export interface BatchEntry {
  flag: number;
  body: Buffer;
  properties: MessageProperties;
}

/**
 * Java's `MessageDecoder.encodeMessages`. Properties are written in the map's insertion order, or as
 * `propertiesText` writes them (the producer passes `propertiesToJavaString` for a Java client's order).
 */
export function encodeBatchBody(
  messages: readonly { flag?: number; body: Buffer; properties?: MessageProperties }[],
  propertiesText: (p: MessageProperties | undefined) => string = propertiesToString,
): Buffer {
  const props: Buffer[] = new Array(messages.length);
  let total = 0;
  for (let i = 0; i < messages.length; i++) {
    const p = Buffer.from(propertiesText(messages[i].properties), 'utf8');
    if (p.length > 32767) throw new ProtocolError(`properties size of message exceeded, properties size: ${p.length}, maxSize: 32767`);
    props[i] = p;
    total += 4 + 4 + 4 + 4 + 4 + messages[i].body.length + 2 + p.length;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    const p = props[i];
    const size = 20 + m.body.length + 2 + p.length;
    out.writeInt32BE(size, at);
    out.writeInt32BE(0, at + 4);
    out.writeInt32BE(0, at + 8);
    out.writeInt32BE(m.flag ?? 0, at + 12);
    out.writeInt32BE(m.body.length, at + 16);
    m.body.copy(out, at + 20);
    at += 20 + m.body.length;
    out.writeInt16BE(p.length, at);
    p.copy(out, at + 2);
    at += 2 + p.length;
  }
  return out;
}

/** Java's `MessageDecoder.decodeMessages` (what the broker does with a batch). Bodies are views into `buf`. */
export function decodeBatchBody(buf: Buffer): BatchEntry[] {
  const out: BatchEntry[] = [];
  let at = 0;
  while (at < buf.length) {
    if (buf.length - at < 22) throw new ProtocolError(`truncated batch entry at ${at}`);
    const size = buf.readInt32BE(at);
    if (size < 22 || size > buf.length - at) throw new ProtocolError(`bad batch entry size ${size} at ${at}`);
    const end = at + size;
    const flag = buf.readInt32BE(at + 12);
    const bodyLength = buf.readInt32BE(at + 16);
    if (bodyLength < 0 || at + 20 + bodyLength + 2 > end) throw new ProtocolError(`bad body length ${bodyLength} in batch entry at ${at}`);
    const body = buf.subarray(at + 20, at + 20 + bodyLength);
    const pPos = at + 20 + bodyLength;
    const propertiesLength = buf.readInt16BE(pPos);
    if (propertiesLength < 0 || pPos + 2 + propertiesLength !== end) {
      throw new ProtocolError(`batch entry at ${at}: properties length ${propertiesLength} does not match size ${size}`);
    }
    out.push({ flag, body, properties: stringToProperties(buf.toString('utf8', pPos + 2, end)) });
    at = end;
  }
  return out;
}
