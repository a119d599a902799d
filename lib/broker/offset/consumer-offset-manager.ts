/**
 * Committed consumer offsets, keyed `topic@group` then queueId; `config/consumerOffset.json`.
 *
 * @see org.apache.rocketmq.broker.offset.ConsumerOffsetManager
 */
import path from 'node:path';
import type { BrokerConfig } from '../broker-config';
import { ConfigManager, configDir } from '../config-manager';
import type { Logger } from '../../logger';
import {
  decodeConsumerOffsetSerializeWrapper,
  encodeConsumerOffsetSerializeWrapper,
} from '../../../protocol/body/consumer-offset-serialize-wrapper';

export const TOPIC_GROUP_SEPARATOR = '@';

export class ConsumerOffsetManager extends ConfigManager {
  offsetTable = new Map<string, Map<number, number>>();
  /** Moves with every change made through this class; the periodic persist skips a table that did not move. */
  #version = 0;
  #persistedVersion = 0;

  constructor(private readonly brokerConfig: BrokerConfig, logger: Logger) {
    super(logger);
  }

  configFilePath(): string {
    return path.join(configDir(this.brokerConfig.storePathRootDir), 'consumerOffset.json');
  }

  encode(): string {
    return encodeConsumerOffsetSerializeWrapper({ offsetTable: this.offsetTable }).toString('utf8');
  }

  decode(text: string): void {
    this.offsetTable = decodeConsumerOffsetSerializeWrapper(Buffer.from(text, 'utf8')).offsetTable;
    this.#version++;
  }

  /**
   * The periodic persist (flushConsumerOffsetInterval): writes the file only when an offset moved since the last
   * write, so idle groups cost nothing every 5 s (Java writes it each time).
   */
  async persistIfChanged(): Promise<void> {
    if (this.#version === this.#persistedVersion) return;
    const version = this.#version;
    await this.persist();
    this.#persistedVersion = version;
  }

  commitOffset(clientHost: string, group: string, topic: string, queueId: number, offset: number): void {
    const key = topic + TOPIC_GROUP_SEPARATOR + group;
    let map = this.offsetTable.get(key);
    if (!map) {
      map = new Map();
      this.offsetTable.set(key, map);
    }
    const prev = map.get(queueId);
    if (prev === offset) return;
    map.set(queueId, offset);
    this.#version++;
    if (prev !== undefined && offset < prev) {
      this.logger.warn({ clientHost, key, queueId, offset, prev }, 'update consumer offset less than store');
    }
  }

  /** The committed offset, or -1 when none. */
  queryOffset(group: string, topic: string, queueId: number): number {
    return this.offsetTable.get(topic + TOPIC_GROUP_SEPARATOR + group)?.get(queueId) ?? -1;
  }

  queryOffsets(group: string, topic: string): Map<number, number> | undefined {
    return this.offsetTable.get(topic + TOPIC_GROUP_SEPARATOR + group);
  }

  /** Groups with offsets for `topic`. */
  whichGroupByTopic(topic: string): Set<string> {
    const groups = new Set<string>();
    for (const key of this.offsetTable.keys()) {
      const i = key.indexOf(TOPIC_GROUP_SEPARATOR);
      if (i > 0 && key.slice(0, i) === topic) groups.add(key.slice(i + 1));
    }
    return groups;
  }

  /** Topics the group has offsets for. */
  whichTopicByConsumer(group: string): Set<string> {
    const topics = new Set<string>();
    for (const key of this.offsetTable.keys()) {
      const i = key.indexOf(TOPIC_GROUP_SEPARATOR);
      if (i > 0 && key.slice(i + 1) === group) topics.add(key.slice(0, i));
    }
    return topics;
  }

  removeOffset(group: string): void {
    for (const key of [...this.offsetTable.keys()]) {
      const i = key.indexOf(TOPIC_GROUP_SEPARATOR);
      if (i > 0 && key.slice(i + 1) === group) this.offsetTable.delete(key);
    }
    this.#version++;
  }

  removeTopic(topic: string): void {
    for (const key of [...this.offsetTable.keys()]) {
      if (key.startsWith(topic + TOPIC_GROUP_SEPARATOR)) this.offsetTable.delete(key);
    }
    this.#version++;
  }

  cloneOffset(srcGroup: string, destGroup: string, topic: string): void {
    const src = this.offsetTable.get(topic + TOPIC_GROUP_SEPARATOR + srcGroup);
    if (src) this.offsetTable.set(topic + TOPIC_GROUP_SEPARATOR + destGroup, new Map(src));
    this.#version++;
  }
}
