/**
 * Body CRC and body compression, as the Java client and store do them.
 *
 * - CRC: `UtilAll.crc32` is the standard CRC-32 (java.util.zip.CRC32) masked with `0x7FFFFFFF`, so stored
 *   BODYCRC values are never negative. The store computes it over the body as stored (compressed if compressed).
 * - Compression: a producer compresses bodies above `compressMsgBodyOverHowmuch` (4096) with zlib (Deflater with the
 *   zlib wrapper) at `compressLevel` 5 and sets sysFlag `COMPRESSED_FLAG | COMPRESSION_ZLIB_TYPE` (0x301).
 *   Decompression picks the algorithm from the 5.x type bits 0x700: 0 (older clients) or 3 = zlib; LZ4 (1) and
 *   ZSTD (2) are not supported here.
 *
 * @see org.apache.rocketmq.common.UtilAll#crc32
 * @see org.apache.rocketmq.common.compression.ZlibCompressor
 * @see org.apache.rocketmq.common.compression.CompressionType
 */
import zlib from 'node:zlib';
import { ProtocolError } from '../errors';
import { MessageSysFlag } from './sys-flag';

/** Java producer default: `rocketmq.message.compressLevel`. */
export const DEFAULT_COMPRESS_LEVEL = 5;
/** Java producer default `compressMsgBodyOverHowmuch`. */
export const DEFAULT_COMPRESS_MSG_BODY_OVER_HOWMUCH = 4096;

let table: Int32Array | undefined;
function crcTable(): Int32Array {
  if (table) return table;
  table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
}

type Crc32Fn = (data: Uint8Array, value?: number) => number;
const nativeCrc32: Crc32Fn | undefined = (zlib as unknown as { crc32?: Crc32Fn }).crc32;

/** Standard CRC-32 (unsigned). Uses `zlib.crc32` where Node has it (20.15+), a table otherwise. */
export function crc32(data: Uint8Array, start = 0, end = data.length): number {
  if (nativeCrc32) return nativeCrc32(start === 0 && end === data.length ? data : data.subarray(start, end));
  const t = crcTable();
  let c = -1;
  for (let i = start; i < end; i++) c = t[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** Java's `UtilAll.crc32`: CRC-32 masked with 0x7FFFFFFF (the stored BODYCRC). */
export function bodyCrc32(data: Uint8Array, start = 0, end = data.length): number {
  return crc32(data, start, end) & 0x7fffffff;
}

/** zlib-compresses (with the zlib header, as java.util.zip.Deflater) at `level` (Java default 5). */
export function compressBody(body: Uint8Array, level: number = DEFAULT_COMPRESS_LEVEL): Buffer {
  return zlib.deflateSync(body, { level });
}

/** Inflates a zlib stream; a `ProtocolError` when it is not one. */
export function uncompressBody(body: Uint8Array): Buffer {
  try {
    return zlib.inflateSync(body);
  } catch (e) {
    throw new ProtocolError(`cannot inflate zlib message body: ${(e as Error).message}`, { cause: e });
  }
}

/** Java's CompressionType values as carried in sysFlag bits 8-10. */
export const CompressionType = { LZ4: 1, ZSTD: 2, ZLIB: 3 } as const;
export type CompressionType = (typeof CompressionType)[keyof typeof CompressionType];

/** The compression type of a sysFlag (0 in older clients means zlib), or a `ProtocolError` for unknown bits. */
export function getCompressionType(sysFlag: number): CompressionType {
  const v = (sysFlag & MessageSysFlag.COMPRESSION_TYPE_COMPARATOR) >> 8;
  switch (v) {
    case 0:
    case 3:
      return CompressionType.ZLIB;
    case 1:
      return CompressionType.LZ4;
    case 2:
      return CompressionType.ZSTD;
    default:
      throw new ProtocolError(`unknown compression type ${v} in sysFlag ${sysFlag}`);
  }
}

/** Decompresses a body whose sysFlag has COMPRESSED_FLAG; zlib only (LZ4 and ZSTD raise a `ProtocolError`). */
export function decompressBody(body: Uint8Array, sysFlag: number): Buffer {
  const type = getCompressionType(sysFlag);
  if (type !== CompressionType.ZLIB) {
    throw new ProtocolError(`unsupported compression: ${type === CompressionType.LZ4 ? 'LZ4' : 'ZSTD'} (sysFlag ${sysFlag})`);
  }
  return uncompressBody(body);
}
