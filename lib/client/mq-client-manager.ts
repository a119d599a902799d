/**
 * One MQClientInstance per client id (`clientIP@instanceName[@unitName]`) in the process, shared by every
 * producer and consumer created with that id, and reference-counted: `acquire` starts sharing, `release` stops,
 * and the last release shuts the instance down.
 *
 * The Java pitfall this keeps: two producers meant for different clusters but built with the same instanceName
 * (and so the same client id) share one instance, and with it the name server list of the first. Java silently
 * uses the first list; we do too, but log a warning naming both lists. Give such producers distinct
 * instanceNames (the default "DEFAULT" is replaced by `<pid>#<time>`, so only explicit names collide).
 *
 * @see org.apache.rocketmq.client.impl.MQClientManager
 */
import { type Logger, componentLogger } from '../logger';
import type { ClientConfig } from './client-config';
import { MQClientInstance, type MQClientInstanceOptions } from './mq-client-instance';

interface Entry {
  instance: MQClientInstance;
  refs: number;
}

export class MQClientManager {
  static #default: MQClientManager | undefined;
  readonly #table = new Map<string, Entry>();
  readonly #logger: Logger;

  constructor(logger?: Logger) {
    this.#logger = componentLogger('mq-client-manager', logger);
  }

  /** The process-wide manager. */
  static getInstance(): MQClientManager {
    if (!MQClientManager.#default) MQClientManager.#default = new MQClientManager();
    return MQClientManager.#default;
  }

  /** The instance for `clientConfig`'s client id, created (from a copy of the config) when none exists; refs + 1. */
  acquire(clientConfig: ClientConfig, options: MQClientInstanceOptions = {}): MQClientInstance {
    const clientId = clientConfig.buildMQClientId();
    const entry = this.#table.get(clientId);
    if (entry) {
      const mine = entry.instance.clientConfig.getNamesrvAddr() ?? '';
      const theirs = clientConfig.getNamesrvAddr() ?? '';
      if (mine !== theirs) {
        this.#logger.warn(
          { clientId, instanceNamesrvAddr: mine, requestedNamesrvAddr: theirs },
          'a client with this client id already exists with other name servers; it is shared and keeps its own (give this client another instanceName)',
        );
      }
      entry.refs++;
      return entry.instance;
    }
    const instance = new MQClientInstance(clientConfig.cloneClientConfig(), clientId, options);
    const created: Entry = { instance, refs: 1 };
    instance.onShutdown = () => {
      if (this.#table.get(clientId) === created) this.#table.delete(clientId);
    };
    this.#table.set(clientId, created);
    this.#logger.info({ clientId }, 'created new MQClientInstance');
    return instance;
  }

  /** refs − 1; the last release shuts the instance down. */
  async release(instance: MQClientInstance): Promise<void> {
    const entry = this.#table.get(instance.clientId);
    if (!entry || entry.instance !== instance) {
      await instance.shutdown();
      return;
    }
    entry.refs--;
    if (entry.refs > 0) return;
    this.#table.delete(instance.clientId);
    await instance.shutdown();
  }

  /** The instance of a client id, if any. */
  get(clientId: string): MQClientInstance | undefined {
    return this.#table.get(clientId)?.instance;
  }

  /** How many users share the instance of a client id. */
  refCount(clientId: string): number {
    return this.#table.get(clientId)?.refs ?? 0;
  }

  get size(): number {
    return this.#table.size;
  }
}
