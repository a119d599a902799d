/**
 * The settings each gRPC client sent over Telemetry, by client id, and what the endpoint answers for them: a
 * producer's backoff (the proxy's producer attempts and exponential backoff) and Publishing.max_body_size; a
 * consumer's receive batch size, long-polling timeout, FIFO flag and backoff from its subscription group (retry
 * max times + 1 attempts, the group's retry policy: customized by default, Java's delay table). Metrics off.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.common.GrpcClientSettingsManager
 */
import { type SubscriptionGroupConfig, newSubscriptionGroupConfig } from '../../protocol/body/subscription-group-wrapper';
import type { GrpcBrokerPort } from './grpc-broker-port';
import type { GrpcProxyConfig } from './grpc-proxy-config';
import { type PbRetryPolicy, type PbSettings, pbFromMillis } from './pb';

/** Java CustomizedRetryPolicy's default `next` (millis). */
export const DEFAULT_CUSTOMIZED_RETRY_NEXT: readonly number[] = Object.freeze([
  1000, 5000, 10_000, 30_000, 60_000, 120_000, 180_000, 240_000, 300_000, 360_000, 420_000, 480_000, 540_000, 600_000,
  1_200_000, 1_800_000, 3_600_000, 7_200_000,
]);

/** Java ExponentialRetryPolicy's defaults (millis). */
export const DEFAULT_EXPONENTIAL_RETRY = Object.freeze({ initial: 5000, max: 7_200_000, multiplier: 2 });

interface GroupRetryPolicyJson {
  type?: string;
  exponentialRetryPolicy?: { initial?: number; max?: number; multiplier?: number } | null;
  customizedRetryPolicy?: { next?: number[] } | null;
}

/** The 5.x fields of a subscription group config kept as parsed (consumeMessageOrderly, groupRetryPolicy). */
function extraOf(config: SubscriptionGroupConfig): { consumeMessageOrderly?: boolean; groupRetryPolicy?: GroupRetryPolicyJson } {
  return (config.extra ?? {}) as { consumeMessageOrderly?: boolean; groupRetryPolicy?: GroupRetryPolicyJson };
}

export function isConsumeMessageOrderly(config: SubscriptionGroupConfig | null | undefined): boolean {
  return !!config && extraOf(config).consumeMessageOrderly === true;
}

/** mergeSubscriptionData's backoff: retryMaxTimes + 1 attempts and the group's retry policy. */
export function consumerBackoffPolicy(config: SubscriptionGroupConfig): PbRetryPolicy {
  const policy = extraOf(config).groupRetryPolicy ?? {};
  const maxAttempts = config.retryMaxTimes + 1;
  if (policy.type === 'EXPONENTIAL') {
    const e = { ...DEFAULT_EXPONENTIAL_RETRY, ...(policy.exponentialRetryPolicy ?? {}) };
    return {
      maxAttempts,
      exponentialBackoff: { initial: pbFromMillis(e.initial), max: pbFromMillis(e.max), multiplier: e.multiplier },
      strategy: 'exponentialBackoff',
    };
  }
  const next = policy.customizedRetryPolicy?.next ?? DEFAULT_CUSTOMIZED_RETRY_NEXT;
  return { maxAttempts, customizedBackoff: { next: next.map(pbFromMillis) }, strategy: 'customizedBackoff' };
}

export class GrpcClientSettingsManager {
  readonly #settings = new Map<string, PbSettings>();

  constructor(private readonly broker: Pick<GrpcBrokerPort, 'subscriptionGroupManager'>, private readonly config: GrpcProxyConfig) {}

  getRawClientSettings(clientId: string): PbSettings | undefined {
    return this.#settings.get(clientId);
  }

  /** The client's settings as the endpoint answers them (null when the client sent none). */
  getClientSettings(clientId: string): PbSettings | null {
    const settings = this.#settings.get(clientId);
    if (!settings) return null;
    let merged: PbSettings;
    if (settings.publishing) merged = this.#mergeProducerData(settings);
    else if (settings.subscription) merged = this.#mergeSubscriptionData(settings, settings.subscription.group?.name ?? '');
    else merged = { ...settings };
    merged.metric = { on: false, endpoints: null };
    return merged;
  }

  updateClientSettings(clientId: string, settings: PbSettings): void {
    this.#settings.set(clientId, settings);
  }

  removeAndGetClientSettings(clientId: string): PbSettings | null {
    const settings = this.getClientSettings(clientId);
    this.#settings.delete(clientId);
    return settings;
  }

  removeAndGetRawClientSettings(clientId: string): PbSettings | undefined {
    const s = this.#settings.get(clientId);
    this.#settings.delete(clientId);
    return s;
  }

  /** Client ids with settings (the cleaner drops the consumers no longer in their group). */
  clientIds(): string[] {
    return [...this.#settings.keys()];
  }

  #mergeProducerData(settings: PbSettings): PbSettings {
    const c = this.config;
    return {
      ...settings,
      backoffPolicy: {
        maxAttempts: c.grpcClientProducerMaxAttempts,
        exponentialBackoff: {
          initial: pbFromMillis(c.grpcClientProducerBackoffInitialMillis),
          max: pbFromMillis(c.grpcClientProducerBackoffMaxMillis),
          multiplier: c.grpcClientProducerBackoffMultiplier,
        },
        strategy: 'exponentialBackoff',
      },
      publishing: {
        ...settings.publishing!,
        validateMessageType: c.enableTopicMessageTypeCheck,
        maxBodySize: c.maxMessageSize,
      },
      pubSub: 'publishing',
    };
  }

  #mergeSubscriptionData(settings: PbSettings, group: string): PbSettings {
    // No such group (auto-creation off): Java's defaults of a new SubscriptionGroupConfig.
    const config = this.broker.subscriptionGroupManager.findSubscriptionGroupConfig(group) ?? newSubscriptionGroupConfig(group);
    const c = this.config;
    return {
      ...settings,
      subscription: {
        ...settings.subscription!,
        receiveBatchSize: c.grpcClientConsumerLongPollingBatchSize,
        longPollingTimeout: pbFromMillis(c.grpcClientConsumerMaxLongPollingTimeoutMillis),
        fifo: isConsumeMessageOrderly(config),
      },
      backoffPolicy: consumerBackoffPolicy(config),
      pubSub: 'subscription',
    };
  }
}
