/**
 * Offsets kept in a local file (broadcasting), in Java's location and format:
 * `<baseDir>/<clientId>/<group>/offsets.json` with baseDir `~/.rocketmq_offsets` (Java's
 * -Drocketmq.client.localOffsetStoreDir, here env `ROCKETMQ_CLIENT_LOCAL_OFFSET_STORE_DIR` or an option), holding
 * OffsetSerializeWrapper `{"offsetTable":{{"brokerName":..,"queueId":..,"topic":..}:offset,...}}`; the previous file
 * is kept as offsets.json.bak.
 *
 * @see org.apache.rocketmq.client.consumer.store.LocalFileOffsetStore
 * @see org.apache.rocketmq.client.consumer.store.OffsetSerializeWrapper
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type JsonObject, messageQueueBean, mqEntries, asLong, asObject } from '../../../protocol/body/body-util';
import { FastjsonMap, encodeFastjson, parseFastjson } from '../../../protocol/body/fastjson';
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { type Logger, componentLogger } from '../../logger';
import { type OffsetStore, OffsetTable, ReadOffsetType } from './offset-store';


export function defaultLocalOffsetStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.ROCKETMQ_CLIENT_LOCAL_OFFSET_STORE_DIR ?? path.join(os.homedir(), '.rocketmq_offsets');
}

/** OffsetSerializeWrapper as Java writes it. */
export function encodeOffsetFile(entries: Array<[MessageQueue, number]>): string {
  const table = new FastjsonMap<JsonObject, number>(entries.map(([mq, off]) => [messageQueueBean(mq), off]));
  return encodeFastjson({ offsetTable: table }).toString('utf8');
}

export function decodeOffsetFile(text: string): Array<[MessageQueue, number]> {
  const o = asObject(parseFastjson(text), 'OffsetSerializeWrapper');
  return mqEntries(o, 'offsetTable', (v) => asLong(v, 'offsetTable'));
}

export class LocalFileOffsetStore implements OffsetStore {
  readonly #table = new OffsetTable();
  readonly storePath: string;
  #writing: Promise<void> = Promise.resolve();

  readonly #log: Logger;

  constructor(clientId: string, private readonly groupName: string, baseDir: string = defaultLocalOffsetStoreDir(), logger?: Logger) {
    this.#log = componentLogger('offset-store', logger);
    this.storePath = path.join(baseDir, clientId, groupName, 'offsets.json');
  }

  async load(): Promise<void> {
    const entries = await this.#readLocalOffset();
    for (const [mq, offset] of entries) this.#table.update(mq, offset, false);
  }

  updateOffset(mq: MessageQueue, offset: number, increaseOnly: boolean): void {
    this.#table.update(mq, offset, increaseOnly);
  }

  async readOffset(mq: MessageQueue, type: ReadOffsetType): Promise<number> {
    if (type === ReadOffsetType.MEMORY_FIRST_THEN_STORE || type === ReadOffsetType.READ_FROM_MEMORY) {
      const off = this.#table.get(mq);
      if (off !== undefined) return off;
      if (type === ReadOffsetType.READ_FROM_MEMORY) return -1;
    }
    let entries: Array<[MessageQueue, number]>;
    try {
      entries = await this.#readLocalOffset();
    } catch {
      return -1;
    }
    const hit = entries.find(([q]) => OffsetTable.key(q) === OffsetTable.key(mq));
    if (!hit) return -1;
    this.#table.update(mq, hit[1], false);
    return hit[1];
  }

  async persistAll(mqs: readonly MessageQueue[]): Promise<void> {
    if (mqs.length === 0) return;
    const wanted = new Set(mqs.map(OffsetTable.key));
    const entries = this.#table.clone().filter(([mq]) => wanted.has(OffsetTable.key(mq)));
    await this.#write(encodeOffsetFile(entries));
  }

  async persist(_mq: MessageQueue): Promise<void> {
    // as Java: a single queue is persisted with the rest by persistAll
  }

  removeOffset(_mq: MessageQueue): void {
    // as Java: kept, the file holds every queue ever consumed in broadcasting
  }

  cloneOffsetTable(topic?: string): Array<[MessageQueue, number]> {
    return this.#table.clone(topic);
  }

  async updateConsumeOffsetToBroker(_mq: MessageQueue, _offset: number, _isOneway: boolean): Promise<void> {
    // broadcasting offsets never go to the broker
  }

  /** MixAll.string2File: write `.tmp`, move the old file to `.bak`, rename `.tmp` into place. Serialized. */
  #write(text: string): Promise<void> {
    const run = async (): Promise<void> => {
      await fsp.mkdir(path.dirname(this.storePath), { recursive: true });
      const tmp = `${this.storePath}.tmp`;
      await fsp.writeFile(tmp, text, 'utf8');
      try {
        await fsp.copyFile(this.storePath, `${this.storePath}.bak`);
      } catch {
        // no previous file
      }
      await fsp.rename(tmp, this.storePath);
    };
    this.#writing = this.#writing.then(run, run);
    return this.#writing;
  }

  async #readLocalOffset(): Promise<Array<[MessageQueue, number]>> {
    let text: string | undefined;
    try {
      text = await fsp.readFile(this.storePath, 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== undefined && text.length > 0) {
      try {
        return decodeOffsetFile(text);
      } catch (err) {
        this.#log.warn({ err, path: this.storePath, group: this.groupName }, 'offsets file unreadable, trying the .bak file');
      }
    }
    let bak: string;
    try {
      bak = await fsp.readFile(`${this.storePath}.bak`, 'utf8');
    } catch {
      return [];
    }
    return decodeOffsetFile(bak);
  }
}
