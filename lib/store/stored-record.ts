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
import zlib from 'node:zlib';
import { MessageSysFlag } from '../../protocol/message/sys-flag';

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

/** Writes a JS number (safe integer range) as a big-endian i64. */
export function writeI64(buf: Buffer, value: number, offset: number): void {
  const hi = Math.floor(value / TWO32);
  buf.writeInt32BE(hi | 0, offset);
  buf.writeUInt32BE(value - hi * TWO32, offset + 4);
}

/** Reads a big-endian i64 as a JS number (exact within the safe integer range). */
export function readI64(buf: Buffer, offset: number): number {
  return buf.readInt32BE(offset) * TWO32 + buf.readUInt32BE(offset + 4);
}

/** Java's UtilAll.crc32: CRC32 with the sign bit cleared. */
export function crc32(buf: Buffer, start = 0, end = buf.length): number {
  return (zlib.crc32(start === 0 && end === buf.length ? buf : buf.subarray(start, end)) & 0x7fffffff) >>> 0;
}

export function isIPv6(host: string): boolean {
  return host.includes(':');
}

/** Address bytes of an IPv4 (4) or IPv6 (16) textual address. */
export function hostToBytes(host: string): Buffer {
  if (!isIPv6(host)) {
    const parts = host.split('.').map((p) => Number(p));
    if (parts.length !== 4 || parts.some((p) => !(p >= 0 && p <= 255))) return Buffer.alloc(4);
    return Buffer.from(parts);
  }
  let h = host;
  const zone = h.indexOf('%');
  if (zone >= 0) h = h.slice(0, zone);
  if (h.startsWith('[')) h = h.slice(1, h.indexOf(']'));
  const groups: number[] = [];
  const parseSide = (side: string): number[] => {
    if (!side) return [];
    const out: number[] = [];
    for (const g of side.split(':')) {
      if (g.includes('.')) {
        const v4 = hostToBytes(g);
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else out.push(parseInt(g, 16) & 0xffff);
    }
    return out;
  };
  const dbl = h.indexOf('::');
  if (dbl >= 0) {
    const left = parseSide(h.slice(0, dbl));
    const right = parseSide(h.slice(dbl + 2));
    groups.push(...left, ...new Array<number>(Math.max(0, 8 - left.length - right.length)).fill(0), ...right);
  } else groups.push(...parseSide(h));
  const b = Buffer.alloc(16);
  for (let i = 0; i < 8; i++) b.writeUInt16BE(groups[i] ?? 0, i * 2);
  return b;
}

export function bytesToHost(b: Buffer): string {
  if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const g: string[] = [];
  for (let i = 0; i < 16; i += 2) g.push(b.readUInt16BE(i).toString(16));
  return g.join(':');
}

/** Length of the stored record (Java's CommitLog.calMsgLength). */
export function calMsgLength(sysFlag: number, bodyLength: number, topicLength: number, propertiesLength: number): number {
  const bornhostLength = (sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) === 0 ? 8 : 20;
  const storehostAddressLength = (sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) === 0 ? 8 : 20;
  return 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + bornhostLength + 8 + storehostAddressLength + 4 + 8 + 4 + bodyLength +
    1 + topicLength + 2 + propertiesLength;
}

/** Offset message id: store host address + port + commit-log offset, upper-case hex (MessageDecoder.createMessageId). */
export function createMessageId(storeHost: Buffer, commitLogOffset: number): string {
  const b = Buffer.alloc(storeHost.length + 8);
  storeHost.copy(b, 0);
  writeI64(b, commitLogOffset, storeHost.length);
  return b.toString('hex').toUpperCase();
}

/** Host bytes (address + i32 port) as stored in a record. */
export function socketAddressBytes(addr: HostAddress): Buffer {
  const a = hostToBytes(addr.host);
  const b = Buffer.alloc(a.length + 4);
  a.copy(b, 0);
  b.writeInt32BE(addr.port, a.length);
  return b;
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
