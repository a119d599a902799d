/** Helpers for the replication tests (not a test file): stores with HA services, commit-log byte comparison. */
import fs from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { DefaultMessageStore, type MessageStoreOptions } from '../../../lib/store/message-store';
import type { MessageStoreConfig } from '../../../lib/store/message-store-config';
import { HAService } from '../../../lib/ha/ha-service';
import { SMALL, tempDir } from '../store/store-test-util';

export const silent = pino({ level: 'silent' });

export interface HANode {
  dir: string;
  store: DefaultMessageStore;
  ha: HAService;
  stop(): Promise<void>;
}

export async function startNode(config: Partial<MessageStoreConfig>, opts: MessageStoreOptions = {}, dir?: string): Promise<HANode> {
  const d = dir ?? await tempDir('rmq-ha-');
  const store = new DefaultMessageStore({ ...SMALL, storePathRootDir: d, ...config }, { logger: silent, ...opts });
  await store.start();
  const ha = new HAService(store, { listenPort: 0, bindAddress: '127.0.0.1', logger: silent });
  await ha.start();
  let stopped = false;
  return {
    dir: d, store, ha,
    async stop() {
      if (stopped) return;
      stopped = true;
      await ha.shutdown();
      await store.shutdown();
    },
  };
}

/** The commit log's bytes from `from` to its max offset. */
export async function commitLogBytes(store: DefaultMessageStore, from = store.getMinPhyOffset()): Promise<Buffer> {
  const parts: Buffer[] = [];
  let at = Math.max(0, from);
  while (at < store.getMaxPhyOffset()) {
    const r = await store.commitLog.getData(at);
    if (!r) break;
    parts.push(Buffer.from(r.data));
    at += r.data.length;
  }
  return Buffer.concat(parts);
}

export async function rmDir(d: string): Promise<void> {
  await fs.rm(d, { recursive: true, force: true });
}

export function haAddr(node: HANode): string {
  return `127.0.0.1:${node.ha.listenPort}`;
}

export { path };
