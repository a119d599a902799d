/**
 * Stored message records: the commit-log layout, which is also the body of a PULL_MESSAGE response (records back
 * to back).
 *
 * ```
 * offset size
 *  0     4   TOTALSIZE          the record's length, this field included
 *  4     4   MAGICCODE          V1 -626843481 (0xDAA320A7); 5.x V2 -626843477 (i16 topic length)
 *  8     4   BODYCRC            UtilAll.crc32 of the body as stored (masked 0x7FFFFFFF)
 * 12     4   QUEUEID
 * 16     4   FLAG
 * 20     8   QUEUEOFFSET        index in the consume queue
 * 28     8   PHYSICALOFFSET     commit-log offset of this record
 * 36     4   SYSFLAG            0x10 born host IPv6, 0x20 store host IPv6, 0x1 compressed (+ type bits 0x700)
 * 40     8   BORNTIMESTAMP
 * 48   8|20  BORNHOST           IP (4|16) + port i32
 *   ..   8   STORETIMESTAMP
 *   .. 8|20  STOREHOST          IP (4|16) + port i32
 *   ..   4   RECONSUMETIMES
 *   ..   8   PREPARED_TRANSACTION_OFFSET
 *   ..  4+n  BODY               i32 length + bytes
 *   .. 1|2+n TOPIC              u8 length (V1) or i16 length (V2) + UTF-8
 *   ..  2+n  PROPERTIES         i16 length + UTF-8 `name\u0001value\u0002...`
 * ```
 * The commit log ends a file with a blank record: TOTALSIZE then BLANK_MAGIC_CODE -875286124 (0xCBD43194).
 *
 * @see org.apache.rocketmq.common.message.MessageDecoder
 * @see org.apache.rocketmq.common.message.MessageVersion
 */
import { ProtocolError } from '../errors';
import { bodyCrc32, decompressBody } from './compression';
import type { MessageExt } from './message';
import { MessageConst } from './message-const';
import { createOffsetMessageIdFromBytes } from './message-id';
import { findProperty, propertiesToString, stringToProperties, type MessageProperties } from './properties';
import { bytesToIp, ipToBytes, isIPv6, type SocketAddress } from './socket-address';
import { MessageSysFlag } from './sys-flag';

export const MESSAGE_MAGIC_CODE = -626843481;
export const MESSAGE_MAGIC_CODE_V2 = -626843477;
export const BLANK_MAGIC_CODE = -875286124;

export const MESSAGE_MAGIC_CODE_POSITION = 4;
export const MESSAGE_FLAG_POSITION = 16;
export const QUEUE_OFFSET_POSITION = 20;
export const PHY_POS_POSITION = 28;
export const SYSFLAG_POSITION = 36;
export const BORN_TIMESTAMP_POSITION = 40;
export const BORN_HOST_POSITION = 48;

/** The smallest possible record (IPv4 hosts, empty body, topic and properties, V1). */
export const MIN_RECORD_SIZE = 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + 8 + 8 + 8 + 4 + 8 + 4 + 1 + 2;

const UNIQ_KEY = MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX;
const TAGS = MessageConst.PROPERTY_TAGS;
const EMPTY = Buffer.alloc(0);

function readLong(buf: Buffer, at: number): number {
  return buf.readInt32BE(at) * 4294967296 + buf.readUInt32BE(at + 4);
}

function writeLong(buf: Buffer, value: number, at: number): void {
  const hi = Math.floor(value / 4294967296);
  buf.writeInt32BE(hi | 0, at);
  buf.writeUInt32BE(value - hi * 4294967296, at + 4);
}

/** Where the variable part of a record lies; what {@link peekMessage} reads without decoding strings it does not need. */
export interface StoredRecordLayout {
  readonly storeSize: number;
  readonly magicCode: number;
  readonly sysFlag: number;
  readonly bornHostLength: 4 | 16;
  readonly storeHostLength: 4 | 16;
  /** Position of STORETIMESTAMP (STOREHOST follows it). */
  readonly storeTimestampPosition: number;
  readonly reconsumeTimesPosition: number;
  readonly bodyPosition: number;
  readonly bodyLength: number;
  readonly topicPosition: number;
  readonly topicLength: number;
  readonly propertiesPosition: number;
  readonly propertiesLength: number;
}

/**
 * Validates the record at `offset` and computes where its fields lie (all positions absolute in `buf`).
 * A `ProtocolError` when the record is truncated, its magic is not a message magic (the blank filler included:
 * check {@link readMagicCode} first when walking a commit log), or its lengths do not add up to TOTALSIZE.
 */
