/**
 * Queue choice for a send. Without latency fault tolerance: round robin, avoiding the broker of the previous
 * failed attempt. With it (sendLatencyFaultEnable): round robin over brokers not isolated; if every broker is
 * isolated, one of the least bad ones. A send's latency isolates its broker for notAvailableDuration[i] where
 * latencyMax[i] is the largest bound the latency reaches; a failed send (isolation) counts as 30 s.
 *
 * @see org.apache.rocketmq.client.latency.MQFaultStrategy
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { ThreadLocalIndex, javaAbs } from '../../client/thread-local-index';
import type { TopicPublishInfo } from '../../client/topic-publish-info';
import { type Logger, componentLogger } from '../../logger';
import { LatencyFaultToleranceImpl, type Clock } from './latency-fault-tolerance';

export interface MQFaultStrategyOptions {
  sendLatencyFaultEnable: boolean;
  latencyMax: readonly number[];
  notAvailableDuration: readonly number[];
}

/** 4.9.8's tables. */
export const DEFAULT_MQ_FAULT_STRATEGY: Readonly<MQFaultStrategyOptions> = Object.freeze({
  sendLatencyFaultEnable: false,
  latencyMax: Object.freeze([50, 100, 550, 1000, 2000, 3000, 15000]),
  notAvailableDuration: Object.freeze([0, 0, 30000, 60000, 120000, 180000, 600000]),
});

export class MQFaultStrategy {
  readonly latencyFaultTolerance: LatencyFaultToleranceImpl;
  sendLatencyFaultEnable: boolean;
  latencyMax: readonly number[];
  notAvailableDuration: readonly number[];
  readonly #log: Logger;

  constructor(options: Partial<MQFaultStrategyOptions> = {}, internals: { now?: Clock; whichItemWorst?: ThreadLocalIndex; logger?: Logger } = {}) {
    this.#log = componentLogger('producer', internals.logger);
    const o = { ...DEFAULT_MQ_FAULT_STRATEGY, ...options };
    this.sendLatencyFaultEnable = o.sendLatencyFaultEnable;
    this.latencyMax = o.latencyMax;
    this.notAvailableDuration = o.notAvailableDuration;
    this.latencyFaultTolerance = new LatencyFaultToleranceImpl(internals);
  }

  selectOneMessageQueue(tpInfo: TopicPublishInfo, lastBrokerName?: string | null): MessageQueue {
    if (!this.sendLatencyFaultEnable) return tpInfo.selectOneMessageQueue(lastBrokerName);
    try {
      const list = tpInfo.messageQueueList;
      let index = tpInfo.sendWhichQueue.incrementAndGet();
      for (let i = 0; i < list.length; i++) {
        let pos = javaAbs(index) % list.length;
        index = (index + 1) | 0;
        if (pos < 0) pos = 0;
        const mq = list[pos];
        if (this.latencyFaultTolerance.isAvailable(mq.brokerName)) return mq;
      }
      const notBestBroker = this.latencyFaultTolerance.pickOneAtLeast();
      const writeQueueNums = tpInfo.getQueueIdByBroker(notBestBroker);
      if (writeQueueNums > 0) {
        const mq = tpInfo.selectOneMessageQueue();
        if (notBestBroker != null) {
          return { topic: mq.topic, brokerName: notBestBroker, queueId: tpInfo.sendWhichQueue.incrementAndGet() % writeQueueNums };
        }
        return mq;
      }
      this.latencyFaultTolerance.remove(notBestBroker);
    } catch (err) {
      this.#log.error({ err }, 'Error occurred when selecting message queue');
    }
    return tpInfo.selectOneMessageQueue();
  }

  /** After a send to `brokerName` that took `currentLatency` ms; `isolation` for a failed send. */
  updateFaultItem(brokerName: string, currentLatency: number, isolation: boolean): void {
    if (!this.sendLatencyFaultEnable) return;
    const duration = this.computeNotAvailableDuration(isolation ? 30000 : currentLatency);
    this.latencyFaultTolerance.updateFaultItem(brokerName, currentLatency, duration);
  }

  computeNotAvailableDuration(currentLatency: number): number {
    for (let i = this.latencyMax.length - 1; i >= 0; i--) {
      if (currentLatency >= this.latencyMax[i]) return this.notAvailableDuration[i];
    }
    return 0;
  }
}
