/**
 * Config JSON files the broker keeps in the store (`config/topics.json`, `consumerOffset.json`,
 * `subscriptionGroup.json`, `delayOffset.json`): written atomically (temp file, fsync, rename) with the previous
 * content kept as `<file>.bak`, read back falling back to the `.bak`.
 *
 * @see org.apache.rocketmq.common.ConfigManager
 * @see org.apache.rocketmq.common.MixAll#string2File
 */
import fs from 'node:fs/promises';
import path from 'node:path';

const chains = new Map<string, Promise<void>>();

async function fsyncDir(dir: string): Promise<void> {
  try {
    const fh = await fs.open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Not supported on every platform.
  }
}

async function writeNow(file: string, content: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  const fh = await fs.open(tmp, 'w');
  try {
    await fh.writeFile(content, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fs.copyFile(file, `${file}.bak`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await fs.rename(tmp, file);
  await fsyncDir(path.dirname(file));
}

/** Writes `content` to `file` atomically, keeping the old content in `<file>.bak`. Writes to one file are serialized. */
export function string2File(content: string, file: string): Promise<void> {
  const prev = chains.get(file) ?? Promise.resolve();
  const next = prev.then(() => writeNow(file, content));
  const tracked = next.catch(() => undefined);
  chains.set(file, tracked);
  void tracked.then(() => {
    if (chains.get(file) === tracked) chains.delete(file);
  });
  return next;
}

/** The file's content, or null when it does not exist. */
export async function file2String(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Loads a config file the way Java's ConfigManager.load does: the file, or its `.bak` when the file is missing,
 * empty or fails to `decode`. Returns null when neither is usable.
 */
export async function loadConfigFile<T>(file: string, decode: (text: string) => T): Promise<T | null> {
  for (const f of [file, `${file}.bak`]) {
    const text = await file2String(f);
    if (text === null || text.trim() === '') continue;
    try {
      return decode(text);
    } catch {
      // fall back to the .bak
    }
  }
  return null;
}

/** Java's config file names under `<storePathRootDir>/config`. */
export const ConfigFileNames = {
  topics: 'topics.json',
  consumerOffset: 'consumerOffset.json',
  subscriptionGroup: 'subscriptionGroup.json',
  delayOffset: 'delayOffset.json',
  consumerFilter: 'consumerFilter.json',
} as const;