export function layoutRecord(buf: Buffer, offset = 0): StoredRecordLayout {
  const remaining = buf.length - offset;
  if (remaining < 8) throw new ProtocolError(`truncated message record at ${offset}: ${remaining} bytes left`);
  const storeSize = buf.readInt32BE(offset);
  const magicCode = buf.readInt32BE(offset + 4);
  if (magicCode !== MESSAGE_MAGIC_CODE && magicCode !== MESSAGE_MAGIC_CODE_V2) {
    throw new ProtocolError(`bad message magic code ${magicCode} at ${offset}`);
  }
  if (storeSize < MIN_RECORD_SIZE || storeSize > remaining) {
    throw new ProtocolError(`truncated or invalid message record at ${offset}: size ${storeSize}, ${remaining} bytes left`);
  }
  const end = offset + storeSize;
  const sysFlag = buf.readInt32BE(offset + SYSFLAG_POSITION);
  const bornHostLength = sysFlag & MessageSysFlag.BORNHOST_V6_FLAG ? 16 : 4;
  const storeHostLength = sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG ? 16 : 4;
  const storeTimestampPosition = offset + BORN_HOST_POSITION + bornHostLength + 4;
  const reconsumeTimesPosition = storeTimestampPosition + 8 + storeHostLength + 4;
  const bodySizePosition = reconsumeTimesPosition + 4 + 8;
  if (bodySizePosition + 4 > end) throw new ProtocolError(`message record at ${offset} too short for its hosts`);
  const bodyLength = buf.readInt32BE(bodySizePosition);
  const bodyPosition = bodySizePosition + 4;
  const topicSizeBytes = magicCode === MESSAGE_MAGIC_CODE_V2 ? 2 : 1;
  if (bodyLength < 0 || bodyPosition + bodyLength + topicSizeBytes > end) {
    throw new ProtocolError(`bad body length ${bodyLength} in message record at ${offset}`);
  }
  const topicLenPos = bodyPosition + bodyLength;
  const topicLength = topicSizeBytes === 2 ? buf.readInt16BE(topicLenPos) : buf.readUInt8(topicLenPos);
  const topicPosition = topicLenPos + topicSizeBytes;
  if (topicLength < 0 || topicPosition + topicLength + 2 > end) {
    throw new ProtocolError(`bad topic length ${topicLength} in message record at ${offset}`);
  }
  const propsLenPos = topicPosition + topicLength;
  const propertiesLength = buf.readInt16BE(propsLenPos);
  const propertiesPosition = propsLenPos + 2;
  if (propertiesLength < 0 || propertiesPosition + propertiesLength !== end) {
    throw new ProtocolError(
      `message record at ${offset}: properties length ${propertiesLength} does not match TOTALSIZE ${storeSize}`,
    );
  }
  return {
    storeSize, magicCode, sysFlag, bornHostLength, storeHostLength, storeTimestampPosition, reconsumeTimesPosition,
    bodyPosition, bodyLength, topicPosition, topicLength, propertiesPosition, propertiesLength,
  };
}

/** The MAGICCODE of the record at `offset` (message V1/V2, or BLANK_MAGIC_CODE at a commit-log file's end). */
export function readMagicCode(buf: Buffer, offset = 0): number {
  if (buf.length - offset < 8) throw new ProtocolError(`truncated message record at ${offset}`);
  return buf.readInt32BE(offset + 4);
}

export interface DecodeMessageOptions {
  /** Read the body (default true); when false `body` is empty. */
  readBody?: boolean;
  /** Inflate compressed bodies (default true). The sysFlag is kept as stored. */
  decompressBody?: boolean;
  /**
   * Client view (default true): `msgId` is UNIQ_KEY when present, as Java's MessageClientExt.getMsgId(); when false
   * `msgId` is always the offset msgId (the broker's MessageExt).
   */
  clientMsgId?: boolean;
  /** Verify BODYCRC against the stored body (default false, as the Java client). */
  checkCRC?: boolean;
  /** Copy the body out of `buf` (default false: the body is a view into `buf`). */
  copyBody?: boolean;
}

/**
 * Decodes the record at `offset`. The (uncompressed) body is a view into `buf` unless `copyBody`; compressed bodies
 * are always fresh buffers. Errors are `ProtocolError`s (Java's decoder returns null and stops instead).
 */
