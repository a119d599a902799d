/**
 * LZ4 and ZSTD bodies (5.x compressType in sysFlag bits 8-10): the frame formats of Java's Lz4Compressor
 * (lz4-java LZ4FrameOutputStream) and ZstdCompressor (zstd-jni ZstdOutputStream), decoded from bytes those Java
 * classes wrote, and our own output round-tripped. The cross-check against the Java classes run live is
 * test/integration/compat/java-compression.test.ts.
 */
import zlib from 'node:zlib';
import { expect } from 'chai';
import { CompressionCodecUnavailableError, ProtocolError } from '../../../../protocol/errors';
import {
  COMPRESSION_CODEC_PACKAGES, CompressionType, MessageSysFlag, compressBody, compressBodyWith, compressionFlag, compressionTypeName, compressionTypeOf,
  compressionImplementation, decodeMessage, decompressBody, encodeStoredMessage, getCompressionType, isCompressionAvailable,
  setCompressionCodecPackageForTest,
} from '../../../../protocol/message/index';

const TEXT = 'rocketmq-ts compression, rocketmq-ts compression, rocketmq-ts compression!';
// Written by Java 5.3.3's CompressorFactory.getCompressor(LZ4 / ZSTD).compress(TEXT, 5) (Rmq533Tool codec compress).
const JAVA_LZ4 = '04224d1860707324000000ff0a726f636b65746d712d747320636f6d7072657373696f6e2c201900195073696f6e2100000000';
const JAVA_ZSTD = '28b52ffd00580c0100d0726f636b65746d712d747320636f6d7072657373696f6e2c20210100c5d11c03010000';

function body(size: number, seed = 1): Buffer {
  // Compressible but not trivial: words from a small LCG.
  const words = ['alpha', 'beta', 'gamma', 'delta', 'rocketmq', 'broker', 'queue', '0123456789'];
  const parts: string[] = [];
  let x = seed;
  let n = 0;
  while (n < size) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const w = words[x % words.length];
    parts.push(w);
    n += w.length + 1;
  }
  return Buffer.from(parts.join(' ')).subarray(0, size);
}

