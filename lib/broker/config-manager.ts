/**
 * Base of the JSON-persisted managers (topics.json, subscriptionGroup.json, consumerOffset.json): load from the
 * file, else from its `.bak`; persist atomically (write a temp file, keep the previous as `.bak`, rename).
 *
 * @see org.apache.rocketmq.common.ConfigManager
 * @see org.apache.rocketmq.common.MixAll#string2File
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../logger';

/** Writes `text` to `file` atomically, keeping the previous content as `file.bak` (Java MixAll.string2File). */
export async function writeConfigFile(file: string, text: string): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  const fh = await fsp.open(tmp, 'w');
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fsp.copyFile(file, `${file}.bak`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await fsp.rename(tmp, file);
}

/** The synchronous variant, for persisting on the way out of the process. */
export function writeConfigFileSync(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, text, 'utf8');
  try {
    fs.copyFileSync(file, `${file}.bak`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.renameSync(tmp, file);
}

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
          await writeConfigFile(this.configFilePath(), this.encode());
        } while (this.#again);
      } catch (err) {
        this.logger.error({ err, file: this.configFilePath() }, 'persist config failed');
      } finally {
        this.#persisting = null;
      }
    })();
    return this.#persisting;
  }

  /** Persists synchronously (shutdown path, after pending async writes are done). */
  async persistNow(): Promise<void> {
    if (this.#persisting) await this.#persisting;
    writeConfigFileSync(this.configFilePath(), this.encode());
  }
}

export function configDir(storePathRootDir: string): string {
  return path.join(storePathRootDir, 'config');
}
