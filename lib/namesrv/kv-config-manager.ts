/**
 * Namespaced key/value configuration (ORDER_TOPIC_CONFIG and whatever `mqadmin updateKvConfig` puts),
 * persisted as Java's KVConfigSerializeWrapper: `{"configTable":{"<namespace>":{"<key>":"<value>"}}}`.
 *
 * Writes are atomic as Java's MixAll.string2File: the new content goes to `<file>.tmp`, the previous content
 * is copied to `<file>.bak`, then the temp file is renamed over the file. Writes are serialized. `load()`
 * reads the file (falling back to `.bak` when the file is missing or unreadable).
 *
 * @see org.apache.rocketmq.namesrv.kvconfig.KVConfigManager
 * @see org.apache.rocketmq.namesrv.kvconfig.KVConfigSerializeWrapper
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { asObject } from '../../protocol/body/body-util';
import { encodeFastjson, parseFastjson } from '../../protocol/body/fastjson';
import { encodeKVTable } from '../../protocol/body/kv-table';
import { type Logger, componentLogger } from '../logger';
import { javaHashOrderKeys } from '../../protocol/message/java-hash';

/** Java NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG. */
export const NAMESPACE_ORDER_TOPIC_CONFIG = 'ORDER_TOPIC_CONFIG';

export class KVConfigManager {
  readonly configTable = new Map<string, Map<string, string>>();
  readonly #logger: Logger;
  #writing: Promise<void> = Promise.resolve();

  constructor(readonly kvConfigPath: string, logger?: Logger) {
    this.#logger = componentLogger('namesrv-kv', logger);
  }

  /** Loads the persisted table (no file: empty). A corrupt file falls back to `.bak`, else throws. */
  async load(): Promise<void> {
    let text = await readText(this.kvConfigPath);
    let parsed: Map<string, Map<string, string>> | null = null;
    if (text !== null) {
      try {
        parsed = parseKVConfig(text);
      } catch (err) {
        this.#logger.error({ err, file: this.kvConfigPath }, 'kvConfig file is corrupt, trying the backup');
      }
    }
    if (!parsed) {
      text = await readText(`${this.kvConfigPath}.bak`);
      if (text !== null) parsed = parseKVConfig(text);
    }
    if (!parsed) return;
    for (const [ns, table] of parsed) this.configTable.set(ns, table);
    this.#logger.info({ file: this.kvConfigPath, namespaces: parsed.size }, 'load KV config table OK');
  }

  async putKVConfig(namespace: string, key: string, value: string): Promise<void> {
    let table = this.configTable.get(namespace);
    if (!table) {
      table = new Map();
      this.configTable.set(namespace, table);
      this.#logger.info({ namespace }, 'putKVConfig create new Namespace');
    }
    const prev = table.get(key);
    table.set(key, value);
    this.#logger.info({ namespace, key, value, prev }, prev === undefined ? 'putKVConfig create new config item' : 'putKVConfig update config item');
    await this.persist();
  }

  async deleteKVConfig(namespace: string, key: string): Promise<void> {
    const table = this.configTable.get(namespace);
    if (table && table.delete(key)) this.#logger.info({ namespace, key }, 'deleteKVConfig delete a config item');
    await this.persist();
  }

  getKVConfig(namespace: string, key: string): string | undefined {
    return this.configTable.get(namespace)?.get(key);
  }

  /** The namespace as an encoded KVTable `{"table":{...}}`, or null when the namespace does not exist. */
  getKVListByNamespace(namespace: string): Buffer | null {
    const table = this.configTable.get(namespace);
    if (!table) return null;
    const ordered = new Map<string, string>();
    for (const k of javaHashOrderKeys(table.keys())) ordered.set(k, table.get(k) as string);
    return encodeKVTable({ table: ordered });
  }

  /** The file content Java writes: `{"configTable":{...}}`. */
  toJson(): string {
    const configTable = new Map<string, Map<string, string>>();
    for (const ns of javaHashOrderKeys(this.configTable.keys())) {
      const table = this.configTable.get(ns) as Map<string, string>;
      const ordered = new Map<string, string>();
      for (const k of javaHashOrderKeys(table.keys())) ordered.set(k, table.get(k) as string);
      configTable.set(ns, ordered);
    }
    return encodeFastjson({ configTable }).toString('utf8');
  }

  /** Writes the table (atomically, keeping a .bak); resolves once this state is on disk. */
  persist(): Promise<void> {
    const content = this.toJson();
    const next = this.#writing.catch(() => undefined).then(() => atomicWrite(this.kvConfigPath, content));
    this.#writing = next;
    return next.catch((err: unknown) => {
      this.#logger.error({ err, file: this.kvConfigPath }, 'persist kvConfig Exception');
      throw err;
    });
  }

  /** Waits for the writes under way. */
  async flush(): Promise<void> {
    await this.#writing.catch(() => undefined);
  }
}

function parseKVConfig(text: string): Map<string, Map<string, string>> {
  const root = asObject(parseFastjson(text), 'KVConfigSerializeWrapper');
  const out = new Map<string, Map<string, string>>();
  const table = root.configTable === undefined || root.configTable === null ? {} : asObject(root.configTable, 'configTable');
  for (const [ns, kv] of Object.entries(table)) {
    const m = new Map<string, string>();
    if (kv !== null && kv !== undefined) {
      for (const [k, v] of Object.entries(asObject(kv, ns))) if (v !== null && v !== undefined) m.set(k, String(v));
    }
    out.set(ns, m);
  }
  return out;
}

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Writes in progress by file: writes of one file run one after the other (they share `<file>.tmp`). */
const writesInProgress = new Map<string, Promise<void>>();

/**
 * Java MixAll.string2File: `<file>.tmp`, previous content to `<file>.bak`, rename. Concurrent calls for one file are
 * queued (two writers of one `.tmp` would interleave, and the second rename would find no file); the last call's
 * content is what the file holds once they have all resolved.
 */
export function atomicWrite(file: string, content: string): Promise<void> {
  const previous = writesInProgress.get(file) ?? Promise.resolve();
  const mine = previous.catch(() => undefined).then(() => writeReplacing(file, content));
  writesInProgress.set(file, mine);
  void mine.catch(() => undefined).then(() => {
    if (writesInProgress.get(file) === mine) writesInProgress.delete(file);
  });
  return mine;
}

async function writeReplacing(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  await writeFile(tmp, content, 'utf8');
  const prev = await readText(file);
  if (prev !== null) await writeFile(`${file}.bak`, prev, 'utf8');
  await rename(tmp, file);
}
