/**
 * One index file: a 40-byte header (beginTimestamp i64, endTimestamp i64, beginPhyOffset i64, endPhyOffset i64,
 * hashSlotCount i32, indexCount i32), `hashSlotNum` 4-byte slots holding the newest entry of each hash, then
 * `indexNum` 20-byte entries (keyHash i32, phyOffset i64, timeDiff seconds i32, prevIndex i32). Named by the
 * creation time, yyyyMMddHHmmssSSS. The header and slots live in memory and are written back by dirty page;
 * entries are appended through the file's write segments.
 *
 * @see org.apache.rocketmq.store.index.IndexFile
 * @see org.apache.rocketmq.store.index.IndexHeader
 */
import { javaStringHashCode } from '../../protocol/message/java-hash';
import { MappedFile, OS_PAGE_SIZE } from './mapped-file';
import { readI64, writeI64 } from './stored-record';

export const INDEX_HEADER_SIZE = 40;
const HASH_SLOT_SIZE = 4;
const INDEX_SIZE = 20;
const INVALID_INDEX = 0;

/**
 * Clean pages a run of dirty ones may bridge when the header and slots are written: their bytes are those on the
 * file already, and writing a few of them again costs less than another write call (a threadpool round trip).
 */
const RUN_GAP_PAGES = 2;

/**
 * Ascending page numbers to runs `[first, end)` of pages to write: neighbours up to `maxGap` clean pages apart share
 * a run.
 */
export function pageRuns(pages: readonly number[], maxGap: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const page of pages) {
    const last = runs[runs.length - 1];
    if (last && page - last[1] <= maxGap) last[1] = page + 1;
    else runs.push([page, page + 1]);
  }
  return runs;
}

/** The hash an index entry stores for `key` (`topic#key`): Java's hashCode made positive, as IndexFile.indexKeyHashMethod. */
export function indexKeyHash(key: string): number {
  return positiveHash(javaStringHashCode(key));
}

/** indexKeyHash(`${topic}#${key}`), without building the string (a put hashes one or more keys per message). */
export function topicKeyHash(topic: string, key: string): number {
  return positiveHash(javaStringHashCode(key, javaStringHashCode('#', javaStringHashCode(topic))));
}

function positiveHash(h: number): number {
  const positive = Math.abs(h);
  return positive < 0 || positive > 0x7fffffff ? 0 : positive;
}

export class IndexFile {
  readonly fileSize: number;
  readonly #head: Buffer;
  /** Header and slot pages changed since the last flush: a flag per page, and the pages flagged (unordered). */
  readonly #dirtyFlags: Uint8Array;
  #dirty: number[] = [];
  #mf: MappedFile;

  private constructor(readonly fileName: string, readonly hashSlotNum: number, readonly indexNum: number, mf: MappedFile, head: Buffer) {
    this.fileSize = INDEX_HEADER_SIZE + hashSlotNum * HASH_SLOT_SIZE + indexNum * INDEX_SIZE;
    this.#mf = mf;
    this.#head = head;
    this.#dirtyFlags = new Uint8Array(Math.ceil(head.length / OS_PAGE_SIZE));
  }

