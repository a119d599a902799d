/**
 * Base of the JSON-persisted managers (topics.json, subscriptionGroup.json, consumerOffset.json): load from the
 * file, else from its `.bak`; persist atomically (write a temp file, keep the previous as `.bak`, rename).
 *
 * A manager whose entries change one at a time (topics, subscription groups) may journal them instead
 * (`persistChange`): each change is one line appended to `<file>.log`, and the whole file is written again only when
 * the journal has grown as large as the file (then the journal starts over), so a change costs the same with 50
 * entries or 50,000 (Java writes the whole file per change). Loading replays the journal over the file; a clean
 * shutdown (`persistNow`) writes the whole file and removes the journal, so Java reads a complete file.
 *
 * @see org.apache.rocketmq.common.ConfigManager
 * @see org.apache.rocketmq.common.MixAll#string2File
 */
import fsp from 'node:fs/promises';
import { string2File } from '../store/config-file';
import path from 'node:path';
import type { Logger } from '../logger';
import { type DataVersion, dataVersionFromJson, dataVersionToJson } from '../../protocol/body/data-version';
import type { JsonObject } from '../../protocol/body/body-util';

export abstract class ConfigManager {
  #persisting: Promise<void> | null = null;
  #again = false;
  /** Journal appends and rotations, in order. */
  #journalChain: Promise<void> = Promise.resolve();
  #journalBytes = 0;
  /** Lines waiting for their append (those that arrive while one is on its way share the next). */
  #batch: { lines: string[]; written: Promise<void> } | null = null;
  /** Journal appends made (for tests: a burst of changes shares appends). */
  journalAppends = 0;
  /** Size of the whole file when last written (0: unknown). */
  #fileBytes = 0;
  /** Whole-file writes started because the journal outgrew the file (for tests). */
  compactions = 0;

  protected constructor(protected readonly logger: Logger) {}

  /** The file this manager persists to. */
  abstract configFilePath(): string;
  /** The JSON text of the current state. */
  abstract encode(): string;
  /** Replaces the state with the file's JSON text. */
  abstract decode(text: string): void;

  /** Applies one journal line (see `persistChange`); journaling managers override it. */
  protected applyChange(_line: string): void {
    throw new Error(`${this.constructor.name} keeps no journal`);
  }

  /**
   * Journals a change to a keyed table: `{"put":<entry JSON>,"dataVersion":..}` or `{"delete":"<key>","dataVersion":..}`
   * (`put` null: `key` was deleted).
   */
  protected persistTableChange(key: string, put: JsonObject | null, dataVersion: DataVersion): Promise<void> {
    const change = put ? { put } : { delete: key };
    return this.persistChange(JSON.stringify({ ...change, dataVersion: dataVersionToJson(dataVersion) }));
  }

  /** Applies a `persistTableChange` line to `table`; returns the data version it carries. */
  protected applyTableChange<T>(line: string, table: Map<string, T>, fromJson: (v: unknown) => T, keyOf: (entry: T) => string): DataVersion {
    const o = JSON.parse(line) as { put?: unknown; delete?: unknown; dataVersion?: unknown };
    const dataVersion = dataVersionFromJson(o.dataVersion);
    if (o.put !== undefined) {
      const entry = fromJson(o.put);
      table.set(keyOf(entry), entry);
    } else if (typeof o.delete === 'string') table.delete(o.delete);
    else throw new Error('a journal line with neither put nor delete');
    return dataVersion;
  }

