/**
 * The broker's POP consumption, wired together: the checkpoint store (`<storePathRootDir>/pop/checkpoint.log`),
 * long polling, the revive service and the POP_MESSAGE, ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME and
 * NOTIFICATION processors. The controller starts it after the store and stops it before.
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

export class BrokerPop {
  readonly checkPoints: PopCheckPointStore;
  readonly polling: PopLongPollingService;
  readonly reviveService: PopReviveService;
  readonly processors: BrokerProcessor[];
  #loaded = false;

  constructor(controller: PopController) {
    const logger = componentLogger('pop', controller.logger);
    this.checkPoints = new PopCheckPointStore({ dir: path.join(controller.messageStoreConfig.storePathRootDir, 'pop'), logger });
    this.polling = new PopLongPollingService(POP_DEFAULTS.maxPopPollingSize);
    this.reviveService = new PopReviveService(controller, this.checkPoints, { logger });
    this.processors = [
      new PopMessageProcessor(controller, this.checkPoints, this.polling),
      new AckMessageProcessor(controller, this.checkPoints),
      new NotificationProcessor(controller, this.polling),
    ];
  }

  /** A message arrived on `topic` (the store's arriving listener): held pops watching it run again. */
  notifyMessageArriving(topic: string): void {
    this.polling.notifyMessageArriving(topic);
  }

  async start(): Promise<void> {
    if (!this.#loaded) {
      await this.checkPoints.load();
      this.#loaded = true;
    }
    this.polling.start();
    this.reviveService.start();
  }

  async shutdown(): Promise<void> {
    this.polling.shutdown();
    await this.reviveService.shutdown();
    await this.checkPoints.close();
  }
}
