/**
 * The broker's POP consumption, wired together: the checkpoint store (`<storePathRootDir>/pop/checkpoint.log`),
 * the order info of orderly pops (`<storePathRootDir>/config/consumerOrderInfo.json`, persisted every 10 s and at
 * shutdown, as Java's BrokerController does), the per-queue lock, long polling, the revive service and the
 * POP_MESSAGE, ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME and NOTIFICATION processors. The controller starts it
 * after the store and stops it before.
 */
import path from 'node:path';
import type { PopController } from './pop-controller';
import type { BrokerProcessor } from '../processor/broker-processor';
import { componentLogger } from '../../logger';
import { PopCheckPointStore } from './pop-checkpoint-store';
import { PopLongPollingService } from './pop-long-polling-service';
import { POP_DEFAULTS, PopMessageProcessor } from './pop-message-processor';
import { AckMessageProcessor } from './ack-message-processor';
import { NotificationProcessor } from './notification-processor';
import { PopReviveService } from './pop-revive-service';
import { QueueLockManager } from './queue-lock-manager';
import { ConsumerOrderInfoManager } from '../offset/consumer-order-info-manager';
import { ServiceLoop } from '../../util/service-loop';
import { ConfigError } from '../../errors';

/** How often consumerOrderInfo.json is written (Java: with consumerFilter.json, every 10 s after 10 s). */
export const CONSUMER_ORDER_INFO_PERSIST_INTERVAL = 10_000;

export class BrokerPop {
  readonly checkPoints: PopCheckPointStore;
  readonly polling: PopLongPollingService;
  readonly reviveService: PopReviveService;
  readonly consumerOrderInfoManager: ConsumerOrderInfoManager;
  readonly queueLockManager = new QueueLockManager();
  readonly popMessageProcessor: PopMessageProcessor;
  readonly processors: BrokerProcessor[];
  readonly #persistOrderInfo: ServiceLoop;
  #loaded = false;

  constructor(controller: PopController) {
    const logger = componentLogger('pop', controller.logger);
    this.checkPoints = new PopCheckPointStore({ dir: path.join(controller.messageStoreConfig.storePathRootDir, 'pop'), logger });
    this.polling = new PopLongPollingService(POP_DEFAULTS.maxPopPollingSize);
    this.reviveService = new PopReviveService(controller, this.checkPoints, { logger });
    this.consumerOrderInfoManager = new ConsumerOrderInfoManager({
      storePathRootDir: controller.messageStoreConfig.storePathRootDir,
      logger: componentLogger('consumer-order-info-manager', controller.logger),
      broker: controller,
      notifyLockFree: (topic, group, queueId) => this.popMessageProcessor.notifyLongPollingRequestIfNeed(topic, group, queueId),
      enableNotifyAfterPopOrderLockRelease: () => controller.brokerConfig.enableNotifyAfterPopOrderLockRelease,
    });
    this.popMessageProcessor = new PopMessageProcessor(controller, this.checkPoints, this.polling, this.consumerOrderInfoManager,
      this.queueLockManager);
    this.processors = [
      this.popMessageProcessor,
      new AckMessageProcessor(controller, this.checkPoints, this.consumerOrderInfoManager, this.queueLockManager, this.polling),
      new NotificationProcessor(controller, this.polling, this.consumerOrderInfoManager),
    ];
    this.#persistOrderInfo = new ServiceLoop({
      name: 'PersistConsumerOrderInfo', intervalMillis: CONSUMER_ORDER_INFO_PERSIST_INTERVAL,
      initialDelayMillis: CONSUMER_ORDER_INFO_PERSIST_INTERVAL, logger,
    }, () => this.consumerOrderInfoManager.persist());
  }

  /** A message arrived on `topic` (the store's arriving listener): held pops watching it run again. */
  notifyMessageArriving(topic: string): void {
    this.polling.notifyMessageArriving(topic);
  }

  async start(): Promise<void> {
    this.consumerOrderInfoManager.start();
    if (!this.#loaded) {
      await this.checkPoints.load();
      if (!(await this.consumerOrderInfoManager.load())) {
        throw new ConfigError(`${this.consumerOrderInfoManager.configFilePath()} and its .bak are corrupt`);
      }
      this.#loaded = true;
    }
    this.polling.start();
    this.reviveService.start();
    this.#persistOrderInfo.start();
  }

  async shutdown(): Promise<void> {
    this.polling.shutdown();
    await this.reviveService.shutdown();
    await this.#persistOrderInfo.stop();
    this.consumerOrderInfoManager.shutdown();
    // Never loaded (a start that failed first): the file is left as it is.
    if (this.#loaded) await this.consumerOrderInfoManager.persistNow();
    await this.checkPoints.close();
  }
}
