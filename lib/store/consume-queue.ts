/**
 * The consume queue of one topic/queueId: 20-byte entries (i64 commit-log offset, i32 size, i64 tags code),
 * entry n at byte n * 20 of the queue, in files of `mappedFileSizeConsumeQueue` bytes.
 *
 * @see org.apache.rocketmq.store.ConsumeQueue
 */
import path from 'node:path';
import type { Logger } from 'pino';
import type { MappedFile } from './mapped-file';
import { MappedFileQueue } from './mapped-file-queue';
import { readI64, writeI32, writeI64 } from './stored-record';

export const CQ_STORE_UNIT_SIZE = 20;
/** Size field of the blank entries that fill the head of a queue starting at a later offset (Java's fillPreBlank). */
const BLANK_SIZE = 0x7fffffff;
const ZEROS = Buffer.alloc(64 * 1024);

/** An entry written by an append (a commit-log position and size, or a pre-filled blank one). */
function isValidEntry(buf: Buffer, at: number): boolean {
  return readI64(buf, at) >= 0 && buf.readInt32BE(at + 8) > 0;
}

function isAllZero(buf: Buffer, from: number): boolean {
  for (let p = from; p < buf.length; p += ZEROS.length) {
    const n = Math.min(ZEROS.length, buf.length - p);
    if (!buf.subarray(p, p + n).equals(ZEROS.subarray(0, n))) return false;
  }
  return true;
}

export interface CqEntry {
  offset: number;
  size: number;
  tagsCode: number;
}

export class ConsumeQueue {
  readonly mappedFileQueue: MappedFileQueue;
  /** End (offset + size) of the last commit-log record this queue points to. */
  maxPhysicOffset = -1;
  /** Byte offset of the first valid entry. */
  minLogicOffset = 0;
  readonly fileSize: number;

  constructor(
    readonly topic: string,
    readonly queueId: number,
    rootDir: string,
    fileSize: number,
    private readonly log: Logger,
  ) {
    this.fileSize = fileSize;
    this.mappedFileQueue = new MappedFileQueue(path.join(rootDir, topic, String(queueId)), fileSize, 256 * 1024);
  }

  async load(): Promise<void> {
    await this.mappedFileQueue.load();
  }

  /**
   * Reads the newest files' entries to find where the queue ends (Java's recover). Also notes whether entries
   * were lost ({@link lostEntries}): a file shorter than its size on disk, bytes other than zeros after the last
   * valid entry (garbage, an entry cut in the middle), or files without a single valid entry.
   */
  async recover(): Promise<void> {
    this.#forgetReads();
    const files = this.mappedFileQueue.files;
    this.lostEntries = this.mappedFileQueue.shortFilesOnLoad.length > 0;
    if (files.length === 0) return;
    // Files created ahead of their entries (lost with the process) are empty: start from the newest file
    // whose first entry is valid, then read forward until the first invalid entry.
    let index = files.length - 1;
    for (; index > 0; index--) {
      const head = await files[index].read(0, CQ_STORE_UNIT_SIZE);
      if (head && isValidEntry(head, 0)) break;
    }
    // A file is followed by another only once it is full: an earlier file whose last entry is not valid lost its
    // tail while a later one kept its entries (a hole). Read forward from there: the queue ends at the hole, the
    // later files go, and the store rebuilds the rest from the commit log.
    for (let j = 0; j < index; j++) {
      const last = await files[j].read(files[j].fileSize - CQ_STORE_UNIT_SIZE, CQ_STORE_UNIT_SIZE);
      if (!last || !isValidEntry(last, 0)) {
        this.log.warn({ topic: this.topic, queueId: this.queueId, file: files[j].fileFromOffset }, 'consume queue file lost its tail before a later file');
        this.lostEntries = true;
        index = j;
        break;
      }
    }
    let processOffset = files[index].fileFromOffset;
    let maxExtAddr = -1;
    let entries = 0;
    for (; index < files.length; index++) {
      const mf = files[index];
      const buf = await mf.read(0, mf.fileSize);
      if (!buf) break;
      let pos = 0;
      for (; pos + CQ_STORE_UNIT_SIZE <= buf.length; pos += CQ_STORE_UNIT_SIZE) {
        const offset = readI64(buf, pos);
        const size = buf.readInt32BE(pos + 8);
        if (offset < 0 || size <= 0) break;
        entries++;
        if (!(size === BLANK_SIZE && offset === 0)) maxExtAddr = offset + size;
      }
      processOffset = mf.fileFromOffset + pos;
      if (pos < buf.length) {
        if (!isAllZero(buf, pos)) this.lostEntries = true;
        for (let j = index + 1; j < files.length && !this.lostEntries; j++) {
          const rest = await files[j].read(0, files[j].fileSize);
          if (rest && !isAllZero(rest, 0)) this.lostEntries = true;
        }
        break;
      }
    }
    if (entries === 0) this.lostEntries = true;
    this.maxPhysicOffset = maxExtAddr;
    await this.mappedFileQueue.truncateDirtyFiles(processOffset);
  }

