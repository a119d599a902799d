/**
 * The checkpoint file (one OS page): physicMsgTimestamp i64 @0, logicsMsgTimestamp i64 @8, indexMsgTimestamp i64 @16,
 * masterFlushedOffset i64 @24 and confirmPhyOffset i64 @32 (Java 5.x: the controller-mode confirm offset, read back at
 * recovery; a 4.x file has zeros there).
 *
 * @see org.apache.rocketmq.store.StoreCheckpoint
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { readI64, writeI64 } from './stored-record';
import { writeFully } from '../util/write-fully';

/** The bytes of the page that hold fields. */
const CHECKPOINT_BYTES = 40;

export class StoreCheckpoint {
  physicMsgTimestamp = 0;
  logicsMsgTimestamp = 0;
  indexMsgTimestamp = 0;
  /** Java 5.x's masterFlushedOffset (kept as read; this store does not use it). */
  masterFlushedOffset = 0;
  /** Java 5.x's confirmPhyOffset: the controller-mode confirm offset as last set (CommitLog.setConfirmOffset). */
  confirmPhyOffset = 0;
  #fh: fs.FileHandle | null = null;
  #writing: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  async load(): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    let exists = true;
    try {
      await fs.access(this.file);
    } catch {
      exists = false;
    }
    this.#fh = await fs.open(this.file, exists ? 'r+' : 'w+');
    if (exists) {
      const buf = Buffer.alloc(CHECKPOINT_BYTES);
      await this.#fh.read(buf, 0, CHECKPOINT_BYTES, 0);
      this.physicMsgTimestamp = readI64(buf, 0);
      this.logicsMsgTimestamp = readI64(buf, 8);
      this.indexMsgTimestamp = readI64(buf, 16);
      this.masterFlushedOffset = readI64(buf, 24);
      this.confirmPhyOffset = readI64(buf, 32);
    } else {
      await this.#fh.truncate(4096);
    }
  }

  /** Java's getMinTimestamp: min of physic and logics, minus 3 s, not below 0. */
  getMinTimestamp(): number {
    return Math.max(0, Math.min(this.physicMsgTimestamp, this.logicsMsgTimestamp) - 3000);
  }

  getMinTimestampIndex(): number {
    return Math.min(this.getMinTimestamp(), this.indexMsgTimestamp);
  }

  flush(): Promise<void> {
    const next = this.#writing.then(async () => {
      if (!this.#fh) return;
      const buf = Buffer.alloc(CHECKPOINT_BYTES);
      writeI64(buf, this.physicMsgTimestamp, 0);
      writeI64(buf, this.logicsMsgTimestamp, 8);
      writeI64(buf, this.indexMsgTimestamp, 16);
      writeI64(buf, this.masterFlushedOffset, 24);
      writeI64(buf, this.confirmPhyOffset, 32);
      await writeFully(this.#fh, buf, 0, CHECKPOINT_BYTES, 0);
      await this.#fh.datasync();
    });
    this.#writing = next.catch(() => undefined);
    return next;
  }

  async shutdown(): Promise<void> {
    await this.flush();
    const fh = this.#fh;
    this.#fh = null;
    await fh?.close();
  }
}
