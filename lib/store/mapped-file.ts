/**
 * One fixed-size store file named by its 20-digit start offset. It is written one of two ways:
 * - **Mapped** (the commit log when `@riaskov/mmap-io` loads and transientStorePoolEnable is false, as Java's default):
 *   appends are encoded into write segments (memory the process reuses, hot in the CPU's caches) and committed into
 *   the file's shared memory map: a commit of a few pages (a lone put, `copyIntoMapMax`) is a copy into the map on the
 *   event loop, in the page cache (and safe from a kill -9) with no write call and no round trip; a larger one is a
 *   positional write on the threadpool, so the copy into the page cache (about 2 µs per KiB on this project's
 *   machines, the largest part of a put) runs on another core while the next appends are encoded. A copy into the
 *   map goes only into blocks reserved ahead by writing zeros (Java's warmMappedFile, done a few MiB at a time): a
 *   store into a sparse page on a full disk would kill the process (SIGBUS), a failed write only refuses the put.
 *   The zeros are written while puts come a few at a time (after a copy into the map, or a small commit that found
 *   no reserved blocks), and not within RESERVE_QUIET_MILLIS of a commit that was a write; a positional write
 *   reserves its own blocks, so under load no zeros are written and each byte reaches the page cache once. Pages well
 *   behind the write position leave the process's page tables (MADV_DONTNEED; their bytes stay in the page cache),
 *   so the RSS stays small.
 * - **Write segments** (every other file, or without the binding; Java's transientStorePoolEnable): the tail that was
 *   appended but not yet written lives in memory as write segments; `commit()` hands all of them to the OS in one
 *   positional writev.
 *
 * `flush()` fdatasyncs either way (that writes the map's dirty pages too). Reads of recent bytes are answered from
 * memory (the segments, or the map's resident part), older bytes by pread.
 *
 * @see org.apache.rocketmq.store.MappedFile
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DataSyncer } from './flush-thread';
import { mapFile, pagesResident, releasePages } from './mmap';
import { writeFully } from '../util/write-fully';

/**
 * A region of the file's tail in memory: `[start, start + len)` appended, of which `[start, start + committed)` has
 * been handed to the OS. Appends continue into a segment after part of it was committed (no buffer per commit);
 * a segment is dropped once committed and no longer the last one.
 */
interface Segment {
  start: number;
  buf: Buffer;
  len: number;
  committed: number;
}

export const OS_PAGE_SIZE = 4096;

/**
 * Write-segment buffers whose bytes are all on the OS, kept for the next segment of the same size (Java's
 * TransientStorePool keeps its write buffers the same way): a fresh buffer costs a page fault per 4 KiB on its first
 * fill. Bounded per size; a buffer goes back only once no write holds it, and reads copy out of segments, never view them.
 */
const segmentPool = new Map<number, Buffer[]>();
const SEGMENT_POOL_BYTES = 16 * 1024 * 1024;

function takeSegmentBuffer(size: number): Buffer {
  return segmentPool.get(size)?.pop() ?? Buffer.allocUnsafe(size);
}

function returnSegmentBuffer(buf: Buffer): void {
  let free = segmentPool.get(buf.length);
  if (!free) segmentPool.set(buf.length, (free = []));
  if ((free.length + 1) * buf.length <= SEGMENT_POOL_BYTES) free.push(buf);
}

/** Mapped files: how far ahead of the write position blocks are reserved (written with zeros). */
export const ALLOCATE_AHEAD = 8 * 1024 * 1024;

/**
 * Blocks are reserved ahead (zeros written) only after this long without a commit that was a write: under load every
 * commit that is a write reserves its own blocks, and zeros written ahead would be written a second time by the data
 * (the tail of a tick copied into the map and a run of zeros after it, tick after tick).
 */
export const RESERVE_QUIET_MILLIS = 50;
/**
 * Mapped files: zeros go to the file in writes of this size. A write's size sets the size of the page-cache folios it
 * creates (Linux 6.x: ext4, xfs), and a store through the map dirties its whole folio, which the next fdatasync
 * writes out: after 4 MiB writes of zeros, a SYNC_FLUSH put of 1 KiB had its fdatasync write up to 2 MiB (~850 µs a
 * sync on this project's machines; ~70 µs with 64 KiB folios).
 */
