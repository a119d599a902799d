/**
 * The name server: a RemotingServer with the DefaultRequestProcessor registered for every name-server code,
 * the route tables, the KV config (loaded on start), and the housekeeping loop that removes brokers silent
 * for longer than brokerChannelExpiredTime every scanNotActiveBrokerInterval. A broker's connection closing
 * (or going idle) removes it at once (Java BrokerHousekeepingService).
 *
 *   const namesrv = new NamesrvController({ listenPort: 0, kvConfigPath: '/tmp/ns/kvConfig.json' });
 *   await namesrv.start();           // namesrv.address -> "127.0.0.1:<port>"
 *   await namesrv.shutdown();
 *
 * start() and shutdown() are idempotent and merge concurrent calls.
 *
 * @see org.apache.rocketmq.namesrv.NamesrvController
 * @see org.apache.rocketmq.namesrv.routeinfo.BrokerHousekeepingService
 */
import { type Logger, componentLogger } from '../logger';
import type { ControllerConfig } from '../controller/controller-config';
import { ControllerManager } from '../controller/controller-manager';
import { Exposition, type MetricsServer, processMetrics, startMetricsServer } from '../util/prometheus';
import type { Channel } from '../transport/connection';
import { RemotingServer } from '../transport/remoting-server';
import type { TlsSystemConfig } from '../transport/tls-system-config';
import { Lifecycle } from '../util/lifecycle';
import { ServiceLoop } from '../util/service-loop';
import { KVConfigManager, atomicWrite } from './kv-config-manager';
import { type NamesrvConfig, createNamesrvConfig, namesrvConfigToProperties } from './namesrv-config';
import { DefaultRequestProcessor, NAMESRV_REQUEST_CODES } from './processors/default-request-processor';
import { RouteInfoManager } from './route-info-manager';

export interface NamesrvControllerOptions {
  logger?: Logger;
  /** Clock for the route tables (tests). */
  now?: () => number;
  /** TLS of the name server's port (Java's tls.* keys; default permissive, test mode). */
  tls?: Partial<TlsSystemConfig>;
  /** The controller's configuration when `enableControllerInNamesrv` (Java reads it from the name server's file). */
  controllerConfig?: Partial<ControllerConfig>;
}

export class NamesrvController {
  readonly config: NamesrvConfig;
  readonly routeInfoManager: RouteInfoManager;
  readonly kvConfigManager: KVConfigManager;
  readonly remotingServer: RemotingServer;
  #metrics: MetricsServer | null = null;
  readonly processor: DefaultRequestProcessor;
  readonly #logger: Logger;
  readonly #lifecycle: Lifecycle;
  readonly #scanLoop: ServiceLoop;
  #port = 0;
  /** The controller this name server hosts (enableControllerInNamesrv), else null. */
  readonly controllerManager: ControllerManager | null;

  constructor(config: Partial<NamesrvConfig> | NamesrvConfig = {}, options: NamesrvControllerOptions = {}) {
    this.config = createNamesrvConfig(config);
    this.#logger = componentLogger('namesrv', options.logger);
    this.routeInfoManager = new RouteInfoManager({
      brokerChannelExpiredTime: this.config.brokerChannelExpiredTime,
      logger: options.logger,
      now: options.now,
    });
    this.kvConfigManager = new KVConfigManager(this.config.kvConfigPath, options.logger);
    this.remotingServer = new RemotingServer({
      bindAddress: this.config.bindAddress,
      listenPort: this.config.listenPort,
      serverChannelMaxIdleTimeSeconds: this.config.serverChannelMaxIdleTimeSeconds,
      ...(options.tls ? { tls: options.tls } : {}),
      logger: options.logger,
    });
    this.processor = new DefaultRequestProcessor({
      config: this.config,
      routeInfoManager: this.routeInfoManager,
      kvConfigManager: this.kvConfigManager,
      persistConfig: () => atomicWrite(this.config.configStorePath, namesrvConfigToProperties(this.config)),
      logger: options.logger,
    });
    for (const code of NAMESRV_REQUEST_CODES) this.remotingServer.registerProcessor(code, this.processor.processRequest);
    const onChannelGone = (remoteAddr: string, channel: Channel): void => {
      this.routeInfoManager.onChannelDestroy(remoteAddr, channel);
    };
    this.remotingServer.on('close', onChannelGone);
    this.remotingServer.on('exception', onChannelGone);
    this.remotingServer.on('idle', onChannelGone);
    this.#scanLoop = new ServiceLoop(
      { name: 'scanNotActiveBroker', intervalMillis: this.config.scanNotActiveBrokerInterval, initialDelayMillis: Math.min(5000, this.config.scanNotActiveBrokerInterval), logger: this.#logger },
      () => {
        this.routeInfoManager.brokerChannelExpiredTime = this.config.brokerChannelExpiredTime;
        this.routeInfoManager.scanNotActiveBroker();
      },
    );
    this.controllerManager = this.config.enableControllerInNamesrv ? new ControllerManager(options.controllerConfig ?? {}, { logger: options.logger }) : null;
    this.#lifecycle = new Lifecycle(() => this.#doStart(), () => this.#doShutdown());
  }