  /** Set by recover(): the files show that entries were lost (rebuilt from the commit log by the store). */
  lostEntries = false;
  /**
   * While true (set by the store during recovery and the start-up catch-up), an entry whose queue offset lies
   * beyond the queue's end is refused and {@link gapDetected} set, instead of being written at the wrong place.
   */
  refuseGaps = false;
  gapDetected = false;

  /**
   * Drops entries pointing at or beyond commit-log offset `phyOffset` (Java's truncateDirtyLogicFiles). The queue
   * then ends where its last entry kept ends, or nowhere (-1) when it keeps none: no file, every entry beyond the
   * cut, or only the blank entries ahead of a queue that starts later. (Java sets `phyOffset` first and keeps it when
   * no entry is left; a record below the cut that the reput had not reached yet, as on a replica restarted with its
   * dispatch held at the confirm offset, was then skipped as already there and the queue began after it.)
   */
  async truncateDirtyLogicFiles(phyOffset: number): Promise<void> {
    this.#forgetReads();
    // Cutting a file writes its pending entries first: the earlier files' go before them, so that no later file
    // reaches the disk ahead of an earlier one's tail (a kill -9 would leave a hole recovery cannot see).
    await this.mappedFileQueue.commit();
    const files = this.mappedFileQueue.files;
    this.maxPhysicOffset = -1;
    for (let i = files.length - 1; i >= 0; i--) {
      const mf = files[i];
      const buf = await mf.read(0, mf.wrotePosition);
      if (!buf) continue;
      let keep = 0;
      let lastEnd = -1;
      for (let pos = 0; pos + CQ_STORE_UNIT_SIZE <= buf.length; pos += CQ_STORE_UNIT_SIZE) {
        const offset = readI64(buf, pos);
        const size = buf.readInt32BE(pos + 8);
        if (offset >= 0 && size > 0 && offset + size <= phyOffset) {
          keep = pos + CQ_STORE_UNIT_SIZE;
          lastEnd = offset + size;
        } else if (size === BLANK_SIZE && offset === 0) {
          keep = pos + CQ_STORE_UNIT_SIZE; // pre-filled blank entry
        } else break;
      }
      if (keep === 0 && i > 0 && lastEnd < 0) {
        await mf.destroy();
        files.splice(i, 1);
        continue;
      }
      if (keep < mf.wrotePosition) await mf.truncateTo(keep);
      if (lastEnd >= 0) this.maxPhysicOffset = lastEnd;
      if (keep > 0 || i === 0) break;
    }
  }

  /** Appends the entry for queue offset `cqOffset` (Java's putMessagePositionInfo). Synchronous unless a file is created. */
  putMessagePositionInfo(offset: number, size: number, tagsCode: number, cqOffset: number): void | Promise<void> {
    if (this.#pending) {
      const p = this.#pending.then(() => this.#putNow(offset, size, tagsCode, cqOffset));
      this.#track(p);
      return p;
    }
    const r = this.#putNow(offset, size, tagsCode, cqOffset);
    if (r) this.#track(r);
    return r;
  }