export function decodeMessage(buf: Buffer, offset = 0, options: DecodeMessageOptions = {}): MessageExt {
  const l = layoutRecord(buf, offset);
  const sysFlag = l.sysFlag;
  const bodyCRC = buf.readInt32BE(offset + 8);
  let body: Buffer = EMPTY;
  if (l.bodyLength > 0 && options.readBody !== false) {
    body = buf.subarray(l.bodyPosition, l.bodyPosition + l.bodyLength);
    if (options.checkCRC && bodyCrc32(body) !== bodyCRC) {
      throw new ProtocolError(`body CRC mismatch in message record at ${offset}: stored ${bodyCRC}, computed ${bodyCrc32(body)}`);
    }
    if (options.decompressBody !== false && sysFlag & MessageSysFlag.COMPRESSED_FLAG) body = decompressBody(body, sysFlag);
    else if (options.copyBody) body = Buffer.from(body);
  }
  const topic = buf.toString('utf8', l.topicPosition, l.topicPosition + l.topicLength);
  const properties: MessageProperties =
    l.propertiesLength > 0 ? stringToProperties(buf.toString('utf8', l.propertiesPosition, l.propertiesPosition + l.propertiesLength)) : {};
  const bornHostPos = offset + BORN_HOST_POSITION;
  const storeHostPos = l.storeTimestampPosition + 8;
  const commitLogOffset = readLong(buf, offset + PHY_POS_POSITION);
  const offsetMsgId = createOffsetMessageIdFromBytes(buf, storeHostPos, l.storeHostLength, commitLogOffset);
  const uniq = options.clientMsgId === false ? undefined : properties[UNIQ_KEY];
  return {
    topic,
    flag: buf.readInt32BE(offset + MESSAGE_FLAG_POSITION),
    properties,
    body,
    queueId: buf.readInt32BE(offset + 12),
    storeSize: l.storeSize,
    queueOffset: readLong(buf, offset + QUEUE_OFFSET_POSITION),
    sysFlag,
    bornTimestamp: readLong(buf, offset + BORN_TIMESTAMP_POSITION),
    bornHost: {
      address: bytesToIp(buf, bornHostPos, l.bornHostLength),
      port: buf.readInt32BE(bornHostPos + l.bornHostLength),
    },
    storeTimestamp: readLong(buf, l.storeTimestampPosition),
    storeHost: {
      address: bytesToIp(buf, storeHostPos, l.storeHostLength),
      port: buf.readInt32BE(storeHostPos + l.storeHostLength),
    },
    msgId: uniq ?? offsetMsgId,
    offsetMsgId,
    commitLogOffset,
    bodyCRC,
    reconsumeTimes: buf.readInt32BE(l.reconsumeTimesPosition),
    preparedTransactionOffset: readLong(buf, l.reconsumeTimesPosition + 4),
  };
}

/** Decodes a PULL_MESSAGE response body: records back to back. A truncated or bad record is a `ProtocolError`. */
export function decodeMessages(buf: Buffer, options: DecodeMessageOptions = {}): MessageExt[] {
  const out: MessageExt[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const msg = decodeMessage(buf, offset, options);
    out.push(msg);
    offset += msg.storeSize;
  }
  return out;
}

/** A few fields of a record, read without decoding the body or building the properties map. */
export interface MessagePeek {
  storeSize: number;
  topic: string;
  queueId: number;
  queueOffset: number;
  commitLogOffset: number;
  sysFlag: number;
  storeTimestamp: number;
  /** The TAGS property, if any. */
  tags: string | undefined;
  /** The raw properties string (for {@link findProperty}). */
  propertiesString: string;
}

/** Reads the routing fields of the record at `offset` (consumer tag re-check, store dispatch). */
export function peekMessage(buf: Buffer, offset = 0): MessagePeek {
  const l = layoutRecord(buf, offset);
  const propertiesString = l.propertiesLength > 0 ? buf.toString('utf8', l.propertiesPosition, l.propertiesPosition + l.propertiesLength) : '';
  return {
    storeSize: l.storeSize,
    topic: buf.toString('utf8', l.topicPosition, l.topicPosition + l.topicLength),
    queueId: buf.readInt32BE(offset + 12),
    queueOffset: readLong(buf, offset + QUEUE_OFFSET_POSITION),
    commitLogOffset: readLong(buf, offset + PHY_POS_POSITION),
    sysFlag: l.sysFlag,
    storeTimestamp: readLong(buf, l.storeTimestampPosition),
    tags: propertiesString ? findProperty(propertiesString, TAGS) : undefined,
    propertiesString,
  };
}