export const ZERO_WRITE = 64 * 1024;
/** Mapped files whose zeros go through a flush thread (SYNC_FLUSH): bytes per request (written FlushThread.zeroUnit at a time). */
const ZERO_REQUEST = 1024 * 1024;
/**
 * Mapped files: pages further than this behind the write position leave the page tables, this many at a time (one
 * madvise per step: at most RESIDENT_BEHIND + RELEASE_STEP of the file counts in the RSS).
 */
const RESIDENT_BEHIND = 2 * 1024 * 1024;
/** How much around a faulting address the kernel maps at once (fault_around_bytes' default): reads release this. */
const FAULT_AROUND = 64 * 1024;
const RELEASE_STEP = 4 * 1024 * 1024;
/**
 * Mapped files: how much reads of older bytes may fault into the page tables (FAULT_AROUND windows, all files of the
 * process together) before all of those pages leave together (see #releaseReads): the RSS such reads add (pages of
 * the page cache, not memory of the process's own). It holds what one consumer of many queues reads while its queues
 * move on unevenly: a 64-queue drain of 72 MiB read over the whole range, and with 32 MiB its pages left 107 times
 * (35 µs of broker CPU per message, 17 µs with none); one of 180 MiB left 11 times with 128 MiB.
 */
export const READ_RESIDENT_MAX = 128 * 1024 * 1024;
const ZEROS = Buffer.alloc(ZERO_WRITE);

/** `len` bytes of `buf` from `pos` in a buffer of their own. */
function copyOf(buf: Buffer, pos: number, len: number): Buffer {
  const out = Buffer.allocUnsafe(len);
  buf.copy(out, 0, pos, pos + len);
  return out;
}

export function offsetToFileName(offset: number): string {
  return String(offset).padStart(20, '0');
}

export class MappedFile {
  readonly fileFromOffset: number;
  /** Position appended so far (in memory or on disk). */
  wrotePosition = 0;
  /** Position handed to the OS. */
  committedPosition = 0;
  /** Position fdatasynced. */
  flushedPosition = 0;
  /** Store timestamp of the last record appended (the checkpoint uses it). */
  storeTimestamp = 0;
  firstCreateInQueue = false;
  #fh: fs.FileHandle | null = null;
  #opening: Promise<fs.FileHandle> | null = null;
  #segments: Segment[] = [];
  #committing: Promise<void> = Promise.resolve();
  /** Commits started and not yet settled: while zero, commit() hands the bytes to the OS at once (no microtask first). */
  #commitsInFlight = 0;
  #destroyed = false;
  /**
   * Set by a queue whose files are written through a map: the first ensureWritable() maps the file. A file that cannot
   * be mapped (mapError) is written through segments instead.
   */
  wantMap = false;
  /**
   * Mapped files: a commit of at most this many pending bytes, while no write is under way, copies them into the map
   * on the event loop; a larger one hands them to the OS with a positional write on the threadpool, where the copy
   * into the page cache overlaps with the appends that follow (the commit log sets commitCommitLogLeastPages' bytes).
   */
  copyIntoMapMax = 4 * OS_PAGE_SIZE;
  /** Mapped files: see {@link RESERVE_QUIET_MILLIS}. */
  reserveQuietMillis = RESERVE_QUIET_MILLIS;
  /** performance.now() of the last commit that was a write (a large one, or one behind another in flight). */
  #lastWriteCommitAt = Number.NEGATIVE_INFINITY;
  /** Set by a queue whose fdatasyncs go through a flush thread (SYNC_FLUSH's commit log), else the threadpool's. */
  syncer: DataSyncer | null = null;
  /** The fdatasync under way: close() waits for it (the flush thread holds the bare descriptor). */
  #syncing: Promise<void> | null = null;
  /** Why mapping this file failed (it is then written through segments). */
  mapError: Error | null = null;
  #map: Buffer | null = null;
  #mapping: Promise<void> | null = null;
  /**
   * Mapped: `[0, #allocated)` has its blocks (zeros or committed bytes written), so a store there cannot fault on a
   * full disk. Copies into the map stay below it; positional writes of the pending bytes may go past it (and move it).
   */
  #allocated = 0;
  /** The run of zero writes under way (chained), or null. */
  #allocating: Promise<void> | null = null;
  /** Set by a commit whose write reaches past #allocated: the zero run stops after its current write. */
  #stopAllocating = false;
  /** Mapped: pages before this position were released from the page tables; reads there go to the file. */
  #releasedTo = 0;
  /** Mapped: `[#readFrom, #readTo)` holds the older bytes read through the map since their pages were last released. */
  #readFrom = Number.POSITIVE_INFINITY;
  #readTo = 0;
  /** Windows set in #residentWindows since then. */
  #readWindows = 0;
  /** READ_RESIDENT_MAX for this process (tests lower it). */
  static readResidentMax = READ_RESIDENT_MAX;
  /** Windows set in every file's #residentWindows, and the files with any. */
  static #readWindowsTotal = 0;
  static readonly #filesRead = new Set<MappedFile>();
  /**
   * Mapped: one byte per FAULT_AROUND window below #releasedTo, set once mincore found all the window's pages in the
   * page cache, cleared when the pages read leave the page tables: reads of the many records of one window (one per
   * queue of a topic read in step) ask the kernel once, not once per record. Allocated at the first older read.
   */
  #residentWindows: Uint8Array | null = null;
  /** Commits copied into the map on the event loop, and commits handed to the OS by a write (for tests). */
  copiesIntoMap = 0;
  commitWrites = 0;
  /** madvise calls made for reads (for tests: one per readResidentMax of windows read, not one per record). */
  readReleases = 0;
  /** mincore calls made for reads (for tests: one per window between releases, not one per record). */
  residencyChecks = 0;

