/**
 * The broker: configuration, the store, the managers, the processor table, long polling, name-server registration.
 *
 * @see org.apache.rocketmq.broker.BrokerController
 */
import { DLedgerCommitLog } from './dledger/dledger-commit-log';
import { ReplicasManager, type ReplicasManagerOptions } from './controller/replicas-manager';
import { nextVersion } from '../../protocol/body/data-version';
import type { DLedgerConfig } from '../dledger';
import { type BrokerConfig, localAddress, prometheusEndpoint, resolveBrokerConfig } from './broker-config';
import type { BrokerService, ScheduleMessageServiceHook } from './broker-hooks';
import type { BrokerProcessor } from './processor/broker-processor';
import { type GrpcEndpoint, createGrpcEndpoint } from './grpc-endpoint';
import { TopicConfigManager } from './topic/topic-config-manager';
import { SubscriptionGroupManager } from './subscription/subscription-group-manager';
import { ConsumerOffsetManager } from './offset/consumer-offset-manager';
import { ProducerManager } from './client-manager/producer-manager';
import { ConsumerGroupEvent, ConsumerManager } from './client-manager/consumer-manager';
import { Broker2Client } from './client-manager/broker2-client';
import { PullRequestHoldService } from './longpolling/pull-request-hold-service';
import { BrokerOuterAPI, type RegisterBrokerArgs, type RegisterBrokerResult } from './out/broker-outer-api';
import { BrokerRegistration, REGISTER_RETRY_MAX_DELAY_MILLIS } from './out/broker-registration';
import type { TopicConfig } from '../../protocol/body/topic-config';
import type { TopicConfigSerializeWrapper } from '../../protocol/body/topic-config-serialize-wrapper';
import { BrokerLatencyMetrics, BrokerMetricsService } from './metrics/broker-metrics';
import { BrokerStatsManager } from './stats/broker-stats-manager';
import { SendMessageProcessor } from './processor/send-message-processor';
import { PullMessageProcessor } from './processor/pull-message-processor';
import { ClientManageProcessor } from './processor/client-manage-processor';
import { ConsumerManageProcessor } from './processor/consumer-manage-processor';
import { QueueOffsetProcessor } from './processor/queue-offset-processor';
import { ConsumerSendMsgBackProcessor } from './processor/consumer-send-msg-back-processor';
import { LockBatchProcessor } from './processor/lock-batch-processor';
import { QueryMessageProcessor } from './processor/query-message-processor';
import { AdminBrokerProcessor } from './processor/admin-broker-processor';
import { ScheduleMessageService } from './schedule/schedule-message-service';
import { RebalanceLockManager } from './client-manager/rebalance-lock-manager';
import { configDir } from './config-manager';
import path from 'node:path';
import { EndTransactionProcessor } from './processor/end-transaction-processor';
import { ReplyMessageProcessor } from './processor/reply-message-processor';
import { createBrokerTransaction } from './transaction/broker-transaction';
import type { TransactionalMessageService } from './transaction/transactional-message-service';
import type { DefaultTransactionalMessageCheckListener } from './transaction/transactional-message-check-listener';
import type { TransactionalMessageCheckService } from './transaction/transactional-message-check-service';
import { type Accelerator, acceleratorsLine, brokerAccelerators } from './accelerators';
import { BrokerRole } from '../store/message-store-config';
import { type MessageStoreConfig, resolveMessageStoreConfig } from '../store/message-store-config';
import { DefaultMessageStore, type ReplicaWaiter } from '../store/message-store';
import { type Logger, componentLogger } from '../logger';
import { Lifecycle } from '../util/lifecycle';
import { ServiceLoop } from '../util/service-loop';
import { RemotingServer, type RemotingServerOptions } from '../transport/remoting-server';
import type { Channel } from '../transport/connection';
import type { ProcessorOptions } from '../transport/processor';
import { RequestExecutor } from '../transport/request-executor';
import { BrokerFastFailure } from './latency/broker-fast-failure';
import { ConfigError } from '../errors';
import { BrokerReplication, startHAListener } from './slave/broker-replication';
import { PlainAccessValidator } from './acl/plain-access-validator';
import type { PlainPermissionManagerOptions } from './acl/plain-permission-manager';
import { AclConfigProcessor } from './acl/acl-config-processor';
import { BrokerPop } from './pop/broker-pop';
import { TIMER_TOPIC, TimerMessageStore, type TimerCheckpointData } from '../store/timer/timer-message-store';

export interface BrokerControllerOptions {
  brokerConfig?: Partial<BrokerConfig>;
  messageStoreConfig?: Partial<MessageStoreConfig>;
  remotingServerConfig?: Partial<RemotingServerOptions>;
  /** ACL file location and watch interval (with aclEnable); defaults: rocketmqHome, conf/plain_acl.yml, 5 s. */
  acl?: Partial<PlainPermissionManagerOptions>;
  logger?: Logger;
  /** SlaveSynchronize schedule (tests shorten it). */
  replication?: { slaveSyncInitialDelayMillis?: number; slaveSyncIntervalMillis?: number };
  /** DLedger timings and sizes over what enableDLegerCommitLog derives from the store config (tests use short ones). */
  dledger?: Partial<DLedgerConfig>;
  /**
   * Controller mode: the retry wait and first delay of the periodic controller calls, the period of the controller
   * name's lookup and the resolver (fetchControllerAddrByDnsLookup); tests shorten or inject them.
   */
  replicasManager?: Pick<ReplicasManagerOptions, 'retryIntervalMillis' | 'initialDelayMillis' | 'updateControllerAddrIntervalMillis' | 'lookupAddresses'>;
}

