/**
 * The timer log: one 52-byte unit per timer message enqueued in the wheel, appended to one file
 * (`<storePathRootDir>/timerlog/00000000000000000000`), in Java's TimerLog unit layout; the units of one slot form
 * a list through prevPos, from the slot's lastPos back:
 *
 *   size i32 (52) | prevPos i64 | magic i32 | currWriteTime i64 (slot time) | delayedTime i32 (deliverMs − slot
 *   time) | offsetPy i64 (commit-log offset of the rmq_sys_wheel_timer record) | sizePy i32 | hashCode i32 | reserved i64
 *
 * @see org.apache.rocketmq.store.timer.TimerLog (5.3.3)
 */
import fsp from 'node:fs/promises';
import path from 'node:path';

export const UNIT_SIZE = 52;

export interface TimerLogUnit {
  prevPos: number;
  slotTime: number;
  deliverMs: number;
  offsetPy: number;
  sizePy: number;
}

export class TimerLog {
  #fh: fsp.FileHandle | null = null;
  #size = 0;

  constructor(readonly dir: string) {}

  async open(): Promise<void> {
    if (this.#fh) return;
    await fsp.mkdir(this.dir, { recursive: true });
    this.#fh = await fsp.open(path.join(this.dir, '00000000000000000000'), 'a+');
    const st = await this.#fh.stat();
    // A torn last unit (a crash mid-write) is cut off.
    this.#size = st.size - (st.size % UNIT_SIZE);
    await this.#fh.close();
    this.#fh = await fsp.open(path.join(this.dir, '00000000000000000000'), 'r+');
  }

  get writePos(): number {
    return this.#size;
  }

  #writes: Promise<unknown>[] = [];

  /** Appends a unit (written in the background: see flush()); returns its position. */
  append(u: TimerLogUnit): number {
    const b = Buffer.alloc(UNIT_SIZE);
    b.writeInt32BE(UNIT_SIZE, 0);
    b.writeBigInt64BE(BigInt(u.prevPos), 4);
    b.writeInt32BE(0, 12);
    b.writeBigInt64BE(BigInt(u.slotTime), 16);
    b.writeInt32BE(u.deliverMs - u.slotTime, 24);
    b.writeBigInt64BE(BigInt(u.offsetPy), 28);
    b.writeInt32BE(u.sizePy, 36);
    const pos = this.#size;
    this.#size += UNIT_SIZE;
    this.#writes.push(this.#fh!.write(b, 0, UNIT_SIZE, pos));
    return pos;
  }

  /** Resolves once every unit appended so far is written. */
  async flush(): Promise<void> {
    const w = this.#writes;
    this.#writes = [];
    await Promise.all(w);
  }

  async read(pos: number): Promise<TimerLogUnit | null> {
    if (this.#writes.length) await this.flush();
    if (pos < 0 || pos + UNIT_SIZE > this.#size) return null;
    const b = Buffer.alloc(UNIT_SIZE);
    const { bytesRead } = await this.#fh!.read(b, 0, UNIT_SIZE, pos);
    if (bytesRead < UNIT_SIZE || b.readInt32BE(0) !== UNIT_SIZE) return null;
    const slotTime = Number(b.readBigInt64BE(16));
    return {
      prevPos: Number(b.readBigInt64BE(4)),
      slotTime,
      deliverMs: slotTime + b.readInt32BE(24),
      offsetPy: Number(b.readBigInt64BE(28)),
      sizePy: b.readInt32BE(36),
    };
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.#fh) await this.#fh.close();
    this.#fh = null;
  }
}
