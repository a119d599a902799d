/**
 * The timer log: one 52-byte unit per timer message enqueued in the wheel, in Java's TimerLog layout and files: files
 * of `mappedFileSizeTimerLog` bytes (100 MiB) under `<storePathRootDir>/timerlog/`, each named by the 20-digit offset
 * of its first byte and created at its full (sparse) size. The units of one slot form a list through prevPos, from the
 * slot's lastPos back:
 *
 *   size i32 (52) | prevPos i64 | magic i32 | currWriteTime i64 (slot time) | delayedTime i32 (deliverMs − slot
 *   time) | offsetPy i64 (commit-log offset of the rmq_sys_wheel_timer record) | sizePy i32 | hashCode i32 | reserved i64
 *
 * A unit that would leave less than 16 bytes at the end of a file is written to the next file; the rest of the file
 * gets a blank unit (size = the bytes left, prevPos 0, BLANK_MAGIC_CODE). A file all of whose units point at
 * commit-log records the commit log has deleted is deleted too (deleteExpiredFiles, run by the timer store as Java's
 * every 30 s), so the log grows with the messages the commit log still holds, not with every timer message ever sent.
 *
 * Units are collected in memory and written per file with one positional write each at flush().
 *
 * @see org.apache.rocketmq.store.timer.TimerLog (5.3.3)
 * @see org.apache.rocketmq.store.MappedFileQueue#deleteExpiredFileByOffsetForTimerLog (5.3.3)
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { writeFully } from '../../util/write-fully';

export const UNIT_SIZE = 52;
/** Java's TimerLog.BLANK_MAGIC_CODE (0xBBCCDDEE ^ 1880681586 + 8, with Java's precedence: + first). */
export const BLANK_MAGIC_CODE = (0xbbccddee ^ (1880681586 + 8)) | 0;
/** size + prevPos + magic: the least a blank unit takes. */
const MIN_BLANK_LEN = 4 + 8 + 4;
/** Offset of offsetPy in a unit (Java's UNIT_PRE_SIZE_FOR_MSG). */
const OFFSET_PY_AT = 28;
/** Java's MessageStoreConfig.mappedFileSizeTimerLog. */
export const DEFAULT_TIMER_LOG_FILE_SIZE = 100 * 1024 * 1024;

export interface TimerLogUnit {
  prevPos: number;
  slotTime: number;
  deliverMs: number;
  offsetPy: number;
  sizePy: number;
}

/** TimerMessageStore.isMagicOK: a unit's magic keeps only its low four bits. */
function isMagicOK(magic: number): boolean {
  return (magic | 0xf) === 0xf;
}

function fileName(offset: number): string {
  return String(offset).padStart(20, '0');
}

interface LogFile {
  from: number;
  fh: fsp.FileHandle;
}

export class TimerLog {
  #fileSize: number;
  #files: LogFile[] = [];
  /** Global position of the next unit. */
  #writePos = 0;
  /** Units appended and not yet written: their global start, and the bytes (contiguous within one file). */
  #pending: Array<{ pos: number; bytes: Buffer; len: number }> = [];

  constructor(readonly dir: string, fileSize = DEFAULT_TIMER_LOG_FILE_SIZE) {
    // Room for at least one unit and a blank; Java's files are whole units plus the blank's room.
    if (!Number.isInteger(fileSize) || fileSize < UNIT_SIZE + MIN_BLANK_LEN) throw new RangeError(`mappedFileSizeTimerLog too small: ${fileSize}`);
    this.#fileSize = fileSize;
  }

  /** Bytes per file: mappedFileSizeTimerLog, or the length of a one-file log written before the log rolled. */
  get fileSize(): number {
    return this.#fileSize;
  }