export class BrokerController {
  readonly brokerConfig: BrokerConfig;
  readonly messageStoreConfig: MessageStoreConfig;
  readonly logger: Logger;
  readonly remotingServer: RemotingServer;
  readonly topicConfigManager: TopicConfigManager;
  readonly subscriptionGroupManager: SubscriptionGroupManager;
  readonly consumerOffsetManager: ConsumerOffsetManager;
  readonly producerManager: ProducerManager;
  readonly consumerManager: ConsumerManager;
  readonly broker2Client: Broker2Client;
  readonly pullRequestHoldService: PullRequestHoldService;
  readonly brokerOuterAPI: BrokerOuterAPI;
  /** Registrations with the name servers: one in flight per name server, incremental where one topic changed. */
  readonly registration: BrokerRegistration;
  readonly messageStore: DefaultMessageStore;
  /** Delay levels (SCHEDULE_TOPIC_XXXX delivery, delayOffset.json). */
  readonly scheduleMessageService: ScheduleMessageService & ScheduleMessageServiceHook;
  /** Orderly-consumption locks (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ). */
  readonly rebalanceLockManager: RebalanceLockManager;
  /** More services started after the store and stopped before it (transactions, ...). */
  readonly services: BrokerService[] = [];
  /** The processors by request code (filled by registerProcessors()). */
  readonly processors = new Map<number, BrokerProcessor>();
  readonly pullMessageProcessor: PullMessageProcessor;
  /** Traffic counters by topic, group and broker (VIEW_BROKER_STATS_DATA, metrics). */
  readonly brokerStatsManager: BrokerStatsManager;
  /** Put / get latency histograms fed by the send and pull processors. */
  readonly latencyMetrics = new BrokerLatencyMetrics();
  /** The Prometheus endpoint, when metricsExporterType=PROM or metricsPort is set. */
  readonly metricsService: BrokerMetricsService | null = null;
  readonly sendMessageProcessor: SendMessageProcessor;
  /** Sends admitted and not answered, over every connection (Java's sendMessageExecutor and its queue). */
  readonly sendExecutor: RequestExecutor;
  /** Pulls being processed, over every connection (Java's pullMessageExecutor and its queue). */
  readonly pullExecutor: RequestExecutor;
  /** Answers waiting sends SYSTEM_BUSY when the store is busy (Java's BrokerFastFailure). */
  readonly brokerFastFailure: BrokerFastFailure;
  /** Half messages, END_TRANSACTION and the check (Java initialTransaction). */
  readonly transactionalMessageService: TransactionalMessageService;
  readonly transactionalMessageCheckListener: DefaultTransactionalMessageCheckListener;
  readonly transactionalMessageCheckService: TransactionalMessageCheckService;
  /** 5.x POP consumption: checkpoints, revive, long polling and the POP / ACK / NOTIFICATION processors (lib/broker/pop). */
  readonly pop: BrokerPop;
  /** 5.x timer messages (rmq_sys_wheel_timer, the timing wheel; lib/store/timer). */
  readonly timerMessageStore: TimerMessageStore;
  /** Master/slave replication: the HA port, the slave's master addresses and metadata copy. */
  readonly replication: BrokerReplication;
  /** DLedger mode (enableDLegerCommitLog): the Raft log and the role-change handler; null otherwise. */
  readonly dledgerCommitLog: DLedgerCommitLog | null;
  /** The optional native pieces found at start (lib/broker/accelerators.ts), logged in one line; empty before start. */
  accelerators: Accelerator[] = [];
  /** The RocketMQ 5.x gRPC endpoint when grpcServerPort is set (lib/grpc, loaded only then), else null. */
  readonly grpcEndpoint: GrpcEndpoint | null = null;
  /** Controller mode (enableControllerMode): id, role and failover from the controllers; null otherwise. */
  readonly replicasManager: ReplicasManager | null;
  /** The ACL check run before every request when aclEnable=true (Java initialAcl), else null. */
  readonly accessValidator: PlainAccessValidator | null;
  /** Epoch millis before which sends are refused (Java startAcceptSendRequestTimeStamp). */
  readonly #lifecycle: Lifecycle;
  /** Java's VIP channel on listenPort - 2 (a Java slave's SlaveSynchronize calls it); null when that port was taken. */
  #vipServer: RemotingServer | null = null;
  readonly #remotingServerConfig: Partial<RemotingServerOptions>;
  readonly #loops: ServiceLoop[] = [];
  #listenPort = 0;
  #registeredOnce = false;
  /** Fenced (controller mode until the controller gave a role): no name-server registration (Java isIsolated). */
  #isolated = false;
  /** The last whole-table wrapper, reused while the data version and the broker's permission stay. */
  #fullWrapper: { key: string; wrapper: TopicConfigSerializeWrapper } | null = null;
  #removeArrivingListener: (() => void) | null = null;