describe('protocol/message compression: LZ4 and ZSTD', () => {
  it('maps Java CompressionType names, values and sysFlag bits', () => {
    expect(compressionTypeOf(' lz4 ')).to.equal(CompressionType.LZ4);
    expect(compressionTypeOf('ZSTD')).to.equal(CompressionType.ZSTD);
    expect(compressionTypeOf('zlib')).to.equal(CompressionType.ZLIB);
    expect(() => compressionTypeOf('snappy')).to.throw(ProtocolError, 'Unsupported compress type name: snappy');
    expect(compressionFlag(CompressionType.LZ4)).to.equal(0x100);
    expect(compressionFlag(CompressionType.ZSTD)).to.equal(0x200);
    expect(compressionFlag(CompressionType.ZLIB)).to.equal(0x300);
    expect(getCompressionType(0x101)).to.equal(CompressionType.LZ4);
    expect(getCompressionType(0x201)).to.equal(CompressionType.ZSTD);
    expect(getCompressionType(0x301)).to.equal(CompressionType.ZLIB);
    expect(getCompressionType(0x001), '4.x clients set no type: zlib').to.equal(CompressionType.ZLIB);
    expect(() => getCompressionType(0x401)).to.throw(ProtocolError, 'unknown compression type 4');
    expect(compressionTypeName(CompressionType.ZSTD)).to.equal('ZSTD');
  });

  it('ZLIB is unchanged: a zlib stream at the level given, type bits 3 or 0', () => {
    const b = body(10_000);
    const z = compressBodyWith(CompressionType.ZLIB, b, 5);
    expect(z.equals(compressBody(b, 5))).to.equal(true);
    expect(z[0]).to.equal(0x78);
    expect(decompressBody(z, MessageSysFlag.COMPRESSED_FLAG).equals(b)).to.equal(true);
    expect(decompressBody(z, MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_ZLIB_TYPE).equals(b)).to.equal(true);
  });

  describe('LZ4 (lz4-napi)', function () {
    before(function () {
      if (!isCompressionAvailable(CompressionType.LZ4)) {
        process.stderr.write('      skipped: the optional dependency lz4-napi does not load here\n');
        this.skip();
      }
    });

    it('decodes the LZ4 frame Java 5.3.3 wrote (lz4-java LZ4FrameOutputStream)', () => {
      const out = decompressBody(Buffer.from(JAVA_LZ4, 'hex'), 0x101);
      expect(out.toString()).to.equal(TEXT);
    });

    it('writes one LZ4 frame with independent blocks (what LZ4FrameInputStream reads) and round-trips', () => {
      for (const size of [0, 1, 4096, 70_000, 300_000]) {
        const b = body(size, size);
        const c = compressBodyWith(CompressionType.LZ4, b, 5);
        expect(c.readUInt32LE(0), 'frame magic').to.equal(0x184d2204);
        const flg = c[4];
        expect(flg >> 6, 'frame version 01').to.equal(1);
        expect(flg & 0x20, 'block independence').to.equal(0x20);
        expect(decompressBody(c, MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_LZ4_TYPE).equals(b), `size ${size}`).to.equal(true);
      }
    });

    it('a body that is not an LZ4 frame is a ProtocolError', () => {
      expect(() => decompressBody(Buffer.from('not lz4 at all'), 0x101)).to.throw(ProtocolError, 'cannot decompress LZ4');
    });
  });

  describe(`ZSTD (${compressionImplementation(CompressionType.ZSTD) ?? 'no implementation here'})`, function () {
    before(function () {
      if (!isCompressionAvailable(CompressionType.ZSTD)) {
        process.stderr.write('      skipped: no Zstandard here (the optional dependency @toondepauw/node-zstd, or a Node with zlib.zstdCompressSync)\n');
        this.skip();
      }
    });

    it('decodes the Zstandard frame Java 5.3.3 wrote (zstd-jni ZstdOutputStream: no content size, a trailing empty block)', () => {
      const frame = Buffer.from(JAVA_ZSTD, 'hex');
      expect(frame[4] & 0xc0, 'frame header: content size not given').to.equal(0);
      expect(decompressBody(frame, 0x201).toString()).to.equal(TEXT);
    });

    it('writes one Zstandard frame at the level given and round-trips', () => {
      for (const size of [0, 1, 4096, 300_000]) {
        const b = body(size, size + 7);
        const c = compressBodyWith(CompressionType.ZSTD, b, 5);
        expect(c.readUInt32LE(0), 'frame magic').to.equal(0xfd2fb528);
        expect(decompressBody(c, MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_ZSTD_TYPE).equals(b), `size ${size}`).to.equal(true);
      }
      const big = body(200_000, 3);
      expect(compressBodyWith(CompressionType.ZSTD, big, 19).length).to.be.at.most(compressBodyWith(CompressionType.ZSTD, big, 1).length);
    });

    it('a body that is not a Zstandard frame is a ProtocolError', () => {
      expect(() => decompressBody(Buffer.from('not zstd at all'), 0x201)).to.throw(ProtocolError, 'cannot decompress ZSTD');
    });
  });

  it('decodes stored records by their type bits, and keeps the sysFlag as stored', function () {
    if (!isCompressionAvailable(CompressionType.LZ4) || !isCompressionAvailable(CompressionType.ZSTD)) this.skip();
    const b = body(9000, 5);
    for (const type of [CompressionType.LZ4, CompressionType.ZSTD, CompressionType.ZLIB]) {
      const sysFlag = MessageSysFlag.COMPRESSED_FLAG | compressionFlag(type);
      const rec = encodeStoredMessage({
        topic: 'T', body: compressBodyWith(type, b, 5), sysFlag, queueId: 0, queueOffset: 0, commitLogOffset: 0, bornTimestamp: 1,
        bornHost: { address: '127.0.0.1', port: 1 }, storeTimestamp: 2, storeHost: { address: '127.0.0.1', port: 2 },
      });
      const m = decodeMessage(rec);
      expect(m.body.equals(b), compressionTypeName(type)).to.equal(true);
      expect(m.sysFlag).to.equal(sysFlag);
      expect(decodeMessage(rec, 0, { decompressBody: false }).body.equals(b)).to.equal(false);
    }
  });

  it('a missing optional package is a CompressionCodecUnavailableError naming it, for both directions', () => {
    try {
      setCompressionCodecPackageForTest('LZ4', 'rocketmq-ts-no-such-lz4-package');
      setCompressionCodecPackageForTest('ZSTD', 'rocketmq-ts-no-such-zstd-package');
      expect(isCompressionAvailable(CompressionType.LZ4)).to.equal(false);
      expect(isCompressionAvailable(CompressionType.ZLIB)).to.equal(true);
      const err = (fn: () => unknown): CompressionCodecUnavailableError => {
        try {
          fn();
        } catch (e) {
          return e as CompressionCodecUnavailableError;
        }
        throw new Error('no error');
      };
      const e1 = err(() => decompressBody(Buffer.from(JAVA_LZ4, 'hex'), 0x101));
      expect(e1).to.be.instanceOf(CompressionCodecUnavailableError);
      expect(e1.packageName).to.equal('rocketmq-ts-no-such-lz4-package');
      expect(e1.codec).to.equal('LZ4');
      expect(e1.retriable).to.equal(false);
      expect(e1.message).to.contain('npm install rocketmq-ts-no-such-lz4-package');
      const e2 = err(() => compressBodyWith(CompressionType.ZSTD, Buffer.from('x'), 5));
      expect(e2).to.be.instanceOf(CompressionCodecUnavailableError);
      expect(e2.codec).to.equal('ZSTD');
      expect(e2.packageName).to.equal('rocketmq-ts-no-such-zstd-package');
      expect(compressionImplementation(CompressionType.ZSTD)).to.equal(null);
      // ZLIB needs nothing.
      expect(decompressBody(compressBody(Buffer.from('x')), 0x301).toString()).to.equal('x');
    } finally {
      setCompressionCodecPackageForTest('LZ4');
      setCompressionCodecPackageForTest('ZSTD');
    }
  });

  it('names the package to install by default, and tells what implements each codec here', () => {
    expect(COMPRESSION_CODEC_PACKAGES).to.deep.equal({ LZ4: 'lz4-napi', ZSTD: '@toondepauw/node-zstd' });
    expect(compressionImplementation(CompressionType.ZLIB)).to.equal('node:zlib');
    const zstd = compressionImplementation(CompressionType.ZSTD);
    const nodeHasZstd = typeof (zlib as unknown as { zstdCompressSync?: unknown }).zstdCompressSync === 'function';
    expect(zstd).to.equal(nodeHasZstd ? 'node:zlib' : isCompressionAvailable(CompressionType.ZSTD) ? '@toondepauw/node-zstd' : null);
  });
});
