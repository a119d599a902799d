/**
 * DLedger's file store in DLedgerMmapFileStore's layout: entry files under `data/` and 32-byte index units under
 * `index/` (file names are the 20-digit offset of their first byte, fixed file sizes), `checkpoint` with
 * `endIndex` and `committedIndex` (java.util.Properties text). Files are written with positional async writes
 * (no mmap in Node); one write chain keeps appends in order.
 *
 * Recovery reads the data files from the first, checks each entry (magic, size, pos, consecutive index,
 * non-decreasing term), stops at the first that fails, rewrites the index units from what it read and cuts both
 * lists there (Java checks the index against the data and rebuilds it the same way).
 *
 * @see io.openmessaging.storage.dledger.store.file.DLedgerMmapFileStore
 * @see io.openmessaging.storage.dledger.store.file.MmapFileList
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger';
import { MessageStoreError } from '../errors';
import { writeFully, writeFullySync } from '../util/write-fully';
import { INDEX_UNIT_SIZE, dataStorePath, defaultPath, indexStorePath, type DLedgerConfig } from './dledger-config';
import {
  BLANK_MAGIC_CODE, BODY_OFFSET, CURRENT_MAGIC, MAGIC_1, MIN_BLANK_LEN, decodeEntry, encodeEntry, encodeIndexUnit,
  type DLedgerEntry,
} from './dledger-entry';

export const CHECK_POINT_FILE = 'checkpoint';

/** Data files deleted by one cleanup run at most (Java's MmapFileList.DELETE_FILES_BATCH_MAX). */
export const DELETE_FILES_BATCH_MAX = 10;

const HOUR_MS = 3600 * 1000;

/** The used ratio of the disk holding `dir` (Java's DLedgerUtils.getDiskPartitionSpaceUsedPercent), -1 when unknown. */
export async function diskPartitionSpaceUsedPercent(dir: string): Promise<number> {
  try {
    const s = await fs.statfs(dir);
    return s.blocks > 0 ? (s.blocks - s.bfree) / s.blocks : -1;
  } catch {
    return -1;
  }
}

/** Whether the hour of `now` is one of `when`'s `HH;HH` hours (Java's DLedgerUtils.isItTimeToDo). */
export function isItTimeToDo(when: string, now: number): boolean {
  const hour = new Date(now).getHours();
  return when.split(';').some((w) => w.trim() !== '' && Number(w) === hour);
}

/** What one cleanup run saw and did (Java's CleanSpaceService logs the same). */
export interface CleanSpaceResult {
  count: number;
  timeUp: boolean;
  checkExpired: boolean;
  forceClean: boolean;
  storeBaseRatio: number;
  dataRatio: number;
}

interface FileRef { from: number; handle: fs.FileHandle; file: string }

/** A list of fixed-size files addressed by a global offset (MmapFileList). */
class FileList {
  files: FileRef[] = [];
  constructor(readonly dir: string, readonly fileSize: number) {}

  async load(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const names = (await fs.readdir(this.dir)).filter((n) => /^\d{20}$/.test(n)).sort();
    for (const n of names) {
      const file = path.join(this.dir, n);
      const st = await fs.stat(file);
      if (st.size !== this.fileSize) throw new MessageStoreError(`${file}: length ${st.size} != ${this.fileSize}`);
      this.files.push({ from: Number(n), handle: await fs.open(file, 'r+'), file });
    }
  }

  async fileAt(offset: number, create: boolean): Promise<FileRef | null> {
    const from = offset - (offset % this.fileSize);
    const found = this.files.find((f) => f.from === from);
    if (found || !create) return found ?? null;
    const file = path.join(this.dir, String(from).padStart(20, '0'));
    const handle = await fs.open(file, 'w+');
    await handle.truncate(this.fileSize);
    const ref = { from, handle, file };
    this.files.push(ref);
    this.files.sort((a, b) => a.from - b.from);
    return ref;
  }

  async write(offset: number, data: Buffer): Promise<void> {
    let done = 0;
    while (done < data.length) {
      const f = (await this.fileAt(offset + done, true))!;
      const at = offset + done - f.from;
      const n = Math.min(data.length - done, this.fileSize - at);
      await writeFully(f.handle, data, done, n, at);
      done += n;
    }
  }