  constructor(options: BrokerControllerOptions = {}) {
    this.brokerConfig = resolveBrokerConfig(options.brokerConfig);
    if (!this.brokerConfig.brokerIP1) this.brokerConfig.brokerIP1 = localAddress();
    const storeRoot = options.messageStoreConfig?.storePathRootDir ?? options.brokerConfig?.storePathRootDir ?? this.brokerConfig.storePathRootDir;
    this.brokerConfig.storePathRootDir = storeRoot;
    this.messageStoreConfig = resolveMessageStoreConfig({ ...options.messageStoreConfig, storePathRootDir: storeRoot });
    this.logger = componentLogger('broker', options.logger).child({ brokerName: this.brokerConfig.brokerName });
    // Java's BrokerStartup: a master is brokerId 0; a slave needs a brokerId > 0.
    if (this.brokerConfig.enableControllerMode) {
      if (this.messageStoreConfig.enableDLegerCommitLog) throw new ConfigError('The config enableControllerMode and enableDLegerCommitLog cannot both be true.');
      if (!this.brokerConfig.controllerAddr) throw new ConfigError('enableControllerMode=true needs controllerAddr');
      // The controller gives the id and the role: the broker starts fenced, as a slave without master-only services.
      this.messageStoreConfig.brokerRole = BrokerRole.SLAVE;
      this.brokerConfig.brokerId = -1;
      this.#isolated = true;
    } else if (this.messageStoreConfig.enableDLegerCommitLog) {
      // A DLedger peer starts as a slave; the elected leader becomes master (DLedgerRoleChangeHandler).
      this.messageStoreConfig.brokerRole = BrokerRole.SLAVE;
      this.brokerConfig.brokerId = Number.parseInt(this.messageStoreConfig.dLegerSelfId.slice(1), 10) + 1;
      if (!(this.brokerConfig.brokerId > 0)) throw new ConfigError(`dLegerSelfId must be n<number>, got "${this.messageStoreConfig.dLegerSelfId}"`);
    } else if (this.messageStoreConfig.brokerRole === BrokerRole.SLAVE) {
      if (this.brokerConfig.brokerId <= 0) throw new ConfigError("Slave's brokerId must be > 0");
    } else this.brokerConfig.brokerId = 0;
    const bc = this.brokerConfig;
    this.#remotingServerConfig = options.remotingServerConfig ?? {};
    this.remotingServer = new RemotingServer({
      listenPort: bc.listenPort,
      ...options.remotingServerConfig,
      logger: this.logger,
    });
    this.topicConfigManager = new TopicConfigManager(bc, componentLogger('topic-config-manager', this.logger));
    // Java 5.x registerIncrementBrokerData: a topic created on the fly (auto-create, retry and DLQ topics) goes to
    // the name servers alone.
    this.topicConfigManager.onTopicCreated = (tc) => {
      void this.registerIncrementBrokerData([tc.topicName]);
    };
    this.subscriptionGroupManager = new SubscriptionGroupManager(bc, componentLogger('subscription-group-manager', this.logger));
    this.consumerOffsetManager = new ConsumerOffsetManager(bc, componentLogger('consumer-offset-manager', this.logger));
    this.producerManager = new ProducerManager(componentLogger('producer-manager', this.logger), bc.channelExpiredTimeout);
    this.broker2Client = new Broker2Client(() => this.remotingServer, componentLogger('broker2client', this.logger), () => this);
    this.consumerManager = new ConsumerManager(
      componentLogger('consumer-manager', this.logger),
      (event, group, args) => {
        if (event === ConsumerGroupEvent.CHANGE && this.brokerConfig.notifyConsumerIdsChangedEnable) {
          for (const channel of args.channels ?? []) this.broker2Client.notifyConsumerIdsChanged(channel, group);
        }
      },
      bc.channelExpiredTimeout,
    );
    this.messageStore = new DefaultMessageStore(this.messageStoreConfig, {
      storeHost: { host: bc.brokerIP1, port: bc.listenPort },
      logger: this.logger,
    });
    this.brokerStatsManager = new BrokerStatsManager({ clusterName: bc.brokerClusterName });
    this.services.push(this.brokerStatsManager);
    const metrics = prometheusEndpoint(bc);
    if (metrics) {
      this.metricsService = new BrokerMetricsService(this, { ...metrics, logger: componentLogger('metrics', this.logger) });
      this.services.push(this.metricsService);
    } else if (bc.metricsExporterType.toUpperCase() !== 'DISABLE') {
      this.logger.warn({ metricsExporterType: bc.metricsExporterType }, 'only the PROM metrics exporter is available; metrics are off');
    }
    this.sendExecutor = new RequestExecutor({
      name: 'send', capacity: bc.sendThreadPoolQueueCapacity, ready: () => !this.messageStore.isAppendBusy(),
    });
    this.pullExecutor = new RequestExecutor({ name: 'pull', capacity: bc.pullThreadPoolQueueCapacity });
    this.brokerFastFailure = new BrokerFastFailure(this);
    this.pullMessageProcessor = new PullMessageProcessor(this);
    this.sendMessageProcessor = new SendMessageProcessor(this);
    this.pullRequestHoldService = new PullRequestHoldService({
      longPollingEnable: bc.longPollingEnable,
      shortPollingTimeMills: bc.shortPollingTimeMills,
      getMaxOffset: (topic, queueId) => this.messageStore.getMaxOffsetInQueue(topic, queueId),
      wakeup: (request, ctx) => this.pullMessageProcessor.executeRequestWhenWakeup(request, ctx),
      logger: componentLogger('pull-request-hold-service', this.logger),
    });
    const tls = this.remotingServer.options.tls;
    this.brokerOuterAPI = new BrokerOuterAPI(componentLogger('broker-outer-api', this.logger), tls.tlsEnable ?? tls.tlsMode === 'enforcing');
    this.registration = new BrokerRegistration({
      api: this.brokerOuterAPI,
      logger: componentLogger('broker-registration', this.logger),
      build: (topics) => this.#buildRegisterArgs(topics),
      maxRetryDelayMillis: REGISTER_RETRY_MAX_DELAY_MILLIS,
      shouldRetry: () => !this.#isolated,
    });
    this.scheduleMessageService = new ScheduleMessageService(
      {
        getMessage: (group, topic, queueId, offset, maxMsgNums) => this.messageStore.getMessage(group, topic, queueId, offset, maxMsgNums),
        putMessage: (m) => this.messageStore.putMessage(m),
        getMinOffsetInQueue: (t, q) => this.messageStore.getMinOffsetInQueue(t, q),
        getMaxOffsetInQueue: (t, q) => this.messageStore.getMaxOffsetInQueue(t, q),
      },
      {
        messageDelayLevel: this.messageStoreConfig.messageDelayLevel,
        delayOffsetFile: path.join(configDir(this.messageStoreConfig.storePathRootDir), 'delayOffset.json'),
        logger: componentLogger('schedule-message-service', this.logger),
      },
    );
    this.rebalanceLockManager = new RebalanceLockManager({ logger: componentLogger('rebalance-lock-manager', this.logger) });
    const tx = createBrokerTransaction(this, componentLogger('transaction', this.logger));
    this.transactionalMessageService = tx.transactionalMessageService;
    this.transactionalMessageCheckListener = tx.transactionalMessageCheckListener;
    this.transactionalMessageCheckService = tx.transactionalMessageCheckService;
    // A master checks half messages (Java starts the check service in changeToMaster / startProcessorByHa).
    if (this.messageStoreConfig.brokerRole !== BrokerRole.SLAVE) this.services.push(this.transactionalMessageCheckService);
    this.pop = new BrokerPop(this);
    this.timerMessageStore = new TimerMessageStore(this.messageStore, {
      storePathRootDir: this.messageStoreConfig.storePathRootDir,
      timerPrecisionMs: this.messageStoreConfig.timerPrecisionMs,
      timerLogFileSize: this.messageStoreConfig.mappedFileSizeTimerLog,
      logger: componentLogger('timer-message-store', this.logger),
    });
    // In controller mode POP serves on every role; only its revive service follows the role.
    if (this.messageStoreConfig.brokerRole !== BrokerRole.SLAVE || bc.enableControllerMode) this.services.push(this.pop);
    this.replication = new BrokerReplication({
      store: this.messageStore,
      config: this.messageStoreConfig,
      remotingClient: this.brokerOuterAPI.remotingClient,
      topicConfigManager: this.topicConfigManager,
      subscriptionGroupManager: this.subscriptionGroupManager,
      consumerOffsetManager: this.consumerOffsetManager,
      brokerAddr: () => this.brokerAddr,
      timerMetrics: this.timerMessageStore.timerMetrics,
      logger: componentLogger('replication', this.logger),
      ...options.replication,
    }, options.remotingServerConfig?.bindAddress);
    this.dledgerCommitLog = this.messageStoreConfig.enableDLegerCommitLog
      ? new DLedgerCommitLog(this.messageStore, this, {
        group: this.messageStoreConfig.dLegerGroup || bc.brokerName,
        bindAddress: options.remotingServerConfig?.bindAddress ?? '0.0.0.0',
        ...options.dledger,
      }, componentLogger('dledger-commit-log', this.logger))
      : null;
    this.replicasManager = bc.enableControllerMode
      ? new ReplicasManager(this, {
        remotingClient: this.brokerOuterAPI.remotingClient, logger: componentLogger('replicas-manager', this.logger),
        bindAddress: options.remotingServerConfig?.bindAddress, ...options.replicasManager,
      })
      : null;
    this.accessValidator = bc.aclEnable
      ? new PlainAccessValidator({ fileHome: bc.rocketmqHome, ...options.acl, logger: this.logger })
      : null;
    if (this.accessValidator) this.remotingServer.registerRPCHook(this.accessValidator);
    // Last of the services: started once the processors and POP run, stopped first.
    if (bc.grpcServerPort >= 0) {
      this.grpcEndpoint = createGrpcEndpoint(this, {
        port: bc.grpcServerPort, bindAddress: options.remotingServerConfig?.bindAddress ?? '0.0.0.0', tls: this.remotingServer.options.tls,
      });
      this.services.push(this.grpcEndpoint);
    }
    this.#lifecycle = new Lifecycle(() => this.#start(), () => this.#shutdown());
  }

