/**
 * Runs the transaction check every transactionCheckInterval (a master broker only).
 *
 * @see org.apache.rocketmq.broker.transaction.TransactionalMessageCheckService
 */
import type { Logger } from '../../logger';
import { ServiceLoop } from '../../util/service-loop';
import type { TransactionalMessageCheckListener, TransactionalMessageService } from './transactional-message-service';

/** The BrokerConfig fields the check reads (read at every pass, so they can change at runtime). */
export interface TransactionCheckConfig {
  transactionCheckInterval: number;
  transactionTimeOut: number;
  transactionCheckMax: number;
}

export class TransactionalMessageCheckService {
  readonly #loop: ServiceLoop;

  constructor(
    private readonly config: TransactionCheckConfig,
    private readonly service: TransactionalMessageService,
    private readonly listener: TransactionalMessageCheckListener,
    private readonly log: Logger,
  ) {
    this.#loop = new ServiceLoop({ name: 'TransactionalMessageCheckService', intervalMillis: config.transactionCheckInterval, logger: log },
      () => this.onWaitEnd());
  }

  start(): void {
    this.#loop.start();
  }

  /** Checking half messages now (a master's service; stopped on a slave). */
  get isRunning(): boolean {
    return this.#loop.isRunning;
  }

  shutdown(): Promise<void> {
    return this.#loop.stop();
  }

  /** Runs a check pass now (after one under way). */
  wakeup(): void {
    this.#loop.wakeup();
  }

  /** One pass (also callable directly by tests and tools). */
  async onWaitEnd(): Promise<void> {
    const begin = Date.now();
    this.log.debug({ begin }, 'begin to check prepare message');
    await this.service.check(this.config.transactionTimeOut, this.config.transactionCheckMax, this.listener);
    this.log.debug({ costMillis: Date.now() - begin }, 'end to check prepare message');
  }
}
