/**
 * The optional native pieces a broker finds when they are installed beside rocketmq-ts (none comes with
 * `npm install rocketmq-ts`: an application that only produces and consumes needs none of them), and the one line it
 * logs at start: what it uses, what it falls back to, how to install the faster path.
 *
 * - Commit log memory maps: `@riaskov/mmap-io` (lib/store/mmap.ts); without it the commit log is written through
 *   in-memory write segments (as Java's transientStorePoolEnable).
 * - Body CRC-32 of every stored message: `@node-rs/crc32` (protocol/message/compression.ts); without it `zlib.crc32`.
 * - LZ4 / ZSTD bodies: the broker stores and serves them as sent and never decodes them; the codecs matter to the
 *   clients of this process (dashboard, admin), so they are reported too.
 * - ACL files (`aclEnable=true`): `js-yaml`, required on the ACL's first load (a broker with ACL refuses to start
 *   without it).
 */
import { compressionImplementation, CompressionType, crc32Implementation } from '../../protocol/message/compression';

/** One optional piece: what is in use, and the package that gives the faster (or the needed) path. */
export interface Accelerator {
  /** What it speeds up or enables. */
  readonly what: string;
  /** The npm package to install for it. */
  readonly packageName: string;
  /** Whether the package's path is in use. */
  readonly inUse: boolean;
  /** What is used: the package, or the fallback (with why, where it says). */
  readonly uses: string;
}

/** The npm packages of the accelerators, with the ranges this version is tested with (package.json peerDependencies). */
export const ACCELERATOR_PACKAGES = Object.freeze({
  mmap: '@riaskov/mmap-io',
  crc32: '@node-rs/crc32',
  lz4: 'lz4-napi',
  zstd: '@toondepauw/node-zstd',
  yaml: 'js-yaml',
});

/**
 * The accelerators of a broker whose commit log writes `commitLogWriteMode` (CommitLog.writeMode: `mapped` or
 * `write segments (<why>)`), with ACL on or off.
 */
export function brokerAccelerators(commitLogWriteMode: string, aclEnable: boolean): Accelerator[] {
  const mapped = commitLogWriteMode === 'mapped';
  const crc = crc32Implementation();
  const lz4 = compressionImplementation(CompressionType.LZ4);
  const zstd = compressionImplementation(CompressionType.ZSTD);
  const list: Accelerator[] = [
    {
      what: 'commit log memory maps', packageName: ACCELERATOR_PACKAGES.mmap, inUse: mapped,
      uses: mapped ? ACCELERATOR_PACKAGES.mmap : commitLogWriteMode.replace(/\(\S+ cannot be loaded \(Cannot find module .*\)\)$/, '(not installed)'),
    },
    { what: 'body CRC-32', packageName: ACCELERATOR_PACKAGES.crc32, inUse: crc === '@node-rs/crc32', uses: crc === 'zlib' ? 'zlib.crc32' : crc === 'table' ? 'a table in JavaScript' : crc },
    { what: 'LZ4 bodies (clients here)', packageName: ACCELERATOR_PACKAGES.lz4, inUse: lz4 !== null, uses: lz4 ?? 'none' },
    { what: 'ZSTD bodies (clients here)', packageName: ACCELERATOR_PACKAGES.zstd, inUse: zstd !== null, uses: zstd ?? 'none' },
  ];
  if (aclEnable) list.push({ what: 'ACL files', packageName: ACCELERATOR_PACKAGES.yaml, inUse: true, uses: ACCELERATOR_PACKAGES.yaml });
  return list;
}

/**
 * The line the broker logs at start, e.g. `accelerators: commit log memory maps: @riaskov/mmap-io | body CRC-32:
 * zlib.crc32, faster with npm install @node-rs/crc32 | ...`.
 */
export function acceleratorsLine(list: readonly Accelerator[]): string {
  const parts = list.map((a) => `${a.what}: ${a.uses}${a.inUse ? '' : `, ${a.uses === 'none' ? 'to read them' : 'faster'} with npm install ${a.packageName}`}`);
  const missing = list.filter((a) => !a.inUse).map((a) => a.packageName);
  return `accelerators: ${parts.join(' | ')}${missing.length > 1 ? ` (all: npm install ${missing.join(' ')})` : ''}`;
}
