/**
 * A directory of fixed-size files named by their 20-digit start offset.
 *
 * @see org.apache.rocketmq.store.MappedFileQueue
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { MessageStoreError } from '../errors';
import type { DataSyncer } from './flush-thread';
import { MappedFile, OS_PAGE_SIZE, offsetToFileName } from './mapped-file';

export class MappedFileQueue {
  files: MappedFile[] = [];
  /** Files that load() found shorter than the configured size and extended with zeros (their tail was lost). */
  shortFilesOnLoad: string[] = [];
  /** Where the files' fdatasyncs go (a flush thread), else libuv's threadpool. */
  syncer: DataSyncer | null = null;
  /** Mapped files: MappedFile.copyIntoMapMax of each file. */
  copyIntoMapMax = 4 * OS_PAGE_SIZE;

  /**
   * `mapped`: appends go through each file's memory map (MappedFile.ensureWritable maps a file before its first
   * append), else through write segments.
   */
  constructor(readonly storePath: string, readonly mappedFileSize: number, private readonly segmentSize: number,
    readonly mapped = false) {}

  /** Loads the existing files; every file must have the configured size (as Java checks). */
  async load(): Promise<void> {
    let names: string[];
    try {
      names = await fs.readdir(this.storePath);
    } catch {
      return;
    }
    names = names.filter((n) => /^\d{20}$/.test(n)).sort();
    const files: MappedFile[] = [];
    for (const n of names) {
      const p = path.join(this.storePath, n);
      const st = await fs.stat(p);
      if (st.size < this.mappedFileSize) {
        // A file cut short by a crash while it was being created (open, then extend): its missing bytes are zeros.
        this.shortFilesOnLoad.push(p);
        await fs.truncate(p, this.mappedFileSize);
      } else if (st.size !== this.mappedFileSize) {
        throw new MessageStoreError(`${p} length not matched message store config value, please check it manually`);
      }
      const mf = new MappedFile(p, this.mappedFileSize, this.segmentSize);
      mf.wantMap = this.mapped;
      mf.copyIntoMapMax = this.copyIntoMapMax;
      mf.syncer = this.syncer;
      mf.setPositions(this.mappedFileSize);
      files.push(mf);
    }
    this.files = files;
  }

  getFirstMappedFile(): MappedFile | undefined {
    return this.files[0];
  }

  getLastMappedFile(): MappedFile | undefined {
    return this.files[this.files.length - 1];
  }

  /** The file to append to, creating the next one when the last is full (or none exists). */
  async getLastMappedFileOrCreate(startOffset: number): Promise<MappedFile> {
    const last = this.getLastMappedFile();
    if (last && !last.isFull()) return last;
    const createOffset = last ? last.fileFromOffset + this.mappedFileSize : startOffset - (startOffset % this.mappedFileSize);
    await fs.mkdir(this.storePath, { recursive: true });
    const mf = await MappedFile.create(path.join(this.storePath, offsetToFileName(createOffset)), this.mappedFileSize, this.segmentSize);
    mf.wantMap = this.mapped;
    mf.copyIntoMapMax = this.copyIntoMapMax;
    mf.syncer = this.syncer;
    if (this.files.length === 0) mf.firstCreateInQueue = true;
    this.files.push(mf);
    return mf;
  }

  findMappedFileByOffset(offset: number, returnFirstOnNotFound = false): MappedFile | undefined {
    const first = this.files[0];
    if (!first) return undefined;
    const last = this.files[this.files.length - 1];
    if (offset < first.fileFromOffset || offset >= last.fileFromOffset + this.mappedFileSize) {
      return returnFirstOnNotFound ? first : undefined;
    }
    const idx = Math.floor(offset / this.mappedFileSize) - Math.floor(first.fileFromOffset / this.mappedFileSize);
    const mf = this.files[idx];
    if (mf && offset >= mf.fileFromOffset && offset < mf.fileFromOffset + this.mappedFileSize) return mf;
    return this.files.find((f) => offset >= f.fileFromOffset && offset < f.fileFromOffset + this.mappedFileSize) ??
      (returnFirstOnNotFound ? first : undefined);
  }

  getMinOffset(): number {
    return this.files.length ? this.files[0].fileFromOffset : -1;
  }

  getMaxOffset(): number {
    const last = this.getLastMappedFile();
    return last ? last.fileFromOffset + last.wrotePosition : 0;
  }

  getMaxWrotePosition(): number {
    return this.getMaxOffset();
  }

  /** Lowest offset not yet handed to the OS... as a whole: the committed position of the queue. */
  getCommittedWhere(): number {
    // From the tail back: only the newest files can hold bytes not yet handed to the OS.
    const files = this.files;
    let i = files.length - 1;
    if (i < 0) return 0;
    while (i > 0 && files[i - 1].committedPosition < this.mappedFileSize) i--;
    const f = files[i];
    return f.committedPosition < this.mappedFileSize ? f.fileFromOffset + f.committedPosition : f.fileEnd;
  }

  getFlushedWhere(): number {
    for (const f of this.files) if (f.flushedPosition < this.mappedFileSize) return f.fileFromOffset + f.flushedPosition;
    const last = this.getLastMappedFile();
    return last ? last.fileEnd : 0;
  }

  /** Files with bytes not yet handed to the OS. */
  dirtyFiles(): MappedFile[] {
    return this.files.filter((f) => f.committedPosition < f.wrotePosition);
  }

  unflushedFiles(): MappedFile[] {
    return this.files.filter((f) => f.flushedPosition < f.wrotePosition);
  }

  /**
   * Java's MappedFile.isAbleToFlush over the queue: a full file waits for its sync, or `leastPages` pages of unsynced
   * bytes do (`leastPages` 0: any byte).
   */
  isAbleToFlush(leastPages: number): boolean {
    let unsynced = 0;
    for (const f of this.files) {
      if (f.flushedPosition >= f.wrotePosition) continue;
      if (f.isFull()) return true;
      unsynced += f.wrotePosition - f.flushedPosition;
    }
    return leastPages > 0 ? unsynced >= leastPages * OS_PAGE_SIZE : unsynced > 0;
  }

  async commit(): Promise<void> {
    for (const f of this.dirtyFiles()) await f.commit();
  }

  async flush(): Promise<void> {
    for (const f of this.unflushedFiles()) await f.flush();
  }

  /** Drops everything after `offset`: later files are deleted, the file holding it is cut back. */
  async truncateDirtyFiles(offset: number): Promise<void> {
    // The file that is cut writes its pending bytes: the earlier files' go first (no later bytes on disk ahead of
    // an earlier file's tail).
    await this.commit();
    const keep: MappedFile[] = [];
    for (const f of this.files) {
      if (f.fileEnd > offset) {
        if (offset >= f.fileFromOffset) {
          await f.truncateTo(offset - f.fileFromOffset);
          keep.push(f);
        } else {
          await f.destroy();
        }
      } else keep.push(f);
    }
    this.files = keep;
  }

  /** Deletes files (never the last) whose last modification is older than `expiredTime`, Java's deleteExpiredFileByTime. */
  async deleteExpiredFileByTime(expiredTime: number, now: number, cleanImmediately: boolean, maxBatch = 10): Promise<number> {
    let deleted = 0;
    const n = this.files.length - 1;
    for (let i = 0; i < n && deleted < maxBatch; i++) {
      const f = this.files[i];
      const live = (await f.lastModified()) + expiredTime;
      if (now >= live || cleanImmediately) {
        await f.destroy();
        deleted++;
      } else break;
    }
    if (deleted) this.files = this.files.slice(deleted);
    return deleted;
  }

  async deleteFiles(count: number): Promise<void> {
    for (const f of this.files.slice(0, count)) await f.destroy();
    this.files = this.files.slice(count);
  }

  async close(): Promise<void> {
    for (const f of this.files) await f.close();
  }

  async destroy(): Promise<void> {
    for (const f of this.files) await f.destroy();
    this.files = [];
    await fs.rm(this.storePath, { recursive: true, force: true });
  }
}
