/**
 * Base of the JSON-persisted managers (topics.json, subscriptionGroup.json, consumerOffset.json): load from the
 * file, else from its `.bak`; persist atomically (write a temp file, keep the previous as `.bak`, rename).
 *
 * @see org.apache.rocketmq.common.ConfigManager
 * @see org.apache.rocketmq.common.MixAll#string2File
 */
import fsp from 'node:fs/promises';
import { string2File } from '../store/config-file';
import path from 'node:path';
import type { Logger } from '../logger';

export abstract class ConfigManager {
  #persisting: Promise<void> | null = null;
  #again = false;

  protected constructor(protected readonly logger: Logger) {}

  /** The file this manager persists to. */
  abstract configFilePath(): string;
  /** The JSON text of the current state. */
  abstract encode(): string;
  /** Replaces the state with the file's JSON text. */
  abstract decode(text: string): void;

  /** Loads the file, or its .bak when the file is missing or unreadable. Returns false only if both fail to parse. */
  async load(): Promise<boolean> {
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
          await string2File(this.encode(), this.configFilePath());
        } while (this.#again);
      } catch (err) {
        this.logger.error({ err, file: this.configFilePath() }, 'persist config failed');
      } finally {
        this.#persisting = null;
      }
    })();
    return this.#persisting;
  }

  /** Persists now and waits for the write (shutdown path). */
  async persistNow(): Promise<void> {
    if (this.#persisting) await this.#persisting;
    await string2File(this.encode(), this.configFilePath());
  }
}

export function configDir(storePathRootDir: string): string {
  return path.join(storePathRootDir, 'config');
}
