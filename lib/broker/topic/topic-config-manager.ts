/**
 * The broker's topic table: system topics as Java creates them, auto-creation from TBW102 on send, retry and DLQ
 * topics on demand, `config/topics.json` with a data version that name servers compare. A create, update or delete
 * is journaled (`topics.json.log`, see ConfigManager.persistChange), not a rewrite of every topic.
 *
 * @see org.apache.rocketmq.broker.topic.TopicConfigManager
 */
import path from 'node:path';
import type { BrokerConfig } from '../broker-config';
import { ConfigManager, configDir } from '../config-manager';
import type { Logger } from '../../logger';
import { PermName, isInherited } from '../../../protocol/body/perm-name';
import { type TopicConfig, newTopicConfig, topicConfigFromJson, topicConfigToJson } from '../../../protocol/body/topic-config';
import { type DataVersion, newDataVersion, nextVersion } from '../../../protocol/body/data-version';
import {
  type TopicConfigSerializeWrapper,
  decodeTopicConfigSerializeWrapper,
  encodeTopicConfigSerializeWrapper,
} from '../../../protocol/body/topic-config-serialize-wrapper';
import { MixAll, TopicValidator, addSystemTopic, isSystemTopic } from './topic-validator';

/** Queues of SCHEDULE_TOPIC_XXXX (Java SCHEDULE_TOPIC_QUEUE_NUM). */
export const SCHEDULE_TOPIC_QUEUE_NUM = 18;

export class TopicConfigManager extends ConfigManager {
  readonly topicConfigTable = new Map<string, TopicConfig>();
  dataVersion: DataVersion = newDataVersion();
  /** Called when a topic was created on the fly, so the broker registers with the name servers at once. */
  onTopicCreated: ((topicConfig: TopicConfig) => void) | null = null;
  #encoded: { version: DataVersion; text: string } | null = null;

  constructor(private readonly brokerConfig: BrokerConfig, logger: Logger) {
    super(logger);
    this.#addSystemTopics();
  }

