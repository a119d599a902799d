/**
 * The two message ids.
 *
 * **Offset msgId** (the broker's): store host IP (4 or 16 bytes) + port (i32) + commit-log offset (i64), as upper-case
 * hex: 32 characters for IPv4, 56 for IPv6. `VIEW_MESSAGE_BY_ID` decodes it to find the broker and the record.
 *
 * **Unique id** (the client's, property UNIQ_KEY): IP (4 or 16 bytes) + pid (i16) + class-loader hash (i32) +
 * milliseconds since the start of the current month in local time (i32) + counter (i16), upper-case hex:
 * 32 characters with an IPv4 address, 56 with IPv6. Java calls it `msgId` in SendResult and on delivered messages.
 *
 * @see org.apache.rocketmq.common.message.MessageDecoder#createMessageId / decodeMessageId
 * @see org.apache.rocketmq.common.message.MessageClientIDSetter
 */
import { ProtocolError } from '../errors';
import { bytesToIp, ipToBytes, type SocketAddress } from './socket-address';

const HEX_BYTE: string[] = [];
for (let i = 0; i < 256; i++) HEX_BYTE[i] = (i < 16 ? '0' : '') + i.toString(16).toUpperCase();

function hex(buf: Uint8Array): string {
  let s = '';
  for (let i = 0; i < buf.length; i++) s += HEX_BYTE[buf[i]];
  return s;
}

/** Java's `UtilAll.string2bytes`: hex (either case) to bytes; a `ProtocolError` on odd length or a non-hex digit. */
export function hexToBytes(s: string): Buffer {
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) throw new ProtocolError(`invalid hex id: ${s}`);
  return Buffer.from(s, 'hex');
}

function writeLong(buf: Buffer, value: number, at: number): void {
  const hi = Math.floor(value / 4294967296);
  buf.writeInt32BE(hi | 0, at);
  buf.writeUInt32BE(value - hi * 4294967296, at + 4);
}

/** The offset msgId of a record: store host + commit-log offset. `host` is an IP literal (v4 or v6). */
export function createOffsetMessageId(host: string, port: number, commitLogOffset: number): string {
  const ip = ipToBytes(host);
  const buf = Buffer.allocUnsafe(ip.length + 12);
  ip.copy(buf, 0);
  buf.writeInt32BE(port, ip.length);
  writeLong(buf, commitLogOffset, ip.length + 4);
  return hex(buf);
}

/** The offset msgId from the raw store-host bytes of a record (`ipLength` 4 or 16, then the port). */
export function createOffsetMessageIdFromBytes(buf: Buffer, hostOffset: number, ipLength: 4 | 16, commitLogOffset: number): string {
  const hi = Math.floor(commitLogOffset / 4294967296);
  const lo = commitLogOffset - hi * 4294967296;
  return (
    buf.toString('hex', hostOffset, hostOffset + ipLength + 4).toUpperCase() +
    hex32(hi) + hex32(lo)
  );
}

function hex32(v: number): string {
  return HEX_BYTE[(v >>> 24) & 0xff] + HEX_BYTE[(v >>> 16) & 0xff] + HEX_BYTE[(v >>> 8) & 0xff] + HEX_BYTE[v & 0xff];
}

export interface OffsetMessageId extends SocketAddress {
  /** The commit-log offset of the record. */
  readonly offset: number;
}

/** Decodes an offset msgId (32 hex characters for IPv4, 56 for IPv6). */
export function decodeOffsetMessageId(msgId: string): OffsetMessageId {
  if (msgId.length !== 32 && msgId.length !== 56) throw new ProtocolError(`invalid offset message id length ${msgId.length}: ${msgId}`);
  const b = hexToBytes(msgId);
  const ipLength = msgId.length === 32 ? 4 : 16;
  const port = b.readInt32BE(ipLength);
  const offset = b.readInt32BE(ipLength + 4) * 4294967296 + b.readUInt32BE(ipLength + 8);
  return { address: bytesToIp(b, 0, ipLength), port, offset };
}

/** Start of the month containing `millis` and of the next one, in local time (Java's Calendar default zone). */
function monthBounds(millis: number): [number, number] {
  const d = new Date(millis);
  return [new Date(d.getFullYear(), d.getMonth(), 1).getTime(), new Date(d.getFullYear(), d.getMonth() + 1, 1).getTime()];
}

