/**
 * The message index: UNIQ_KEY and each of KEYS indexed as `topic#key` across index files.
 *
 * @see org.apache.rocketmq.store.index.IndexService
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import { IndexFile, topicKeyHash } from './index-file';
import type { DispatchRequest } from './stored-record';

/** yyyyMMddHHmmssSSS in local time (Java's UtilAll.timeMillisToHumanString). */
export function timeMillisToHumanString(t: number): string {
  const d = new Date(t);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}${p(d.getMilliseconds(), 3)}`;
}

export interface QueryOffsetResult {
  phyOffsets: number[];
  indexLastUpdateTimestamp: number;
  indexLastUpdatePhyoffset: number;
}

export class IndexService {
  files: IndexFile[] = [];
  #chain: Promise<void> | null = null;

  constructor(
    readonly storePath: string,
    readonly hashSlotNum: number,
    readonly indexNum: number,
    readonly maxMsgsNumBatch: number,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {}

  /** Loads the index files; after a crash, files newer than the checkpoint's index time are dropped (rebuilt by dispatch). */
  async load(lastExitOK: boolean, indexMsgTimestamp: number): Promise<void> {
    let names: string[] = [];
    try {
      names = (await fs.readdir(this.storePath)).filter((n) => /^\d{17}$/.test(n)).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const f = await IndexFile.load(path.join(this.storePath, n), this.hashSlotNum, this.indexNum);
      if (!lastExitOK && f.endTimestamp > indexMsgTimestamp) {
        await f.destroy();
        continue;
      }
      this.files.push(f);
    }
  }

  /** Indexes one dispatched record. Synchronous unless a new file must be created. */
  buildIndex(req: DispatchRequest): void | Promise<void> {
    if (this.#chain) {
      const p = this.#chain.then(() => this.#build(req));
      this.#track(p);
      return p;
    }
    const r = this.#build(req);
    if (r) this.#track(r);
    return r;
  }

  #track(p: Promise<void>): void {
    const t: Promise<void> = p.catch((e) => this.log.error({ err: e }, 'build index failed')).finally(() => {
      if (this.#chain === t) this.#chain = null;
    });
    this.#chain = t;
  }

  async settled(): Promise<void> {
    while (this.#chain) await this.#chain;
  }

  /** The hashes of the record's index keys (`topic#uniqKey`, `topic#key` for each of KEYS), in that order. */
  #keyHashesOf(req: DispatchRequest): number[] {
    const out: number[] = [];
    if (req.uniqKey) out.push(topicKeyHash(req.topic, req.uniqKey));
    if (req.keys) for (const k of req.keys.split(' ')) if (k.length > 0) out.push(topicKeyHash(req.topic, k));
    return out;
  }

  #build(req: DispatchRequest): void | Promise<void> {
    const last = this.files[this.files.length - 1];
    if (last && req.commitLogOffset < last.endPhyOffset) return; // already indexed
    if ((req.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) === MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) return;
    // the usual record: its UNIQ_KEY alone, into the current file
    if (!req.keys && req.uniqKey && last && last.putKeyHash(topicKeyHash(req.topic, req.uniqKey), req.commitLogOffset, req.storeTimestamp)) return;
    const hashes = this.#keyHashesOf(req);
    if (hashes.length === 0) return;
    let f = last;
    let i = 0;
    while (f && i < hashes.length && f.putKeyHash(hashes[i], req.commitLogOffset, req.storeTimestamp)) i++;
    if (i === hashes.length) return;
    return (async () => {
      for (; i < hashes.length; i++) {
        if (!f || f.isWriteFull()) f = await this.#createFile();
        f.putKeyHash(hashes[i], req.commitLogOffset, req.storeTimestamp);
      }
    })();
  }

  async #createFile(): Promise<IndexFile> {
    const prev = this.files[this.files.length - 1];
    await fs.mkdir(this.storePath, { recursive: true });
    let name = timeMillisToHumanString(this.now());
    while (this.files.some((f) => path.basename(f.fileName) === name)) name = String(Number(name) + 1);
    const f = await IndexFile.create(path.join(this.storePath, name), this.hashSlotNum, this.indexNum,
      prev ? prev.endPhyOffset : 0, prev ? prev.endTimestamp : 0);
    this.files.push(f);
    if (prev) await prev.flush();
    return f;
  }

  async queryOffset(topic: string, key: string, maxNum: number, begin: number, end: number): Promise<QueryOffsetResult> {
    const phyOffsets: number[] = [];
    let indexLastUpdateTimestamp = 0;
    let indexLastUpdatePhyoffset = 0;
    maxNum = Math.min(maxNum, this.maxMsgsNumBatch);
    const files = [...this.files];
    for (let i = files.length; i > 0; i--) {
      const f = files[i - 1];
      if (i === files.length) {
        indexLastUpdateTimestamp = f.endTimestamp;
        indexLastUpdatePhyoffset = f.endPhyOffset;
      }
      if (f.isTimeMatched(begin, end)) await f.selectPhyOffset(phyOffsets, `${topic}#${key}`, maxNum, begin, end);
      if (f.beginTimestamp < begin) break;
      if (phyOffsets.length >= maxNum) break;
    }
    return { phyOffsets, indexLastUpdateTimestamp, indexLastUpdatePhyoffset };
  }

  /**
   * Drops the entries pointing at or beyond commit-log offset `offset` (a truncated commit log): newer files that
   * hold only such entries are deleted, the file holding the last kept entry is cut back.
   */
  async truncate(offset: number): Promise<void> {
    await this.settled();
    while (this.files.length > 0) {
      const f = this.files[this.files.length - 1];
      if (f.indexCount > 1 && f.endPhyOffset < offset) return;
      if (f.indexCount > 1 && (await f.truncate(offset)) > 0) return;
      if (f.indexCount <= 1 && f.endPhyOffset < offset) return;
      this.files.pop();
      await f.destroy();
      this.log.info({ file: f.fileName, offset }, 'index file dropped by a commit-log truncation');
    }
  }

  /** Deletes index files whose last entry lies before `offset` (never the newest). */
  async deleteExpiredFile(offset: number): Promise<void> {
    while (this.files.length > 1 && this.files[0].endPhyOffset < offset) {
      const f = this.files.shift()!;
      await f.destroy();
    }
  }

  /**
   * Writes the newest file's new keys, and fdatasyncs it with `sync` (a full file is synced when the next one is
   * created); returns its end timestamp (the checkpoint's index time).
   */
  async flush(sync = true): Promise<number> {
    await this.settled();
    const last = this.files[this.files.length - 1];
    const ts = last ? last.endTimestamp : 0;
    if (last) await last.flush(sync);
    return ts;
  }

  async destroy(): Promise<void> {
    for (const f of this.files) await f.destroy();
    this.files = [];
  }

  async close(): Promise<void> {
    for (const f of this.files) await f.flush().catch(() => undefined);
    for (const f of this.files) await f.close();
  }
}
