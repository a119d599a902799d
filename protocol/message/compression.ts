/**
 * Body CRC and body compression, as the Java client and store do them.
 *
 * - CRC: `UtilAll.crc32` is the standard CRC-32 (java.util.zip.CRC32) masked with `0x7FFFFFFF`, so stored
 *   BODYCRC values are never negative. The store computes it over the body as stored (compressed if compressed).
 * - Compression: a producer compresses bodies of at least `compressMsgBodyOverHowmuch` (4096) bytes (not batches)
 *   with its `compressType` (Java 5.x `rocketmq.message.compressType`, default ZLIB) at `compressLevel` (5) and sets
 *   sysFlag `COMPRESSED_FLAG | <type> << 8`: ZLIB 0x301, LZ4 0x101, ZSTD 0x201. Decompression picks the algorithm
 *   from the type bits 0x700: 0 (4.x clients) or 3 = ZLIB, 1 = LZ4, 2 = ZSTD.
 * - The three formats, from the Java 5.3.3 compressors:
 *   - ZLIB (`ZlibCompressor`): java.util.zip.Deflater(level) through DeflaterOutputStream: a zlib stream (RFC 1950).
 *   - LZ4 (`Lz4Compressor`): lz4-java's `LZ4FrameOutputStream(out)`: the LZ4 *frame* format (magic 04 22 4D 18,
 *     version 01, independent blocks, 4 MB block size, no checksums but the header's; the level is ignored). Any
 *     frame decoder reads it, and `LZ4FrameInputStream` reads any frame with independent blocks, which is what
 *     lz4-napi (lz4_flex) writes by default.
 *   - ZSTD (`ZstdCompressor`): zstd-jni's `ZstdOutputStream(out, level)`: one standard Zstandard frame (RFC 8878),
 *     no content size in its header (streamed); decoders must not need it (none of ours does).
 * - LZ4 and ZSTD come from optional npm packages with prebuilt binaries per platform (`lz4-napi`,
 *   `@toondepauw/node-zstd`; ZSTD from Node's own zlib where it has it, 22.15+), required on first use only: code
 *   that never meets such a body never loads them, and one that does without them gets a
 *   `CompressionCodecUnavailableError` naming the package.
 *
 * @see org.apache.rocketmq.common.UtilAll#crc32
 * @see org.apache.rocketmq.common.compression.ZlibCompressor
 * @see org.apache.rocketmq.common.compression.Lz4Compressor
 * @see org.apache.rocketmq.common.compression.ZstdCompressor
 * @see org.apache.rocketmq.common.compression.CompressionType
 * @see org.apache.rocketmq.common.sysflag.MessageSysFlag#getCompressionType
 */
import zlib from 'node:zlib';
import { CompressionCodecUnavailableError, ProtocolError } from '../errors';
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
const zlibCrc32: Crc32Fn | undefined = (zlib as unknown as { crc32?: Crc32Fn }).crc32;
/** The native CRC-32 in use, chosen on first use (undefined: not chosen yet; null: none, the table is used). */
let nativeCrc32: Crc32Fn | null | undefined;

/**
 * `@node-rs/crc32` (an optional package: SIMD CRC-32, about three times zlib's speed on a 1 KiB body, which the store
 * computes per message) when it loads and gives the check value, else `zlib.crc32` (Node 20.15+), else null.
 */
function chooseCrc32(): Crc32Fn | null {
  try {
    // A runtime require on purpose: the package is optional.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const m = require('@node-rs/crc32') as { crc32?: Crc32Fn };
    if (typeof m.crc32 === 'function' && m.crc32(Buffer.from('123456789')) === 0xcbf43926) return m.crc32;
  } catch {
    // not installed, or no build for this platform
  }
  return zlibCrc32 ?? null;
}