  #putNow(offset: number, size: number, tagsCode: number, cqOffset: number): void | Promise<void> {
    if (offset + size <= this.maxPhysicOffset) return; // already there (re-dispatch)
    const expectLogicOffset = cqOffset * CQ_STORE_UNIT_SIZE;
    const last = this.mappedFileQueue.getLastMappedFile();
    if (last && !last.isFull() && last.fileFromOffset + last.wrotePosition === expectLogicOffset) {
      this.#write(last, offset, size, tagsCode);
      return;
    }
    return this.#putSlow(offset, size, tagsCode, expectLogicOffset);
  }

  #pending: Promise<void> | null = null;

  #track(p: Promise<void>): void {
    const tracked: Promise<void> = p.catch((e) => {
      this.log.error({ err: e, topic: this.topic, queueId: this.queueId }, 'consume queue append failed');
    }).finally(() => {
      if (this.#pending === tracked) this.#pending = null;
    });
    this.#pending = tracked;
  }

  /** Resolves when every entry handed to putMessagePositionInfo is appended. */
  async settled(): Promise<void> {
    while (this.#pending) await this.#pending;
  }

  #write(mf: import('./mapped-file').MappedFile, offset: number, size: number, tagsCode: number): void {
    const at = mf.reserveOffset(CQ_STORE_UNIT_SIZE);
    const buf = mf.tail;
    writeI64(buf, offset, at);
    writeI32(buf, size, at + 8);
    writeI64(buf, tagsCode, at + 12);
    this.maxPhysicOffset = offset + size;
  }

  async #putSlow(offset: number, size: number, tagsCode: number, expectLogicOffset: number): Promise<void> {
    const mfq = this.mappedFileQueue;
    const mf = await mfq.getLastMappedFileOrCreate(expectLogicOffset);
    if (mf.firstCreateInQueue && expectLogicOffset !== 0 && mf.wrotePosition === 0) {
      // A queue that starts at a later offset: fill the file's head with blank entries (Java's fillPreBlank).
      this.minLogicOffset = expectLogicOffset;
      const until = expectLogicOffset % this.fileSize;
      for (let i = 0; i < until; i += CQ_STORE_UNIT_SIZE) {
        const { buf, offset: at } = mf.reserve(CQ_STORE_UNIT_SIZE);
        writeI64(buf, 0, at);
        buf.writeInt32BE(BLANK_SIZE, at + 8);
        writeI64(buf, 0, at + 12);
      }
    }
    const current = mf.fileFromOffset + mf.wrotePosition;
    if (expectLogicOffset < current) {
      this.log.warn({ topic: this.topic, queueId: this.queueId, expectLogicOffset, current }, 'build consume queue repeatedly');
      return;
    }
    if (expectLogicOffset !== current && this.refuseGaps) {
      if (!this.gapDetected) {
        this.log.warn({ topic: this.topic, queueId: this.queueId, expectLogicOffset, current }, 'consume queue lost entries, to be rebuilt');
      }
      this.gapDetected = true;
      return;
    }
    if (expectLogicOffset !== current) {
      this.log.warn({ topic: this.topic, queueId: this.queueId, expectLogicOffset, current }, 'logic queue order maybe wrong');
    }
    this.#write(mf, offset, size, tagsCode);
  }

  getMinOffsetInQueue(): number {
    return Math.floor(this.minLogicOffset / CQ_STORE_UNIT_SIZE);
  }

  getMaxOffsetInQueue(): number {
    return Math.floor(this.mappedFileQueue.getMaxOffset() / CQ_STORE_UNIT_SIZE);
  }

  /**
   * Entries from queue offset `index` to the end of its file, at most `maxBytes` bytes; null if not there. `minBytes`
   * (at most `maxBytes`): fewer bytes will do when the entries last read hold at least that many from `index` (a pull
   * asks for up to 800 entries to scan and returns 32 messages: the next pulls of a drain find theirs there, without
   * a read on the threadpool each, where Java slices its map of the file). The buffer is read-only.
   */
  async getIndexBuffer(index: number, maxBytes: number, minBytes = maxBytes): Promise<Buffer | null> {
    const offset = index * CQ_STORE_UNIT_SIZE;
    if (offset < this.minLogicOffset) return null;
    const mf = this.mappedFileQueue.findMappedFileByOffset(offset);
    if (!mf) return null;
    const pos = offset - mf.fileFromOffset;
    let len = Math.min(mf.wrotePosition - pos, maxBytes);
    len -= len % CQ_STORE_UNIT_SIZE;
    if (len <= 0) return null;
    const last = this.#lastRead;
    if (last && last.mf === mf && pos >= last.pos) {
      const have = last.pos + last.buf.length - pos;
      if (have >= Math.min(len, minBytes)) {
        this.#touchLastRead();
        return last.buf.subarray(pos - last.pos, pos - last.pos + Math.min(have, len));
      }
    }
    const generation = this.#generation;
    const buf = await mf.read(pos, len);
    // (entries once written never change, unless the queue was cut back or destroyed meanwhile)
    if (buf && generation === this.#generation) this.#keepRead({ mf, pos, buf });
    return buf;
  }

  /** The entries getIndexBuffer read last, and where (see there). */
  #lastRead: { mf: MappedFile; pos: number; buf: Buffer } | null = null;
  /** Counts the cuts and resets of the queue's entries: a read begun before one is not kept in #lastRead. */
  #generation = 0;
  /**
   * The queues of the process holding a last read, the least recently read first: at most lastReadsMax of them keep
   * one (up to 16 KB each), however many queues the broker serves.
   */
  static readonly #withLastRead = new Set<ConsumeQueue>();
  static lastReadsMax = 1024;

  /** Makes this queue the most recently read one. */
  #touchLastRead(): void {
    ConsumeQueue.#withLastRead.delete(this);
    ConsumeQueue.#withLastRead.add(this);
  }

  #keepRead(read: { mf: MappedFile; pos: number; buf: Buffer }): void {
    const all = ConsumeQueue.#withLastRead;
    this.#lastRead = read;
    this.#touchLastRead();
    if (all.size > ConsumeQueue.lastReadsMax) {
      const oldest = all.values().next().value as ConsumeQueue;
      all.delete(oldest);
      oldest.#lastRead = null;
    }
  }

  #forgetReads(): void {
    this.#lastRead = null;
    this.#generation++;
    ConsumeQueue.#withLastRead.delete(this);
  }

  async getEntry(index: number): Promise<CqEntry | null> {
    const buf = await this.getIndexBuffer(index, CQ_STORE_UNIT_SIZE);
    if (!buf || buf.length < CQ_STORE_UNIT_SIZE) return null;
    return { offset: readI64(buf, 0), size: buf.readInt32BE(8), tagsCode: readI64(buf, 12) };
  }

  rollNextFile(index: number): number {
    const totalUnits = this.fileSize / CQ_STORE_UNIT_SIZE;
    return index + totalUnits - (index % totalUnits);
  }

  /** Sets the min offset to the first entry pointing at or after `phyMinOffset` (Java's correctMinOffset). */
  async correctMinOffset(phyMinOffset: number): Promise<void> {
    const mf = this.mappedFileQueue.getFirstMappedFile();
    if (!mf) return;
    const buf = await mf.read(0, mf.wrotePosition);
    if (!buf) return;
    for (let pos = 0; pos + CQ_STORE_UNIT_SIZE <= buf.length; pos += CQ_STORE_UNIT_SIZE) {
      const offset = readI64(buf, pos);
      const size = buf.readInt32BE(pos + 8);
      if (size === BLANK_SIZE && offset === 0) continue;
      if (offset >= phyMinOffset) {
        this.minLogicOffset = mf.fileFromOffset + pos;
        return;
      }
    }
    // The whole first file points into deleted commit log.
    this.minLogicOffset = Math.max(this.minLogicOffset, mf.fileFromOffset + buf.length);
  }

  /** Deletes files whose last entry points below `phyMinOffset` (never the last); returns the count. */
  async deleteExpiredFile(phyMinOffset: number): Promise<number> {
    const files = this.mappedFileQueue.files;
    let n = 0;
    while (n < files.length - 1) {
      const mf = files[n];
      const last = await mf.read(this.fileSize - CQ_STORE_UNIT_SIZE, CQ_STORE_UNIT_SIZE);
      if (!last || readI64(last, 0) >= phyMinOffset) break;
      n++;
    }
    if (n) await this.mappedFileQueue.deleteFiles(n);
    await this.correctMinOffset(phyMinOffset);
    return n;
  }

  /**
   * Writes the pending entries to the file, and fdatasyncs them when `leastPages` pages of them are unsynced or a
   * file holding some is full; `leastPages` 0: whenever any are (Java's ConsumeQueue.flush(flushLeastPages)).
   */
  async flush(leastPages = 0): Promise<void> {
    if (!this.mappedFileQueue.isAbleToFlush(leastPages)) {
      await this.mappedFileQueue.commit();
      return;
    }
    await this.mappedFileQueue.flush();
  }

  async commit(): Promise<void> {
    await this.mappedFileQueue.commit();
  }

  async destroy(): Promise<void> {
    this.#forgetReads();
    this.maxPhysicOffset = -1;
    this.minLogicOffset = 0;
    await this.mappedFileQueue.destroy();
  }

  async close(): Promise<void> {
    this.#forgetReads();
    await this.mappedFileQueue.close();
  }
}
