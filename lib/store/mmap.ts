/**
 * Memory maps for the commit log, through the optional package `@riaskov/mmap-io` (a small native binding of mmap,
 * madvise and msync), required on first use. Without it (not installed, no build for this platform) the store writes
 * through its in-memory write segments instead (lib/store/mapped-file.ts), as Java does with transientStorePoolEnable.
 */

/** What the store uses of `@riaskov/mmap-io`. */
interface MmapIo {
  map(size: number, protection: number, flags: number, fd: number, offset?: number, advise?: number): Buffer;
  advise(buffer: Buffer, offset: number, length: number, advise: number): void;
  /** mincore over the buffer's pages: [pages not in the page cache, pages in it]. */
  incore(buffer: Buffer): [number, number];
  readonly PROT_READ: number;
  readonly PROT_WRITE: number;
  readonly MAP_SHARED: number;
  readonly MADV_SEQUENTIAL: number;
  readonly MADV_DONTNEED: number;
  readonly PAGESIZE: number;
}

/** The binding's size and offset arguments are C ints: a larger file cannot be mapped by it. */
export const MAX_MAPPED_FILE_SIZE = 0x7fffffff;

let binding: MmapIo | null | undefined;
let unavailableReason = '';

function load(): MmapIo | null {
  if (binding !== undefined) return binding;
  try {
    // A runtime require on purpose: the package is optional.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const m = require('@riaskov/mmap-io') as MmapIo;
    if (typeof m.map !== 'function' || typeof m.advise !== 'function' || typeof m.incore !== 'function') {
      throw new Error('no map(), advise() or incore() in @riaskov/mmap-io');
    }
    binding = m;
  } catch (err) {
    unavailableReason = `@riaskov/mmap-io cannot be loaded (${(err as Error).message.split('\n')[0]})`;
    binding = null;
  }
  return binding;
}

/** Null when files can be mapped here, else why not (one line). */
export function mmapUnavailable(): string | null {
  return load() ? null : unavailableReason;
}

/** Maps `size` bytes of the open file `fd` from its start, shared and writable; the map lives until it is collected. */
export function mapFile(fd: number, size: number): Buffer {
  const m = load();
  if (!m) throw new Error(unavailableReason);
  return m.map(size, m.PROT_READ | m.PROT_WRITE, m.MAP_SHARED, fd, 0, m.MADV_SEQUENTIAL);
}

/**
 * Drops `[offset, offset + length)` of a map from the process's page tables (MADV_DONTNEED). The file's bytes stay in
 * the page cache (dirty ones are still written back), so reading them again only faults them back in: this keeps the
 * resident size of a broker that wrote gigabytes bounded (the pages count as the process's RSS while mapped).
 */
export function releasePages(map: Buffer, offset: number, length: number): void {
  const m = load();
  if (!m || length <= 0) return;
  m.advise(map, offset, length, m.MADV_DONTNEED);
}

/**
 * True when every page of `[offset, offset + length)` of a map (`offset` a multiple of the page size) is in the page
 * cache (mincore), so reading it through the map cannot wait for the disk.
 */
export function pagesResident(map: Buffer, offset: number, length: number): boolean {
  const m = load();
  if (!m || length <= 0) return false;
  return m.incore(map.subarray(offset, offset + length))[0] === 0;
}
