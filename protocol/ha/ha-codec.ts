/**
 * The master/slave replication stream (not remoting frames), as Java 4.9.8 writes it on the HA port:
 *
 * ```
 * slave -> master:  int64 maxPhyOffset                     (8 bytes, repeated: the slave's commit-log max offset)
 * master -> slave:  int64 phyOffset | int32 size | data    (12-byte header, then `size` commit-log bytes;
 *                                                           size 0 is a heartbeat)
 * ```
 * The first report of a connection is the offset the slave wants data from; later reports acknowledge what it
 * stored. The master reads only the last whole 8-byte report of what arrived (Java's ReadSocketService).
 *
 * @see org.apache.rocketmq.store.ha.HAConnection
 * @see org.apache.rocketmq.store.ha.HAService.HAClient
 */
import { ProtocolError } from '../errors';

export const HA_REPORT_SIZE = 8;
export const HA_TRANSFER_HEADER_SIZE = 12;

function writeI64(buf: Buffer, value: number, at: number): void {
  buf.writeBigInt64BE(BigInt(value), at);
}

function readI64(buf: Buffer, at: number): number {
  return Number(buf.readBigInt64BE(at));
}

/** The slave's 8-byte max-offset report. */
export function encodeHASlaveReport(maxPhyOffset: number): Buffer {
  const b = Buffer.allocUnsafe(HA_REPORT_SIZE);
  writeI64(b, maxPhyOffset, 0);
  return b;
}

/** The master's 12-byte transfer header (size 0: heartbeat). */
export function encodeHATransferHeader(phyOffset: number, size: number): Buffer {
  const b = Buffer.allocUnsafe(HA_TRANSFER_HEADER_SIZE);
  writeI64(b, phyOffset, 0);
  b.writeInt32BE(size, 8);
  return b;
}

/**
 * Master side: fed the slave's bytes in any chunking, returns the offset of the last whole report in them
 * (or null when no report completed), keeping a partial report for the next chunk.
 */
export class HASlaveReportDecoder {
  #partial = Buffer.alloc(HA_REPORT_SIZE);
  #partialLen = 0;

  push(chunk: Buffer): number | null {
    let last: number | null = null;
    let p = 0;
    if (this.#partialLen > 0) {
      const n = Math.min(HA_REPORT_SIZE - this.#partialLen, chunk.length);
      chunk.copy(this.#partial, this.#partialLen, 0, n);
      this.#partialLen += n;
      p = n;
      if (this.#partialLen < HA_REPORT_SIZE) return null;
      last = readI64(this.#partial, 0);
      this.#partialLen = 0;
    }
    const whole = Math.floor((chunk.length - p) / HA_REPORT_SIZE);
    if (whole > 0) {
      last = readI64(chunk, p + (whole - 1) * HA_REPORT_SIZE);
      p += whole * HA_REPORT_SIZE;
    }
    if (p < chunk.length) {
      chunk.copy(this.#partial, 0, p);
      this.#partialLen = chunk.length - p;
    }
    return last;
  }
}

/** One transfer of the master: commit-log bytes `data` that belong at `phyOffset` (empty for a heartbeat). */
export interface HATransfer {
  phyOffset: number;
  data: Buffer;
}

/**
 * Slave side: fed the master's bytes in any chunking, returns the whole transfers they complete. A transfer that
 * arrived within one chunk is a view of it (no copy). A negative or oversized size is a ProtocolError.
 */
export class HATransferDecoder {
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(private readonly maxTransferSize = 64 * 1024 * 1024) {}

  /** Bytes buffered and not yet part of a whole transfer. */
  get buffered(): number {
    return this.#pendingBytes;
  }

  push(chunk: Buffer): HATransfer[] {
    let buf: Buffer;
    if (this.#pendingBytes === 0) buf = chunk;
    else {
      this.#pending.push(chunk);
      buf = Buffer.concat(this.#pending, this.#pendingBytes + chunk.length);
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    const out: HATransfer[] = [];
    let p = 0;
    while (buf.length - p >= HA_TRANSFER_HEADER_SIZE) {
      const phyOffset = readI64(buf, p);
      const size = buf.readInt32BE(p + 8);
      if (size < 0 || size > this.maxTransferSize || phyOffset < 0) {
        throw new ProtocolError(`bad HA transfer header: offset ${phyOffset}, size ${size}`);
      }
      if (buf.length - p < HA_TRANSFER_HEADER_SIZE + size) break;
      out.push({ phyOffset, data: buf.subarray(p + HA_TRANSFER_HEADER_SIZE, p + HA_TRANSFER_HEADER_SIZE + size) });
      p += HA_TRANSFER_HEADER_SIZE + size;
    }
    if (p < buf.length) {
      const rest = buf.subarray(p);
      this.#pending.push(rest);
      this.#pendingBytes = rest.length;
    }
    return out;
  }
}