  start(): Promise<void> {
    return this.#lifecycle.start();
  }

  shutdown(): Promise<void> {
    return this.#lifecycle.shutdown();
  }

  get isRunning(): boolean {
    return this.#lifecycle.isRunning;
  }

  /** The bound port (after start). */
  get port(): number {
    return this.#port;
  }

  /** "host:port" to give clients and brokers (127.0.0.1 when bound to every interface). */
  get address(): string {
    const host = this.config.bindAddress === '0.0.0.0' || this.config.bindAddress === '::' ? '127.0.0.1' : this.config.bindAddress;
    return `${host}:${this.#port}`;
  }

  /** host:port of the Prometheus endpoint (metricsPort), or null when it is off. */
  get metricsAddress(): string | null {
    return this.#metrics?.address ?? null;
  }

  /** One scrape: brokers, clusters, topics and connections, plus the process figures. */
  collectMetrics(): string {
    const r = this.routeInfoManager;
    let masters = 0;
    for (const bd of r.brokerAddrTable.values()) if (bd.brokerAddrs.has(0)) masters++;
    return processMetrics(new Exposition()
      .gauge('rocketmq_namesrv_live_brokers', 'Broker addresses registered and not expired.', [[undefined, r.brokerLiveTable.size]])
      .gauge('rocketmq_namesrv_broker_groups', 'Broker names (groups) known, and how many have a master.', [[{ role: 'all' }, r.brokerAddrTable.size], [{ role: 'with_master' }, masters]])
      .gauge('rocketmq_namesrv_clusters', 'Clusters known.', [[undefined, r.clusterAddrTable.size]])
      .gauge('rocketmq_namesrv_topics', 'Topics with a route.', [[undefined, r.topicQueueTable.size]])
      .gauge('rocketmq_remoting_connections', 'Open connections.', [[undefined, this.remotingServer.channels.length]])
      .gauge('rocketmq_remoting_inflight_requests', 'Requests being processed now.', [[undefined, this.remotingServer.inflightRequests]])).text();
  }

  async #doStart(): Promise<void> {
    await this.kvConfigManager.load();
    this.#port = await this.remotingServer.listen();
    if (this.config.metricsPort >= 0) {
      try {
        this.#metrics = await startMetricsServer({
          host: this.config.metricsPromExporterHost, port: this.config.metricsPort, logger: this.#logger, collect: () => this.collectMetrics(),
        });
      } catch (err) {
        await this.remotingServer.shutdown();
        throw err;
      }
      this.#logger.info({ address: this.#metrics.address }, 'Prometheus metrics at /metrics');
    }
    this.#scanLoop.start();
    this.#logger.info({ address: this.address }, 'The Name Server boot success');
    if (this.controllerManager) {
      try {
        await this.controllerManager.start();
      } catch (err) {
        await this.#doShutdown();
        throw err;
      }
      this.#logger.info({ address: this.controllerManager.address }, 'The ControllerManager boot success');
    }
  }

  async #doShutdown(): Promise<void> {
    await this.controllerManager?.shutdown();
    await this.#scanLoop.stop();
    await this.#metrics?.close();
    this.#metrics = null;
    await this.remotingServer.shutdown();
    await this.kvConfigManager.flush();
    this.#logger.info('name server shut down');
  }
}
