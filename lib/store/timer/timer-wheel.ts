/**
 * The timing wheel's slots, one file (`<storePathRootDir>/timerwheel`) of slotsTotal × 32 bytes in Java's Slot
 * layout, kept in memory as well (reads) and written through slot by slot (positional writes):
 *
 *   timeMs i64 (the slot's absolute start time) | firstPos i64 | lastPos i64 (TimerLog positions) | num i32 | magic i32
 *
 * A slot's index is (timeMs / precisionMs) % slotsTotal; a slot whose stored timeMs is not the time asked for
 * belongs to an earlier turn of the wheel and counts as empty.
 *
 * @see org.apache.rocketmq.store.timer.TimerWheel, org.apache.rocketmq.store.timer.Slot (5.3.3)
 */
import fsp from 'node:fs/promises';
import { writeFully } from '../../util/write-fully';

export const SLOT_SIZE = 32;

export interface Slot {
  timeMs: number;
  firstPos: number;
  lastPos: number;
  num: number;
}

function readI64(b: Buffer, o: number): number {
  return Number(b.readBigInt64BE(o));
}

export class TimerWheel {
  #buf: Buffer | null = null;
  #fh: fsp.FileHandle | null = null;

  constructor(readonly file: string, readonly slotsTotal: number, readonly precisionMs: number) {}

  /** Opens (creating a sparse file of the full size when absent) and reads the slots. */
  async open(): Promise<void> {
    if (this.#fh) return;
    const size = this.slotsTotal * SLOT_SIZE;
    this.#fh = await fsp.open(this.file, 'a+');
    const st = await this.#fh.stat();
    if (st.size < size) await this.#fh.truncate(size);
    await this.#fh.close();
    this.#fh = await fsp.open(this.file, 'r+');
    this.#buf = Buffer.alloc(size);
    await this.#fh.read(this.#buf, 0, size, 0);
  }

  get isOpen(): boolean {
    return this.#buf !== null;
  }

  /** The slot starting at `timeMs` (a multiple of precisionMs); empty when the wheel holds another turn there. */
  getSlot(timeMs: number): Slot {
    const buf = this.#buf!;
    const o = this.#index(timeMs) * SLOT_SIZE;
    const t = readI64(buf, o);
    if (t !== timeMs) return { timeMs, firstPos: -1, lastPos: -1, num: 0 };
    return { timeMs, firstPos: readI64(buf, o + 8), lastPos: readI64(buf, o + 16), num: buf.readInt32BE(o + 24) };
  }

  readonly #dirty = new Set<number>();

  /** Updates a slot in memory; flush() writes the slots changed since the last flush (each once, its last state). */
  putSlot(s: Slot): void {
    const o = this.#index(s.timeMs) * SLOT_SIZE;
    const b = this.#buf!.subarray(o, o + SLOT_SIZE);
    b.writeBigInt64BE(BigInt(s.timeMs), 0);
    b.writeBigInt64BE(BigInt(s.firstPos), 8);
    b.writeBigInt64BE(BigInt(s.lastPos), 16);
    b.writeInt32BE(s.num, 24);
    b.writeInt32BE(0, 28);
    this.#dirty.add(o);
  }

  async flush(): Promise<void> {
    if (this.#dirty.size === 0 || !this.#fh) return;
    const offsets = [...this.#dirty];
    this.#dirty.clear();
    await Promise.all(offsets.map((o) => writeFully(this.#fh!, Buffer.from(this.#buf!.subarray(o, o + SLOT_SIZE)), 0, SLOT_SIZE, o)));
  }

  #index(timeMs: number): number {
    return Math.floor(timeMs / this.precisionMs) % this.slotsTotal;
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.#fh) await this.#fh.close();
    this.#fh = null;
    this.#buf = null;
  }
}