/** Standard CRC-32 (unsigned) by table, the fallback of {@link crc32}. */
export function crc32Table(data: Uint8Array, start = 0, end = data.length): number {
  const t = crcTable();
  let c = -1;
  for (let i = start; i < end; i++) c = t[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** Standard CRC-32 (unsigned): `@node-rs/crc32` when installed, `zlib.crc32` where Node has it, a table otherwise. */
export function crc32(data: Uint8Array, start = 0, end = data.length): number {
  const native = nativeCrc32 === undefined ? (nativeCrc32 = chooseCrc32()) : nativeCrc32;
  if (native) return native(start === 0 && end === data.length ? data : data.subarray(start, end)) >>> 0;
  return crc32Table(data, start, end);
}

/** Which CRC-32 {@link crc32} uses (for diagnostics and tests). */
export function crc32Implementation(): '@node-rs/crc32' | 'zlib' | 'table' {
  const native = nativeCrc32 === undefined ? (nativeCrc32 = chooseCrc32()) : nativeCrc32;
  return native === null ? 'table' : native === zlibCrc32 ? 'zlib' : '@node-rs/crc32';
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

/** The names Java's `CompressionType.of` accepts (case-insensitive there; upper case here). */
export type CompressionTypeName = 'ZLIB' | 'LZ4' | 'ZSTD';

/** Java `CompressionType.of(name)`: trimmed, case-insensitive; a `ProtocolError` for another name. */
export function compressionTypeOf(name: string): CompressionType {
  switch (name.trim().toUpperCase()) {
    case 'LZ4':
      return CompressionType.LZ4;
    case 'ZSTD':
      return CompressionType.ZSTD;
    case 'ZLIB':
      return CompressionType.ZLIB;
    default:
      throw new ProtocolError(`Unsupported compress type name: ${name}`);
  }
}

/** The name of a compression type (`CompressionType.name()`). */
export function compressionTypeName(type: CompressionType): CompressionTypeName {
  return type === CompressionType.LZ4 ? 'LZ4' : type === CompressionType.ZSTD ? 'ZSTD' : 'ZLIB';
}

/** Java `CompressionType.getCompressionFlag()`: the sysFlag type bits (without COMPRESSED_FLAG). */
export function compressionFlag(type: CompressionType): number {
  switch (type) {
    case CompressionType.LZ4:
      return MessageSysFlag.COMPRESSION_LZ4_TYPE;
    case CompressionType.ZSTD:
      return MessageSysFlag.COMPRESSION_ZSTD_TYPE;
    default:
      return MessageSysFlag.COMPRESSION_ZLIB_TYPE;
  }
}

/** What this module uses of lz4-napi. */
interface Lz4Binding {
  compressFrameSync(data: Buffer): Buffer;
  decompressFrameSync(data: Buffer): Buffer;
}

/** A Zstandard codec, whichever implementation backs it. */
interface ZstdBinding {
  /** `node:zlib` or the npm package. */
  readonly source: string;
  compress(data: Buffer, level: number): Buffer;
  decompress(data: Buffer): Buffer;
}

/** What this module uses of `@toondepauw/node-zstd` (napi-rs, prebuilt per platform on npm). */
interface NodeZstdModule {
  Encoder: new (level: number) => { encodeSync(data: Buffer): Buffer };
  Decoder: new () => { decodeSync(data: Buffer): Buffer };
}

/** What this module uses of Node's own Zstandard (node:zlib, Node 22.15+ / 23.8+). */
interface ZlibZstd {
  zstdCompressSync(data: Buffer, options?: { params?: Record<number, number> }): Buffer;
  zstdDecompressSync(data: Buffer): Buffer;
  constants: { ZSTD_c_compressionLevel: number };
}

/**
 * The optional npm package of each codec, named in the `CompressionCodecUnavailableError`. ZSTD needs no package on
 * a Node that has `zlib.zstdCompressSync` (22.15+, 23.8+).
 */
export const COMPRESSION_CODEC_PACKAGES: Readonly<Record<'LZ4' | 'ZSTD', string>> = Object.freeze({ LZ4: 'lz4-napi', ZSTD: '@toondepauw/node-zstd' });

const codecPackages: Record<'LZ4' | 'ZSTD', string> = { ...COMPRESSION_CODEC_PACKAGES };
/** Tests only: the package was set by setCompressionCodecPackageForTest (node:zlib's Zstandard is then not used). */
const codecOverridden: Record<'LZ4' | 'ZSTD', boolean> = { LZ4: false, ZSTD: false };
let lz4Binding: Lz4Binding | undefined;
let zstdBinding: ZstdBinding | undefined;

function requireOptional<T>(codec: 'LZ4' | 'ZSTD'): T {
  const name = codecPackages[codec];
  try {
    // A runtime require on purpose: the package is optional and loaded on first use only.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(name) as T;
  } catch (e) {
    throw new CompressionCodecUnavailableError(codec, name, { cause: e });
  }
}

function lz4(): Lz4Binding {
  return (lz4Binding ??= requireOptional<Lz4Binding>('LZ4'));
}

function loadZstd(): ZstdBinding {
  const z = zlib as unknown as Partial<ZlibZstd>;
  if (!codecOverridden.ZSTD && typeof z.zstdCompressSync === 'function' && typeof z.zstdDecompressSync === 'function' && z.constants) {
    const level = z.constants.ZSTD_c_compressionLevel;
    return {
      source: 'node:zlib',
      compress: (data, l) => z.zstdCompressSync!(data, { params: { [level]: l } }),
      decompress: (data) => z.zstdDecompressSync!(data),
    };
  }
  const m = requireOptional<NodeZstdModule>('ZSTD');
  if (typeof m.Encoder !== 'function' || typeof m.Decoder !== 'function') {
    throw new CompressionCodecUnavailableError('ZSTD', codecPackages.ZSTD, { cause: new Error('no Encoder / Decoder in the package') });
  }
  const encoders = new Map<number, { encodeSync(data: Buffer): Buffer }>();
  const decoder = new m.Decoder();
  return {
    source: codecPackages.ZSTD,
    compress: (data, l) => {
      let e = encoders.get(l);
      if (!e) encoders.set(l, (e = new m.Encoder(l)));
      return e.encodeSync(data);
    },
    decompress: (data) => decoder.decodeSync(data),
  };
}

function zstd(): ZstdBinding {
  return (zstdBinding ??= loadZstd());
}

/**
 * Whether the codec of `type` can be used here (ZLIB always; LZ4 / ZSTD when their optional package loads, ZSTD also
 * through Node's own zlib where it has it). Loads the package when it was not yet loaded.
 */
export function isCompressionAvailable(type: CompressionType): boolean {
  return compressionImplementation(type) !== null;
}

/**
 * What implements the codec of `type` here: `node:zlib` or the npm package's name, null when nothing does (for
 * diagnostics: the broker reports it at start). Loads the package when it was not yet loaded.
 */
export function compressionImplementation(type: CompressionType): string | null {
  try {
    if (type === CompressionType.LZ4) {
      lz4();
      return codecPackages.LZ4;
    }
    if (type === CompressionType.ZSTD) return zstd().source;
    return 'node:zlib';
  } catch {
    return null;
  }
}

/**
 * Tests only: load `packageName` for `codec` from now on (a name that does not exist simulates a missing optional
 * dependency; for ZSTD, Node's own zlib is then not used either); without a name, back to the real package. Forgets
 * the loaded binding.
 * @internal
 */
export function setCompressionCodecPackageForTest(codec: 'LZ4' | 'ZSTD', packageName?: string): void {
  codecPackages[codec] = packageName ?? COMPRESSION_CODEC_PACKAGES[codec];
  codecOverridden[codec] = packageName !== undefined;
  if (codec === 'LZ4') lz4Binding = undefined;
  else zstdBinding = undefined;
}

function asBuffer(body: Uint8Array): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/**
 * Compresses a body as Java's `CompressorFactory.getCompressor(type).compress(body, level)`: ZLIB → zlib stream at
 * `level`, LZ4 → one LZ4 frame (level ignored, as Java), ZSTD → one Zstandard frame at `level`.
 */
export function compressBodyWith(type: CompressionType, body: Uint8Array, level: number = DEFAULT_COMPRESS_LEVEL): Buffer {
  switch (type) {
    case CompressionType.LZ4:
      return lz4().compressFrameSync(asBuffer(body));
    case CompressionType.ZSTD:
      return zstd().compress(asBuffer(body), level);
    default:
      return compressBody(body, level);
  }
}

/** Decompresses a body of a known type; a `ProtocolError` when it is not in that format. */
export function decompressBodyWith(type: CompressionType, body: Uint8Array): Buffer {
  if (type === CompressionType.ZLIB) return uncompressBody(body);
  const binding = type === CompressionType.LZ4 ? lz4() : zstd();
  try {
    return type === CompressionType.LZ4 ? (binding as Lz4Binding).decompressFrameSync(asBuffer(body)) : (binding as ZstdBinding).decompress(asBuffer(body));
  } catch (e) {
    throw new ProtocolError(`cannot decompress ${compressionTypeName(type)} message body: ${(e as Error).message}`, { cause: e });
  }
}

/** Decompresses a body whose sysFlag has COMPRESSED_FLAG, by the sysFlag's type bits (Java MessageDecoder.decode). */
export function decompressBody(body: Uint8Array, sysFlag: number): Buffer {
  return decompressBodyWith(getCompressionType(sysFlag), body);
}