  /** "ip:port" that clients and name servers use for this broker. */
  get brokerAddr(): string {
    return `${this.brokerConfig.brokerIP1}:${this.listenPort}`;
  }

  /** The bound port (the configured one until started). */
  get listenPort(): number {
    return this.#listenPort || this.remotingServer.options.listenPort;
  }

  get storeHost(): { address: string; port: number } {
    return { address: this.brokerConfig.brokerIP1, port: this.listenPort };
  }

  get isRunning(): boolean {
    return this.#lifecycle.isRunning;
  }

  /** Registers every processor for its codes (Java registerProcessor). */
  registerProcessors(extra: BrokerProcessor[] = []): void {
    const admin = new AdminBrokerProcessor(this);
    const all: BrokerProcessor[] = [
      this.sendMessageProcessor,
      this.pullMessageProcessor,
      new ClientManageProcessor(this),
      new ConsumerManageProcessor(this),
      new QueueOffsetProcessor(this),
      new ConsumerSendMsgBackProcessor(this),
      new LockBatchProcessor(this),
      new QueryMessageProcessor(this),
      admin,
      new AclConfigProcessor(this),
      new EndTransactionProcessor(this),
      ...this.pop.processors,
      new ReplyMessageProcessor(this),
      ...(this.replicasManager ? [this.replicasManager.processor] : []),
      ...extra,
    ];
    for (const p of all) {
      for (const code of p.requestCodes) {
        this.processors.set(code, p);
        this.remotingServer.registerProcessor(code, (request, ctx) => p.processRequest(request, ctx), this.#processorOptions(p));
      }
    }
    // Java's default processor: an unknown code passes the RPC hooks (ACL) before REQUEST_CODE_NOT_SUPPORTED.
    this.remotingServer.registerDefaultProcessor((request, ctx) => admin.processRequest(request, ctx));
  }

  /** The executor and rejectRequest of a processor (Java's registerProcessor with sendMessageExecutor, pullMessageExecutor). */
  #processorOptions(p: BrokerProcessor): ProcessorOptions {
    if (p === this.sendMessageProcessor || p instanceof ConsumerSendMsgBackProcessor) {
      // Java's SendMessageProcessor.rejectRequest: the page cache is busy.
      return { executor: this.sendExecutor, rejectRequest: () => this.messageStore.isOSPageCacheBusy() };
    }
    if (p === this.pullMessageProcessor) return { executor: this.pullExecutor };
    return {};
  }