/** Java's `UtilAll.createFakeIP`: the low 4 bytes of the current time in ms, used when no address is known. */
export function createFakeIP(now = Date.now()): Buffer {
  const b = Buffer.alloc(8);
  writeLong(b, now, 0);
  return b.subarray(4);
}

/**
 * A `MessageClientIDSetter`-compatible generator. The fixed prefix (IP, pid, class-loader hash) is hex-encoded once;
 * each id appends 8 hex digits of time since the month start and 4 of a wrapping counter.
 */
export class UniqIdGenerator {
  readonly prefix: string;
  private startTime = 0;
  private nextStartTime = 0;
  private counter = 0;

  /**
   * @param ip 4 or 16 address bytes (the client's IP; Java uses its first site-local or public address).
   * @param pid process id (only its low 16 bits are kept).
   * @param classLoaderHash Java writes its class loader's hashCode; any i32 does (random by default).
   */
  constructor(ip: Uint8Array = createFakeIP(), pid = 0, classLoaderHash = (Math.random() * 0x100000000) | 0) {
    if (ip.length !== 4 && ip.length !== 16) throw new ProtocolError(`a unique id needs a 4 or 16 byte IP, got ${ip.length}`);
    const fixed = Buffer.allocUnsafe(ip.length + 6);
    fixed.set(ip, 0);
    fixed.writeUInt16BE(pid & 0xffff, ip.length);
    fixed.writeInt32BE(classLoaderHash | 0, ip.length + 2);
    this.prefix = hex(fixed);
  }

  createUniqId(now = Date.now()): string {
    if (now >= this.nextStartTime || now < this.startTime - 1_000_000) {
      [this.startTime, this.nextStartTime] = monthBounds(now);
    }
    let diff = (now - this.startTime) | 0;
    if (diff < 0 && diff > -1_000_000) diff = 0; // clock stepped back (NTP), as Java
    const c = this.counter;
    this.counter = (c + 1) & 0xffff;
    return (
      this.prefix + hex32(diff) + HEX_BYTE[c >>> 8] + HEX_BYTE[c & 0xff]
    );
  }
}

let defaultGenerator: UniqIdGenerator | undefined;

/**
 * Replaces the process-wide generator used by {@link createUniqId}: the client layer calls it once with the host's
 * IP (protocol/ does not look at network interfaces). Until then ids carry Java's fake IP (time bytes).
 */
export function configureUniqIdGenerator(ip: Uint8Array | string, pid = typeof process !== 'undefined' ? process.pid : 0): UniqIdGenerator {
  defaultGenerator = new UniqIdGenerator(typeof ip === 'string' ? ipToBytes(ip) : ip, pid);
  return defaultGenerator;
}

/** A new UNIQ_KEY from the process-wide generator. */
export function createUniqId(): string {
  if (!defaultGenerator) defaultGenerator = new UniqIdGenerator(createFakeIP(), typeof process !== 'undefined' ? process.pid : 0);
  return defaultGenerator.createUniqId();
}

function uniqIpLength(bytes: Buffer): 4 | 16 {
  return bytes.length === 28 ? 16 : 4;
}

/** The IP bytes of a unique id (16 when the id is 56 hex characters, else 4). */
export function getIPFromID(msgId: string): Buffer {
  const b = hexToBytes(msgId);
  return Buffer.from(b.subarray(0, uniqIpLength(b)));
}

/** The IP as Java's `getIPStrFromID` prints it (IPv6: eight zero-padded groups, `fd00:0000:...:0002`). */
export function getIPStrFromID(msgId: string): string {
  const ip = getIPFromID(msgId);
  if (ip.length === 4) return bytesToIp(ip, 0, 4);
  let s = '';
  for (let i = 0; i < 16; i += 2) s += (i ? ':' : '') + ip.toString('hex', i, i + 2);
  return s;
}

export function getPidFromID(msgId: string): number {
  const b = hexToBytes(msgId);
  return b.readUInt16BE(b.length - 12);
}

/**
 * Roughly when a unique id was created: the month start (local time) plus the id's offset, taking the previous month
 * when that lands at or after `now`.
 */
export function getNearlyTimeFromID(msgId: string, now = Date.now()): Date {
  const b = hexToBytes(msgId);
  const span = b.readUInt32BE(uniqIpLength(b) + 6);
  const d = new Date(now);
  let monthStart = new Date(d.getFullYear(), d.getMonth(), 1).getTime();
  if (monthStart + span >= now) monthStart = new Date(d.getFullYear(), d.getMonth() - 1, 1).getTime();
  return new Date(monthStart + span);
}