  /**
   * Writes `data` at once (a positional write into the page cache, as a store through Java's map is) when the files
   * it falls in exist; false when one must be created first (then nothing was written).
   */
  writeNow(offset: number, data: Buffer): boolean {
    const pieces: { f: FileRef; done: number; at: number; n: number }[] = [];
    for (let done = 0; done < data.length;) {
      const from = offset + done - ((offset + done) % this.fileSize);
      const f = this.files.find((x) => x.from === from);
      if (!f) return false;
      const at = offset + done - f.from;
      const n = Math.min(data.length - done, this.fileSize - at);
      pieces.push({ f, done, at, n });
      done += n;
    }
    for (const p of pieces) {
      writeFullySync(p.f.handle.fd, data, p.done, p.n, p.at);
    }
    return true;
  }

  /** Whether the files holding [offset, offset + length) exist. */
  covers(offset: number, length: number): boolean {
    for (let at = offset - (offset % this.fileSize); at < offset + length; at += this.fileSize) {
      if (!this.files.some((f) => f.from === at)) return false;
    }
    return true;
  }

  async read(offset: number, length: number): Promise<Buffer | null> {
    const out = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const f = await this.fileAt(offset + done, false);
      if (!f) return null;
      const at = offset + done - f.from;
      const n = Math.min(length - done, this.fileSize - at);
      const { bytesRead } = await f.handle.read(out, done, n, at);
      if (bytesRead < n) return null;
      done += n;
    }
    return out;
  }

  /** Zeroes [offset, end) and drops files that start at or after the file holding offset's next boundary. */
  async truncate(offset: number, end: number): Promise<void> {
    for (const f of [...this.files]) {
      if (f.from < offset) continue;
      await f.handle.close();
      await fs.rm(f.file, { force: true });
      this.files.splice(this.files.indexOf(f), 1);
    }
    const f = await this.fileAt(offset, false);
    if (f) {
      const stop = Math.min(end, f.from + this.fileSize);
      if (stop > offset) await writeFully(f.handle, Buffer.alloc(stop - offset), 0, stop - offset, offset - f.from);
    }
  }

  /** Deletes the files wholly below `offset` (Java's MmapFileList.resetOffset for the index files). */
  async deleteBelow(offset: number): Promise<number> {
    let n = 0;
    while (n < this.files.length && this.files[n].from + this.fileSize <= offset) n++;
    for (const f of this.files.splice(0, n)) {
      await f.handle.close();
      await fs.rm(f.file, { force: true });
    }
    return n;
  }

  async sync(): Promise<void> {
    for (const f of [...this.files]) {
      // a file a truncation closed meanwhile is gone
      await f.handle.datasync().catch((err: unknown) => {
        if (this.files.includes(f)) throw err;
      });
    }
  }

  async close(): Promise<void> {
    for (const f of this.files.splice(0)) await f.handle.close();
  }
}

interface Slot { pos: number; size: number; term: number }

/** Appends written together: data pieces and index units in order, and the promise their callers wait on. */
interface WriteBatch { data: { at: number; buf: Buffer }[]; index: { at: number; buf: Buffer }[]; done: Promise<void> }

/** Adjacent pieces joined: one buffer per run of contiguous offsets. */
function runsOf(pieces: { at: number; buf: Buffer }[]): { at: number; buf: Buffer }[] {
  const out: { at: number; buf: Buffer }[] = [];
  let i = 0;
  while (i < pieces.length) {
    let j = i + 1;
    let end = pieces[i].at + pieces[i].buf.length;
    while (j < pieces.length && pieces[j].at === end) end += pieces[j++].buf.length;
    out.push({ at: pieces[i].at, buf: j - i === 1 ? pieces[i].buf : Buffer.concat(pieces.slice(i, j).map((p) => p.buf)) });
    i = j;
  }
  return out;
}