  static async create(fileName: string, hashSlotNum: number, indexNum: number, endPhyOffset: number, endTimestamp: number): Promise<IndexFile> {
    const size = INDEX_HEADER_SIZE + hashSlotNum * HASH_SLOT_SIZE + indexNum * INDEX_SIZE;
    const mf = await MappedFile.create(fileName, size, 256 * 1024);
    const head = Buffer.alloc(INDEX_HEADER_SIZE + hashSlotNum * HASH_SLOT_SIZE);
    const f = new IndexFile(fileName, hashSlotNum, indexNum, mf, head);
    f.#setIndexCount(1);
    if (endPhyOffset > 0) { f.#setLong(16, endPhyOffset); f.#setLong(24, endPhyOffset); }
    if (endTimestamp > 0) { f.#setLong(0, endTimestamp); f.#setLong(8, endTimestamp); }
    mf.setPositions(f.#entryPos(1));
    return f;
  }

  static async load(fileName: string, hashSlotNum: number, indexNum: number): Promise<IndexFile> {
    const size = INDEX_HEADER_SIZE + hashSlotNum * HASH_SLOT_SIZE + indexNum * INDEX_SIZE;
    const mf = new MappedFile(fileName, size, 256 * 1024);
    mf.setPositions(size);
    const head = await mf.read(0, INDEX_HEADER_SIZE + hashSlotNum * HASH_SLOT_SIZE);
    if (!head) throw new Error(`cannot read index file ${fileName}`);
    const f = new IndexFile(fileName, hashSlotNum, indexNum, mf, Buffer.from(head));
    if (f.indexCount <= 0) f.#setIndexCount(1);
    mf.setPositions(f.#entryPos(f.indexCount));
    f.#clearDirty();
    return f;
  }

  get beginTimestamp(): number { return readI64(this.#head, 0); }
  get endTimestamp(): number { return readI64(this.#head, 8); }
  get beginPhyOffset(): number { return readI64(this.#head, 16); }
  get endPhyOffset(): number { return readI64(this.#head, 24); }
  get hashSlotCount(): number { return this.#head.readInt32BE(32); }
  get indexCount(): number { return this.#head.readInt32BE(36); }

  #touch(pos: number): void {
    const page = (pos / OS_PAGE_SIZE) | 0;
    if (this.#dirtyFlags[page] === 0) {
      this.#dirtyFlags[page] = 1;
      this.#dirty.push(page);
    }
  }

  /** The dirty pages in order; clears them. */
  #clearDirty(): number[] {
    const pages = this.#dirty.sort((a, b) => a - b);
    for (const page of pages) this.#dirtyFlags[page] = 0;
    this.#dirty = [];
    return pages;
  }

  #setLong(pos: number, v: number): void {
    writeI64(this.#head, v, pos);
    this.#touch(pos);
  }

  #setIndexCount(v: number): void {
    this.#head.writeInt32BE(v, 36);
    this.#touch(36);
  }

  #entryPos(index: number): number {
    return INDEX_HEADER_SIZE + this.hashSlotNum * HASH_SLOT_SIZE + index * INDEX_SIZE;
  }

  isWriteFull(): boolean {
    return this.indexCount >= this.indexNum;
  }

  /** Adds `key` -> phyOffset; false when the file is full. */
  putKey(key: string, phyOffset: number, storeTimestamp: number): boolean {
    return this.putKeyHash(indexKeyHash(key), phyOffset, storeTimestamp);
  }

  /** Adds the key of hash `keyHash` (indexKeyHash, topicKeyHash) -> phyOffset; false when the file is full. */
  putKeyHash(keyHash: number, phyOffset: number, storeTimestamp: number): boolean {
    if (this.isWriteFull()) return false;
    const slotPos = keyHash % this.hashSlotNum;
    const absSlotPos = INDEX_HEADER_SIZE + slotPos * HASH_SLOT_SIZE;
    let slotValue = this.#head.readInt32BE(absSlotPos);
    const indexCount = this.indexCount;
    if (slotValue <= INVALID_INDEX || slotValue > indexCount) slotValue = INVALID_INDEX;
    let timeDiff = storeTimestamp - this.beginTimestamp;
    timeDiff = Math.trunc(timeDiff / 1000);
    if (this.beginTimestamp <= 0) timeDiff = 0;
    else if (timeDiff > 0x7fffffff) timeDiff = 0x7fffffff;
    else if (timeDiff < 0) timeDiff = 0;
    const offset = this.#mf.reserveOffset(INDEX_SIZE);
    const buf = this.#mf.tail;
    buf.writeInt32BE(keyHash | 0, offset);
    writeI64(buf, phyOffset, offset + 4);
    buf.writeInt32BE(timeDiff, offset + 12);
    buf.writeInt32BE(slotValue, offset + 16);
    this.#head.writeInt32BE(indexCount, absSlotPos);
    this.#touch(absSlotPos);
    if (indexCount <= 1) {
      this.#setLong(16, phyOffset);
      this.#setLong(0, storeTimestamp);
    }
    if (slotValue === INVALID_INDEX) {
      this.#head.writeInt32BE(this.hashSlotCount + 1, 32);
      this.#touch(32);
    }
    this.#setIndexCount(indexCount + 1);
    this.#setLong(24, phyOffset);
    this.#setLong(8, storeTimestamp);
    return true;
  }

  isTimeMatched(begin: number, end: number): boolean {
    const b = this.beginTimestamp;
    const e = this.endTimestamp;
    return (begin < b && end > e) || (begin >= b && begin <= e) || (end >= b && end <= e);
  }

  /** Walks the hash chain of `key`, collecting commit-log offsets stored within [begin, end]. */
  async selectPhyOffset(out: number[], key: string, maxNum: number, begin: number, end: number): Promise<void> {
    const keyHash = indexKeyHash(key);
    const slotPos = keyHash % this.hashSlotNum;
    const slotValue = this.#head.readInt32BE(INDEX_HEADER_SIZE + slotPos * HASH_SLOT_SIZE);
    const indexCount = this.indexCount;
    if (slotValue <= INVALID_INDEX || slotValue > indexCount || indexCount <= 1) return;
    for (let next = slotValue; ;) {
      if (out.length >= maxNum) break;
      const e = await this.#mf.read(this.#entryPos(next), INDEX_SIZE);
      if (!e) break;
      const keyHashRead = e.readInt32BE(0);
      const phyOffsetRead = readI64(e, 4);
      const timeDiff = e.readInt32BE(12);
      const prevIndexRead = e.readInt32BE(16);
      if (timeDiff < 0) break;
      const timeRead = this.beginTimestamp + timeDiff * 1000;
      const timeMatched = timeRead >= begin && timeRead <= end;
      if (keyHash === keyHashRead && timeMatched) out.push(phyOffsetRead);
      if (prevIndexRead <= INVALID_INDEX || prevIndexRead > indexCount || prevIndexRead === next || timeRead < begin) break;
      next = prevIndexRead;
    }
  }

  /**
   * Drops the entries pointing at or beyond commit-log offset `phyOffset` (entries lie in commit-log order): from the
   * newest back, each slot goes back to the entry before it in its chain; the header's end offset and time become
   * the last kept entry's. Returns the entries kept (0: none, the file can go).
   */
  async truncate(phyOffset: number): Promise<number> {
    let count = this.indexCount;
    while (count > 1) {
      const e = await this.#mf.read(this.#entryPos(count - 1), INDEX_SIZE);
      if (!e) break;
      if (readI64(e, 4) < phyOffset) break;
      const keyHash = e.readInt32BE(0);
      const prev = e.readInt32BE(16);
      const absSlotPos = INDEX_HEADER_SIZE + (keyHash % this.hashSlotNum) * HASH_SLOT_SIZE;
      if (this.#head.readInt32BE(absSlotPos) === count - 1) {
        this.#head.writeInt32BE(prev, absSlotPos);
        this.#touch(absSlotPos);
        if (prev <= INVALID_INDEX) {
          this.#head.writeInt32BE(Math.max(0, this.hashSlotCount - 1), 32);
          this.#touch(32);
        }
      }
      count--;
    }
    if (count === this.indexCount) return count - 1;
    await this.#mf.truncateTo(this.#entryPos(count));
    this.#setIndexCount(count);
    if (count > 1) {
      const last = await this.#mf.read(this.#entryPos(count - 1), INDEX_SIZE);
      if (last) {
        this.#setLong(24, readI64(last, 4));
        this.#setLong(8, this.beginTimestamp + last.readInt32BE(12) * 1000);
      }
    }
    return count - 1;
  }

  /**
   * Writes the entries and the dirty header/slot pages, then fdatasyncs. The header is written as it was when flush()
   * was called (copied with the rest of its page before anything awaits, written last): puts go on during a flush,
   * and the end time on disk must be the one the caller read for the checkpoint (after a crash, a file whose end time
   * is past the checkpoint's is dropped). The other slot pages are written as they are when their write runs: a slot
   * that a key put meanwhile points at an entry past the header's count, which the file, loaded after a crash, takes
   * as empty. The dirty pages go out in runs, one write each (pageRuns): keys hash to random slots, so a busy second
   * dirties most of the 4,883 pages of a default file.
   *
   * `sync` false: written to the OS only (a kill -9 keeps it); the next flush with `sync` fdatasyncs what this one
   * wrote too. Flushes of one file write in the order they were called, each after the one before it is done.
   */
  flush(sync = true): Promise<void> {
    const entries = this.#mf.commit();
    const pages = this.#clearDirty();
    const headerPage = pages[0] === 0 ? Buffer.from(this.#head.subarray(0, Math.min(OS_PAGE_SIZE, this.#head.length))) : null;
    // What was taken above is written after the writes of the flushes before this one, and a sync here covers those
    // too: a full file's sync at the next file's creation, run while a periodic flush(false) of it was still writing,
    // left that flush's pages unsynced (nothing syncs a file that is no longer the newest).
    const run = this.#flushing.then(() => this.#writeTaken(entries, pages, headerPage, sync));
    this.#flushing = run.catch(() => undefined);
    return run;
  }

  #flushing: Promise<void> = Promise.resolve();

  async #writeTaken(entries: Promise<void>, pages: number[], headerPage: Buffer | null, sync: boolean): Promise<void> {
    await entries;
    for (const [first, end] of pageRuns(headerPage ? pages.slice(1) : pages, RUN_GAP_PAGES)) {
      const start = first * OS_PAGE_SIZE;
      await this.#mf.writeAt(this.#head.subarray(start, Math.min(end * OS_PAGE_SIZE, this.#head.length)), start);
    }
    if (headerPage) await this.#mf.writeAt(headerPage, 0);
    if (pages.length) this.#pagesUnsynced = true;
    if (!sync) return;
    if (this.#pagesUnsynced) {
      this.#pagesUnsynced = false;
      await this.#mf.datasync();
    } else {
      await this.#mf.flush();
    }
  }

  /** Header or slot pages written since the last fdatasync (flush with `sync` false). */
  #pagesUnsynced = false;

  async close(): Promise<void> {
    await this.#flushing;
    await this.#mf.close();
  }

  async destroy(): Promise<void> {
    await this.#flushing;
    await this.#mf.destroy();
  }
}
