/**
 * Broker liveness for the controller (Java's DefaultBrokerHeartbeatManager): a BROKER_HEARTBEAT keeps a replica
 * alive for its `heartbeatTimeoutMills` (10 s when absent) and records its epoch, max offset, confirm offset and
 * election priority (the elect policy ranks replicas by them; an older epoch or smaller offset never overwrites a
 * newer one). A replica is gone, and the listeners hear `onBrokerInactive`, when
 *   - the connection its heartbeats came on closes (or fails, or idles out): at once, so a killed master is
 *     replaced as soon as its socket resets;
 *   - its heartbeat expires, found by the scan every `scanNotActiveBrokerInterval` (first after 2 s), which also
 *     closes its connection.
 *
 * @see org.apache.rocketmq.controller.impl.heartbeat.DefaultBrokerHeartbeatManager
 * @see org.apache.rocketmq.controller.impl.heartbeat.BrokerLiveInfo
 * @see org.apache.rocketmq.controller.BrokerHousekeepingService
 */
import type { Logger } from '../logger';
import type { Channel } from '../transport/connection';
import { ServiceLoop } from '../util/service-loop';
import type { ElectCandidateInfo } from './elect-policy';

/** Java BrokerHeartbeatManager.DEFAULT_BROKER_CHANNEL_EXPIRED_TIME. */
export const DEFAULT_BROKER_CHANNEL_EXPIRED_TIME = 10 * 1000;

/** @see org.apache.rocketmq.controller.impl.heartbeat.BrokerLiveInfo */
export interface BrokerLiveInfo extends ElectCandidateInfo {
  clusterName: string;
  brokerName: string;
  brokerAddr: string;
  lastUpdateTimestamp: number;
  heartbeatTimeoutMillis: number;
  channel: Channel | null;
  confirmOffset: number;
}

export interface HeartbeatInput {
  clusterName: string;
  brokerName: string;
  brokerAddr: string;
  brokerId: number;
  heartbeatTimeoutMills?: number;
  epoch?: number;
  maxOffset?: number;
  confirmOffset?: number;
  electionPriority?: number;
}

export type BrokerLifecycleListener = (clusterName: string | null, brokerName: string, brokerId: number | null) => void;

const key = (clusterName: string, brokerName: string, brokerId: number): string => `${clusterName}\u0001${brokerName}\u0001${brokerId}`;

export class BrokerHeartbeatManager {
  readonly brokerLiveTable = new Map<string, BrokerLiveInfo>();
  readonly #listeners: BrokerLifecycleListener[] = [];
  readonly #loop: ServiceLoop;
  readonly #log: Logger;
  readonly #now: () => number;

  constructor(config: { scanNotActiveBrokerInterval: number }, log: Logger, now: () => number = Date.now) {
    this.#log = log;
    this.#now = now;
    this.#loop = new ServiceLoop({ name: 'scanNotActiveBroker', intervalMillis: config.scanNotActiveBrokerInterval, initialDelayMillis: 2000, logger: log },
      () => this.scanNotActiveBroker());
  }

  start(): void {
    this.#loop.start();
  }

  async shutdown(): Promise<void> {
    await this.#loop.stop();
  }

  registerBrokerLifecycleListener(l: BrokerLifecycleListener): void {
    this.#listeners.push(l);
  }

  #notifyInactive(clusterName: string | null, brokerName: string, brokerId: number | null): void {
    // after the current turn, as Java hands it to an executor
    setImmediate(() => {
      for (const l of this.#listeners) {
        try {
          l(clusterName, brokerName, brokerId);
        } catch (err) {
          this.#log.error({ err, brokerName, brokerId }, 'broker lifecycle listener failed');
        }
      }
    });
  }

  onBrokerHeartbeat(h: HeartbeatInput, channel: Channel | null): void {
    const k = key(h.clusterName, h.brokerName, h.brokerId);
    const prev = this.brokerLiveTable.get(k);
    const epoch = h.epoch ?? -1;
    const maxOffset = h.maxOffset ?? -1;
    const confirmOffset = h.confirmOffset ?? -1;
    const timeout = h.heartbeatTimeoutMills ?? DEFAULT_BROKER_CHANNEL_EXPIRED_TIME;
    const electionPriority = h.electionPriority ?? 2147483647;
    if (!prev) {
      this.brokerLiveTable.set(k, {
        clusterName: h.clusterName, brokerName: h.brokerName, brokerAddr: h.brokerAddr, brokerId: h.brokerId, lastUpdateTimestamp: this.#now(),
        heartbeatTimeoutMillis: timeout, channel, epoch, maxOffset, confirmOffset: -1, electionPriority,
      });
      this.#log.info({ clusterName: h.clusterName, brokerName: h.brokerName, brokerId: h.brokerId, brokerAddr: h.brokerAddr }, 'new broker registered');
      return;
    }
    prev.lastUpdateTimestamp = this.#now();
    prev.heartbeatTimeoutMillis = timeout;
    prev.electionPriority = electionPriority;
    // Java keeps the first channel; a broker that reconnected beats on a new one, which is the one that matters
    if (channel && (!prev.channel || !prev.channel.isActive)) prev.channel = channel;
    if (epoch > prev.epoch || (epoch === prev.epoch && maxOffset > prev.maxOffset)) {
      prev.epoch = epoch;
      prev.maxOffset = maxOffset;
      prev.confirmOffset = confirmOffset;
    }
  }

  /** A connection closed: the broker whose heartbeats came on it is gone (Java onBrokerChannelClose). */
  onBrokerChannelClose(channel: Channel): void {
    for (const [k, info] of this.brokerLiveTable) {
      if (info.channel && info.channel.id === channel.id) {
        this.#log.info({ brokerName: info.brokerName, brokerAddr: info.brokerAddr, brokerId: info.brokerId }, 'broker channel inactive');
        this.brokerLiveTable.delete(k);
        this.#notifyInactive(info.clusterName, info.brokerName, info.brokerId);
        return;
      }
    }
  }

  scanNotActiveBroker(): void {
    const now = this.#now();
    for (const [k, info] of this.brokerLiveTable) {
      if (now - info.lastUpdateTimestamp > info.heartbeatTimeoutMillis) {
        this.brokerLiveTable.delete(k);
        info.channel?.close();
        this.#notifyInactive(info.clusterName, info.brokerName, info.brokerId);
        this.#log.warn({ brokerName: info.brokerName, brokerAddr: info.brokerAddr, brokerId: info.brokerId, expiredMs: info.heartbeatTimeoutMillis }, 'broker heartbeat expired');
      }
    }
  }

  getBrokerLiveInfo(clusterName: string, brokerName: string, brokerId: number): BrokerLiveInfo | null {
    return this.brokerLiveTable.get(key(clusterName, brokerName, brokerId)) ?? null;
  }

  isBrokerActive(clusterName: string, brokerName: string, brokerId: number): boolean {
    const info = this.brokerLiveTable.get(key(clusterName, brokerName, brokerId));
    return !!info && info.lastUpdateTimestamp + info.heartbeatTimeoutMillis >= this.#now();
  }

  /** cluster → broker set → alive replicas (Java getActiveBrokersNum). */
  activeBrokersNum(): Map<string, Map<string, number>> {
    const out = new Map<string, Map<string, number>>();
    for (const info of this.brokerLiveTable.values()) {
      if (!this.isBrokerActive(info.clusterName, info.brokerName, info.brokerId)) continue;
      const m = out.get(info.clusterName) ?? new Map<string, number>();
      m.set(info.brokerName, (m.get(info.brokerName) ?? 0) + 1);
      out.set(info.clusterName, m);
    }
    return out;
  }
}
