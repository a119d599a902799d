/**
 * A slave copies its master's metadata: topic configs and subscription groups (when their data version differs),
 * consumer offsets (merged over its own) and the delay offsets file, with GET_ALL_TOPIC_CONFIG,
 * GET_ALL_SUBSCRIPTIONGROUP_CONFIG, GET_ALL_CONSUMER_OFFSET and GET_ALL_DELAY_OFFSET; with the timer wheel on, the
 * timer metrics (GET_TIMER_METRICS, when their data version differs). The broker runs syncAll()
 * 3 s after start and every 10 s (Java's schedule). Each part fails alone (logged), as in Java.
 *
 * @see org.apache.rocketmq.broker.slave.SlaveSynchronize
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger';
import type { RemotingClient } from '../../transport/remoting-client';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { dataVersionEquals } from '../../../protocol/body/data-version';
import { decodeTopicConfigSerializeWrapper } from '../../../protocol/body/topic-config-serialize-wrapper';
import { decodeSubscriptionGroupWrapper } from '../../../protocol/body/subscription-group-wrapper';
import { decodeConsumerOffsetSerializeWrapper } from '../../../protocol/body/consumer-offset-serialize-wrapper';
import { decodeTimerMetrics } from '../../../protocol/body/timer-metrics';
import type { TimerMetrics } from '../../store/timer/timer-metrics';
import { MQBrokerError } from '../../errors';
import type { TopicConfigManager } from '../topic/topic-config-manager';
import type { SubscriptionGroupManager } from '../subscription/subscription-group-manager';
import type { ConsumerOffsetManager } from '../offset/consumer-offset-manager';

export interface SlaveSynchronizeDeps {
  remotingClient: RemotingClient;
  topicConfigManager: TopicConfigManager;
  subscriptionGroupManager: SubscriptionGroupManager;
  consumerOffsetManager: ConsumerOffsetManager;
  /** Path of the slave's delayOffset.json. */
  delayOffsetFile: string;
  /** This broker's own address (a master address equal to it is skipped). */
  brokerAddr: () => string;
  /** The timer wheel's metrics, copied from the master while `timerWheelEnable()` (Java syncTimerMetrics). */
  timerMetrics?: TimerMetrics;
  timerWheelEnable?: () => boolean;
  timeoutMillis?: number;
  logger: Logger;
}

export class SlaveSynchronize {
  /** The master's remoting address, learnt from the name server's REGISTER_BROKER answer (null: none known). */
  masterAddr: string | null = null;
  #running: Promise<void> | null = null;

  constructor(private readonly deps: SlaveSynchronizeDeps) {}

  /** Runs the four copies one after the other; concurrent calls share one run. */
  syncAll(): Promise<void> {
    if (!this.#running) {
      this.#running = (async () => {
        await this.syncTopicConfig();
        await this.syncConsumerOffset();
        await this.syncDelayOffset();
        await this.syncSubscriptionGroupConfig();
        if (this.deps.timerMetrics && this.deps.timerWheelEnable?.()) await this.syncTimerMetrics();
      })().finally(() => { this.#running = null; });
    }
    return this.#running;
  }

  #master(): string | null {
    const m = this.masterAddr;
    return m && m !== this.deps.brokerAddr() ? m : null;
  }

  async #call(addr: string, code: number): Promise<Buffer> {
    const response = await this.deps.remotingClient.invoke(addr, RemotingCommand.createRequest(code), this.deps.timeoutMillis ?? 3000);
    if (response.code !== ResponseCode.SUCCESS) throw new MQBrokerError(response.code, response.remark ?? '', addr);
    return response.body ?? Buffer.alloc(0);
  }

  async syncTopicConfig(): Promise<void> {
    const addr = this.#master();
    if (!addr) return;
    try {
      const w = decodeTopicConfigSerializeWrapper(await this.#call(addr, RequestCode.GET_ALL_TOPIC_CONFIG));
      const m = this.deps.topicConfigManager;
      if (!dataVersionEquals(m.dataVersion, w.dataVersion)) {
        m.dataVersion = { ...w.dataVersion };
        m.topicConfigTable.clear();
        for (const [name, tc] of w.topicConfigTable) m.topicConfigTable.set(name, tc);
        await m.persist();
        this.deps.logger.info({ masterAddr: addr }, 'Update slave topic config from master');
      }
    } catch (err) {
      this.deps.logger.error({ err, masterAddr: addr }, 'SyncTopicConfig Exception');
    }
  }

  async syncConsumerOffset(): Promise<void> {
    const addr = this.#master();
    if (!addr) return;
    try {
      const w = decodeConsumerOffsetSerializeWrapper(await this.#call(addr, RequestCode.GET_ALL_CONSUMER_OFFSET));
      const m = this.deps.consumerOffsetManager;
      for (const [key, table] of w.offsetTable) m.offsetTable.set(key, new Map(table));
      await m.persist();
      this.deps.logger.info({ masterAddr: addr }, 'Update slave consumer offset from master');
    } catch (err) {
      this.deps.logger.error({ err, masterAddr: addr }, 'SyncConsumerOffset Exception');
    }
  }

  async syncDelayOffset(): Promise<void> {
    const addr = this.#master();
    if (!addr) return;
    try {
      const body = await this.#call(addr, RequestCode.GET_ALL_DELAY_OFFSET);
      if (body.length > 0) {
        await fs.mkdir(path.dirname(this.deps.delayOffsetFile), { recursive: true });
        const tmp = `${this.deps.delayOffsetFile}.tmp`;
        await fs.writeFile(tmp, body);
        await fs.rename(tmp, this.deps.delayOffsetFile);
      }
      this.deps.logger.info({ masterAddr: addr }, 'Update slave delay offset from master');
    } catch (err) {
      this.deps.logger.error({ err, masterAddr: addr }, 'SyncDelayOffset Exception');
    }
  }

  async syncSubscriptionGroupConfig(): Promise<void> {
    const addr = this.#master();
    if (!addr) return;
    try {
      const w = decodeSubscriptionGroupWrapper(await this.#call(addr, RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG));
      const m = this.deps.subscriptionGroupManager;
      if (!dataVersionEquals(m.dataVersion, w.dataVersion)) {
        m.dataVersion = { ...w.dataVersion };
        m.subscriptionGroupTable.clear();
        for (const [name, c] of w.subscriptionGroupTable) m.subscriptionGroupTable.set(name, c);
        await m.persist();
        this.deps.logger.info({ masterAddr: addr }, 'Update slave Subscription Group from master');
      }
    } catch (err) {
      this.deps.logger.error({ err, masterAddr: addr }, 'SyncSubscriptionGroup Exception');
    }
  }

  /** GET_TIMER_METRICS: the master's timer metrics replace this slave's when their data versions differ. */
  async syncTimerMetrics(): Promise<void> {
    const addr = this.#master();
    const metrics = this.deps.timerMetrics;
    if (!addr || !metrics) return;
    try {
      const w = decodeTimerMetrics(await this.#call(addr, RequestCode.GET_TIMER_METRICS));
      if (metrics.syncFromMaster(w)) {
        await metrics.persist();
        this.deps.logger.info({ masterAddr: addr }, 'Update slave timer metrics from master');
      }
    } catch (err) {
      this.deps.logger.error({ err, masterAddr: addr }, 'SyncTimerMetrics Exception');
    }
  }
}
