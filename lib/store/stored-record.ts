/**
 * The stored record of the commit log: the store writes it (Java's DefaultAppendMessageCallback and
 * MessageExtBatchEncoder) and checks it back for recovery and dispatch (Java's CommitLog.checkMessageAndReturnSize).
 *
 * Layout: TOTALSIZE i32 | MAGICCODE i32 | BODYCRC i32 | QUEUEID i32 | FLAG i32 | QUEUEOFFSET i64 |
 * PHYSICALOFFSET i64 | SYSFLAG i32 | BORNTIMESTAMP i64 | BORNHOST (4|16 + 4) | STORETIMESTAMP i64 |
 * STOREHOST (4|16 + 4) | RECONSUMETIMES i32 | PREPARED_TRANSACTION_OFFSET i64 | BODY (i32 + bytes) |
 * TOPIC (u8 + bytes) | PROPERTIES (i16 + bytes). End-of-file filler: TOTALSIZE (rest of the file) | BLANK magic.
 *
 * @see org.apache.rocketmq.store.CommitLog
 */
import { MessageConst } from '../../protocol/message/message-const';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import { bodyCrc32 } from '../../protocol/message/compression';
import { bytesToIp, ipToBytes, isIPv6 } from '../../protocol/message/socket-address';

const TAGS = MessageConst.PROPERTY_TAGS;
const KEYS = MessageConst.PROPERTY_KEYS;
const UNIQ_KEY = MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX;
const DELAY = MessageConst.PROPERTY_DELAY_TIME_LEVEL;

export const MESSAGE_MAGIC_CODE = -626843481;
export const MESSAGE_MAGIC_CODE_V2 = -626843477;
export const BLANK_MAGIC_CODE = -875286124;
export const END_FILE_MIN_BLANK_LENGTH = 4 + 4;

/** Offsets of the fixed fields. */
export const RecordPos = {
  TOTALSIZE: 0,
  MAGICCODE: 4,
  BODYCRC: 8,
  QUEUEID: 12,
  FLAG: 16,
  QUEUEOFFSET: 20,
  PHYSICALOFFSET: 28,
  SYSFLAG: 36,
  BORNTIMESTAMP: 40,
  BORNHOST: 48,
} as const;

export interface HostAddress {
  host: string;
  port: number;
}

const TWO32 = 4294967296;

/** Writes a JS number (safe integer range) as a big-endian i64 (byte stores: this runs per stored message). */
export function writeI64(buf: Buffer, value: number, offset: number): void {
  const hi = Math.floor(value / TWO32);
  writeI32(buf, hi, offset);
  writeI32(buf, value - hi * TWO32, offset + 4);
}

/** Writes the low 32 bits of `value` big-endian, by byte stores (no range check: the caller's value fits). */
export function writeI32(buf: Buffer, value: number, offset: number): void {
  buf[offset] = value >>> 24;
  buf[offset + 1] = value >>> 16;
  buf[offset + 2] = value >>> 8;
  buf[offset + 3] = value;
}

/** Reads a big-endian i64 as a JS number (exact within the safe integer range). */
export function readI64(buf: Buffer, offset: number): number {
  return buf.readInt32BE(offset) * TWO32 + buf.readUInt32BE(offset + 4);
}

/** Java's UtilAll.crc32: CRC32 with the sign bit cleared (the stored BODYCRC). */
export const crc32 = bodyCrc32;

export { isIPv6 };

/**
 * Address bytes of an IPv4 (4) or IPv6 (16) textual address (brackets and a zone id allowed). Lenient, as the put
 * path must never throw on a peer's address: anything unparsable becomes 0.0.0.0.
 */
export function hostToBytes(host: string): Buffer {
  const h = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host;
  try {
    return ipToBytes(h);
  } catch {
    return Buffer.alloc(4);
  }
}

export function bytesToHost(b: Buffer): string {
  return bytesToIp(b, 0, b.length === 16 ? 16 : 4);
}

/** Length of the stored record (Java's CommitLog.calMsgLength). */
export function calMsgLength(sysFlag: number, bodyLength: number, topicLength: number, propertiesLength: number): number {
  const bornhostLength = (sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) === 0 ? 8 : 20;
  const storehostAddressLength = (sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) === 0 ? 8 : 20;
  return 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + bornhostLength + 8 + storehostAddressLength + 4 + 8 + 4 + bodyLength +
    1 + topicLength + 2 + propertiesLength;
}

const hexPrefixCache = new WeakMap<Buffer, string>();