  /** Loads the file (or its .bak), then replays the journal over it. Returns false only if both fail to parse. */
  async load(): Promise<boolean> {
    const ok = await this.#loadFile();
    // What a journal held goes into the file at once, so at run time `.log.old` exists only during a whole write.
    if (await this.#replayJournal()) await this.#writeWhole();
    return ok;
  }

  /** Applies `<file>.log.old` then `<file>.log`; true when either was there. */
  async #replayJournal(): Promise<boolean> {
    let found = false;
    for (const file of [this.#journalPath('.old'), this.#journalPath('')]) {
      let text: string;
      try {
        text = await fsp.readFile(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      found = true;
      let applied = 0;
      for (const line of text.split('\n')) {
        if (line.length === 0) continue;
        try {
          this.applyChange(line);
          applied++;
        } catch (err) {
          // A line cut by a crash is the last one; nothing after it was acknowledged.
          this.logger.warn({ err, file }, 'journal line unreadable, ignored');
        }
      }
      if (applied > 0) this.logger.info({ file, applied }, 'config journal replayed');
    }
    return found;
  }

  #journalPath(suffix: string): string {
    return `${this.configFilePath()}.log${suffix}`;
  }

  /**
   * Persists one change as a journal line (its text must not contain a newline); resolves once the line is written
   * (to the page cache, as Java writes its config files) or the failure is logged. Writes the whole file in the
   * background when the journal has grown past it.
   */
  persistChange(line: string): Promise<void> {
    if (this.#batch) {
      this.#batch.lines.push(line);
      return this.#batch.written;
    }
    const batch = { lines: [line], written: Promise.resolve() };
    this.#batch = batch;
    batch.written = this.#journalChain.then(async () => {
      this.#batch = null;
      const data = `${batch.lines.join('\n')}\n`;
      // Opened per append: a create is a network round trip anyway, and no handle outlives a manager never shut
      // down; a burst of changes shares one append.
      await fsp.mkdir(path.dirname(this.configFilePath()), { recursive: true });
      await fsp.appendFile(this.#journalPath(''), data);
      this.journalAppends++;
      this.#journalBytes += Buffer.byteLength(data);
      if (!this.#persisting && this.#journalBytes > Math.max(64 * 1024, this.#fileBytes)) {
        this.compactions++;
        void this.persist();
      }
    }).catch((err: unknown) => {
      // As a failed whole write: logged, the table in memory kept (Java's persist).
      this.logger.error({ err, file: this.#journalPath('') }, 'config journal append failed');
    });
    this.#journalChain = batch.written;
    return batch.written;
  }

  /**
   * Writes the whole file. The journal starts over first: the old one is kept as `<file>.log.old` until the file
   * holds what it held (changes made meanwhile go to the new journal; replaying a change twice is harmless).
   */
  async #writeWhole(): Promise<void> {
    let text = '';
    const rotated = this.#journalChain.then(async () => {
      this.#journalBytes = 0;
      // A journal may be there from before a restart too.
      await fsp.rename(this.#journalPath(''), this.#journalPath('.old')).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      text = this.encode();
    });
    this.#journalChain = rotated.catch(() => undefined);
    await rotated;
    await string2File(text, this.configFilePath());
    this.#fileBytes = Buffer.byteLength(text);
    await fsp.rm(this.#journalPath('.old'), { force: true });
  }

  async #loadFile(): Promise<boolean> {
    const file = this.configFilePath();
    for (const candidate of [file, `${file}.bak`]) {
      let text: string;
      try {
        text = await fsp.readFile(candidate, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        this.logger.error({ err, file: candidate }, 'config file unreadable');
        continue;
      }
      if (text.trim() === '') continue;
      try {
        this.decode(text);
        this.#fileBytes = Buffer.byteLength(text);
        this.logger.info({ file: candidate }, 'config loaded');
        return true;
      } catch (err) {
        this.logger.error({ err, file: candidate }, 'config file corrupt');
        if (candidate.endsWith('.bak')) return false;
      }
    }
    return true;
  }

  /** Persists the current state; concurrent calls coalesce into at most one more write. */
  persist(): Promise<void> {
    if (this.#persisting) {
      this.#again = true;
      return this.#persisting;
    }
    this.#persisting = (async () => {
      try {
        do {
          this.#again = false;
          await this.#writeWhole();
        } while (this.#again);
      } catch (err) {
        this.logger.error({ err, file: this.configFilePath() }, 'persist config failed');
      } finally {
        this.#persisting = null;
      }
    })();
    return this.#persisting;
  }

  /** Persists now and waits for the write (shutdown path); the journal, now in the file, is removed. */
  async persistNow(): Promise<void> {
    if (this.#persisting) await this.#persisting;
    await this.#writeWhole();
  }
}

export function configDir(storePathRootDir: string): string {
  return path.join(storePathRootDir, 'config');
}
