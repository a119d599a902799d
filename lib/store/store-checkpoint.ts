/**
 * The checkpoint file (one OS page): physicMsgTimestamp i64 @0, logicsMsgTimestamp i64 @8, indexMsgTimestamp i64 @16.
 *
 * @see org.apache.rocketmq.store.StoreCheckpoint
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { readI64, writeI64 } from './stored-record';

export class StoreCheckpoint {
  physicMsgTimestamp = 0;
  logicsMsgTimestamp = 0;
  indexMsgTimestamp = 0;
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
      const buf = Buffer.alloc(24);
      await this.#fh.read(buf, 0, 24, 0);
      this.physicMsgTimestamp = readI64(buf, 0);
      this.logicsMsgTimestamp = readI64(buf, 8);
      this.indexMsgTimestamp = readI64(buf, 16);
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
      const buf = Buffer.alloc(24);
      writeI64(buf, this.physicMsgTimestamp, 0);
      writeI64(buf, this.logicsMsgTimestamp, 8);
      writeI64(buf, this.indexMsgTimestamp, 16);
      await this.#fh.write(buf, 0, 24, 0);
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
