/**
 * Byte compatibility of compressed bodies with Java 5.3.3's own compressors, run live: the Java classes
 * (CompressorFactory → ZlibCompressor, Lz4Compressor over lz4-java, ZstdCompressor over zstd-jni) compress bodies
 * that ours decompress, and decompress what ours compressed. test/java/Rmq533Tool.java is compiled with javac
 * against ../shared/javaref/5.3.3/lib at test time; skipped with a clear line without javac or the jars. zstd-jni
 * needs its native library (Debian: libzstd-jni1): without it the ZSTD cases skip, saying so.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CompressionType, type CompressionTypeName, MessageSysFlag, compressBodyWith, compressionFlag, compressionTypeOf, decompressBody,
  isCompressionAvailable,
} from '../../../protocol/message/index';
import { java533ToolSkipReason, runJava533Tool } from '../../helpers/javaref';

function body(size: number, seed: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    // Text-like and compressible: a small alphabet, with runs.
    out[i] = 97 + ((x >> 16) % 8 === 0 ? (x >> 8) % 26 : (i >> 6) % 26);
  }
  return out;
}

// 4 MiB + 1 KiB crosses lz4-java's 4 MB frame block size (two blocks).
const SIZES = [1, 4096, 100_000, 4 * 1024 * 1024 + 1024];

describe('compat: compressed bodies against Java 5.3.3 compressors (javac-compiled driver)', function () {
  this.timeout(180_000);
  let dir = '';
  let runDir = '';

  before(function () {
    const skip = java533ToolSkipReason();
    if (skip) {
      process.stderr.write(`      ${skip}\n`);
      this.skip();
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqcodec-'));
    runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rmqcodecrun-'));
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    if (runDir) fs.rmSync(runDir, { recursive: true, force: true });
  });

  /** One JVM for every file pair; a CODEC line per pair. */
  async function javaAll(args: string[], pairs: number): Promise<string[]> {
    const r = await runJava533Tool(['codec', ...args], { runDir, timeoutMs: 120_000 });
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('CODEC '));
    while (lines.length < pairs) lines.push(`CODEC FAIL no result (exit ${r.code}) ${r.stderr.slice(-500)}`);
    return lines;
  }
  const java = async (args: string[]): Promise<string> => (await javaAll(args, 1))[0];

  for (const name of ['ZLIB', 'LZ4', 'ZSTD'] as CompressionTypeName[]) {
    const type = compressionTypeOf(name);
    const sysFlag = MessageSysFlag.COMPRESSED_FLAG | compressionFlag(type);

    describe(name, () => {
      before(async function () {
        if (!isCompressionAvailable(type)) {
          process.stderr.write(`      skipped: the optional dependency for ${name} does not load here\n`);
          this.skip();
        }
        // Java's side of ZSTD needs zstd-jni's native library.
        const probeIn = path.join(dir, `probe-${name}`);
        fs.writeFileSync(probeIn, 'probe');
        const line = await java(['compress', name, '5', probeIn, `${probeIn}.out`]);
        if (line.startsWith('CODEC FAIL')) {
          if (type === CompressionType.ZSTD && /UnsatisfiedLinkError|zstd-jni/.test(line)) {
            process.stderr.write(`      skipped: Java's zstd-jni has no native library here (install libzstd-jni1): ${line.slice(11, 200)}\n`);
            this.skip();
          }
          throw new Error(`Java ${name} compressor: ${line}`);
        }
      });

      it('Java compresses, ours decompresses (every size, across LZ4 blocks)', async () => {
        const files = SIZES.map((size) => [path.join(dir, `${name}-${size}.plain`), path.join(dir, `${name}-${size}.java`)]);
        SIZES.forEach((size, i) => fs.writeFileSync(files[i][0], body(size, size)));
        const lines = await javaAll(['compress', name, '5', ...files.flat()], files.length);
        SIZES.forEach((size, i) => {
          expect(lines[i], `Java ${name} ${size}`).to.match(/^CODEC OK/);
          const compressed = fs.readFileSync(files[i][1]);
          if (size >= 4096) expect(compressed.length, 'compressed smaller').to.be.below(size);
          expect(decompressBody(compressed, sysFlag).equals(body(size, size)), `${name} size ${size}`).to.equal(true);
        });
      });

      it('ours compresses, Java decompresses (every size)', async () => {
        const files = SIZES.map((size) => [path.join(dir, `${name}-${size}.ours`), path.join(dir, `${name}-${size}.back`)]);
        SIZES.forEach((size, i) => fs.writeFileSync(files[i][0], compressBodyWith(type, body(size, size + 1), 5)));
        const lines = await javaAll(['decompress', name, ...files.flat()], files.length);
        SIZES.forEach((size, i) => {
          expect(lines[i], `Java ${name} ${size}`).to.match(/^CODEC OK/);
          expect(fs.readFileSync(files[i][1]).equals(body(size, size + 1)), `${name} size ${size}`).to.equal(true);
        });
      });
    });
  }
});
