/**
 * The epoch file of controller mode (`epochFileCheckpoint`): which master epoch wrote which range of the commit log,
 * so that replicas find the point where their logs agree (findConsistentPoint) and truncate what lies beyond.
 * The file is Java's CheckpointFile: the entry count, the CRC32 (masked to 31 bits, 0 = unchecked) of the entry
 * lines, then one `<epoch>-<startOffset>` line per entry, `\n` line ends; the previous content is kept in `.bak`
 * and read when the file is missing, empty or damaged. An entry's end offset is the next one's start (the last's is
 * open, Long.MAX_VALUE in Java: Number.MAX_SAFE_INTEGER here).
 *
 * @see org.apache.rocketmq.store.ha.autoswitch.EpochFileCache
 * @see org.apache.rocketmq.common.utils.CheckpointFile
 * @see org.apache.rocketmq.remoting.protocol.EpochEntry
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from '../../../protocol/message/compression';
import { MessageStoreError } from '../../errors';

/** Java's EpochEntry default end offset (Long.MAX_VALUE), as far as a JS number goes. */
export const EPOCH_OPEN_END = Number.MAX_SAFE_INTEGER;

export interface EpochEntry {
  epoch: number;
  startOffset: number;
  endOffset: number;
}

/** UtilAll.crc32: CRC32 & 0x7FFFFFFF. */
function javaCrc32(text: string): number {
  return crc32(Buffer.from(text, 'utf8')) & 0x7fffffff;
}

/** Encodes entries as CheckpointFile writes them (nothing for an empty list: Java writes no file then). */
export function encodeEpochCheckpoint(entries: readonly { epoch: number; startOffset: number }[]): string {
  const lines = entries.map((e) => `${e.epoch}-${e.startOffset}\n`).join('');
  return `${entries.length}\n${javaCrc32(lines)}\n${lines}`;
}

/** Decodes a CheckpointFile's text; throws on a count or CRC that does not match (Java's IOException). */
export function decodeEpochCheckpoint(text: string, file = 'epochFileCheckpoint'): { epoch: number; startOffset: number }[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length < 2) throw new MessageStoreError(`${file}: no entry count and CRC`);
  const expected = Number.parseInt(lines[0], 10);
  const expectedCrc = Number.parseInt(lines[1], 10);
  if (!Number.isInteger(expected) || !Number.isInteger(expectedCrc)) throw new MessageStoreError(`${file}: bad header`);
  const out: { epoch: number; startOffset: number }[] = [];
  let body = '';
  for (const line of lines.slice(2)) {
    body += `${line}\n`;
    const parts = line.split('-');
    if (parts.length === 2) out.push({ epoch: Number.parseInt(parts[0], 10), startOffset: Number(parts[1]) });
  }
  if (out.length !== expected) throw new MessageStoreError(`${file}: expect ${expected} entries, only found ${out.length} entries`);
  if (expectedCrc !== 0 && javaCrc32(body) !== expectedCrc) throw new MessageStoreError(`${file}: entries crc32 not match`);
  return out;
}

export class EpochFileCache {
  /** By epoch, ascending. */
  readonly #entries = new Map<number, EpochEntry>();
  #writing: Promise<void> = Promise.resolve();

  constructor(readonly filePath: string | null = null) {}

  /** Loads the file (else its `.bak`); a missing file is an empty cache. */
  async initCacheFromFile(): Promise<void> {
    if (!this.filePath) return;
    let entries: { epoch: number; startOffset: number }[];
    try {
      entries = await this.#read(this.filePath);
      if (entries.length === 0) entries = await this.#read(`${this.filePath}.bak`);
    } catch {
      entries = await this.#read(`${this.filePath}.bak`);
    }
    this.#init(entries);
  }

  async initCacheFromEntries(entries: readonly { epoch: number; startOffset: number }[]): Promise<void> {
    this.#init(entries);
    await this.#flush();
  }

  async #read(file: string): Promise<{ epoch: number; startOffset: number }[]> {
    let text: string;
    try {
      text = await fs.promises.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return decodeEpochCheckpoint(text, file);
  }