/** Offset message id: store host address + port + commit-log offset, upper-case hex (MessageDecoder.createMessageId). */
export function createMessageId(storeHost: Buffer, commitLogOffset: number): string {
  let prefix = hexPrefixCache.get(storeHost);
  if (prefix === undefined) {
    prefix = storeHost.toString('hex').toUpperCase();
    hexPrefixCache.set(storeHost, prefix);
  }
  if (commitLogOffset >= 0 && Number.isSafeInteger(commitLogOffset)) {
    return prefix + commitLogOffset.toString(16).toUpperCase().padStart(16, '0');
  }
  const b = Buffer.alloc(8);
  writeI64(b, commitLogOffset, 0);
  return prefix + b.toString('hex').toUpperCase();
}

/** Host bytes (address + i32 port) as stored in a record. */
export function socketAddressBytes(addr: HostAddress): Buffer {
  const a = hostToBytes(addr.host);
  const b = Buffer.alloc(a.length + 4);
  a.copy(b, 0);
  b.writeInt32BE(addr.port, a.length);
  return b;
}

const socketAddressCache = new Map<string, Map<number, Buffer>>();

/**
 * socketAddressBytes through a small cache (the append path sees few distinct hosts). The returned buffer is
 * shared: callers must not modify it.
 */
export function cachedSocketAddressBytes(addr: HostAddress): Buffer {
  let ports = socketAddressCache.get(addr.host);
  if (ports === undefined) {
    if (socketAddressCache.size >= 1024) socketAddressCache.clear();
    ports = new Map();
    socketAddressCache.set(addr.host, ports);
  }
  let b = ports.get(addr.port);
  if (b === undefined) {
    if (ports.size >= 4096) ports.clear();
    b = socketAddressBytes(addr);
    ports.set(addr.port, b);
  }
  return b;
}

/** The properties dispatch needs, found in one scan of the properties string. */
export interface DispatchProperties {
  tags: string | undefined;
  keys: string | undefined;
  uniqKey: string | undefined;
  delayLevel: string | undefined;
}

/**
 * One pass over `name \u0001 value \u0002 ...` picking TAGS, KEYS, UNIQ_KEY and DELAY (first occurrence of each,
 * as findProperty returns it).
 */
export function scanDispatchProperties(s: string): DispatchProperties {
  const out: DispatchProperties = { tags: undefined, keys: undefined, uniqKey: undefined, delayLevel: undefined };
  const len = s.length;
  let start = 0;
  while (start < len) {
    let end = s.indexOf('\u0002', start);
    if (end < 0) end = len;
    const sep = s.indexOf('\u0001', start);
    if (sep >= 0 && sep < end) {
      const nameLen = sep - start;
      if (nameLen === TAGS.length && out.tags === undefined && s.startsWith(TAGS, start)) out.tags = s.substring(sep + 1, end);
      else if (nameLen === KEYS.length && out.keys === undefined && s.startsWith(KEYS, start)) out.keys = s.substring(sep + 1, end);
      else if (nameLen === UNIQ_KEY.length && out.uniqKey === undefined && s.startsWith(UNIQ_KEY, start)) out.uniqKey = s.substring(sep + 1, end);
      else if (nameLen === DELAY.length && out.delayLevel === undefined && s.startsWith(DELAY, start)) out.delayLevel = s.substring(sep + 1, end);
    }
    start = end + 1;
  }
  return out;
}

/** What dispatch needs of one record (Java's DispatchRequest). */
export interface DispatchRequest {
  /** Record size; 0 for the end-of-file blank, -1 for an illegal record. */
  msgSize: number;
  success: boolean;
  topic: string;
  queueId: number;
  commitLogOffset: number;
  tagsCode: number;
  storeTimestamp: number;
  consumeQueueOffset: number;
  keys: string;
  uniqKey: string | null;
  sysFlag: number;
  preparedTransactionOffset: number;
  propertiesString: string;
}

export const ILLEGAL: DispatchRequest = Object.freeze({
  msgSize: -1, success: false, topic: '', queueId: 0, commitLogOffset: 0, tagsCode: 0, storeTimestamp: 0,
  consumeQueueOffset: 0, keys: '', uniqKey: null, sysFlag: 0, preparedTransactionOffset: 0, propertiesString: '',
}) as DispatchRequest;

export const BLANK: DispatchRequest = Object.freeze({ ...ILLEGAL, msgSize: 0, success: true }) as DispatchRequest;