  constructor(readonly fileName: string, readonly fileSize: number, private readonly segmentSize: number) {
    this.fileFromOffset = Number(path.basename(fileName));
  }

  /** True once appends go into the file's map. */
  get mapped(): boolean {
    return this.#map !== null;
  }

  /**
   * Bytes that can be appended now, synchronously: none while the file waits to be mapped (ensureWritable() maps it),
   * else up to the file's end (appends go into write segments; commit() decides how they reach the file).
   */
  writableBytes(): number {
    if (!this.#map && this.wantMap && !this.mapError) return 0;
    return this.fileSize - this.wrotePosition;
  }

  /** Bytes of reserved blocks ahead of the write position (mapped files; for tests). */
  reservedAhead(): number {
    return this.#map ? Math.max(0, this.#allocated - this.wrotePosition) : 0;
  }

  /**
   * Makes `len` bytes (at most to the file's end) appendable: a file that waits to be mapped is mapped, and blocks
   * for those bytes are reserved, so that the first puts are copied into the map; more are reserved in the
   * background. Null when nothing is to wait for; rejects when the blocks cannot be written (a full disk), the file
   * stays as it was.
   */
  ensureWritable(len: number): Promise<void> | null {
    if (this.#map || !this.wantMap || this.mapError) return null;
    const need = Math.min(len, this.fileSize - this.wrotePosition);
    return this.#mapForWrite().then(() => {
      if (!this.#map) return undefined;
      this.#stopAllocating = false;
      const first = this.#allocate(this.wrotePosition + need);
      // the rest in the background, chained behind the first run
      this.#allocate(Math.min(this.fileSize, this.wrotePosition + ALLOCATE_AHEAD)).catch(() => undefined);
      return first;
    });
  }

  #mapForWrite(): Promise<void> {
    if (!this.#mapping) {
      this.#mapping = (async () => {
        const fh = await this.#handle();
        try {
          if (this.#destroyed) throw new Error(`${this.fileName} was deleted`);
          this.#map = mapFile(fh.fd, this.fileSize);
        } catch (err) {
          this.mapError = err as Error;
          return;
        }
        // What lies before the write position is written; the next zeros begin there (and overwrite whatever a
        // crash left beyond the recovered end).
        this.#allocated = this.wrotePosition;
        this.#releasedTo = this.wrotePosition - (this.wrotePosition % OS_PAGE_SIZE);
      })();
    }
    return this.#mapping;
  }

  /**
   * Writes zeros from #allocated to at least `target` (ZERO_WRITE at a time, not past the file's end); one run at a
   * time. Started only while no commit is under way (a run never writes where a commit's bytes are going), and
   * stopped by a commit that reaches past #allocated (#doCommit waits for the write under way).
   */
  #allocate(target: number): Promise<void> {
    const run = async (): Promise<void> => {
      const fh = this.#fh ?? await this.#handle();
      const writeZeros = this.syncer?.writeZeros?.bind(this.syncer);
      while (this.#allocated < target && !this.#destroyed && !this.#stopAllocating) {
        let bytesWritten: number;
        if (writeZeros) {
          // On the flush thread (lib/store/flush-thread.ts), a page or 64 KiB per write, 1 MiB per request.
          bytesWritten = await writeZeros(fh.fd, this.#allocated, Math.min(this.fileSize, this.#allocated + ZERO_REQUEST));
        } else {
          const n = Math.min(ZERO_WRITE, this.fileSize - this.#allocated);
          ({ bytesWritten } = await fh.write(ZEROS, 0, n, this.#allocated));
        }
        // A short write (a disk that just filled): what was written counts, the rest is tried again.
        this.#allocated += bytesWritten;
        if (bytesWritten === 0) throw new Error(`no space to extend ${this.fileName}`);
      }
    };
    const prev = this.#allocating;
    const next = prev ? prev.then(run) : run();
    // Never rejects (the caller gets the error through `next`): the next run chains on it.
    const done = (): void => {
      if (this.#allocating === settled) this.#allocating = null;
    };
    const settled: Promise<void> = next.then(done, done);
    this.#allocating = settled;
    return next;
  }

  /**
   * Reserves the next blocks in the background when fewer than half of ALLOCATE_AHEAD are left: called after a copy
   * into the map, or a small commit, with no commit under way (puts come a few at a time, and the next ones are to
   * be copied too). A failure here (a full disk) leaves the next commits to positional writes, which report it.
   */
  #reserveAhead(): void {
    if (this.#allocating || this.#commitsInFlight > 0 || this.#destroyed) return;
    if (performance.now() - this.#lastWriteCommitAt < this.reserveQuietMillis) return;
    const pos = this.wrotePosition;
    if (this.#allocated < this.committedPosition) this.#allocated = this.committedPosition;
    if (this.#allocated < this.fileSize && this.#allocated - pos < ALLOCATE_AHEAD / 2) {
      this.#stopAllocating = false;
      this.#allocate(Math.min(this.fileSize, pos + ALLOCATE_AHEAD)).catch(() => undefined);
    }
  }

  /** After an append into the map: releases old pages when due. */
  #afterMappedAppend(): void {
    const pos = this.wrotePosition;
    if (pos - this.#releasedTo >= RESIDENT_BEHIND + RELEASE_STEP) {
      const to = pos - RESIDENT_BEHIND - ((pos - RESIDENT_BEHIND) % OS_PAGE_SIZE);
      releasePages(this.#map!, this.#releasedTo, to - this.#releasedTo);
      this.#releasedTo = to;
    }
  }

  /** Creates the file at its full (sparse) size, as Java's mmap does. */
  static async create(fileName: string, fileSize: number, segmentSize: number): Promise<MappedFile> {
    const mf = new MappedFile(fileName, fileSize, segmentSize);
    const fh = await fs.open(fileName, 'w+');
    await fh.truncate(fileSize);
    mf.#fh = fh;
    return mf;
  }

  async #handle(): Promise<fs.FileHandle> {
    if (this.#fh) return this.#fh;
    if (!this.#opening) this.#opening = fs.open(this.fileName, 'r+').then((fh) => (this.#fh = fh));
    return this.#opening;
  }

  get fileEnd(): number {
    return this.fileFromOffset + this.fileSize;
  }

  isFull(): boolean {
    return this.wrotePosition >= this.fileSize;
  }

  isDestroyed(): boolean {
    return this.#destroyed;
  }

  /** Sets every position (after load or recovery). Only valid while nothing is pending. */
  setPositions(pos: number): void {
    this.wrotePosition = pos;
    this.committedPosition = pos;
    this.flushedPosition = pos;
  }

  /**
   * Reserves `len` bytes at the tail and returns the buffer region to fill synchronously; advances wrotePosition.
   * The caller checks that the bytes fit in the file.
   */
  reserve(len: number): { buf: Buffer; offset: number } {
    const offset = this.reserveOffset(len);
    return { buf: this.tail, offset };
  }

  /** The buffer of the last reserveOffset(). */
  tail: Buffer = Buffer.alloc(0);

  /** As reserve(), without the result object: the region starts at the returned offset of {@link tail}. */
  reserveOffset(len: number): number {
    if (!this.#map && this.wantMap && !this.mapError) throw new RangeError(`${this.fileName} is not mapped yet: ensureWritable() first`);
    let seg = this.#segments[this.#segments.length - 1];
    if (!seg || seg.buf.length - seg.len < len) {
      const cap = Math.max(len, Math.min(this.segmentSize, this.fileSize - this.wrotePosition));
      seg = { start: this.wrotePosition, buf: cap === this.segmentSize ? takeSegmentBuffer(cap) : Buffer.allocUnsafe(cap), len: 0, committed: 0 };
      this.#segments.push(seg);
    }
    const offset = seg.len;
    seg.len += len;
    this.wrotePosition += len;
    this.tail = seg.buf;
    if (this.#map) this.#afterMappedAppend();
    return offset;
  }

  appendBuffer(data: Buffer): void {
    const { buf, offset } = this.reserve(data.length);
    data.copy(buf, offset);
  }

  /** Bytes appended but not yet handed to the OS. */
  pendingBytes(): number {
    return this.wrotePosition - this.committedPosition;
  }

  /**
   * Writes every pending segment with one positional writev. Concurrent calls are chained; when none is under way
   * the write is issued before commit() returns, so appends made after it overlap with the write.
   */
  commit(): Promise<void> {
    // A few pages while nothing is in flight (puts come a few at a time): copied into the map where its blocks are
    // reserved; past them written, and the next blocks reserved once the write is done.
    const small = this.#map !== null && this.#commitsInFlight === 0 && this.wrotePosition - this.committedPosition <= this.copyIntoMapMax;
    if (small && this.wrotePosition <= this.#allocated) {
      this.#copyIntoMap();
      this.#reserveAhead();
      return Promise.resolve();
    }
    if (!small) this.#lastWriteCommitAt = performance.now();
    const next = this.#commitsInFlight === 0 ? this.#doCommit() : this.#committing.then(() => this.#doCommit());
    this.#commitsInFlight++;
    const settled = next.then(() => {
      this.#commitsInFlight--;
      if (small) this.#reserveAhead();
    }, () => { this.#commitsInFlight--; });
    this.#committing = settled;
    return next;
  }

  async #doCommit(): Promise<void> {
    if (this.#destroyed) return;
    const segs: Segment[] = [];
    const ends: number[] = [];
    const bufs: Buffer[] = [];
    for (const s of this.#segments) {
      if (s.committed >= s.len) continue;
      segs.push(s);
      ends.push(s.len);
      bufs.push(s.buf.subarray(s.committed, s.len));
    }
    if (segs.length === 0) return;
    this.commitWrites++;
    const fh = this.#fh ?? await this.#handle();
    const first = segs[0].start + segs[0].committed;
    let pos = first;
    const end = segs[segs.length - 1].start + ends[ends.length - 1];
    // Past the reserved blocks a run of zeros may be writing where these bytes go: it stops after its write under
    // way, and this write follows it (two writes of one range in flight could land in either order).
    while (this.#allocating && end > this.#allocated) {
      this.#stopAllocating = true;
      await this.#allocating;
    }
    this.#stopAllocating = false;
    const { bytesWritten } = bufs.length === 1 ? await fh.write(bufs[0], 0, bufs[0].length, pos) : await fh.writev(bufs, pos);
    pos += bytesWritten;
    if (pos < end) {
      // A short write: finish with plain writes.
      const rest = Buffer.concat(bufs).subarray(pos - first);
      await writeFully(fh, rest, 0, rest.length, pos);
    }
    for (let i = 0; i < segs.length; i++) segs[i].committed = ends[i];
    this.committedPosition = end;
    // the write allocated its blocks
    if (this.#map && end > this.#allocated) this.#allocated = end;
    this.#dropCommittedSegments();
  }

  /**
   * Mapped files: the pending bytes copied into the map on the event loop (a store into pages the page cache holds,
   * no round trip through the threadpool); only while no write is under way, so the committed bytes stay a prefix.
   */
  #copyIntoMap(): void {
    const map = this.#map!;
    let copied = false;
    for (const s of this.#segments) {
      if (s.committed >= s.len) continue;
      map.set(s.buf.subarray(s.committed, s.len), s.start + s.committed);
      s.committed = s.len;
      copied = true;
    }
    this.committedPosition = this.wrotePosition;
    if (copied) {
      this.copiesIntoMap++;
      this.#dropCommittedSegments();
    }
  }

  /** Keeps the last segment while appends can go on into it; drops the others once fully committed. */
  #dropCommittedSegments(): void {
    const all = this.#segments;
    let drop = 0;
    while (drop < all.length - 1 && all[drop].committed >= all[drop].len) drop++;
    const last = all[all.length - 1];
    if (drop === all.length - 1 && last.committed >= last.len && (last.len === last.buf.length || this.isFull())) drop++;
    if (drop > 0) {
      for (let i = 0; i < drop; i++) if (all[i].buf.length === this.segmentSize) returnSegmentBuffer(all[i].buf);
      this.#segments = all.slice(drop);
    }
  }

  /** Commits, then fdatasyncs if anything is unsynced. */
  async flush(): Promise<number> {
    await this.commit();
    const target = this.committedPosition;
    if (target > this.flushedPosition && !this.#destroyed) {
      const fh = this.#fh ?? await this.#handle();
      const sync = this.syncer ? this.syncer.datasync(fh.fd, target - this.flushedPosition) : fh.datasync();
      this.#syncing = sync;
      try {
        await sync;
      } finally {
        if (this.#syncing === sync) this.#syncing = null;
      }
      if (target > this.flushedPosition) this.flushedPosition = target;
    }
    return this.flushedPosition;
  }

  /**
   * Reads `len` bytes at file position `pos` (bounded by wrotePosition); null if out of range. `view`: see
   * {@link readFromMemory}; bytes read from the disk are always a buffer of their own.
   */
  async read(pos: number, len: number, view = false): Promise<Buffer | null> {
    if (pos < 0 || len < 0 || pos + len > this.wrotePosition || this.#destroyed) return null;
    const mem = this.readFromMemory(pos, len, view);
    if (mem) return mem;
    const out = Buffer.allocUnsafe(len);
    // Bytes at and after the first segment's start are still (or also) in memory.
    const segs = this.#segments;
    const memStart = segs.length ? segs[0].start : this.wrotePosition;
    const diskLen = Math.min(len, Math.max(0, memStart - pos));
    if (diskLen > 0) {
      const fh = await this.#handle();
      let got = 0;
      while (got < diskLen) {
        const { bytesRead } = await fh.read(out, got, diskLen - got, pos + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      if (got < diskLen) out.fill(0, got, diskLen);
    }
    // Segments may have been dropped while reading from disk (their bytes are on disk then): copy the rest.
    let p = pos + diskLen;
    while (p < pos + len) {
      const seg = this.#segments.find((s) => p >= s.start && p < s.start + s.len);
      if (!seg) {
        // only up to the next in-memory segment: its bytes are not on disk yet
        let stop = pos + len;
        for (const s of this.#segments) if (s.start > p && s.start < stop) stop = s.start;
        const fh = await this.#handle();
        const { bytesRead } = await fh.read(out, p - pos, stop - p, p);
        if (bytesRead === 0) return null;
        p += bytesRead;
        continue;
      }
      const n = Math.min(seg.start + seg.len - p, pos + len - p);
      seg.buf.copy(out, p - pos, p - seg.start, p - seg.start + n);
      p += n;
    }
    return out;
  }

  /**
   * Mapped files: the bytes if they lie in the resident part of the map, or older and all in the page cache; else
   * null. Segments: a copy of the bytes if they lie within one in-memory segment, else null.
   *
   * `view` (mapped files only): a view of the map rather than a copy, as Java's selectMappedBuffer slices its
   * MappedByteBuffer: a pull response sends it with no copy in the process (the kernel copies from the page cache
   * into the socket). The view stays readable after the file is closed or deleted (the map lives until the last view
   * of it is collected) and after its pages left the page tables (they fault in again); its bytes change only if the
   * file is cut back below them (recovery, a slave truncating to its master), which Java's slices share. A segment
   * is never viewed: its buffer is reused once its bytes are on the OS.
   */
  readFromMemory(pos: number, len: number, view = false): Buffer | null {
    const map = this.#map;
    // Bytes not yet committed are only in the segments (below).
    if (map && pos + len <= this.committedPosition) {
      if (pos < 0 || len < 0) return null;
      if (pos >= this.#releasedTo) return view ? map.subarray(pos, pos + len) : copyOf(map, pos, len);
      // Older bytes, through the map only when the page cache holds all their pages (a read of the disk would stop
      // the event loop); their pages leave the page tables again later (the RSS stays bounded). A fault maps the
      // cached pages around it too (the kernel's fault-around, 64 KiB): the whole aligned window is released, or
      // reads of scattered records (one queue's messages among others') would leave most of the file mapped.
      const end = Math.min(this.fileSize, pos + len + OS_PAGE_SIZE - 1 - ((pos + len + OS_PAGE_SIZE - 1) % OS_PAGE_SIZE));
      if (!this.#resident(map, pos, end)) return null;
      const windowFrom = pos - (pos % FAULT_AROUND);
      const windowEnd = Math.min(this.#releasedTo, end + FAULT_AROUND - 1 - ((end + FAULT_AROUND - 1) % FAULT_AROUND));
      if (windowFrom < this.#readFrom) this.#readFrom = windowFrom;
      if (windowEnd > this.#readTo) this.#readTo = windowEnd;
      return view ? map.subarray(pos, pos + len) : copyOf(map, pos, len);
    }
    for (const s of this.#segments) {
      if (pos >= s.start && pos + len <= s.start + s.len) {
        const out = Buffer.allocUnsafe(len);
        s.buf.copy(out, 0, pos - s.start, pos - s.start + len);
        return out;
      }
    }
    return null;
  }

  /**
   * True when the pages of `[pos, end)` (`end` page-aligned, `pos` below #releasedTo) are in the page cache: known
   * for windows checked since the pages read were last released, else asked of the kernel (mincore) for whole
   * windows, or for the range alone where a window reaches past #releasedTo (its upper part is the write side's).
   */
  #resident(map: Buffer, pos: number, end: number): boolean {
    const known = this.#residentWindows ??= new Uint8Array(Math.ceil(this.fileSize / FAULT_AROUND));
    const first = Math.floor(pos / FAULT_AROUND);
    const last = Math.floor((end - 1) / FAULT_AROUND);
    for (let w = first; w <= last; w++) {
      if (known[w] === 1) continue;
      // A window more than the reads may keep: what they faulted in leaves first (this read's earlier windows too:
      // they are checked again, and faulted in by this read after the release).
      if (MappedFile.#readWindowsTotal >= MappedFile.readResidentMax / FAULT_AROUND) {
        for (const f of MappedFile.#filesRead) f.#releaseReads();
        w = first - 1;
        continue;
      }
      const wFrom = w * FAULT_AROUND;
      const wEnd = wFrom + FAULT_AROUND;
      this.residencyChecks++;
      if (wEnd <= this.#releasedTo && pagesResident(map, wFrom, FAULT_AROUND)) {
        known[w] = 1;
        if (this.#readWindows++ === 0) MappedFile.#filesRead.add(this);
        MappedFile.#readWindowsTotal++;
        continue;
      }
      const from = Math.max(wFrom, pos - (pos % OS_PAGE_SIZE));
      // (Windows marked before stay known: nothing of them was faulted in yet, and they are read later.)
      if (!pagesResident(map, from, Math.min(wEnd, end) - from)) return false;
    }
    return true;
  }

  /**
   * Pages faulted in by reads of older bytes stay in the page tables until reads (of any file) have checked
   * readResidentMax of windows, then leave together, with one madvise per file over the range read (a window no
   * read touched in it has no pages to drop). A consumer of many queues reads each 64 KiB window once per queue
   * (its records lie a queue-count of records apart), and queues drained unevenly read far apart: releasing each
   * record's window after it was read made every queue fault it in again (137 µs per message of a 64-queue drain in
   * faults and madvise), and so did a span of reads released whenever a read fell too far from it (a drain of 24 MiB
   * alternating between its ends released it 115 times). Whatever the policy, a working set larger than the budget
   * is faulted in again after each release. On a 2-core VM a madvise took ~160 µs (the TLB shootdown
   * across the process's threads), a 64 KiB fault ~17 µs, a mincore ~5 µs: each is made once per window here.
   */
  #releaseReads(): void {
    const from = this.#readFrom;
    // The map may have been cut back below the reads since.
    const to = Math.min(this.#readTo, this.#releasedTo);
    this.#forgetReads();
    if (this.#map && to > from) releasePages(this.#map, from, to - from);
    this.readReleases++;
  }

  /** Clears what #releaseReads would release (the windows known resident included). */
  #forgetReads(): void {
    this.#readFrom = Number.POSITIVE_INFINITY;
    this.#readTo = 0;
    MappedFile.#readWindowsTotal -= this.#readWindows;
    MappedFile.#filesRead.delete(this);
    this.#readWindows = 0;
    this.#residentWindows?.fill(0);
  }

  /**
   * Cuts the file back to `pos`: the bytes beyond become zeros; the bytes before it that were still pending are
   * written first (a running queue cut back in the middle of what it has not written yet keeps them).
   */
  async truncateTo(pos: number): Promise<void> {
    await this.#committing;
    const flushed = Math.min(this.flushedPosition, pos);
    if (this.#map) {
      if (this.committedPosition < Math.min(pos, this.wrotePosition)) await this.commit();
      await this.#committing;
      this.#segments = [];
      // Through the map (the file keeps its size: a truncate under a map would fault its readers).
      if (this.wrotePosition > pos) this.#map.fill(0, pos, this.wrotePosition);
      if (this.#releasedTo > pos) this.#releasedTo = pos - (pos % OS_PAGE_SIZE);
      this.#forgetReads();
      this.setPositions(pos);
      this.flushedPosition = flushed;
      return;
    }
    if (this.committedPosition < Math.min(pos, this.wrotePosition)) await this.commit();
    this.#segments = [];
    const fh = await this.#handle();
    await fh.truncate(pos);
    await fh.truncate(this.fileSize);
    this.setPositions(pos);
    this.flushedPosition = flushed;
  }

  /** Writes `data` at file position `pos` directly (regions outside the appended tail, such as index slots). */
  async writeAt(data: Buffer, pos: number): Promise<void> {
    await writeFully(await this.#handle(), data, 0, data.length, pos);
  }

  /** fdatasyncs the file (what writeAt wrote too); the bytes committed before it count as flushed. */
  async datasync(): Promise<void> {
    const target = this.committedPosition;
    const fh = await this.#handle();
    await fh.datasync();
    if (target > this.flushedPosition) this.flushedPosition = target;
  }

  async lastModified(): Promise<number> {
    try {
      return (await fs.stat(this.fileName)).mtimeMs;
    } catch {
      return 0;
    }
  }

  async close(): Promise<void> {
    await this.#committing;
    await this.#allocating;
    while (this.#syncing) await this.#syncing.catch(() => undefined);
    // The map itself is unmapped once collected (nothing may store into it after close).
    this.#map = null;
    this.#forgetReads();
    this.#residentWindows = null;
    const fh = this.#fh ?? (this.#opening ? await this.#opening.catch(() => null) : null);
    this.#fh = null;
    this.#opening = null;
    if (fh) await fh.close().catch(() => undefined);
  }

  /** Closes and deletes the file. */
  async destroy(): Promise<void> {
    await this.close();
    this.#destroyed = true;
    this.#segments = [];
    await fs.rm(this.fileName, { force: true });
  }
}