/** Everything a stored record holds. `body` is written as given (compress it first when sysFlag says so). */
export interface StoredMessageInit {
  topic: string;
  flag?: number;
  /** A map (written in insertion order) or an already encoded properties string. */
  properties?: MessageProperties | string;
  body?: Buffer;
  queueId: number;
  queueOffset: number;
  commitLogOffset: number;
  /** The IPv6 host bits are set or cleared from the hosts' address families. */
  sysFlag?: number;
  bornTimestamp: number;
  bornHost: SocketAddress;
  storeTimestamp: number;
  storeHost: SocketAddress;
  reconsumeTimes?: number;
  preparedTransactionOffset?: number;
  /** Default: computed with {@link bodyCrc32} over `body`. */
  bodyCRC?: number;
  /** MESSAGE_MAGIC_CODE (default) or the 5.x MESSAGE_MAGIC_CODE_V2 (i16 topic length). */
  magicCode?: number;
}

/**
 * Encodes one stored record exactly as the Java store lays it out. For tests and tools; the broker's append path
 * builds records itself.
 */
export function encodeStoredMessage(m: StoredMessageInit): Buffer {
  const magicCode = m.magicCode ?? MESSAGE_MAGIC_CODE;
  if (magicCode !== MESSAGE_MAGIC_CODE && magicCode !== MESSAGE_MAGIC_CODE_V2) throw new ProtocolError(`bad magic code ${magicCode}`);
  const body = m.body ?? EMPTY;
  const topic = Buffer.from(m.topic, 'utf8');
  const topicSizeBytes = magicCode === MESSAGE_MAGIC_CODE_V2 ? 2 : 1;
  if (topic.length > (topicSizeBytes === 1 ? 127 : 32767)) throw new ProtocolError(`topic too long: ${topic.length} bytes`);
  const props = Buffer.from(typeof m.properties === 'string' ? m.properties : propertiesToString(m.properties), 'utf8');
  if (props.length > 32767) throw new ProtocolError(`properties too long: ${props.length} bytes (max 32767)`);
  const bornIp = ipToBytes(m.bornHost.address);
  const storeIp = ipToBytes(m.storeHost.address);
  let sysFlag = m.sysFlag ?? 0;
  sysFlag = isIPv6(m.bornHost.address) ? sysFlag | MessageSysFlag.BORNHOST_V6_FLAG : sysFlag & ~MessageSysFlag.BORNHOST_V6_FLAG;
  sysFlag = isIPv6(m.storeHost.address)
    ? sysFlag | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG
    : sysFlag & ~MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
  // fixed fields without the hosts and the topic length: MIN_RECORD_SIZE - 2 * 8 - 1
  const size =
    MIN_RECORD_SIZE - 17 + bornIp.length + 4 + storeIp.length + 4 + body.length + topicSizeBytes + topic.length + props.length;
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(size, 0);
  out.writeInt32BE(magicCode, 4);
  out.writeInt32BE(m.bodyCRC ?? bodyCrc32(body), 8);
  out.writeInt32BE(m.queueId, 12);
  out.writeInt32BE(m.flag ?? 0, 16);
  writeLong(out, m.queueOffset, 20);
  writeLong(out, m.commitLogOffset, 28);
  out.writeInt32BE(sysFlag, 36);
  writeLong(out, m.bornTimestamp, 40);
  let p = 48;
  bornIp.copy(out, p);
  p += bornIp.length;
  out.writeInt32BE(m.bornHost.port, p);
  p += 4;
  writeLong(out, m.storeTimestamp, p);
  p += 8;
  storeIp.copy(out, p);
  p += storeIp.length;
  out.writeInt32BE(m.storeHost.port, p);
  p += 4;
  out.writeInt32BE(m.reconsumeTimes ?? 0, p);
  p += 4;
  writeLong(out, m.preparedTransactionOffset ?? 0, p);
  p += 8;
  out.writeInt32BE(body.length, p);
  p += 4;
  body.copy(out, p);
  p += body.length;
  if (topicSizeBytes === 2) out.writeInt16BE(topic.length, p);
  else out.writeUInt8(topic.length, p);
  p += topicSizeBytes;
  topic.copy(out, p);
  p += topic.length;
  out.writeInt16BE(props.length, p);
  p += 2;
  props.copy(out, p);
  return out;
}
