/**
 * Subscription groups: Java's built-in groups, auto-creation when `autoCreateSubscriptionGroup`,
 * `config/subscriptionGroup.json` with a data version; each change journaled (ConfigManager.persistChange), so a new
 * group does not rewrite every group.
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
  subscriptionGroupConfigFromJson,
  subscriptionGroupConfigToJson,
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
    void this.persistTableChange(group, subscriptionGroupConfigToJson(c), this.dataVersion);
    return c;
  }

  /** Creates or replaces a group's config; resolves when the change is persisted. */
  updateSubscriptionGroupConfig(config: SubscriptionGroupConfig): Promise<void> {
    this.subscriptionGroupTable.set(config.groupName, config);
    this.dataVersion = nextVersion(this.dataVersion);
    return this.persistTableChange(config.groupName, subscriptionGroupConfigToJson(config), this.dataVersion);
  }

  protected override applyChange(line: string): void {
    this.dataVersion = this.applyTableChange(line, this.subscriptionGroupTable, subscriptionGroupConfigFromJson, (c) => c.groupName);
  }

  deleteSubscriptionGroupConfig(group: string): SubscriptionGroupConfig | undefined {
    const old = this.subscriptionGroupTable.get(group);
    if (!old) return undefined;
    this.subscriptionGroupTable.delete(group);
    this.dataVersion = nextVersion(this.dataVersion);
    void this.persistTableChange(group, null, this.dataVersion);
    return old;
  }

  containsSubscriptionGroup(group: string): boolean {
    return this.subscriptionGroupTable.has(group);
  }
}