  /**
   * Opens the files and finds the write position: the end of the last file's units, read from `fromPos` (the
   * checkpoint's TimerLog position, or the last file's start) on: a unit with another size or magic ends them, and
   * whatever follows it (a torn write) is overwritten by the next units.
   */
  async open(fromPos = 0): Promise<void> {
    if (this.#files.length > 0) return;
    await fsp.mkdir(this.dir, { recursive: true });
    const names = (await fsp.readdir(this.dir)).filter((n) => /^\d{20}$/.test(n)).sort();
    for (const n of names) this.#files.push({ from: Number(n), fh: await fsp.open(path.join(this.dir, n), 'r+') });
    if (this.#files.length === 0) {
      this.#writePos = 0;
      return;
    }
    if (this.#files.length === 1 && this.#files[0].from === 0) {
      // Written before the log rolled: one file as long as its units. Longer than a file now is: it is the first
      // file, full, and the next files are as long.
      const size = (await this.#files[0].fh.stat()).size;
      const whole = size - (size % UNIT_SIZE);
      if (whole > this.#fileSize) {
        this.#fileSize = whole;
        await this.#files[0].fh.truncate(whole);
      }
    }
    const last = this.#files[this.#files.length - 1];
    // A file written before the log rolled (one file, as long as its units) is brought to the file size.
    if ((await last.fh.stat()).size < this.fileSize) await last.fh.truncate(this.fileSize);
    let pos = fromPos >= last.from && fromPos < last.from + this.fileSize ? fromPos - ((fromPos - last.from) % UNIT_SIZE) : last.from;
    const buf = Buffer.alloc(UNIT_SIZE * 4096);
    for (;;) {
      const { bytesRead } = await last.fh.read(buf, 0, buf.length, pos - last.from);
      let i = 0;
      for (; i + UNIT_SIZE <= bytesRead; i += UNIT_SIZE) {
        if (buf.readInt32BE(i) !== UNIT_SIZE || !isMagicOK(buf.readInt32BE(i + 12))) break;
      }
      pos += i;
      if (i < buf.length || bytesRead < buf.length) break;
    }
    this.#writePos = pos;
  }

  get writePos(): number {
    return this.#writePos;
  }

  /** Start offsets of the files, oldest first. */
  get fileOffsets(): number[] {
    return this.#files.map((f) => f.from);
  }

  /** Appends a unit (written at flush()); returns its position. */
  append(u: TimerLogUnit): number {
    const inFile = this.#writePos % this.fileSize;
    if (UNIT_SIZE + MIN_BLANK_LEN > this.fileSize - inFile) {
      const blank = Buffer.alloc(MIN_BLANK_LEN);
      blank.writeInt32BE(this.fileSize - inFile, 0);
      blank.writeInt32BE(BLANK_MAGIC_CODE, 12);
      this.#pending.push({ pos: this.#writePos, bytes: blank, len: MIN_BLANK_LEN });
      this.#writePos += this.fileSize - inFile;
    }
    let chunk = this.#pending[this.#pending.length - 1];
    if (!chunk || chunk.pos + chunk.len !== this.#writePos || chunk.len + UNIT_SIZE > chunk.bytes.length || this.#writePos % this.fileSize === 0) {
      chunk = { pos: this.#writePos, bytes: Buffer.allocUnsafe(UNIT_SIZE * 256), len: 0 };
      this.#pending.push(chunk);
    }
    const b = chunk.bytes;
    const o = chunk.len;
    b.fill(0, o, o + UNIT_SIZE);
    b.writeInt32BE(UNIT_SIZE, o);
    b.writeBigInt64BE(BigInt(u.prevPos), o + 4);
    b.writeInt32BE(0, o + 12);
    b.writeBigInt64BE(BigInt(u.slotTime), o + 16);
    b.writeInt32BE(u.deliverMs - u.slotTime, o + 24);
    b.writeBigInt64BE(BigInt(u.offsetPy), o + OFFSET_PY_AT);
    b.writeInt32BE(u.sizePy, o + 36);
    chunk.len += UNIT_SIZE;
    const pos = this.#writePos;
    this.#writePos += UNIT_SIZE;
    return pos;
  }

  /** Writes every unit appended so far (one write per contiguous run); creates the files they start. */
  async flush(): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    for (const c of pending) {
      const f = await this.#fileFor(c.pos, true);
      await writeFully(f!.fh, c.bytes, 0, c.len, c.pos - f!.from);
    }
  }

  async #fileFor(pos: number, create: boolean): Promise<LogFile | null> {
    const from = pos - (pos % this.fileSize);
    const f = this.#files.find((x) => x.from === from);
    if (f || !create) return f ?? null;
    const fh = await fsp.open(path.join(this.dir, fileName(from)), 'w+');
    await fh.truncate(this.fileSize);
    const created = { from, fh };
    this.#files.push(created);
    this.#files.sort((a, b) => a.from - b.from);
    return created;
  }

  async read(pos: number): Promise<TimerLogUnit | null> {
    if (this.#pending.length) await this.flush();
    if (pos < 0 || pos + UNIT_SIZE > this.#writePos) return null;
    const f = await this.#fileFor(pos, false);
    if (!f) return null; // deleted: its records left the commit log
    const b = Buffer.alloc(UNIT_SIZE);
    const { bytesRead } = await f.fh.read(b, 0, UNIT_SIZE, pos - f.from);
    if (bytesRead < UNIT_SIZE || b.readInt32BE(0) !== UNIT_SIZE) return null;
    const slotTime = Number(b.readBigInt64BE(16));
    return {
      prevPos: Number(b.readBigInt64BE(4)),
      slotTime,
      deliverMs: slotTime + b.readInt32BE(24),
      offsetPy: Number(b.readBigInt64BE(OFFSET_PY_AT)),
      sizePy: b.readInt32BE(36),
    };
  }

  /** Position of the last unit a full file holds (Java's getOffsetForLastUnit). */
  get offsetForLastUnit(): number {
    return this.fileSize - ((this.fileSize - MIN_BLANK_LEN) % UNIT_SIZE) - MIN_BLANK_LEN - UNIT_SIZE;
  }

  /**
   * Deletes the files, the last one excepted, whose last unit points below `minOffsetPy` (the commit log's first
   * offset): the commit log no longer has any record they name. Stops at the first file to keep. Returns how many.
   */
  async deleteExpiredFiles(minOffsetPy: number): Promise<number> {
    if (this.#pending.length) await this.flush();
    let deleted = 0;
    while (this.#files.length > 1) {
      const f = this.#files[0];
      const b = Buffer.alloc(UNIT_SIZE);
      const { bytesRead } = await f.fh.read(b, 0, UNIT_SIZE, this.offsetForLastUnit);
      if (bytesRead < UNIT_SIZE || b.readInt32BE(0) !== UNIT_SIZE || !isMagicOK(b.readInt32BE(12))) break;
      if (Number(b.readBigInt64BE(OFFSET_PY_AT)) >= minOffsetPy) break;
      this.#files.shift();
      await f.fh.close();
      await fsp.rm(path.join(this.dir, fileName(f.from)), { force: true });
      deleted++;
    }
    return deleted;
  }

  async close(): Promise<void> {
    await this.flush();
    for (const f of this.#files) await f.fh.close();
    this.#files = [];
  }
}