  #init(entries: readonly { epoch: number; startOffset: number }[]): void {
    this.#entries.clear();
    const sorted = [...entries].sort((a, b) => a.epoch - b.epoch);
    sorted.forEach((e, i) => {
      this.#entries.set(e.epoch, { epoch: e.epoch, startOffset: e.startOffset, endOffset: i + 1 < sorted.length ? sorted[i + 1].startOffset : EPOCH_OPEN_END });
    });
  }

  get entrySize(): number {
    return this.#entries.size;
  }

  #sorted(): EpochEntry[] {
    return [...this.#entries.values()].sort((a, b) => a.epoch - b.epoch);
  }

  /** Appends a new epoch starting at `startOffset`: both must be above the last entry's (else false, nothing written). */
  async appendEntry(entry: { epoch: number; startOffset: number }): Promise<boolean> {
    const last = this.lastEntry();
    if (last && (last.epoch >= entry.epoch || last.startOffset >= entry.startOffset)) return false;
    if (last) this.#entries.get(last.epoch)!.endOffset = entry.startOffset;
    this.#entries.set(entry.epoch, { epoch: entry.epoch, startOffset: entry.startOffset, endOffset: EPOCH_OPEN_END });
    await this.#flush();
    return true;
  }

  /**
   * appendEntry, except that a last entry starting where `entry` starts (its epoch wrote nothing here) is replaced
   * instead of refusing the new one. Java's appendEntry refuses it and the records of the new epoch would then be
   * filed under the empty one: a replica that wrote records of that empty epoch elsewhere (an old master killed
   * before they were replicated) would find a consistent point beyond where the two logs agree.
   */
  async appendEntryOverEmpty(entry: { epoch: number; startOffset: number }): Promise<boolean> {
    const last = this.lastEntry();
    if (last && last.epoch < entry.epoch && last.startOffset === entry.startOffset) {
      this.#entries.delete(last.epoch);
      const prev = this.lastEntry();
      if (prev) this.#entries.get(prev.epoch)!.endOffset = EPOCH_OPEN_END;
    }
    return this.appendEntry(entry);
  }

  /** Closes the last entry at `endOffset` (in memory, as Java). */
  setLastEpochEntryEndOffset(endOffset: number): void {
    const last = this.lastEntry();
    if (last && last.startOffset <= endOffset) this.#entries.get(last.epoch)!.endOffset = endOffset;
  }

  firstEntry(): EpochEntry | null {
    const s = this.#sorted();
    return s.length ? { ...s[0] } : null;
  }

  lastEntry(): EpochEntry | null {
    const s = this.#sorted();
    return s.length ? { ...s[s.length - 1] } : null;
  }

  /** The last epoch, -1 when empty. */
  lastEpoch(): number {
    return this.lastEntry()?.epoch ?? -1;
  }

  getEntry(epoch: number): EpochEntry | null {
    const e = this.#entries.get(epoch);
    return e ? { ...e } : null;
  }

  findEpochEntryByOffset(offset: number): EpochEntry | null {
    const e = this.#sorted().find((x) => x.startOffset <= offset && x.endOffset > offset);
    return e ? { ...e } : null;
  }

  /** The first entry with an epoch above `epoch`. */
  nextEntry(epoch: number): EpochEntry | null {
    const e = this.#sorted().find((x) => x.epoch > epoch);
    return e ? { ...e } : null;
  }

  getAllEntries(): EpochEntry[] {
    return this.#sorted().map((e) => ({ ...e }));
  }

  /**
   * Where this log and `other` agree: from the latest epoch down, the first one both hold with the same start
   * offset gives min(both end offsets); -1 when none.
   */
  findConsistentPoint(other: EpochFileCache): number {
    for (const local of this.#sorted().reverse()) {
      const o = other.getEntry(local.epoch);
      if (o && o.startOffset === local.startOffset) return Math.min(local.endOffset, o.endOffset);
    }
    return -1;
  }

  /** Removes the entries with epoch >= `epoch`; the new last entry is open again. */
  truncateSuffixByEpoch(epoch: number): Promise<void> {
    return this.#truncateSuffix((e) => e.epoch >= epoch);
  }

  /** Removes the entries starting at or after `offset`; the new last entry is open again. */
  truncateSuffixByOffset(offset: number): Promise<void> {
    return this.#truncateSuffix((e) => e.startOffset >= offset);
  }

  async #truncateSuffix(drop: (e: EpochEntry) => boolean): Promise<void> {
    for (const e of [...this.#entries.values()]) if (drop(e)) this.#entries.delete(e.epoch);
    const last = this.lastEntry();
    if (last) this.#entries.get(last.epoch)!.endOffset = EPOCH_OPEN_END;
    await this.#flush();
  }

  /** Removes the entries that end at or before `offset` (the commit log's files below it were deleted). */
  async truncatePrefixByOffset(offset: number): Promise<void> {
    for (const e of [...this.#entries.values()]) if (e.endOffset <= offset) this.#entries.delete(e.epoch);
    await this.#flush();
  }

  /**
   * Writes the file, one write at a time (two at once would share the `.tmp` file: the second rename finds it gone),
   * each with the entries as they are when it starts.
   */
  #flush(): Promise<void> {
    const next = this.#writing.then(() => this.#write());
    this.#writing = next.catch(() => undefined);
    return next;
  }

  /** Writes the file as MixAll.string2File: the previous content to `.bak` first. An empty cache writes nothing. */
  async #write(): Promise<void> {
    if (!this.filePath || this.#entries.size === 0) return;
    const text = encodeEpochCheckpoint(this.#sorted());
    await fs.promises.mkdir(path.dirname(this.filePath), { recursive: true });
    try {
      await fs.promises.copyFile(this.filePath, `${this.filePath}.bak`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const tmp = `${this.filePath}.tmp`;
    const fh = await fs.promises.open(tmp, 'w');
    try {
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(tmp, this.filePath);
  }
}
