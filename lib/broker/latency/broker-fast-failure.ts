/**
 * BrokerFastFailure: answers queued requests SYSTEM_BUSY instead of letting them wait (Java runs it every 10 ms
 * when brokerFastFailureEnable is set):
 * - while the store's page cache is busy (an append held the commit log longer than osPageCacheBusyTimeOutMills),
 *   every send waiting in the send executor gets "[PCBUSY_CLEAN_QUEUE]broker busy, ...";
 * - a send that waited waitTimeMillsInSendQueue or more gets "[TIMEOUT_CLEAN_QUEUE]broker busy, ...".
 * Sends wait in the executor while the store's appends queue behind one that is not done (a commit-log file being
 * created); each run also starts the waiting ones once the store is free again.
 *
 * @see org.apache.rocketmq.broker.latency.BrokerFastFailure
 */
import type { RequestExecutor } from '../../transport/request-executor';

export interface BrokerFastFailureHost {
  readonly brokerConfig: { brokerFastFailureEnable: boolean; waitTimeMillsInSendQueue: number };
  readonly messageStore: { isOSPageCacheBusy(): boolean };
  readonly sendExecutor: RequestExecutor;
}

export function pcBusyRemark(behindMillis: number, queueSize: number): string {
  return `[PCBUSY_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: ${behindMillis}ms, size of queue: ${queueSize}`;
}

export function timeoutCleanQueueRemark(behindMillis: number, queueSize: number): string {
  return `[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: ${behindMillis}ms, size of queue: ${queueSize}`;
}

export class BrokerFastFailure {
  /** Requests answered SYSTEM_BUSY by this service (since start). */
  cleanedCount = 0;

  constructor(private readonly host: BrokerFastFailureHost) {}

  /** One run (Java's cleanExpiredRequest); does nothing unless brokerFastFailureEnable. */
  cleanExpiredRequest(): void {
    const { brokerConfig, messageStore, sendExecutor } = this.host;
    if (!brokerConfig.brokerFastFailureEnable) {
      sendExecutor.drain();
      return;
    }
    if (messageStore.isOSPageCacheBusy()) this.cleanedCount += sendExecutor.cleanAll(pcBusyRemark);
    this.cleanedCount += sendExecutor.cleanExpired(brokerConfig.waitTimeMillsInSendQueue, timeoutCleanQueueRemark);
    sendExecutor.drain();
  }
}