  #put(topic: string, fields: Partial<TopicConfig>): void {
    addSystemTopic(topic);
    this.topicConfigTable.set(topic, newTopicConfig(topic, fields));
  }

  #addSystemTopics(): void {
    const bc = this.brokerConfig;
    this.#put(TopicValidator.RMQ_SYS_SELF_TEST_TOPIC, { readQueueNums: 1, writeQueueNums: 1 });
    if (bc.autoCreateTopicEnable) {
      this.#put(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, {
        readQueueNums: bc.defaultTopicQueueNums,
        writeQueueNums: bc.defaultTopicQueueNums,
        perm: PermName.PERM_INHERIT | PermName.PERM_READ | PermName.PERM_WRITE,
      });
    }
    this.#put(TopicValidator.RMQ_SYS_BENCHMARK_TOPIC, { readQueueNums: 1024, writeQueueNums: 1024 });
    this.#put(bc.brokerClusterName, {
      perm: PermName.PERM_INHERIT | (bc.clusterTopicEnable ? PermName.PERM_READ | PermName.PERM_WRITE : 0),
    });
    this.#put(bc.brokerName, {
      readQueueNums: 1,
      writeQueueNums: 1,
      perm: PermName.PERM_INHERIT | (bc.brokerTopicEnable ? PermName.PERM_READ | PermName.PERM_WRITE : 0),
    });
    this.#put(TopicValidator.RMQ_SYS_OFFSET_MOVED_EVENT, { readQueueNums: 1, writeQueueNums: 1 });
    this.#put(TopicValidator.RMQ_SYS_SCHEDULE_TOPIC, { readQueueNums: SCHEDULE_TOPIC_QUEUE_NUM, writeQueueNums: SCHEDULE_TOPIC_QUEUE_NUM });
    if (bc.traceTopicEnable) this.#put(bc.msgTraceTopicName, { readQueueNums: 1, writeQueueNums: 1 });
    this.#put(`${bc.brokerClusterName}_${MixAll.REPLY_TOPIC_POSTFIX}`, { readQueueNums: 1, writeQueueNums: 1 });
  }

  configFilePath(): string {
    return path.join(configDir(this.brokerConfig.storePathRootDir), 'topics.json');
  }

  /**
   * The table as topics.json / the GET_ALL_TOPIC_CONFIG body; encoded once per data version (every change makes a
   * new one), so a slave's sync every few seconds or an admin listing costs nothing while the table stays.
   */
  encode(): string {
    if (this.#encoded?.version !== this.dataVersion) {
      this.#encoded = { version: this.dataVersion, text: encodeTopicConfigSerializeWrapper(this.buildTopicConfigSerializeWrapper()).toString('utf8') };
    }
    return this.#encoded.text;
  }

  decode(text: string): void {
    const w = decodeTopicConfigSerializeWrapper(Buffer.from(text, 'utf8'));
    for (const [name, tc] of w.topicConfigTable) this.topicConfigTable.set(name, tc);
    this.dataVersion = { ...w.dataVersion };
  }

  buildTopicConfigSerializeWrapper(): TopicConfigSerializeWrapper {
    return { topicConfigTable: new Map(this.topicConfigTable), dataVersion: { ...this.dataVersion } };
  }

  selectTopicConfig(topic: string): TopicConfig | undefined {
    return this.topicConfigTable.get(topic);
  }

  isOrderTopic(topic: string): boolean {
    return this.topicConfigTable.get(topic)?.order ?? false;
  }

  #created(tc: TopicConfig): void {
    void this.updateTopicConfig(tc);
    this.onTopicCreated?.(tc);
  }

  protected override applyChange(line: string): void {
    this.dataVersion = this.applyTableChange(line, this.topicConfigTable, topicConfigFromJson, (tc) => tc.topicName);
  }

  /** Creates `topic` from `defaultTopic`'s config when that one carries PERM_INHERIT; null when it may not. */
  createTopicInSendMessageMethod(topic: string, defaultTopic: string, remoteAddress: string, clientDefaultTopicQueueNums: number, topicSysFlag: number): TopicConfig | null {
    const existing = this.topicConfigTable.get(topic);
    if (existing) return existing;
    const def = this.topicConfigTable.get(defaultTopic);
    if (!def) {
      this.logger.warn({ defaultTopic, remoteAddress }, 'create new topic failed, the default topic does not exist');
      return null;
    }
    if (defaultTopic === TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC && !this.brokerConfig.autoCreateTopicEnable) {
      def.perm = PermName.PERM_READ | PermName.PERM_WRITE;
      this.#encoded = null;
    }
    if (!isInherited(def.perm)) {
      this.logger.warn({ defaultTopic, perm: def.perm, remoteAddress }, 'create new topic failed, the default topic has no inherit perm');
      return null;
    }
    const queueNums = Math.max(0, Math.min(clientDefaultTopicQueueNums, def.writeQueueNums));
    const tc = newTopicConfig(topic, {
      readQueueNums: queueNums,
      writeQueueNums: queueNums,
      perm: def.perm & ~PermName.PERM_INHERIT,
      topicSysFlag,
      topicFilterType: def.topicFilterType,
    });
    this.logger.info({ topic, defaultTopic, remoteAddress, queueNums }, 'create new topic by default topic');
    this.#created(tc);
    return tc;
  }

  /** Creates a retry or DLQ topic with the given queue count and perm (Java createTopicInSendMessageBackMethod). */
  createTopicInSendMessageBackMethod(topic: string, clientDefaultTopicQueueNums: number, perm: number, topicSysFlag: number): TopicConfig {
    const existing = this.topicConfigTable.get(topic);
    if (existing) return existing;
    const tc = newTopicConfig(topic, {
      readQueueNums: clientDefaultTopicQueueNums,
      writeQueueNums: clientDefaultTopicQueueNums,
      perm,
      topicSysFlag,
    });
    this.logger.info({ topic }, 'create new topic');
    this.#created(tc);
    return tc;
  }

  /**
   * Creates or replaces a topic's config (admin UPDATE_AND_CREATE_TOPIC); the table changes at once, the promise
   * resolves when the change is persisted.
   */
  updateTopicConfig(tc: TopicConfig): Promise<void> {
    this.topicConfigTable.set(tc.topicName, tc);
    this.dataVersion = nextVersion(this.dataVersion);
    return this.persistTableChange(tc.topicName, topicConfigToJson(tc), this.dataVersion);
  }

  deleteTopicConfig(topic: string): TopicConfig | undefined {
    const old = this.topicConfigTable.get(topic);
    if (!old) return undefined;
    this.topicConfigTable.delete(topic);
    this.dataVersion = nextVersion(this.dataVersion);
    void this.persistTableChange(topic, null, this.dataVersion);
    return old;
  }

  isSystemTopic(topic: string): boolean {
    return isSystemTopic(topic);
  }
}
