/**
 * The broker's side of master/slave replication, kept out of the controller: the HA service on the store (every
 * role listens on the HA port, as Java), the slave's master addresses (fixed by `haMasterAddress`, else learnt from
 * each REGISTER_BROKER answer) and the slave's metadata copy (SlaveSynchronize, 3 s after start then every 10 s).
 *
 * @see org.apache.rocketmq.broker.BrokerController (initialize, handleSlaveSynchronize, doRegisterBrokerAll)
 */
import path from 'node:path';
import { type Logger, componentLogger } from '../../logger';
import { HAService } from '../../ha/ha-service';
import type { DefaultMessageStore } from '../../store/message-store';
import { BrokerRole, type MessageStoreConfig } from '../../store/message-store-config';
import type { RemotingClient } from '../../transport/remoting-client';
import { configDir } from '../config-manager';
import type { TopicConfigManager } from '../topic/topic-config-manager';
import type { SubscriptionGroupManager } from '../subscription/subscription-group-manager';
import type { ConsumerOffsetManager } from '../offset/consumer-offset-manager';
import type { TimerMetrics } from '../../store/timer/timer-metrics';
import { SlaveSynchronize } from './slave-synchronize';

/**
 * Listens for HA connections on `haListenPort`, else on the remoting port + 1 (any free port when the remoting port
 * was 0). listenPort + 1 is only a convention: when it is taken (Linux hands odd ports to outgoing connections),
 * HA is served on a free port, which the broker registers with the name server (haServerAddr), so slaves still find
 * it. A configured haListenPort must be honoured.
 */
export async function startHAListener(
  listen: (port: number) => Promise<void>, haListenPort: number, configuredListenPort: number, boundListenPort: number, logger: Logger,
): Promise<void> {
  const port = haListenPort || (configuredListenPort === 0 ? 0 : boundListenPort + 1);
  try {
    await listen(port);
  } catch (err) {
    if (haListenPort || port === 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    logger.warn({ port }, 'HA port listenPort + 1 taken, using a free port');
    await listen(0);
  }
}

export interface BrokerReplicationDeps {
  store: DefaultMessageStore;
  config: MessageStoreConfig;
  remotingClient: RemotingClient;
  topicConfigManager: TopicConfigManager;
  subscriptionGroupManager: SubscriptionGroupManager;
  consumerOffsetManager: ConsumerOffsetManager;
  brokerAddr: () => string;
  logger: Logger;
  /** The timer wheel's metrics, which a slave copies from its master (timerWheelEnable). */
  timerMetrics?: TimerMetrics;
  /** SlaveSynchronize schedule (Java: 3 s, then every 10 s). */
  slaveSyncInitialDelayMillis?: number;
  slaveSyncIntervalMillis?: number;
}

export class BrokerReplication {
  readonly haService: HAService;
  readonly slaveSynchronize: SlaveSynchronize;
  /** False when `haMasterAddress` fixes the master's HA address (Java's updateMasterHAServerAddrPeriodically). */
  readonly updateMasterHAServerAddrPeriodically: boolean;
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: BrokerReplicationDeps, bindAddress?: string) {
    this.haService = new HAService(deps.store, { listenPort: 0, bindAddress, logger: deps.logger });
    this.slaveSynchronize = new SlaveSynchronize({
      remotingClient: deps.remotingClient,
      topicConfigManager: deps.topicConfigManager,
      subscriptionGroupManager: deps.subscriptionGroupManager,
      consumerOffsetManager: deps.consumerOffsetManager,
      delayOffsetFile: path.join(configDir(deps.config.storePathRootDir), 'delayOffset.json'),
      brokerAddr: deps.brokerAddr,
      timerMetrics: deps.timerMetrics,
      timerWheelEnable: () => deps.config.timerWheelEnable,
      logger: componentLogger('slave-synchronize', deps.logger),
    });
    const fixed = deps.config.haMasterAddress;
    this.updateMasterHAServerAddrPeriodically = !(this.isSlave && fixed && fixed.length >= 6);
  }

  get isSlave(): boolean {
    return this.deps.config.brokerRole === BrokerRole.SLAVE;
  }

  /** Starts the HA port: `haListenPort`, else the remoting port + 1 (any free port when the remoting port was 0). */
  async start(configuredListenPort: number, boundListenPort: number): Promise<void> {
    const ha = this.haService;
    await startHAListener((port) => ha.start(port), this.deps.config.haListenPort, configuredListenPort, boundListenPort, this.deps.logger);
    if (this.isSlave && !this.updateMasterHAServerAddrPeriodically) ha.updateMasterAddress(this.deps.config.haMasterAddress);
    if (this.isSlave) {
      const interval = this.deps.slaveSyncIntervalMillis ?? 10000;
      const run = () => {
        void this.slaveSynchronize.syncAll().finally(() => {
          if (this.#timer) {
            this.#timer = setTimeout(run, interval);
            this.#timer.unref();
          }
        });
      };
      this.#timer = setTimeout(run, this.deps.slaveSyncInitialDelayMillis ?? 3000);
      this.#timer.unref();
    }
  }

  /** The HA port (after start). */
  get haListenPort(): number {
    return this.haService.listenPort;
  }

  /** A REGISTER_BROKER answer: the slave learns the master's HA and remoting addresses (Java doRegisterBrokerAll). */
  onRegisterResult(result: { haServerAddr?: string; masterAddr?: string }): void {
    if (!this.isSlave) return;
    if (this.updateMasterHAServerAddrPeriodically && result.haServerAddr) this.haService.updateMasterAddress(result.haServerAddr);
    this.slaveSynchronize.masterAddr = result.masterAddr ?? null;
  }

  async shutdown(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.haService.shutdown();
  }
}