export class DLedgerMmapFileStore {
  readonly dataFileList: FileList;
  readonly indexFileList: FileList;
  ledgerBeginIndex = -1;
  ledgerEndIndex = -1;
  /** The disk is above the full ratio (set by checkDiskFull): the leader refuses appends with DISK_FULL (Java's isDiskFull). */
  isDiskFull = false;
  ledgerEndTerm = -1;
  committedIndex = -1;
  /** Next write position in the data files. */
  writePos = 0;
  /** Appends written at once (not through the write chain). */
  writesNow = 0;
  /** pos/size/term of every entry, by index - ledgerBeginIndex. */
  #slots: Slot[] = [];
  #chain: Promise<unknown> = Promise.resolve();
  #dirty = false;
  /** The last appended entries by index (the pusher reads them right after the append). */
  #recent = new Map<number, DLedgerEntry>();
  /** Appends not yet written, taken by one link of the write chain: one write per run of adjacent bytes. */
  #batch: WriteBatch | null = null;
  /** Links of the write chain not yet finished: a write made at once must not pass them. */
  #links = 0;
  #flushing: Promise<void> | null = null;

  constructor(private readonly config: DLedgerConfig, private readonly log: Logger) {
    this.dataFileList = new FileList(dataStorePath(config), config.mappedFileSizeForEntryData);
    this.indexFileList = new FileList(indexStorePath(config), config.mappedFileSizeForEntryIndex);
  }

  get committedPos(): number {
    const s = this.slot(this.committedIndex);
    return s ? s.pos + s.size : 0;
  }

  slot(index: number): Slot | undefined {
    return index < this.ledgerBeginIndex || index > this.ledgerEndIndex ? undefined : this.#slots[index - this.ledgerBeginIndex];
  }

  termAt(index: number): number {
    return this.slot(index)?.term ?? -1;
  }

  #loading: Promise<void> | null = null;

  /** Loads and recovers the files; once until shutdown (the broker's message store loads it before the server starts). */
  load(): Promise<void> {
    this.#loading ??= this.#load();
    return this.#loading;
  }

  /** The start of the first data file, 0 when there is none (Java's MmapFileList.getMinOffset). */
  get minOffset(): number {
    return this.dataFileList.files[0]?.from ?? 0;
  }

  /**
   * The last entry that ends at or before data position `pos` (entries end where the next begins, or at a file's
   * blank tail); ledgerBeginIndex - 1 when none does.
   */
  lastIndexEndingBy(pos: number): number {
    let lo = 0;
    let hi = this.#slots.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = this.#slots[mid];
      if (s.pos + s.size <= pos) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return this.ledgerBeginIndex === -1 ? -1 : this.ledgerBeginIndex + found;
  }

  /** Resolves once every append made so far is in the files (at once when none is waiting for the write chain). */
  whenWritten(): Promise<void> {
    return this.#links === 0 ? Promise.resolve() : this.#chain.then(() => undefined);
  }

