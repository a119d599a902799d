/**
 * The broker's Prometheus endpoint (`metricsExporterType=PROM`, `metricsPromExporterHost`,
 * `metricsPromExporterPort`, Java 5.x's names; off by default). The series carry rocketmq-exporter's names where it
 * has one (`rocketmq_producer_tps`, `rocketmq_consumer_tps`, `rocketmq_group_diff`, `rocketmq_broker_tps`, ...) and
 * labels (`cluster`, `broker`, `topic`, `group`), plus counters for rate(), put/get latency histograms and store
 * figures. Everything is computed at scrape time from what the broker keeps anyway (BrokerStatsManager, the consumer
 * offset table, the consume queues).
 *
 * @see org.apache.rocketmq.broker.metrics.BrokerMetricsManager (5.x)
 */
import type { Logger } from 'pino';
import { Exposition, Histogram, type Labels, type MetricsServer, processMetrics, startMetricsServer } from '../../util/prometheus';
import type { BrokerService } from '../broker-hooks';
import {
  BROKER_GET_NUMS, BROKER_PUT_NUMS, type BrokerStatsManager, GROUP_GET_NUMS, GROUP_GET_SIZE, TOPIC_PUT_NUMS, TOPIC_PUT_SIZE,
} from '../stats/broker-stats-manager';

/** The live instruments the send and pull paths feed (one `observe` per request). */
export class BrokerLatencyMetrics {
  readonly put = new Histogram('rocketmq_broker_put_latency_seconds', 'Time to store a send request (one message or one batch), in seconds.');
  readonly get = new Histogram('rocketmq_broker_get_latency_seconds', 'Time to read a pull request from the store, in seconds.');
}

/** What the exporter reads of the broker. */
export interface BrokerMetricsPort {
  readonly brokerConfig: { readonly brokerClusterName: string; readonly brokerName: string; readonly brokerId: number };
  readonly brokerStatsManager: BrokerStatsManager;
  readonly latencyMetrics: BrokerLatencyMetrics;
  readonly messageStore: {
    getMaxOffsetInQueue(topic: string, queueId: number): number;
    getMinPhyOffset(): number;
    getMaxPhyOffset(): number;
    readonly commitLogDiskRatio: number;
    readonly consumeQueueDiskRatio: number;
    readonly consumeQueueTable: ReadonlyMap<string, ReadonlyMap<number, unknown>>;
  };
  readonly consumerOffsetManager: { readonly offsetTable: ReadonlyMap<string, ReadonlyMap<number, number>> };
  readonly remotingServer: { readonly inflightRequests: number; readonly channels: readonly unknown[] };
}

