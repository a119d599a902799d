/**
 * Subscription groups: Java's built-in groups, auto-creation when `autoCreateSubscriptionGroup`,
 * `config/subscriptionGroup.json` with a data version.
 *
 * @see org.apache.rocketmq.broker.subscription.SubscriptionGroupManager
 */
import path from 'node:path';
import type { BrokerConfig } from '../broker-config';
import { ConfigManager, configDir } from '../config-manager';
import type { Logger } from '../../logger';
import { type DataVersion, newDataVersion, nextVersion } from '../../../protocol/body/data-version';
import {
  type SubscriptionGroupConfig,
  decodeSubscriptionGroupWrapper,
  encodeSubscriptionGroupWrapper,
  newSubscriptionGroupConfig,
} from '../../../protocol/body/subscription-group-wrapper';
import { MixAll, isSysConsumerGroup } from '../topic/topic-validator';

export class SubscriptionGroupManager extends ConfigManager {
  readonly subscriptionGroupTable = new Map<string, SubscriptionGroupConfig>();
  dataVersion: DataVersion = newDataVersion();

  constructor(private readonly brokerConfig: BrokerConfig, logger: Logger) {
    super(logger);
    for (const g of [
      MixAll.TOOLS_CONSUMER_GROUP, MixAll.FILTERSRV_CONSUMER_GROUP, MixAll.SELF_TEST_CONSUMER_GROUP,
      MixAll.ONS_HTTP_PROXY_GROUP, MixAll.CID_ONSAPI_PULL_GROUP, MixAll.CID_ONSAPI_PERMISSION_GROUP, MixAll.CID_ONSAPI_OWNER_GROUP,
    ]) {
      this.subscriptionGroupTable.set(g, newSubscriptionGroupConfig(g));
    }
  }

  configFilePath(): string {
    return path.join(configDir(this.brokerConfig.storePathRootDir), 'subscriptionGroup.json');
  }

  encode(): string {
    return encodeSubscriptionGroupWrapper({
      subscriptionGroupTable: new Map(this.subscriptionGroupTable),
      dataVersion: { ...this.dataVersion },
    }).toString('utf8');
  }

  decode(text: string): void {
    const w = decodeSubscriptionGroupWrapper(Buffer.from(text, 'utf8'));
    for (const [name, c] of w.subscriptionGroupTable) this.subscriptionGroupTable.set(name, c);
    this.dataVersion = { ...w.dataVersion };
  }

  /** The group's config, created with defaults when auto-creation is on (or the group is a system group). */
  findSubscriptionGroupConfig(group: string): SubscriptionGroupConfig | null {
    let c = this.subscriptionGroupTable.get(group);
    if (c) return c;
    if (!this.brokerConfig.autoCreateSubscriptionGroup && !isSysConsumerGroup(group)) return null;
    c = newSubscriptionGroupConfig(group);
    this.subscriptionGroupTable.set(group, c);
    this.logger.info({ group }, 'auto create a subscription group');
    this.dataVersion = nextVersion(this.dataVersion);
    void this.persist();
    return c;
  }

  updateSubscriptionGroupConfig(config: SubscriptionGroupConfig): void {
    this.subscriptionGroupTable.set(config.groupName, config);
    this.dataVersion = nextVersion(this.dataVersion);
    void this.persist();
  }

  deleteSubscriptionGroupConfig(group: string): SubscriptionGroupConfig | undefined {
    const old = this.subscriptionGroupTable.get(group);
    if (!old) return undefined;
    this.subscriptionGroupTable.delete(group);
    this.dataVersion = nextVersion(this.dataVersion);
    void this.persist();
    return old;
  }

  containsSubscriptionGroup(group: string): boolean {
    return this.subscriptionGroupTable.has(group);
  }
}