  async #load(): Promise<void> {
    await fs.mkdir(defaultPath(this.config), { recursive: true });
    await this.dataFileList.load();
    await this.indexFileList.load();
    await this.#recover();
    const cp = await readProperties(path.join(defaultPath(this.config), CHECK_POINT_FILE));
    const committed = Number(cp.get('committedIndex') ?? -1);
    if (Number.isFinite(committed)) this.committedIndex = Math.min(committed, this.ledgerEndIndex);
  }

  async #recover(): Promise<void> {
    const files = this.dataFileList.files;
    const size = this.config.mappedFileSizeForEntryData;
    let lastIndex = -1;
    let lastTerm = -1;
    let pos = files.length ? files[0].from : 0;
    const slots: Slot[] = [];
    let begin = -1;
    const CHUNK = 4 * 1024 * 1024;
    scan: for (const f of files) {
      if (f.from !== pos && slots.length) break;
      pos = f.from;
      // A window over the file, refilled from the entry being read (the file is not read whole).
      let win = Buffer.alloc(0);
      let winFrom = 0;
      const ensure = async (at: number, len: number): Promise<boolean> => {
        if (at >= winFrom && at + len <= winFrom + win.length) return true;
        const n = Math.min(Math.max(CHUNK, len), size - at);
        if (n < len) return false;
        const b = Buffer.allocUnsafe(n);
        const { bytesRead } = await f.handle.read(b, 0, n, at);
        win = b.subarray(0, bytesRead);
        winFrom = at;
        return bytesRead >= len;
      };
      let at = 0;
      while (at + 8 <= size) {
        if (!(await ensure(at, 8))) break scan;
        const magic = win.readInt32BE(at - winFrom);
        const sz = win.readInt32BE(at - winFrom + 4);
        if (magic === BLANK_MAGIC_CODE && sz === size - at) {
          pos = f.from + size;
          continue scan;
        }
        if (sz === 0 || at + BODY_OFFSET > size || magic < MAGIC_1 || magic > CURRENT_MAGIC || sz < BODY_OFFSET || at + sz > size) break scan;
        if (!(await ensure(at, BODY_OFFSET))) break scan;
        const e = decodeEntry(win.subarray(at - winFrom, at - winFrom + BODY_OFFSET));
        if (e.pos !== f.from + at) break scan;
        if (win.readInt32BE(at - winFrom + 44) + BODY_OFFSET !== sz) break scan;
        if (lastIndex !== -1 && e.index !== lastIndex + 1) break scan;
        if (e.term < lastTerm) break scan;
        if (begin === -1) begin = e.index;
        slots.push({ pos: f.from + at, size: sz, term: e.term });
        lastIndex = e.index;
        lastTerm = e.term;
        at += sz;
        pos = f.from + at;
      }
      break;
    }
    this.#slots = slots;
    this.ledgerBeginIndex = begin;
    this.ledgerEndIndex = lastIndex;
    this.ledgerEndTerm = lastTerm;
    this.writePos = pos;
    // Cut what follows and rewrite the index units from the data.
    const dataEnd = files.length ? files[files.length - 1].from + size : 0;
    await this.dataFileList.truncate(pos, dataEnd);
    if (slots.length) {
      const units = Buffer.allocUnsafe(slots.length * INDEX_UNIT_SIZE);
      slots.forEach((s, i) => encodeIndexUnit(s.pos, s.size, CURRENT_MAGIC, begin + i, s.term).copy(units, i * INDEX_UNIT_SIZE));
      await this.indexFileList.write(begin * INDEX_UNIT_SIZE, units);
    }
    const idxFiles = this.indexFileList.files;
    const idxEnd = idxFiles.length ? idxFiles[idxFiles.length - 1].from + this.config.mappedFileSizeForEntryIndex : 0;
    await this.indexFileList.truncate((lastIndex + 1) * INDEX_UNIT_SIZE, idxEnd);
    this.log.info({ ledgerBeginIndex: begin, ledgerEndIndex: lastIndex, ledgerEndTerm: lastTerm, writePos: pos }, 'dledger store recovered');
  }

  /** Set by shutdown(): a write that keeps failing gives up (the entries it held are lost here, not at followers). */
  #closing = false;

  /**
   * Runs `write` (appended entries, at their places) until it succeeds: an entry's index and place are taken when it
   * is appended, before it is written, so a failed write (a full disk) is tried again every 100 ms rather than
   * dropped, which would leave a hole that the next entries and a restart's recovery would stop at. The chain waits
   * meanwhile; the server refuses new appends once it sees the disk full.
   */
  async #writeRetrying(write: () => Promise<void>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await write();
        if (attempt > 0) this.log.warn({ attempts: attempt + 1 }, 'dledger entries written after failed attempts');
        return;
      } catch (err) {
        if (this.#closing) throw err;
        if (attempt % 50 === 0) this.log.error({ err, attempt: attempt + 1 }, 'dledger entries write failed; trying again');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    this.#links++;
    const run = this.#chain.then(fn, fn).finally(() => {
      this.#links--;
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** Where an entry of `len` bytes goes: `writePos`, or the next file after a blank fill. */
  #placeFor(len: number): { pos: number; blank: Buffer | null; blankAt: number } {
    const size = this.config.mappedFileSizeForEntryData;
    const left = size - (this.writePos % size);
    if (len + MIN_BLANK_LEN > left) {
      const blank = Buffer.alloc(left);
      blank.writeInt32BE(BLANK_MAGIC_CODE, 0);
      blank.writeInt32BE(left, 4);
      return { pos: this.writePos + left, blank, blankAt: this.writePos };
    }
    return { pos: this.writePos, blank: null, blankAt: 0 };
  }

  /**
   * Appends `entry` as the next index (its index, term, magic and pos are set here; `hook` may patch the encoded
   * bytes once pos is known, as Java's AppendHook). Synchronous bookkeeping, asynchronous write.
   */
  appendAsLeader(body: Buffer, term: number, hook?: (encoded: Buffer, pos: number) => void): { entry: DLedgerEntry; written: Promise<void> } {
    const entry: DLedgerEntry = {
      magic: CURRENT_MAGIC, size: BODY_OFFSET + body.length, index: this.ledgerEndIndex + 1, term, pos: 0, channel: 0, chainCrc: 0, bodyCrc: 0, body,
    };
    const place = this.#placeFor(entry.size);
    entry.pos = place.pos;
    const encoded = encodeEntry(entry);
    if (hook) {
      hook(encoded, entry.pos);
      entry.body = encoded.subarray(BODY_OFFSET);
    }
    return { entry, written: this.#commitAppend(entry, encoded, place) };
  }

  /** Appends an entry the leader sent; its index must follow ours and its pos must be where we write next. */
  appendAsFollower(entry: DLedgerEntry): Promise<void> {
    if (entry.index !== this.ledgerEndIndex + 1) throw new MessageStoreError(`INCONSISTENT_INDEX ${entry.index} != ${this.ledgerEndIndex + 1}`);
    const encoded = encodeEntry(entry);
    const place = this.#placeFor(encoded.length);
    if (place.pos !== entry.pos) throw new MessageStoreError(`DISK_ERROR pos ${entry.pos} != ${place.pos}`);
    return this.#commitAppend(entry, encoded, place);
  }

  #commitAppend(entry: DLedgerEntry, encoded: Buffer, place: { pos: number; blank: Buffer | null; blankAt: number }): Promise<void> {
    if (this.ledgerBeginIndex === -1) this.ledgerBeginIndex = entry.index;
    this.#recent.set(entry.index, { ...entry, size: encoded.length });
    if (this.#recent.size > 4096) this.#recent.delete(this.#recent.keys().next().value as number);
    this.#slots.push({ pos: entry.pos, size: encoded.length, term: entry.term });
    this.ledgerEndIndex = entry.index;
    this.ledgerEndTerm = entry.term;
    this.writePos = entry.pos + encoded.length;
    this.#dirty = true;
    const unit = encodeIndexUnit(entry.pos, encoded.length, entry.magic, entry.index, entry.term);
    // With nothing queued and the files there, the append is written at once: a positional write into the page
    // cache costs microseconds, a round trip through libuv's threadpool far more on a busy machine (and each hop of
    // the replication path waits for one). Java stores through its maps the same way.
    const idx = entry.index * INDEX_UNIT_SIZE;
    if (this.#links === 0 && this.dataFileList.covers(place.blank ? place.blankAt : entry.pos, (place.blank?.length ?? 0) + encoded.length)
      && this.indexFileList.covers(idx, INDEX_UNIT_SIZE)) {
      try {
        if (place.blank) this.dataFileList.writeNow(place.blankAt, place.blank);
        this.dataFileList.writeNow(entry.pos, encoded);
        this.indexFileList.writeNow(idx, unit);
        this.writesNow++;
        return Promise.resolve();
      } catch (err) {
        // A full disk (ENOSPC) or another write error: the entry is ours already (its index, its place, maybe pushed
        // to followers); the chain below writes it again until it is in the files, so that the log never has a hole.
        this.log.error({ err, index: entry.index }, 'dledger entry write failed; writing it again until it succeeds');
      }
    }
    // Else the appends made while the chain is busy are written together by the next link: one write per run of
    // adjacent bytes (the data, then the index units) instead of two per entry.
    let batch = this.#batch;
    if (!batch) {
      const b: WriteBatch = { data: [], index: [], done: Promise.resolve() };
      b.done = this.#serial(async () => {
        if (this.#batch === b) this.#batch = null;
        await this.#writeRetrying(async () => {
          for (const r of runsOf(b.data)) await this.dataFileList.write(r.at, r.buf);
          for (const r of runsOf(b.index)) await this.indexFileList.write(r.at, r.buf);
        });
      });
      batch = this.#batch = b;
    }
    if (place.blank) batch.data.push({ at: place.blankAt, buf: place.blank });
    batch.data.push({ at: entry.pos, buf: encoded });
    batch.index.push({ at: idx, buf: unit });
    return batch.done;
  }

  /**
   * Follower: keeps entries up to `entry` (writing it when ours differs) and drops everything after
   * (Java's truncate).
   */
  async truncate(entry: DLedgerEntry): Promise<number> {
    // Our log ends before the leader's entry (the leader deleted what we lack): start afresh at it (Java's
    // rebuildWithPos; nothing of ours is committed at or after it).
    if (entry.index > this.ledgerEndIndex + 1) {
      await this.#rebuildAt(entry);
      await this.appendAsFollower(entry);
      return entry.index;
    }
    const mine = await this.get(entry.index).catch(() => null);
    const same = !!mine && mine.term === entry.term && mine.pos === entry.pos && mine.size === entry.size && mine.body.equals(entry.body);
    const keepTo = same ? entry.index : entry.index - 1;
    await this.truncateAfter(keepTo, same ? entry.pos + entry.size : entry.pos);
    if (!same) await this.appendAsFollower(entry);
    return entry.index;
  }

  /** Drops every entry and file; the next append (at `entry`'s index and pos) is the log's first. */
  #rebuildAt(entry: DLedgerEntry): Promise<void> {
    this.log.warn({ ledgerBeginIndex: this.ledgerBeginIndex, ledgerEndIndex: this.ledgerEndIndex, index: entry.index, pos: entry.pos },
      'log ends before the leader\'s entry: rebuilding the log at it');
    this.#recent.clear();
    this.#slots = [];
    this.ledgerBeginIndex = -1;
    this.ledgerEndIndex = entry.index - 1;
    this.ledgerEndTerm = -1;
    this.writePos = entry.pos;
    this.#batch = null;
    return this.#serial(async () => {
      await this.dataFileList.deleteBelow(Number.MAX_SAFE_INTEGER);
      await this.indexFileList.deleteBelow(Number.MAX_SAFE_INTEGER);
    });
  }

  /** Drops entries after `index` (data from `pos`). Committed entries are never dropped. */
  truncateAfter(index: number, pos: number): Promise<void> {
    if (index < this.committedIndex) throw new MessageStoreError(`refusing to truncate committed entries (${index} < ${this.committedIndex})`);
    for (const i of [...this.#recent.keys()]) if (i > index) this.#recent.delete(i);
    const oldEnd = this.writePos;
    const oldIdxEnd = (this.ledgerEndIndex + 1) * INDEX_UNIT_SIZE;
    if (this.ledgerBeginIndex !== -1) this.#slots.length = Math.max(0, index - this.ledgerBeginIndex + 1);
    if (this.#slots.length === 0) this.ledgerBeginIndex = -1;
    this.ledgerEndIndex = this.#slots.length ? index : -1;
    this.ledgerEndTerm = this.#slots.length ? this.#slots[this.#slots.length - 1].term : -1;
    this.writePos = pos;
    // Appends after the truncation go in a batch written after it.
    this.#batch = null;
    return this.#serial(async () => {
      await this.dataFileList.truncate(pos, Math.max(oldEnd, pos));
      await this.indexFileList.truncate((index + 1) * INDEX_UNIT_SIZE, oldIdxEnd);
    });
  }

  /** The entry at `index` when it is among the last appended (no read), else undefined. */
  cached(index: number): DLedgerEntry | undefined {
    const s = this.slot(index);
    const cached = s ? this.#recent.get(index) : undefined;
    return cached && cached.pos === s!.pos ? cached : undefined;
  }

  async get(index: number): Promise<DLedgerEntry> {
    const s = this.slot(index);
    if (!s) throw new MessageStoreError(`INDEX_OUT_OF_RANGE ${index} not in [${this.ledgerBeginIndex}, ${this.ledgerEndIndex}]`);
    const cached = this.#recent.get(index);
    if (cached && cached.pos === s.pos) return cached;
    await this.#chain;
    const buf = await this.dataFileList.read(s.pos, s.size);
    if (!buf) throw new MessageStoreError(`DISK_ERROR reading entry ${index} at ${s.pos}`);
    return decodeEntry(buf);
  }

  /**
   * One run of Java's CleanSpaceService: at a deleteWhen hour, or when the store's disk (or the data files' disk) is
   * above diskSpaceRatioToCheckExpired, deletes the data files last written more than fileReservedHours ago (at least
   * one hour), all of them but the last when the disk is above diskSpaceRatioToForceClean and enableDiskForceClean;
   * then moves ledgerBeginIndex to the first remaining entry and deletes the index files below it.
   * Unlike Java, a file is deleted only once every entry in it is at or below `appliedIndex` (committed and handed to
   * the state machine): what has not reached the consume queues is never lost to the reserved time.
   */
  async cleanSpace(now: number, appliedIndex: number, diskRatio = diskPartitionSpaceUsedPercent): Promise<CleanSpaceResult> {
    const c = this.config;
    const { storeBaseRatio, dataRatio, forceClean } = await this.checkDiskFull(diskRatio);
    let reserved = c.fileReservedHours * HOUR_MS;
    if (reserved < HOUR_MS) {
      this.log.warn({ fileReservedTimeMs: reserved, hourOfMs: HOUR_MS }, 'fileReservedTimeMs is smaller than an hour');
      reserved = HOUR_MS;
    }
    const timeUp = isItTimeToDo(c.deleteWhen, now);
    const checkExpired = storeBaseRatio > c.diskSpaceRatioToCheckExpired || dataRatio > c.diskSpaceRatioToCheckExpired;
    let count = 0;
    if (timeUp || checkExpired) {
      count = await this.deleteExpiredFileByTime(reserved, now, forceClean && c.enableDiskForceClean, Math.min(appliedIndex, this.committedIndex));
      if (count > 0 || (forceClean && c.enableDiskForceClean)) {
        this.log.info({ count, timeUp, checkExpired, forceClean, enableForceClean: c.enableDiskForceClean, storeBaseRatio, dataRatio,
          ledgerBeginIndex: this.ledgerBeginIndex }, 'clean space');
      }
    }
    return { count, timeUp, checkExpired, forceClean, storeBaseRatio, dataRatio };
  }

  /**
   * Sets isDiskFull from the used ratios of the store's disk and the data files' disk: above the force-clean ratio +
   * 0.05 (Java's getDiskFullRatio, at most 0.95) the leader refuses appends. Java's CleanSpaceService does this every
   * 100 ms (the server's maintain loop calls it as often), so appends resume within that of space coming back.
   */
  async checkDiskFull(diskRatio = diskPartitionSpaceUsedPercent): Promise<{ storeBaseRatio: number; dataRatio: number; forceClean: boolean }> {
    const c = this.config;
    const storeBaseRatio = await diskRatio(c.storeBaseDir);
    const dataRatio = await diskRatio(dataStorePath(c));
    const forceRatio = Math.max(0.5, c.diskSpaceRatioToForceClean);
    const forceClean = storeBaseRatio > forceRatio || dataRatio > forceRatio;
    const fullRatio = Math.min(0.95, forceRatio + 0.05);
    const wasFull = this.isDiskFull;
    this.isDiskFull = storeBaseRatio > fullRatio || dataRatio > fullRatio;
    if (this.isDiskFull !== wasFull) this.log[this.isDiskFull ? 'error' : 'info']({ storeBaseRatio, dataRatio, fullRatio }, this.isDiskFull ? 'disk full: appends refused' : 'disk space ok again');
    return { storeBaseRatio, dataRatio, forceClean };
  }

  /**
   * Deletes data files from the first on (never the last, at most DELETE_FILES_BATCH_MAX) while each was last
   * written `expiredTime` ms before `now` (any, when `cleanImmediately`) and holds no entry after `keepAfterIndex`;
   * then revises ledgerBeginIndex and deletes the index files below it (Java's MmapFileList.deleteExpiredFileByTime
   * and DLedgerMmapFileStore.reviseLedgerBeginIndex). Resolves with how many data files went.
   */
  deleteExpiredFileByTime(expiredTime: number, now: number, cleanImmediately: boolean, keepAfterIndex: number): Promise<number> {
    return this.#serial(async () => {
      const files = this.dataFileList.files;
      const size = this.config.mappedFileSizeForEntryData;
      let n = 0;
      while (n < files.length - 1 && n < DELETE_FILES_BATCH_MAX) {
        const f = files[n];
        // Every entry of the file must have been applied, and an entry must remain after it.
        if (this.lastIndexEndingBy(f.from + size) > keepAfterIndex) break;
        if (this.lastIndexEndingBy(files[n + 1].from) + 1 > this.ledgerEndIndex) break;
        const { mtimeMs } = await f.handle.stat();
        if (!(now >= mtimeMs + expiredTime || cleanImmediately)) break;
        n++;
      }
      if (n === 0) return 0;
      // reviseLedgerBeginIndex: the first entry of the first remaining file (the bookkeeping moves at once, reads
      // of what goes find it gone).
      const begin = this.lastIndexEndingBy(files[n].from) + 1;
      const gone = files.splice(0, n);
      this.#slots.splice(0, begin - this.ledgerBeginIndex);
      this.ledgerBeginIndex = begin;
      for (const i of [...this.#recent.keys()]) if (i < begin) this.#recent.delete(i);
      for (const f of gone) {
        await f.handle.close();
        await fs.rm(f.file, { force: true });
      }
      await this.indexFileList.deleteBelow(begin * INDEX_UNIT_SIZE);
      return n;
    });
  }

  updateCommittedIndex(index: number): void {
    if (index > this.committedIndex) this.committedIndex = Math.min(index, this.ledgerEndIndex);
  }

  /** Syncs what was written (one sync at a time: a call during one returns at once, the data still dirty). */
  flush(): Promise<void> {
    if (!this.#dirty || this.#flushing) return this.#flushing ?? Promise.resolve();
    this.#dirty = false;
    // Not a link of the write chain: appends go on being written at once while the OS syncs (what was written before
    // the call is what it makes durable).
    this.#flushing = (async () => {
      try {
        await this.dataFileList.sync();
        await this.indexFileList.sync();
      } finally {
        this.#flushing = null;
      }
    })();
    return this.#flushing;
  }

  #checkPointChain: Promise<void> = Promise.resolve();

  /** Writes the checkpoint; writes run one at a time (two at once would race on checkpoint.tmp). */
  persistCheckPoint(): Promise<void> {
    const write = () => writeProperties(path.join(defaultPath(this.config), CHECK_POINT_FILE),
      [['endIndex', String(this.ledgerEndIndex)], ['committedIndex', String(this.committedIndex)]]);
    const p = this.#checkPointChain.then(write, write);
    this.#checkPointChain = p.catch(() => undefined);
    return p;
  }

  async shutdown(): Promise<void> {
    this.#closing = true;
    await this.#chain;
    while (this.#flushing) await this.#flushing.catch(() => undefined);
    this.#dirty = true;
    await this.flush();
    await this.persistCheckPoint();
    await this.dataFileList.close();
    await this.indexFileList.close();
    this.#loading = null;
  }
}

export async function readProperties(file: string): Promise<Map<string, string>> {
  const m = new Map<string, string>();
  let text = '';
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    try {
      text = await fs.readFile(`${file}.bak`, 'utf8');
    } catch {
      return m;
    }
  }
  for (const line of text.split(/\r?\n/)) {
    if (!line || line.startsWith('#') || line.startsWith('!')) continue;
    const i = line.search(/[=:]/);
    if (i > 0) m.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return m;
}

/** Java's IOUtils.string2File: write `<file>.tmp`, keep the previous as `<file>.bak`, rename into place. */
export async function writeProperties(file: string, entries: [string, string][]): Promise<void> {
  const text = `#${new Date().toString()}\n${entries.map(([k, v]) => `${k}=${v}`).join('\n')}\n`;
  const tmp = `${file}.tmp`;
  await fs.writeFile(tmp, text);
  await fs.copyFile(file, `${file}.bak`).catch(() => undefined);
  await fs.rename(tmp, file);
}