/** One scrape's page for a broker. */
export function collectBrokerMetrics(b: BrokerMetricsPort): string {
  const base = { cluster: b.brokerConfig.brokerClusterName, broker: b.brokerConfig.brokerName };
  const stats = b.brokerStatsManager;
  const page = new Exposition();
  const perKey = (name: string, pick: (minute: { tps: number }, value: number) => number, keyLabels: (key: string) => Labels | null) => {
    const out: Array<[Labels, number]> = [];
    for (const [key, item] of stats.items(name)) {
      const labels = keyLabels(key);
      if (labels) out.push([{ ...base, ...labels }, pick(item.statsData().statsMinute, item.value)]);
    }
    return out;
  };
  const topicKey = (key: string): Labels => ({ topic: key });
  const groupKey = (key: string): Labels | null => {
    const at = key.lastIndexOf('@');
    return at < 0 ? null : { topic: key.slice(0, at), group: key.slice(at + 1) };
  };
  const tps = (m: { tps: number }) => m.tps;
  const total = (_m: unknown, v: number) => v;

  page
    .gauge('rocketmq_broker_tps', 'Messages stored per second over the last minute.', [[{ ...base, brokerId: b.brokerConfig.brokerId }, stats.brokerPut.statsData().statsMinute.tps]])
    .gauge('rocketmq_broker_qps', 'Messages delivered to consumers per second over the last minute.', [[{ ...base, brokerId: b.brokerConfig.brokerId }, stats.brokerGet.statsData().statsMinute.tps]])
    .counter('rocketmq_broker_put_messages_total', 'Messages stored.', [[base, stats.items(BROKER_PUT_NUMS).get(base.cluster)?.value ?? 0]])
    .counter('rocketmq_broker_get_messages_total', 'Messages delivered to consumers.', [[base, stats.items(BROKER_GET_NUMS).get(base.cluster)?.value ?? 0]])
    .gauge('rocketmq_producer_tps', 'Messages stored per second, by topic, over the last minute.', perKey(TOPIC_PUT_NUMS, tps, topicKey))
    .gauge('rocketmq_producer_put_size', 'Bytes stored per second, by topic, over the last minute.', perKey(TOPIC_PUT_SIZE, tps, topicKey))
    .counter('rocketmq_producer_messages_total', 'Messages stored, by topic.', perKey(TOPIC_PUT_NUMS, total, topicKey))
    .gauge('rocketmq_consumer_tps', 'Messages delivered per second, by topic and group, over the last minute.', perKey(GROUP_GET_NUMS, tps, groupKey))
    .gauge('rocketmq_consumer_get_size', 'Bytes delivered per second, by topic and group, over the last minute.', perKey(GROUP_GET_SIZE, tps, groupKey))
    .counter('rocketmq_consumer_messages_total', 'Messages delivered, by topic and group.', perKey(GROUP_GET_NUMS, total, groupKey));

  // Offsets and lag: the queues' max offsets against the groups' committed offsets.
  const producerOffsets: Array<[Labels, number]> = [];
  for (const [topic, queues] of b.messageStore.consumeQueueTable) {
    let sum = 0;
    for (const queueId of queues.keys()) sum += Math.max(0, b.messageStore.getMaxOffsetInQueue(topic, queueId));
    producerOffsets.push([{ ...base, topic }, sum]);
  }
  const consumerOffsets: Array<[Labels, number]> = [];
  const diffs: Array<[Labels, number]> = [];
  for (const [key, queues] of b.consumerOffsetManager.offsetTable) {
    const labels = groupKey(key);
    if (!labels) continue;
    const topic = String(labels.topic);
    let committed = 0;
    let diff = 0;
    for (const [queueId, offset] of queues) {
      committed += Math.max(0, offset);
      diff += Math.max(0, b.messageStore.getMaxOffsetInQueue(topic, queueId) - Math.max(0, offset));
    }
    consumerOffsets.push([{ ...base, ...labels }, committed]);
    diffs.push([{ ...base, ...labels }, diff]);
  }
  page
    .gauge('rocketmq_producer_offset', 'Sum of the max offsets of the topic\'s queues on this broker.', producerOffsets)
    .gauge('rocketmq_consumer_offset', 'Sum of the committed offsets of the group on the topic\'s queues.', consumerOffsets)
    .gauge('rocketmq_group_diff', 'Messages not yet consumed by the group (max offset - committed offset, summed over queues).', diffs)
    .histogram(b.latencyMetrics.put, base)
    .histogram(b.latencyMetrics.get, base)
    .gauge('rocketmq_store_commitlog_bytes', 'Bytes held by the commit log (max - min physical offset).', [[base, Math.max(0, b.messageStore.getMaxPhyOffset() - b.messageStore.getMinPhyOffset())]])
    .gauge('rocketmq_store_commitlog_max_offset', 'Physical offset of the commit log\'s end.', [[base, b.messageStore.getMaxPhyOffset()]])
    .gauge('rocketmq_store_disk_ratio', 'Used ratio of the disk holding the store, at the last check.', [
      [{ ...base, path: 'commitlog' }, b.messageStore.commitLogDiskRatio],
      [{ ...base, path: 'consumequeue' }, b.messageStore.consumeQueueDiskRatio],
    ])
    .gauge('rocketmq_remoting_inflight_requests', 'Requests being processed now.', [[base, b.remotingServer.inflightRequests]])
    .gauge('rocketmq_remoting_connections', 'Open client connections.', [[base, b.remotingServer.channels.length]]);
  return processMetrics(page).text();
}

/** The endpoint as a broker service: listens on start, closes on shutdown. */
export class BrokerMetricsService implements BrokerService {
  #server: MetricsServer | null = null;

  constructor(
    private readonly port: BrokerMetricsPort,
    private readonly options: { host: string; port: number; logger: Logger },
  ) {}

  /** host:port of the endpoint once started. */
  get address(): string | null {
    return this.#server?.address ?? null;
  }

  async start(): Promise<void> {
    if (this.#server) return;
    this.#server = await startMetricsServer({
      host: this.options.host, port: this.options.port, logger: this.options.logger, collect: () => collectBrokerMetrics(this.port),
    });
    this.options.logger.info({ address: this.#server.address }, 'Prometheus metrics at /metrics');
  }

  async shutdown(): Promise<void> {
    const s = this.#server;
    this.#server = null;
    await s?.close();
  }
}