  /** Loads config files and the store (Java initialize()). */
  async initialize(): Promise<boolean> {
    let ok = await this.topicConfigManager.load();
    ok = (await this.consumerOffsetManager.load()) && ok;
    ok = (await this.subscriptionGroupManager.load()) && ok;
    ok = (await this.scheduleMessageService.load()) && ok;
    await this.timerMessageStore.load();
    ok = (await this.messageStore.load()) && ok;
    return ok;
  }

  start(): Promise<void> {
    return this.#lifecycle.start();
  }

  shutdown(): Promise<void> {
    return this.#lifecycle.shutdown();
  }

  async #start(): Promise<void> {
    if (this.accessValidator) {
      try {
        await this.accessValidator.start();
      } catch (err) {
        throw new ConfigError(`ACL (aclEnable=true): ${(err as Error).message}`, { cause: err });
      }
    }
    let initialized = false;
    try {
      initialized = await this.initialize();
    } finally {
      if (!initialized) await this.#closeAfterFailedInitialize();
    }
    if (!initialized) throw new ConfigError('broker initialize failed (corrupt config or store)');
    try {
      await this.#startServices();
    } catch (err) {
      // A port in use (remoting, HA, gRPC) or a service that cannot start: what did start is shut down again, so a
      // broker that failed to start leaves no port, timer or file open (Lifecycle makes a later shutdown() a no-op).
      this.logger.error({ err }, 'broker start failed; shutting down what started');
      await this.#shutdown().catch((e: unknown) => this.logger.warn({ err: e }, 'shutdown after a failed start failed'));
      throw err;
    }
  }

  /**
   * A start refused by initialize (a corrupt config file and its .bak, a store that cannot load): the files it opened
   * (the store's, the timer wheel's) are closed and ACL's watcher stopped. Nothing is persisted, unlike #shutdown: the
   * config tables are not what the files hold, and the files stay as they are for a person to repair.
   */
  async #closeAfterFailedInitialize(): Promise<void> {
    const close = async (what: string, fn: () => Promise<unknown> | undefined) => {
      try {
        await fn();
      } catch (err) {
        this.logger.warn({ err }, `closing the ${what} after a failed start failed`);
      }
    };
    await close('ACL validator', () => this.accessValidator?.shutdown());
    await close('timer store', () => this.timerMessageStore.shutdown());
    await close('store', () => this.messageStore.shutdown());
  }

  /** #start after initialize: the store, the servers, the services and the loops, then the first registration. */
  async #startServices(): Promise<void> {
    this.registerProcessors();
    // The store reports the queue's new max offset (consume-queue offset + 1), as Java's NotifyMessageArrivingListener.
    this.#removeArrivingListener = this.messageStore.onMessageArriving((topic, queueId, maxOffset, tagsCode, _storeTimestamp, properties) => {
      this.scheduleMessageService.notifyMessageArriving(topic, queueId, maxOffset - 1, tagsCode);
      this.pullRequestHoldService.notifyMessageArriving(topic, queueId, maxOffset, tagsCode, properties ?? null);
      this.pop.notifyMessageArriving(topic);
      if (topic === TIMER_TOPIC) this.timerMessageStore.kick();
    });
    await this.messageStore.start();
    this.remotingServer.on('close', (addr, channel) => this.#onChannelGone(addr, channel));
    this.remotingServer.on('idle', (addr, channel) => this.#onChannelGone(addr, channel));
    this.remotingServer.on('exception', (addr, channel) => this.#onChannelGone(addr, channel));
    this.#listenPort = await this.remotingServer.listen();
    // DLedger replicates through its own log: no HA stream. Controller mode speaks the AutoSwitch HA stream (every
    // role listens, as Java's AutoSwitchHAService); the rest the 4.x master/slave one.
    if (this.dledgerCommitLog) await this.dledgerCommitLog.start();
    else if (this.replicasManager) {
      const rm = this.replicasManager;
      await startHAListener((port) => rm.startHAService(port), this.messageStoreConfig.haListenPort, this.remotingServer.options.listenPort, this.#listenPort, this.logger);
      this.messageStore.setReplicaWaiter(this.#controllerReplicaWaiter());
    }
    else await this.replication.start(this.remotingServer.options.listenPort, this.#listenPort);
    await this.#startVipChannel();
    const bind = this.remotingServer.options.bindAddress;
    if (!this.accessValidator && !['127.0.0.1', 'localhost', '::1'].includes(bind)) {
      this.logger.warn({ bindAddress: bind, listenPort: this.#listenPort },
        'aclEnable=false: any client that reaches this port may reconfigure the broker, delete topics and read every topic (set aclEnable=true and conf/plain_acl.yml)');
    }
    this.brokerOuterAPI.updateNameServerAddressList(this.brokerConfig.namesrvAddr);
    this.pullRequestHoldService.start();
    // A slave delivers no delayed messages (Java's handleScheduleMessageService).
    if (this.messageStoreConfig.brokerRole !== BrokerRole.SLAVE) await this.scheduleMessageService.start();
    if (this.messageStoreConfig.timerWheelEnable && (this.messageStoreConfig.brokerRole !== BrokerRole.SLAVE || this.replicasManager)) {
      // controller mode: the wheel enqueues in every role and delivers on the master only (changeSpecialServiceStatus)
      if (this.replicasManager) this.timerMessageStore.setShouldRunningDequeue(false);
      await this.timerMessageStore.start();
    }
    for (const s of this.services) await s.start();
    // fenced until the controller gives a role: no POP revive yet
    if (this.replicasManager) await this.pop.reviveService.shutdown();
    const loop = (name: string, intervalMillis: number, task: () => Promise<void> | void, initialDelayMillis?: number) => {
      const l = new ServiceLoop({ name, intervalMillis, initialDelayMillis, logger: this.logger }, task);
      this.#loops.push(l);
      l.start();
    };
    loop('ClientHousekeepingService', 10000, () => {
      this.producerManager.scanNotActiveChannel();
      this.consumerManager.scanNotActiveChannel();
    });
    // Java's BrokerFastFailure: every 10 ms after 1 s.
    loop('BrokerFastFailure', 10, () => this.brokerFastFailure.cleanExpiredRequest(), 1000);
    loop('PersistConsumerOffset', this.brokerConfig.flushConsumerOffsetInterval, () => this.consumerOffsetManager.persistIfChanged());
    if (!this.#isolated) await this.registerBrokerAll(true, false, true);
    loop('RegisterBrokerAll', Math.max(10000, Math.min(this.brokerConfig.registerNameServerPeriod, 60000)), () => (this.#isolated ? undefined : this.registerBrokerAll(true, false, this.brokerConfig.forceRegister)));
    if (this.replicasManager) {
      // Java's ReplicasManager.start(): the first attempt runs now, later ones in the background.
      await this.replicasManager.load();
      this.replicasManager.start();
      await this.replicasManager.whenStartAttempted();
    }
    this.accelerators = brokerAccelerators(this.messageStore.commitLog.writeMode, this.accessValidator !== null);
    this.logger.info(acceleratorsLine(this.accelerators));
    this.logger.info({ brokerAddr: this.brokerAddr, cluster: this.brokerConfig.brokerClusterName }, 'broker started');
  }

  /** The same processors on listenPort - 2, as Java's fast remoting server (best effort: a taken port is logged). */
  async #startVipChannel(): Promise<void> {
    // Only for a configured port (as deployed); a broker on an ephemeral port would take a neighbour's port.
    if (this.#listenPort <= 2 || !this.remotingServer.options.listenPort) return;
    const vip = new RemotingServer({ ...this.#remotingServerConfig, listenPort: this.#listenPort - 2, logger: this.logger });
    for (const [code, p] of this.processors) vip.registerProcessor(code, (request, ctx) => p.processRequest(request, ctx), this.#processorOptions(p));
    // The same checks too (ACL): Java registers its RPC hooks on both servers.
    for (const h of this.remotingServer.rpcHooks) vip.registerRPCHook(h);
    try {
      await vip.listen();
    } catch (err) {
      this.logger.warn({ err, port: this.#listenPort - 2 }, 'VIP channel port taken, not serving it');
      await vip.shutdown().catch(() => undefined);
      return;
    }
    vip.on('close', (addr, channel) => this.#onChannelGone(addr, channel));
    this.#vipServer = vip;
  }

  #onChannelGone(remoteAddr: string, channel: Channel): void {
    this.producerManager.doChannelCloseEvent(remoteAddr, channel);
    this.consumerManager.doChannelCloseEvent(remoteAddr, channel);
  }

  async #shutdown(): Promise<void> {
    await this.replicasManager?.shutdown();
    for (const l of this.#loops.splice(0)) await l.stop();
    await this.pullRequestHoldService.shutdown();
    this.registration.shutdown();
    if (this.#registeredOnce) {
      await this.brokerOuterAPI.unregisterBrokerAll(
        this.brokerConfig.brokerClusterName, this.brokerAddr, this.brokerConfig.brokerName, this.brokerConfig.brokerId,
      );
    }
    await this.brokerOuterAPI.shutdown();
    await this.remotingServer.shutdown();
    await this.#vipServer?.shutdown();
    this.#vipServer = null;
    await this.accessValidator?.shutdown();
    // DLedger first: no role change starts a service after this.
    await this.dledgerCommitLog?.shutdown();
    if (this.dledgerCommitLog || this.replicasManager) await this.transactionalMessageCheckService.shutdown();
    for (const s of [...this.services].reverse()) await s.shutdown();
    await this.scheduleMessageService.shutdown();
    await this.timerMessageStore.shutdown();
    await this.replication.shutdown();
    await this.consumerOffsetManager.persistNow();
    await this.topicConfigManager.persistNow();
    await this.subscriptionGroupManager.persistNow();
    this.#removeArrivingListener?.();
    this.#removeArrivingListener = null;
    await this.messageStore.shutdown();
    this.logger.info({ brokerAddr: this.brokerAddr }, 'broker shut down');
  }

  /** DLedger leader: as a master, deliver delayed messages and check half messages (Java changeToMaster). */
  async changeToMaster(): Promise<void> {
    await this.scheduleMessageService.start();
    this.transactionalMessageCheckService.start();
  }

  /** DLedger follower: stop what only a master runs (Java changeToSlave). */
  async changeToSlave(): Promise<void> {
    await this.scheduleMessageService.shutdown();
    await this.transactionalMessageCheckService.shutdown();
  }

  // ---- controller mode (ReplicasManager's view of the broker) ----

  get isIsolated(): boolean {
    return this.#isolated;
  }

  setIsolated(isolated: boolean): void {
    this.#isolated = isolated;
  }

  setBrokerRole(role: BrokerRole): void {
    this.messageStoreConfig.brokerRole = role;
    this.messageStore.config.brokerRole = role;
  }

  /**
   * Starts or stops what only a master runs: delay delivery, transaction checks, POP revive, timer delivery (Java
   * changeSpecialServiceStatus).
   */
  async changeSpecialServiceStatus(shouldStart: boolean): Promise<void> {
    this.timerMessageStore.setShouldRunningDequeue(shouldStart);
    if (shouldStart) {
      await this.changeToMaster();
      this.pop.reviveService.start();
    } else {
      await this.changeToSlave();
      await this.pop.reviveService.shutdown();
    }
  }

  nextDataVersion(stateVersion: number): void {
    this.topicConfigManager.dataVersion = { ...nextVersion(this.topicConfigManager.dataVersion), stateVersion };
  }

  setSlaveSynchronizeMaster(masterAddr: string | null): void {
    this.replication.slaveSynchronize.masterAddr = masterAddr;
  }

  syncAllFromMaster(): Promise<void> {
    return this.replication.slaveSynchronize.syncAll();
  }

  /** A slave's timer wheel takes the master's checkpoint (Java SlaveSynchronize.syncTimerCheckPoint). */
  syncTimerCheckPoint(checkpoint: TimerCheckpointData): void {
    this.timerMessageStore.syncCheckpointFromMaster(checkpoint);
  }

  getMaxPhyOffset(): number {
    return this.messageStore.getMaxPhyOffset();
  }

  /**
   * Controller mode: what a SYNC_MASTER's send waits for (Java CommitLog.asyncPutMessage and handleHA): a SyncStateSet
   * smaller than minInSyncReplicas refuses it (IN_SYNC_REPLICAS_NOT_ENOUGH); with allAckInSyncStateSet it waits for
   * every replica of the set as it is when they acknowledge (a set of one answers at once), else for inSyncReplicas
   * replicas, the master included (1: at once); a wait past syncFlushTimeout answers FLUSH_SLAVE_TIMEOUT.
   */
  #controllerReplicaWaiter(): ReplicaWaiter {
    const rm = this.replicasManager!;
    return {
      isSlaveOK: () => true,
      waitTransfer: (end, timeoutMillis) => {
        const need = rm.needAckNums();
        return need >= 0 && need <= 1 ? Promise.resolve(true) : rm.haService.waitAcks(end, need, timeoutMillis);
      },
      inSyncReplicasNums: () => rm.inSyncReplicasNums(),
    };
  }

  /**
   * REGISTER_BROKER of the whole topic table to every name server (Java registerBrokerAll). With `forceRegister`
   * false, only to the name servers whose data version differs (QUERY_DATA_VERSION first, Java needRegister).
   * `checkOrderConfig` and `oneway` are accepted for parity.
   */
  async registerBrokerAll(_checkOrderConfig: boolean, _oneway: boolean, forceRegister: boolean): Promise<void> {
    const bc = this.brokerConfig;
    const results = await this.registration.registerPeriodically(forceRegister, {
      clusterName: bc.brokerClusterName,
      brokerAddr: this.brokerAddr,
      brokerName: bc.brokerName,
      brokerId: bc.brokerId,
      dataVersion: this.topicConfigManager.dataVersion,
    });
    this.#onRegistered(results);
  }

  /**
   * REGISTER_BROKER of the named topics only, with the current data version (Java registerIncrementBrokerData):
   * what a topic create costs does not grow with the number of topics. Resolves once the name servers answered.
   */
  async registerIncrementBrokerData(topics: Iterable<string>): Promise<void> {
    // A controller-mode broker without a role yet registers nothing (it is fenced from the name servers).
    if (this.#isolated) return;
    this.#onRegistered(await this.registration.register({ full: false, topics }));
  }

  #onRegistered(results: RegisterBrokerResult[]): void {
    if (results.length > 0) {
      this.#registeredOnce = true;
      if (!this.dledgerCommitLog && !this.replicasManager) this.replication.onRegisterResult(results[0]);
      this.replicasManager?.onRegisterResult(results[0]);
    }
  }

  /** The REGISTER_BROKER request for `topics` (null: all), topic perms narrowed by the broker's permission. */
  #buildRegisterArgs(topics: ReadonlySet<string> | null): RegisterBrokerArgs {
    const bc = this.brokerConfig;
    const tcm = this.topicConfigManager;
    const narrow = !isWriteablePerm(bc.brokerPermission) || !isReadablePerm(bc.brokerPermission);
    let wrapper: TopicConfigSerializeWrapper;
    if (topics === null) {
      // One wrapper per data version and permission: the registration encodes each wrapper's body once.
      const key = `${tcm.dataVersion.counter}/${tcm.dataVersion.timestamp}/${bc.brokerPermission}`;
      if (this.#fullWrapper?.key !== key) {
        let built = tcm.buildTopicConfigSerializeWrapper();
        if (narrow) {
          const table = new Map(built.topicConfigTable);
          for (const [name, tc] of table) table.set(name, { ...tc, perm: tc.perm & bc.brokerPermission });
          built = { topicConfigTable: table, dataVersion: built.dataVersion };
        }
        this.#fullWrapper = { key, wrapper: built };
      }
      wrapper = this.#fullWrapper.wrapper;
    } else {
      const table = new Map<string, TopicConfig>();
      for (const name of topics) {
        const tc = tcm.selectTopicConfig(name);
        if (tc) table.set(name, narrow ? { ...tc, perm: tc.perm & bc.brokerPermission } : tc);
      }
      wrapper = { topicConfigTable: table, dataVersion: { ...tcm.dataVersion } };
    }
    return {
      clusterName: bc.brokerClusterName,
      brokerAddr: this.brokerAddr,
      brokerName: bc.brokerName,
      brokerId: bc.brokerId,
      haServerAddr: `${bc.brokerIP2 || bc.brokerIP1}:${(this.replicasManager ? this.replicasManager.haListenPort : this.replication.haListenPort) || this.listenPort + 1}`,
      topicConfigWrapper: wrapper,
      filterServerList: [],
      timeoutMills: bc.registerBrokerTimeoutMills,
      compressed: bc.compressedRegister,
    };
  }
}

function isWriteablePerm(perm: number): boolean {
  return (perm & 2) === 2;
}
function isReadablePerm(perm: number): boolean {
  return (perm & 4) === 4;
}
