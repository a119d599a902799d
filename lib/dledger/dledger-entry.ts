/**
 * A DLedger log entry and its byte layouts (big-endian):
 *
 *   entry: magic i32 | size i32 | index i64 | term i64 | pos i64 | channel i32 | chainCrc i32 | bodyCrc i32 |
 *          bodySize i32 | body            (size = 48 + body length; BODY_OFFSET = 48)
 *   index unit (32 bytes, at index * 32 in the index files): magic i32 | pos i64 | size i32 | index i64 | term i64
 *
 * A data file's tail that cannot hold the next entry is filled with BLANK_MAGIC_CODE (-1) and the tail's length.
 *
 * @see io.openmessaging.storage.dledger.entry.DLedgerEntry
 * @see io.openmessaging.storage.dledger.entry.DLedgerEntryCoder
 */
export const POS_OFFSET = 4 + 4 + 8 + 8;
export const HEADER_SIZE = POS_OFFSET + 8 + 4 + 4 + 4;
export const BODY_OFFSET = HEADER_SIZE + 4;
export const MAGIC_1 = 1;
export const CURRENT_MAGIC = MAGIC_1;
export const BLANK_MAGIC_CODE = -1;
export const MIN_BLANK_LEN = 8;

export interface DLedgerEntry {
  magic: number;
  size: number;
  index: number;
  term: number;
  pos: number;
  channel: number;
  chainCrc: number;
  bodyCrc: number;
  body: Buffer;
}

function writeLong(buf: Buffer, v: number, at: number): void {
  buf.writeBigInt64BE(BigInt(v), at);
}
function readLong(buf: Buffer, at: number): number {
  return Number(buf.readBigInt64BE(at));
}

export function encodeEntry(e: DLedgerEntry): Buffer {
  const size = BODY_OFFSET + e.body.length;
  const buf = Buffer.allocUnsafe(size);
  buf.writeInt32BE(e.magic, 0);
  buf.writeInt32BE(size, 4);
  writeLong(buf, e.index, 8);
  writeLong(buf, e.term, 16);
  writeLong(buf, e.pos, 24);
  buf.writeInt32BE(e.channel, 32);
  buf.writeInt32BE(e.chainCrc, 36);
  buf.writeInt32BE(e.bodyCrc, 40);
  buf.writeInt32BE(e.body.length, 44);
  e.body.copy(buf, BODY_OFFSET);
  return buf;
}

/** Decodes the entry at `at` (header fields only when the buffer stops before the body's end). */
export function decodeEntry(buf: Buffer, at = 0): DLedgerEntry {
  const size = buf.readInt32BE(at + 4);
  const bodySize = buf.readInt32BE(at + 44);
  return {
    magic: buf.readInt32BE(at),
    size,
    index: readLong(buf, at + 8),
    term: readLong(buf, at + 16),
    pos: readLong(buf, at + 24),
    channel: buf.readInt32BE(at + 32),
    chainCrc: buf.readInt32BE(at + 36),
    bodyCrc: buf.readInt32BE(at + 40),
    body: buf.subarray(at + BODY_OFFSET, at + BODY_OFFSET + bodySize),
  };
}

export function encodeIndexUnit(pos: number, size: number, magic: number, index: number, term: number): Buffer {
  const b = Buffer.allocUnsafe(32);
  b.writeInt32BE(magic, 0);
  writeLong(b, pos, 4);
  b.writeInt32BE(size, 12);
  writeLong(b, index, 16);
  writeLong(b, term, 24);
  return b;
}

export function decodeIndexUnit(b: Buffer, at = 0): { magic: number; pos: number; size: number; index: number; term: number } {
  return { magic: b.readInt32BE(at), pos: readLong(b, at + 4), size: b.readInt32BE(at + 12), index: readLong(b, at + 16), term: readLong(b, at + 24) };
}

/** Java's DLedgerEntry.equals: header fields and body. */
export function entriesEqual(a: DLedgerEntry, b: DLedgerEntry): boolean {
  return a.size === b.size && a.magic === b.magic && a.index === b.index && a.term === b.term && a.channel === b.channel
    && a.pos === b.pos && a.body.equals(b.body);
}
