/** Shared helpers for the store tests (not a test file). */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readI64 } from '../../../lib/store/stored-record';
import { stringToProperties, type MessageProperties } from '../../../protocol/message/properties';
import type { MessageExtBrokerInner } from '../../../lib/store/commit-log';
import { DefaultMessageStore } from '../../../lib/store/message-store';

export async function tempDir(prefix = 'rmq-store-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

export async function copyDir(from: string, to: string): Promise<void> {
  await fs.cp(from, to, { recursive: true });
  // Golden files are read-only; the store must write them.
  const walk = async (d: string): Promise<void> => {
    await fs.chmod(d, 0o755);
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else await fs.chmod(p, 0o644);
    }
  };
  await walk(to);
}

export interface DecodedRecord {
  totalSize: number;
  queueId: number;
  queueOffset: number;
  physicalOffset: number;
  sysFlag: number;
  storeTimestamp: number;
  body: Buffer;
  topic: string;
  properties: MessageProperties;
}

/** A minimal independent decoder of one stored record (V1 magic), for assertions. */
export function decodeRecord(b: Buffer): DecodedRecord {
  const sysFlag = b.readInt32BE(36);
  const bornLen = (sysFlag & 0x10) === 0 ? 8 : 20;
  const storeLen = (sysFlag & 0x20) === 0 ? 8 : 20;
  let p = 48 + bornLen;
  const storeTimestamp = readI64(b, p);
  p += 8 + storeLen + 4 + 8;
  const bodyLen = b.readInt32BE(p);
  p += 4;
  const body = b.subarray(p, p + bodyLen);
  p += bodyLen;
  const topicLen = b.readUInt8(p);
  p += 1;
  const topic = b.toString('utf8', p, p + topicLen);
  p += topicLen;
  const propLen = b.readInt16BE(p);
  p += 2;
  return {
    totalSize: b.readInt32BE(0), queueId: b.readInt32BE(12), queueOffset: readI64(b, 20), physicalOffset: readI64(b, 28),
    sysFlag, storeTimestamp, body, topic, properties: stringToProperties(b.toString('utf8', p, p + propLen)),
  };
}

export function makeMessage(topic: string, queueId: number, body: Buffer | string, props: MessageProperties = {}): MessageExtBrokerInner {
  let propertiesString = '';
  for (const [k, v] of Object.entries(props)) propertiesString += `${k}\u0001${v}\u0002`;
  return {
    topic, queueId, flag: 0, body: Buffer.isBuffer(body) ? body : Buffer.from(body), propertiesString,
    bornTimestamp: Date.now(), bornHost: { host: '127.0.0.1', port: 50000 }, sysFlag: 0, reconsumeTimes: 0,
    preparedTransactionOffset: 0,
  };
}

export const SMALL = {
  mappedFileSizeCommitLog: 1048576,
  mappedFileSizeConsumeQueue: 6000,
  maxHashSlotNum: 1000,
  maxIndexNum: 4000,
} as const;

/**
 * Mocha hooks for tests on a store in a fresh temp dir: `open(extra)` starts one (SMALL sizes, `extra` on top) and
 * remembers the last one opened, which is shut down after each test before the dir is removed.
 */
export function storePerTest(): { open(extra?: Record<string, unknown>): Promise<DefaultMessageStore> } {
  let dir = '';
  let store: DefaultMessageStore | null = null;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await store?.shutdown();
    store = null;
    await fs.rm(dir, { recursive: true, force: true });
  });
  return {
    async open(extra = {}) {
      store = new DefaultMessageStore({ ...SMALL, storePathRootDir: dir, ...extra });
      await store.start();
      return store;
    },
  };
}
