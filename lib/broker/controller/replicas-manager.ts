/**
 * Controller mode on the broker (enableControllerMode=true): finds the leading controller, gets a broker id from it
 * (the `brokerIdentity` file and its temp/check-code step), registers, heartbeats, asks for an election when the set
 * has no master, follows the controller's view of the set (GET_REPLICA_INFO on its period, NOTIFY_BROKER_ROLE_CHANGED)
 * and changes the broker's role at run time: a master registers with the name servers as broker id 0, a slave with
 * the id the controller gave it, again after every role change with the master epoch as the data version's
 * stateVersion.
 *
 * The store's confirm offset is set from here (Java's CommitLog.confirmOffset in controller mode): a master's is what
 * every replica of its SyncStateSet acknowledged (its end with allAckInSyncStateSet off or a set of one), a slave's
 * what its master sent; the store dispatches only up to it, keeps it in its checkpoint and starts from it after a
 * restart, so a replica's unconfirmed tail reaches no consume queue before its role is known. A role change to
 * master cuts a partial record off the log, waits for the dispatch and rebuilds the queue offsets; a slave's HA
 * client truncates to the consistent point.
 *
 * @see org.apache.rocketmq.broker.controller.ReplicasManager
 */
import dns from 'node:dns';
import path from 'node:path';
import type { Logger } from '../../logger';
import { ConfigError, MQBrokerError } from '../../errors';
import type { RemotingClient } from '../../transport/remoting-client';
import type { RemotingContext } from '../../transport/processor';
import { ServiceLoop } from '../../util/service-loop';
import { BrokerMetadata, TempBrokerMetadata } from '../../store/autoswitch/broker-metadata';
import { EpochFileCache } from '../../store/autoswitch/epoch-file-cache';
import { AutoSwitchHAClient } from '../../ha/autoswitch/autoswitch-ha-client';
import { decodeTimerCheckpoint, type TimerCheckpointData } from '../../store/timer/timer-message-store';
import { ALL_ACK_IN_SYNC_STATE_SET, AutoSwitchHAService } from '../../ha/autoswitch/autoswitch-ha-service';
import type { DefaultMessageStore } from '../../store/message-store';
import { BrokerRole, type MessageStoreConfig } from '../../store/message-store-config';
import type { BrokerConfig } from '../broker-config';
import type { BrokerProcessor } from '../processor/broker-processor';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import {
  AlterSyncStateSetRequestHeader, ApplyBrokerIdRequestHeader, BrokerHeartbeatRequestHeader, ElectMasterRequestHeader,
  ElectMasterResponseHeader, GetMetaDataResponseHeader, GetNextBrokerIdRequestHeader, GetNextBrokerIdResponseHeader,
  GetReplicaInfoRequestHeader, GetReplicaInfoResponseHeader, NotifyBrokerRoleChangedRequestHeader,
  RegisterBrokerToControllerRequestHeader, RegisterBrokerToControllerResponseHeader,
} from '../../../protocol/header';
import { decodeElectMasterResponseBody, decodeSyncStateSet, encodeEpochEntryCache, encodeSyncStateSet } from '../../../protocol/body';

/** What the ReplicasManager needs of the broker (BrokerController implements it). */
export interface ReplicasManagerBroker {
  readonly brokerConfig: BrokerConfig;
  readonly messageStoreConfig: MessageStoreConfig;
  readonly brokerAddr: string;
  /** Fenced: not registered with the name servers, no heartbeats (Java's isIsolated). */
  setIsolated(isolated: boolean): void;
  /** Sets brokerRole on the broker's and the store's configs. */
  setBrokerRole(role: BrokerRole): void;
  /** Starts (true) or stops the master-only services (Java changeSpecialServiceStatus). */
  changeSpecialServiceStatus(shouldStart: boolean): Promise<void>;
  /** The topic table's data version moves on with `stateVersion` (Java DataVersion.nextVersion(long)). */
  nextDataVersion(stateVersion: number): void;
  registerBrokerAll(checkOrderConfig: boolean, oneway: boolean, forceRegister: boolean): Promise<void>;
  /** A slave copies topics, offsets and delay offsets from `masterAddr` (null: stop). */
  setSlaveSynchronizeMaster(masterAddr: string | null): void;
  syncAllFromMaster(): Promise<void>;
  /** A slave's timer wheel takes the master's checkpoint (GET_TIMER_CHECK_POINT). */
  syncTimerCheckPoint(checkpoint: TimerCheckpointData): void;
  getMaxPhyOffset(): number;
  readonly messageStore: DefaultMessageStore;
}

export interface ReplicasManagerOptions {
  remotingClient: RemotingClient;
  logger: Logger;
  /** fetchControllerAddrByDnsLookup: how often the name is resolved again (Java: every 2 minutes). */
  updateControllerAddrIntervalMillis?: number;
  /** The A records of a name (default: the system resolver, as Java's InetAddress.getAllByName); tests inject one. */
  lookupAddresses?: (host: string) => Promise<string[]>;
  /** Address the HA port binds. */
  bindAddress?: string;
  /** Wait before a failed start is tried again (Java: 5 s). */
  retryIntervalMillis?: number;
  /** The first run of the periodic controller calls (Java: 3 s); tests shorten it. */
  initialDelayMillis?: number;
}

export const ReplicasManagerState = {
  INITIAL: 'INITIAL',
  FIRST_TIME_SYNC_CONTROLLER_METADATA_DONE: 'FIRST_TIME_SYNC_CONTROLLER_METADATA_DONE',
  REGISTER_TO_CONTROLLER_DONE: 'REGISTER_TO_CONTROLLER_DONE',
  RUNNING: 'RUNNING',
  SHUTDOWN: 'SHUTDOWN',
} as const;
export type ReplicasManagerState = (typeof ReplicasManagerState)[keyof typeof ReplicasManagerState];

export const RegisterState = {
  INITIAL: 'INITIAL',
  CREATE_TEMP_METADATA_FILE_DONE: 'CREATE_TEMP_METADATA_FILE_DONE',
  CREATE_METADATA_FILE_DONE: 'CREATE_METADATA_FILE_DONE',
  REGISTERED: 'REGISTERED',
} as const;
export type RegisterState = (typeof RegisterState)[keyof typeof RegisterState];

const CONTROLLER_TIMEOUT_MILLIS = 3000;
/** Java: updateControllerAddr every 2 minutes. */
const UPDATE_CONTROLLER_ADDR_INTERVAL_MILLIS = 120_000;

/** Every IPv4 address the system resolver gives for `host` (/etc/hosts included, as Java's getAllByName). */
async function lookupA(host: string): Promise<string[]> {
  const found = await dns.promises.lookup(host, { all: true, family: 4 });
  return found.map((a) => a.address);
}
const SLAVE_SYNC_INTERVAL_MILLIS = 3000;
const SLAVE_SYNC_ALL_EVERY_MILLIS = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class ReplicasManager {
  readonly brokerMetadata: BrokerMetadata;
  readonly tempBrokerMetadata: TempBrokerMetadata;
  /** `epochFileCheckpoint`: the epoch of each master term this store wrote in, and where it began. */
  readonly epochCache: EpochFileCache;
  #state: ReplicasManagerState = ReplicasManagerState.INITIAL;
  #registerState: RegisterState = RegisterState.INITIAL;
  #controllerAddresses: string[] = [];
  #controllerLeaderAddress = '';
  #brokerControllerId: number | null = null;
  #masterBrokerId: number | null = null;
  #masterAddress = '';
  #masterEpoch = 0;
  #syncStateSet = new Set<number>();
  #syncStateSetEpoch = 0;
  #lastSlaveSyncAll = 0;
  #roleChanges = 0;
  /** Role changes run one at a time (Java's synchronized). */
  #serial: Promise<unknown> = Promise.resolve();
  #retryTimer: NodeJS.Timeout | null = null;
  #starting: Promise<void> | null = null;
  readonly #loops = new Map<string, ServiceLoop>();
  /** The HA port: slaves replicate from this broker while it is master. */
  readonly haService: AutoSwitchHAService;
  #reportingSyncStateSet = false;
  /**
   * The set reported to the controller and not confirmed yet (Java's remoteSyncStateSet while
   * isSynchronizingSyncStateSet): until then sends wait for the union of both, so a replica joining the set holds
   * every message acknowledged from the moment it was reported caught up.
   */
  #remoteSyncStateSet: Set<number> | null = null;
  /** The slave's AutoSwitch HA client (null on a master). */
  #haClient: AutoSwitchHAClient | null = null;
  readonly #log: Logger;

  constructor(private readonly broker: ReplicasManagerBroker, private readonly options: ReplicasManagerOptions) {
    this.#log = options.logger;
    const file = broker.messageStoreConfig.storePathBrokerIdentity || path.join(broker.messageStoreConfig.storePathRootDir, 'brokerIdentity');
    this.brokerMetadata = new BrokerMetadata(file);
    this.tempBrokerMetadata = new TempBrokerMetadata(`${file}-temp`);
    this.epochCache = new EpochFileCache(broker.messageStoreConfig.storePathEpochFile || path.join(broker.messageStoreConfig.storePathRootDir, 'epochFileCheckpoint'));
    this.haService = new AutoSwitchHAService({
      store: broker.messageStore, epochCache: this.epochCache, logger: this.#log.child({ component: 'autoswitch-ha-service' }), bindAddress: options.bindAddress,
      syncStateSet: () => this.#ackSyncStateSet(),
      localBrokerId: () => this.#brokerControllerId,
      onSlaveCaughtUp: (id) => {
        if (!this.isMasterState || this.#syncStateSet.has(id) || this.#reportingSyncStateSet) return;
        this.#reportingSyncStateSet = true;
        void this.#doReportSyncStateSetChanged([...this.#syncStateSet, id]).finally(() => { this.#reportingSyncStateSet = false; });
      },
      confirmOffset: () => this.getConfirmOffset(),
      // Java updateConfirmOffsetWhenSlaveAck
      onSlaveAck: (id) => {
        if (this.#syncStateSet.has(id)) this.#setConfirmOffset(this.haService.computeConfirmOffset(this.#storedConfirmOffset()));
      },
      // Java removeConnection: a member of the set that left is reported gone at once
      onSlaveDisconnected: (id) => {
        if (!this.isMasterState || !this.#syncStateSet.has(id) || id === this.#brokerControllerId || this.#state === ReplicasManagerState.SHUTDOWN) return;
        void this.#doReportSyncStateSetChanged([...this.#syncStateSet].filter((x) => x !== id));
      },
    });
    broker.messageStore.setConfirmOffsetSource(() => this.getConfirmOffset());
  }

  /**
   * The confirm offset in controller mode (Java CommitLog.getConfirmOffset): a master with a SyncStateSet of one or
   * without allAckInSyncStateSet confirms all it holds; otherwise what the replicas of the set acknowledged; a slave
   * what its master sent (bounded by its own end).
   */
  getConfirmOffset(): number {
    const store = this.broker.messageStore;
    if (this.isMasterState) {
      if (this.#syncStateSet.size <= 1 || !this.broker.messageStoreConfig.allAckInSyncStateSet) return store.getMaxPhyOffset();
      if (store.getConfirmOffsetDirectly() < 0) store.setConfirmOffset(this.haService.computeConfirmOffset(-1));
    }
    return store.getConfirmOffsetDirectly();
  }

  /** The confirm offset as last set (the checkpoint's after a restart). */
  #storedConfirmOffset(): number {
    return this.broker.messageStore.getConfirmOffsetDirectly();
  }

  #setConfirmOffset(offset: number): void {
    this.broker.messageStore.setConfirmOffset(offset);
  }

  /** The HA port (after startHAService). */
  get haListenPort(): number {
    return this.haService.listenPort;
  }

  /** Listens on the HA port (Java's AutoSwitchHAService start: every role listens). */
  async startHAService(port: number): Promise<void> {
    await this.haService.start(port);
  }

  /**
   * Controller mode's wait for replicas (Java CommitLog.handleHA): needAckNums is inSyncReplicas, or the SyncStateSet's
   * size with allAckInSyncStateSet; the master counts as one.
   */
  needAckNums(): number {
    const msc = this.broker.messageStoreConfig;
    return msc.allAckInSyncStateSet ? ALL_ACK_IN_SYNC_STATE_SET : msc.inSyncReplicas;
  }

  /** Replicas in sync, the master included (Java AutoSwitchHAService.inSyncReplicasNums: the SyncStateSet's size). */
  inSyncReplicasNums(): number {
    return Math.max(1, this.#syncStateSet.size, this.#remoteSyncStateSet?.size ?? 0);
  }

  /** The replicas whose acknowledgements count (Java getSyncStateSet: the union with the set being synchronized). */
  #ackSyncStateSet(): ReadonlySet<number> {
    const remote = this.#remoteSyncStateSet;
    if (!remote) return this.#syncStateSet;
    return new Set([...this.#syncStateSet, ...remote]);
  }

  get state(): ReplicasManagerState { return this.#state; }
  get registerState(): RegisterState { return this.#registerState; }
  get controllerLeaderAddress(): string { return this.#controllerLeaderAddress; }
  get brokerControllerId(): number | null { return this.#brokerControllerId; }
  get masterBrokerId(): number | null { return this.#masterBrokerId; }
  get masterAddress(): string { return this.#masterAddress; }
  get masterEpoch(): number { return this.#masterEpoch; }
  get syncStateSet(): { syncStateSet: number[]; syncStateSetEpoch: number } {
    return { syncStateSet: [...this.#syncStateSet].sort((a, b) => a - b), syncStateSetEpoch: this.#syncStateSetEpoch };
  }
  get controllerAddresses(): readonly string[] { return this.#controllerAddresses; }
  /** Role changes applied since start (master or slave). */
  get roleChanges(): number { return this.#roleChanges; }
  /** The epoch file's last epoch, -1 when empty (Java getLastEpoch). */
  get lastEpoch(): number { return this.epochCache.lastEpoch(); }
  get haClient(): AutoSwitchHAClient | null { return this.#haClient; }
  get isMasterState(): boolean { return this.broker.messageStoreConfig.brokerRole === BrokerRole.SYNC_MASTER; }

  /** NOTIFY_BROKER_ROLE_CHANGED and GET_BROKER_EPOCH_CACHE (registered on the broker's remoting server). */
  readonly processor: BrokerProcessor = {
    requestCodes: [RequestCode.NOTIFY_BROKER_ROLE_CHANGED, RequestCode.GET_BROKER_EPOCH_CACHE],
    processRequest: async (request: RemotingCommand, _ctx: RemotingContext) => (request.code === RequestCode.GET_BROKER_EPOCH_CACHE
      ? this.#getBrokerEpochCache(request)
      : this.#notifyBrokerRoleChanged(request)),
  };

  /** GET_BROKER_EPOCH_CACHE: the epoch file, the broker's current id (0 on the master) and its max offset. */
  #getBrokerEpochCache(request: RemotingCommand): RemotingCommand {
    const bc = this.broker.brokerConfig;
    const res = RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null);
    res.body = encodeEpochEntryCache({
      clusterName: bc.brokerClusterName, brokerName: bc.brokerName, brokerId: bc.brokerId,
      epochList: this.epochCache.getAllEntries(), maxOffset: this.broker.getMaxPhyOffset(),
    });
    return res;
  }

  /** Loads the epoch file (Java's AutoSwitchHAService init). */
  async load(): Promise<void> {
    await this.epochCache.initCacheFromFile();
  }

  /** Starts in the background: a start that fails is tried again every retryIntervalMillis (Java start()). */
  start(): void {
    if (this.#state === ReplicasManagerState.SHUTDOWN) return;
    this.#state = ReplicasManagerState.INITIAL;
    this.#starting = this.#updateControllerAddr().then(() => {
      if (this.broker.brokerConfig.fetchControllerAddrByDnsLookup) {
        const every = this.options.updateControllerAddrIntervalMillis ?? UPDATE_CONTROLLER_ADDR_INTERVAL_MILLIS;
        this.#loop('UpdateControllerAddr', every, () => this.#updateControllerAddr(), every);
      }
      return this.#startUntilDone();
    });
  }

  /** Resolves once the first attempt to start ended (tests and the broker's start wait on it). */
  async whenStartAttempted(): Promise<void> {
    await this.#starting;
  }

  async #startUntilDone(): Promise<void> {
    let retries = 0;
    while (this.#state !== ReplicasManagerState.SHUTDOWN) {
      let ok = false;
      try {
        ok = await this.#startBasicService();
      } catch (err) {
        this.#log.error({ err }, 'replicas manager start failed');
      }
      if (ok) {
        if (retries) this.#log.info({ retries }, 'replicas manager started');
        return;
      }
      retries++;
      this.#log.warn({ retries, state: this.#state }, 'replicas manager failed to start, trying again');
      // a name that did not resolve yet is looked up again before the next try
      if (this.#controllerAddresses.length === 0) await this.#updateControllerAddr();
      await new Promise<void>((resolve) => {
        this.#retryTimer = setTimeout(resolve, this.options.retryIntervalMillis ?? 5000);
        this.#retryTimer.unref();
      });
      this.#retryTimer = null;
    }
  }

  async #startBasicService(): Promise<boolean> {
    if (this.#state === ReplicasManagerState.SHUTDOWN) return false;
    if (this.#state === ReplicasManagerState.INITIAL) {
      if (!(await this.#schedulingSyncControllerMetadata())) return false;
      this.#state = ReplicasManagerState.FIRST_TIME_SYNC_CONTROLLER_METADATA_DONE;
    }
    if (this.#state === ReplicasManagerState.FIRST_TIME_SYNC_CONTROLLER_METADATA_DONE) {
      for (let i = 0; i < 5 && !this.#isShutdown(); i++) {
        if (await this.#register()) {
          this.#state = ReplicasManagerState.REGISTER_TO_CONTROLLER_DONE;
          break;
        }
        // registrations of replicas of one set may race for the same next id
        await sleep(Math.floor(Math.random() * 1000));
      }
      if (this.#state !== ReplicasManagerState.REGISTER_TO_CONTROLLER_DONE) {
        this.#log.error('registering with the controller failed 5 times');
        return false;
      }
    }
    if (this.#state === ReplicasManagerState.REGISTER_TO_CONTROLLER_DONE) {
      // the heartbeat loop is not running yet: the controller must see this broker alive before it elects it
      await this.sendHeartbeatToController();
      if (this.#masterBrokerId !== null || (await this.#brokerElect())) {
        this.#state = ReplicasManagerState.RUNNING;
        this.broker.setIsolated(false);
        this.#log.info({ masterBrokerId: this.#masterBrokerId, masterAddress: this.#masterAddress, brokerControllerId: this.#brokerControllerId }, 'replicas manager running');
      } else {
        return false;
      }
    }
    if (this.#state !== ReplicasManagerState.RUNNING) return false;
    const bc = this.broker.brokerConfig;
    this.#loop('SyncBrokerMetadata', bc.syncBrokerMetadataPeriod, () => this.#syncBrokerMetadata());
    this.#loop('BrokerHeartbeat', bc.brokerHeartbeatInterval, () => this.sendHeartbeatToController(), Math.min(1000, bc.brokerHeartbeatInterval));
    return true;
  }

  #isShutdown(): boolean {
    return this.#state === ReplicasManagerState.SHUTDOWN;
  }

  async shutdown(): Promise<void> {
    this.#state = ReplicasManagerState.SHUTDOWN;
    this.#registerState = RegisterState.INITIAL;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    const loops = [...this.#loops.values()];
    this.#loops.clear();
    await Promise.all(loops.map((l) => l.stop()));
    await this.#serial.catch(() => undefined);
    await this.#haClient?.shutdown();
    this.#haClient = null;
    await this.haService.shutdown();
  }

  #loop(name: string, intervalMillis: number, task: () => Promise<void> | void, initialDelayMillis?: number): void {
    if (this.#state === ReplicasManagerState.SHUTDOWN || this.#loops.has(name)) return;
    const l = new ServiceLoop({ name, intervalMillis, initialDelayMillis: initialDelayMillis ?? this.options.initialDelayMillis ?? 3000, logger: this.#log }, task);
    this.#loops.set(name, l);
    l.start();
  }

  async #stopLoop(name: string): Promise<void> {
    const l = this.#loops.get(name);
    this.#loops.delete(name);
    await l?.stop();
  }

  /**
   * The controllers' addresses (Java's updateControllerAddr): `controllerAddr` split at `;`, or with
   * fetchControllerAddrByDnsLookup its `host:port` resolved to every A record of the host, each with the port (a
   * lookup that fails or finds nothing keeps the addresses there were).
   */
  async #updateControllerAddr(): Promise<void> {
    const bc = this.broker.brokerConfig;
    if (!bc.fetchControllerAddrByDnsLookup) {
      this.#controllerAddresses = bc.controllerAddr.split(';').map((a) => a.trim()).filter((a) => a.length > 0);
      return;
    }
    const domain = bc.controllerAddr.trim();
    const colon = domain.indexOf(':');
    try {
      if (colon <= 0) throw new ConfigError(`fetchControllerAddrByDnsLookup needs controllerAddr as host:port, got "${domain}"`);
      const port = domain.slice(colon);
      const found = await (this.options.lookupAddresses ?? lookupA)(domain.slice(0, colon));
      const addresses = found.map((a) => `${a}${port}`);
      if (addresses.length === 0) return;
      if (addresses.join(';') !== this.#controllerAddresses.join(';')) this.#log.info({ domain, addresses }, 'dns lookup address by domain success');
      this.#controllerAddresses = addresses;
    } catch (err) {
      this.#log.error({ err, domain }, 'dns lookup address by domain error');
    }
  }

  // ---- controller calls ----

  async #invoke(addr: string, code: number, ext: Record<string, string> | null, body: Buffer | null = null): Promise<RemotingCommand> {
    return this.options.remotingClient.invoke(addr, RemotingCommand.createRequest(code, ext, body), CONTROLLER_TIMEOUT_MILLIS);
  }

  async #schedulingSyncControllerMetadata(): Promise<boolean> {
    for (let i = 0; i < 3 && this.#state !== ReplicasManagerState.SHUTDOWN; i++) {
      if (await this.#updateControllerMetadata()) {
        this.#loop('SyncControllerMetadata', this.broker.brokerConfig.syncControllerMetadataPeriod, async () => {
          await this.#updateControllerMetadata();
        });
        return true;
      }
      await sleep(1000);
    }
    this.#log.error({ controllerAddresses: this.#controllerAddresses }, 'no controller answered with its leader');
    return false;
  }

  /** CONTROLLER_GET_METADATA_INFO to each controller until one names the leader. */
  async #updateControllerMetadata(): Promise<boolean> {
    for (const addr of this.#controllerAddresses) {
      try {
        const res = await this.#invoke(addr, RequestCode.CONTROLLER_GET_METADATA_INFO, null);
        if (res.code !== ResponseCode.SUCCESS) throw new MQBrokerError(res.code, res.remark, addr);
        const h = GetMetaDataResponseHeader.decode(res.extFields);
        if (h.controllerLeaderAddress) {
          if (h.controllerLeaderAddress !== this.#controllerLeaderAddress) this.#log.info({ controllerLeaderAddress: h.controllerLeaderAddress }, 'controller leader');
          this.#controllerLeaderAddress = h.controllerLeaderAddress;
          return true;
        }
      } catch (err) {
        this.#log.warn({ err, controller: addr }, 'controller metadata');
      }
    }
    return false;
  }

  /** The id steps: confirm what the files say, next id + temp file, apply, identity file, register. */
  async #register(): Promise<boolean> {
    try {
      await this.#confirmNowRegisteringState();
      if (!this.#checkMetadataValid()) {
        this.#log.error('the brokerIdentity files name another cluster or broker set than the configuration');
        return false;
      }
      const bc = this.broker.brokerConfig;
      if (this.#registerState === RegisterState.INITIAL) {
        const next = await this.#getNextBrokerId();
        if (next === null || !(await this.#createTempMetadataFile(next))) return false;
        this.#registerState = RegisterState.CREATE_TEMP_METADATA_FILE_DONE;
      }
      if (this.#registerState === RegisterState.CREATE_TEMP_METADATA_FILE_DONE) {
        if (!(await this.#applyBrokerId())) {
          // the id went to another replica: start over with a new one
          await this.tempBrokerMetadata.clear();
          this.#registerState = RegisterState.INITIAL;
          return false;
        }
        await this.brokerMetadata.updateAndPersist(bc.brokerClusterName, bc.brokerName, this.tempBrokerMetadata.brokerId!);
        await this.tempBrokerMetadata.clear();
        this.#brokerControllerId = this.brokerMetadata.brokerId;
        this.#registerState = RegisterState.CREATE_METADATA_FILE_DONE;
        this.#log.info({ brokerControllerId: this.#brokerControllerId }, 'broker id granted by the controller');
      }
      if (this.#registerState === RegisterState.CREATE_METADATA_FILE_DONE) {
        if (!(await this.#registerBrokerToController())) return false;
        this.#registerState = RegisterState.REGISTERED;
      }
      return true;
    } catch (err) {
      this.#log.error({ err }, 'registering with the controller failed');
      return false;
    }
  }

  async #confirmNowRegisteringState(): Promise<void> {
    try {
      await this.brokerMetadata.readFromFile();
    } catch (err) {
      this.#log.error({ err }, 'reading the brokerIdentity file failed');
    }
    if (this.brokerMetadata.isLoaded()) {
      this.#registerState = RegisterState.CREATE_METADATA_FILE_DONE;
      this.#brokerControllerId = this.brokerMetadata.brokerId;
      return;
    }
    try {
      await this.tempBrokerMetadata.readFromFile();
    } catch (err) {
      this.#log.error({ err }, 'reading the brokerIdentity-temp file failed');
    }
    if (this.tempBrokerMetadata.isLoaded()) this.#registerState = RegisterState.CREATE_TEMP_METADATA_FILE_DONE;
  }

  #checkMetadataValid(): boolean {
    const bc = this.broker.brokerConfig;
    const m = this.#registerState === RegisterState.CREATE_TEMP_METADATA_FILE_DONE ? this.tempBrokerMetadata
      : this.#registerState === RegisterState.CREATE_METADATA_FILE_DONE ? this.brokerMetadata : null;
    if (!m) return true;
    return m.clusterName === bc.brokerClusterName && m.brokerName === bc.brokerName;
  }

  async #getNextBrokerId(): Promise<number | null> {
    const bc = this.broker.brokerConfig;
    try {
      const res = await this.#invoke(this.#controllerLeaderAddress, RequestCode.CONTROLLER_GET_NEXT_BROKER_ID,
        GetNextBrokerIdRequestHeader.encode({ clusterName: bc.brokerClusterName, brokerName: bc.brokerName }));
      if (res.code !== ResponseCode.SUCCESS) throw new MQBrokerError(res.code, res.remark, this.#controllerLeaderAddress);
      return GetNextBrokerIdResponseHeader.decode(res.extFields).nextBrokerId ?? null;
    } catch (err) {
      this.#log.error({ err }, 'CONTROLLER_GET_NEXT_BROKER_ID failed');
      return null;
    }
  }

  async #createTempMetadataFile(brokerId: number): Promise<boolean> {
    const bc = this.broker.brokerConfig;
    // Java's register check code: <brokerAddress>;<ms>
    const code = `${this.broker.brokerAddr};${Date.now()}`;
    try {
      await this.tempBrokerMetadata.updateAndPersistTemp(bc.brokerClusterName, bc.brokerName, brokerId, code);
      return true;
    } catch (err) {
      this.#log.error({ err }, 'writing the brokerIdentity-temp file failed');
      await this.tempBrokerMetadata.clear().catch(() => undefined);
      return false;
    }
  }

  async #applyBrokerId(): Promise<boolean> {
    const bc = this.broker.brokerConfig;
    const t = this.tempBrokerMetadata;
    try {
      const res = await this.#invoke(this.#controllerLeaderAddress, RequestCode.CONTROLLER_APPLY_BROKER_ID, ApplyBrokerIdRequestHeader.encode({
        clusterName: bc.brokerClusterName, brokerName: bc.brokerName, appliedBrokerId: t.brokerId!, registerCheckCode: t.registerCheckCode!,
      }));
      if (res.code !== ResponseCode.SUCCESS) throw new MQBrokerError(res.code, res.remark, this.#controllerLeaderAddress);
      return true;
    } catch (err) {
      this.#log.error({ err, brokerId: t.brokerId }, 'CONTROLLER_APPLY_BROKER_ID failed');
      return false;
    }
  }

  /** CONTROLLER_REGISTER_BROKER: the controller records this address; a live master in the answer sets the role. */
  async #registerBrokerToController(): Promise<boolean> {
    const bc = this.broker.brokerConfig;
    try {
      const res = await this.#invoke(this.#controllerLeaderAddress, RequestCode.CONTROLLER_REGISTER_BROKER, RegisterBrokerToControllerRequestHeader.encode({
        clusterName: bc.brokerClusterName, brokerName: bc.brokerName, brokerId: this.#brokerControllerId!, brokerAddress: this.broker.brokerAddr,
      }));
      if (res.code !== ResponseCode.SUCCESS) throw new MQBrokerError(res.code, res.remark, this.#controllerLeaderAddress);
      const h = RegisterBrokerToControllerResponseHeader.decode(res.extFields);
      const set = res.body && res.body.length ? decodeSyncStateSet(res.body).syncStateSet : [];
      if (h.masterBrokerId === undefined || h.masterBrokerId === null) return true;
      if (h.masterBrokerId === this.#brokerControllerId) await this.changeToMaster(h.masterEpoch ?? 0, h.syncStateSetEpoch ?? 0, set);
      else await this.changeToSlave(h.masterAddress ?? '', h.masterEpoch ?? 0, h.masterBrokerId);
      return true;
    } catch (err) {
      this.#log.error({ err }, 'CONTROLLER_REGISTER_BROKER failed');
      return false;
    }
  }

  /** CONTROLLER_ELECT_MASTER for this broker (2011, a master already exists, counts as success). */
  async #brokerElect(): Promise<boolean> {
    const bc = this.broker.brokerConfig;
    try {
      const res = await this.#invoke(this.#controllerLeaderAddress, RequestCode.CONTROLLER_ELECT_MASTER, ElectMasterRequestHeader.encode({
        clusterName: bc.brokerClusterName, brokerName: bc.brokerName, brokerId: this.#brokerControllerId!, designateElect: false, invokeTime: Date.now(),
      }));
      if (res.code !== ResponseCode.SUCCESS && res.code !== ResponseCode.CONTROLLER_MASTER_STILL_EXIST) {
        throw new MQBrokerError(res.code, res.remark, this.#controllerLeaderAddress);
      }
      const h = ElectMasterResponseHeader.decode(res.extFields);
      const set = res.body && res.body.length ? decodeElectMasterResponseBody(res.body).syncStateSet : [];
      if (!h.masterAddress || h.masterBrokerId === undefined || h.masterBrokerId === null) {
        this.#log.warn('no master in the broker set yet');
        return false;
      }
      if (h.masterBrokerId === this.#brokerControllerId) await this.changeToMaster(h.masterEpoch ?? 0, h.syncStateSetEpoch ?? 0, set);
      else await this.changeToSlave(h.masterAddress, h.masterEpoch ?? 0, h.masterBrokerId);
      return true;
    } catch (err) {
      this.#log.error({ err }, 'CONTROLLER_ELECT_MASTER failed');
      return false;
    }
  }

  /** BROKER_HEARTBEAT oneway to every controller: the connection it travels on is what the controller watches. */
  async sendHeartbeatToController(): Promise<void> {
    const bc = this.broker.brokerConfig;
    const maxOffset = this.broker.getMaxPhyOffset();
    const ext = BrokerHeartbeatRequestHeader.encode({
      clusterName: bc.brokerClusterName, brokerAddr: this.broker.brokerAddr, brokerName: bc.brokerName,
      brokerId: this.#brokerControllerId ?? undefined, epoch: this.epochCache.lastEpoch(), maxOffset,
      confirmOffset: this.getConfirmOffset(),
      heartbeatTimeoutMills: bc.controllerHeartBeatTimeoutMills, electionPriority: bc.brokerElectionPriority,
    });
    await Promise.all(this.#controllerAddresses.map(async (addr) => {
      try {
        await this.options.remotingClient.invokeOneway(addr, RemotingCommand.createRequest(RequestCode.BROKER_HEARTBEAT, ext), bc.sendHeartbeatTimeoutMillis);
      } catch (err) {
        this.#log.debug({ err, controller: addr }, 'heartbeat to controller');
      }
    }));
  }

  /** CONTROLLER_GET_REPLICA_INFO on its period: follow a new master, elect when there is none, adopt a new SyncStateSet. */
  async #syncBrokerMetadata(): Promise<void> {
    const bc = this.broker.brokerConfig;
    let res: RemotingCommand;
    try {
      res = await this.#invoke(this.#controllerLeaderAddress, RequestCode.CONTROLLER_GET_REPLICA_INFO, GetReplicaInfoRequestHeader.encode({ brokerName: bc.brokerName }));
    } catch (err) {
      this.#log.warn({ err }, 'CONTROLLER_GET_REPLICA_INFO failed');
      return;
    }
    if (res.code === ResponseCode.CONTROLLER_BROKER_METADATA_NOT_EXIST) {
      this.#log.warn({ brokerName: bc.brokerName }, 'the controller does not know this broker set: registering again');
      await this.#registerBrokerToController();
      return;
    }
    if (res.code !== ResponseCode.SUCCESS) {
      this.#log.warn({ code: res.code, remark: res.remark }, 'CONTROLLER_GET_REPLICA_INFO refused');
      return;
    }
    const info = GetReplicaInfoResponseHeader.decode(res.extFields);
    const sse = decodeSyncStateSet(res.body);
    const epoch = info.masterEpoch ?? 0;
    if (epoch > this.#masterEpoch) {
      if (info.masterAddress && info.masterBrokerId !== undefined && info.masterBrokerId !== null) {
        if (info.masterBrokerId === this.#brokerControllerId) await this.changeToMaster(epoch, sse.syncStateSetEpoch, sse.syncStateSet);
        else await this.changeToSlave(info.masterAddress, epoch, info.masterBrokerId);
      } else {
        // no master: asking for an election makes the controller run one
        await this.#brokerElect();
      }
    } else if (epoch === this.#masterEpoch && this.isMasterState) {
      this.#changeSyncStateSet(sse.syncStateSet, sse.syncStateSetEpoch);
    }
  }

  // ---- role changes ----

  async #notifyBrokerRoleChanged(request: RemotingCommand): Promise<RemotingCommand> {
    const h = NotifyBrokerRoleChangedRequestHeader.decode(request.extFields);
    const sse = request.body && request.body.length ? decodeSyncStateSet(request.body) : { syncStateSet: [], syncStateSetEpoch: 0 };
    this.#log.info({ ...h, syncStateSet: sse.syncStateSet }, 'NOTIFY_BROKER_ROLE_CHANGED');
    if (this.#state !== ReplicasManagerState.SHUTDOWN) {
      await this.changeBrokerRole(h.masterBrokerId ?? null, h.masterAddress ?? '', h.masterEpoch ?? 0, h.syncStateSetEpoch ?? 0, sse.syncStateSet);
    }
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null);
  }

  async changeBrokerRole(newMasterBrokerId: number | null, newMasterAddress: string, newMasterEpoch: number, syncStateSetEpoch: number, syncStateSet: number[]): Promise<void> {
    if (newMasterBrokerId === null || newMasterEpoch <= this.#masterEpoch) return;
    if (newMasterBrokerId === this.#brokerControllerId) await this.changeToMaster(newMasterEpoch, syncStateSetEpoch, syncStateSet);
    else await this.changeToSlave(newMasterAddress, newMasterEpoch, newMasterBrokerId);
  }

  #serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#serial.then(task, task);
    this.#serial = run.catch(() => undefined);
    return run;
  }

  changeToMaster(newMasterEpoch: number, syncStateSetEpoch: number, syncStateSet: number[]): Promise<void> {
    return this.#serialized(async () => {
      if (newMasterEpoch <= this.#masterEpoch || this.#state === ReplicasManagerState.SHUTDOWN) return;
      this.#log.info({ brokerName: this.broker.brokerConfig.brokerName, newMasterEpoch, syncStateSet, confirmOffset: this.broker.messageStore.getConfirmOffsetDirectly(), reputFromOffset: this.broker.messageStore.reputFromOffset, maxPhyOffset: this.broker.messageStore.getMaxPhyOffset() }, 'changing to master');
      if (newMasterEpoch < this.epochCache.lastEpoch()) {
        this.#log.warn({ newMasterEpoch, lastEpoch: this.epochCache.lastEpoch() }, 'the new master epoch is below the epoch file\'s last: not changing to master');
        return;
      }
      const previousEpoch = this.#masterEpoch;
      this.#masterEpoch = newMasterEpoch;
      try {
        await this.#doChangeToMaster(newMasterEpoch, syncStateSetEpoch, syncStateSet);
      } catch (err) {
        // the epoch goes back, so that the next CONTROLLER_GET_REPLICA_INFO (syncBrokerMetadataPeriod) tries again
        // instead of leaving the set without a master that takes writes
        this.#masterEpoch = previousEpoch;
        this.#log.error({ err, newMasterEpoch }, 'changing to master failed: tried again with the next metadata sync');
      }
    });
  }

  async #doChangeToMaster(newMasterEpoch: number, syncStateSetEpoch: number, syncStateSet: number[]): Promise<void> {
    const wasMaster = this.#masterBrokerId !== null && this.#masterBrokerId === this.#brokerControllerId && this.broker.brokerConfig.brokerId === 0;
    this.#changeSyncStateSet(syncStateSet, syncStateSetEpoch);
    const store = this.broker.messageStore;
    if (!wasMaster) {
      // Java AutoSwitchHAService.changeToMaster: no slave stream, no master stream, a partial record cut off
      this.haService.destroyConnections();
      await this.#haClient?.shutdown();
      this.#haClient = null;
      const truncateOffset = await store.truncateInvalidMsg();
      this.#setConfirmOffset(this.haService.computeConfirmOffset(this.#storedConfirmOffset()));
      if (truncateOffset >= 0) await this.epochCache.truncateSuffixByOffset(truncateOffset);
    }
    // the new term begins at the end of the log
    if (this.epochCache.lastEpoch() >= newMasterEpoch) await this.epochCache.truncateSuffixByEpoch(newMasterEpoch);
    if (!(await this.epochCache.appendEntryOverEmpty({ epoch: newMasterEpoch, startOffset: this.broker.getMaxPhyOffset() }))) {
      this.#log.warn({ newMasterEpoch, startOffset: this.broker.getMaxPhyOffset(), last: this.epochCache.lastEntry() }, 'epoch entry not appended (nothing written since the last one)');
    }
    if (!wasMaster) {
      // what the old master confirmed reaches the consume queues, and the queue offsets go on from there
      await store.waitDispatchCaughtUp();
      await store.recoverTopicQueueTable();
      this.#log.info({ confirmOffset: this.getConfirmOffset(), maxPhyOffset: store.getMaxPhyOffset(), reputFromOffset: store.reputFromOffset, syncStateSet: [...this.#syncStateSet] }, 'change ha to master');
      this.#handleSlaveSynchronize(BrokerRole.SYNC_MASTER);
      this.broker.brokerConfig.brokerId = 0;
      this.broker.setBrokerRole(BrokerRole.SYNC_MASTER);
      await this.broker.changeSpecialServiceStatus(true);
      this.#masterAddress = this.broker.brokerAddr;
      this.#masterBrokerId = this.#brokerControllerId;
      this.#loop('CheckSyncStateSet', this.broker.brokerConfig.checkSyncStateSetPeriod, () => this.#checkSyncStateSetAndDoReport());
      this.#roleChanges++;
    }
    this.broker.nextDataVersion(newMasterEpoch);
    this.#registerBrokerWhenRoleChange();
  }

  changeToSlave(newMasterAddress: string, newMasterEpoch: number, newMasterBrokerId: number): Promise<void> {
    return this.#serialized(async () => {
      if (newMasterEpoch <= this.#masterEpoch || this.#state === ReplicasManagerState.SHUTDOWN) return;
      this.#log.info({ brokerName: this.broker.brokerConfig.brokerName, brokerControllerId: this.#brokerControllerId, newMasterBrokerId, newMasterAddress, newMasterEpoch,
        confirmOffset: this.broker.messageStore.getConfirmOffsetDirectly(), reputFromOffset: this.broker.messageStore.reputFromOffset, maxPhyOffset: this.broker.messageStore.getMaxPhyOffset() }, 'changing to slave');
      this.#masterEpoch = newMasterEpoch;
      // The master is the same broker (at a new epoch) and this one already follows it.
      const sameMaster = newMasterBrokerId === this.#masterBrokerId && this.broker.messageStoreConfig.brokerRole === BrokerRole.SLAVE;
      if (!sameMaster) {
        // Before anything awaits: the puts waiting for their replicas end now, not acknowledged.
        this.broker.setBrokerRole(BrokerRole.SLAVE);
        this.haService.failAckWaiters();
        await this.#stopLoop('CheckSyncStateSet');
        await this.broker.changeSpecialServiceStatus(false);
        this.broker.brokerConfig.brokerId = this.#brokerControllerId!;
        this.#masterAddress = newMasterAddress;
        this.#masterBrokerId = newMasterBrokerId;
        this.#handleSlaveSynchronize(BrokerRole.SLAVE);
        // the master's HA address comes with the next name-server registration answer (Java updateHaMasterAddress)
        this.haService.destroyConnections();
        await this.#haClient?.shutdown();
        const msc = this.broker.messageStoreConfig;
        this.#haClient = new AutoSwitchHAClient({
          store: this.broker.messageStore, epochCache: this.epochCache, brokerId: this.#brokerControllerId!,
          syncFromLastFile: msc.syncFromLastFile, asyncLearner: msc.asyncLearner, logger: this.#log.child({ component: 'autoswitch-ha-client' }),
          onConfirmOffset: (offset) => this.#setConfirmOffset(offset),
        });
        this.#haClient.start();
        this.#roleChanges++;
      } else {
        this.#masterAddress = newMasterAddress;
      }
      this.broker.nextDataVersion(newMasterEpoch);
      this.#registerBrokerWhenRoleChange();
    });
  }

  /** A REGISTER_BROKER answer: a slave learns the master's HA address (Java handleRegisterBrokerResult). */
  onRegisterResult(result: { haServerAddr?: string | null }): void {
    if (this.broker.messageStoreConfig.brokerRole === BrokerRole.SLAVE && result.haServerAddr) this.#haClient?.updateHaMasterAddress(result.haServerAddr);
  }

  #registerBrokerWhenRoleChange(): void {
    const bc = this.broker.brokerConfig;
    void this.broker.registerBrokerAll(true, false, bc.forceRegister).then(() => {
      this.#log.info({ brokerControllerId: this.#brokerControllerId, role: this.broker.messageStoreConfig.brokerRole, masterBrokerId: this.#masterBrokerId,
        masterAddress: this.#masterAddress, masterEpoch: this.#masterEpoch, syncStateSetEpoch: this.#syncStateSetEpoch }, 'registered with the name servers after a role change');
    }, (err: unknown) => this.#log.error({ err }, 'registering with the name servers after a role change failed'));
  }

  #changeSyncStateSet(set: number[], epoch: number): void {
    if (epoch <= this.#syncStateSetEpoch) return;
    this.#log.info({ from: [...this.#syncStateSet], to: set, epoch, confirmOffset: this.broker.messageStore.getConfirmOffsetDirectly() }, 'SyncStateSet changed');
    this.#syncStateSetEpoch = epoch;
    this.#syncStateSet = new Set(set);
    this.#remoteSyncStateSet = null;
    // Java setSyncStateSet: the confirm offset follows the new set, and sends waiting for a gone replica end
    if (this.isMasterState) this.#setConfirmOffset(this.haService.computeConfirmOffset(this.#storedConfirmOffset()));
    this.haService.checkAckWaiters();
  }

  #handleSlaveSynchronize(role: BrokerRole): void {
    void this.#stopLoop('SlaveSynchronize');
    if (role !== BrokerRole.SLAVE) {
      this.broker.setSlaveSynchronizeMaster(null);
      return;
    }
    this.broker.setSlaveSynchronizeMaster(this.#masterAddress);
    this.#lastSlaveSyncAll = 0;
    this.#loop('SlaveSynchronize', SLAVE_SYNC_INTERVAL_MILLIS, async () => {
      if (Date.now() - this.#lastSlaveSyncAll > SLAVE_SYNC_ALL_EVERY_MILLIS) {
        await this.broker.syncAllFromMaster();
        this.#lastSlaveSyncAll = Date.now();
      }
      // the timer checkpoint, every 3 s (Java: latency-sensitive, synced more often than the rest)
      if (this.broker.messageStoreConfig.timerWheelEnable) await this.#syncTimerCheckPoint();
    }, SLAVE_SYNC_INTERVAL_MILLIS);
  }

  /** GET_TIMER_CHECK_POINT (60) to the master; its checkpoint goes to this slave's timer wheel. */
  async #syncTimerCheckPoint(): Promise<void> {
    const addr = this.#masterAddress;
    if (!addr || addr === this.broker.brokerAddr || this.isMasterState) return;
    try {
      const res = await this.#invoke(addr, RequestCode.GET_TIMER_CHECK_POINT, null);
      if (res.code !== ResponseCode.SUCCESS || !res.body) throw new MQBrokerError(res.code, res.remark, addr);
      this.broker.syncTimerCheckPoint(decodeTimerCheckpoint(res.body));
    } catch (err) {
      this.#log.error({ err, masterAddr: addr }, 'syncTimerCheckPoint Exception');
    }
  }

  /** A master's SyncStateSet check: replicas that did not catch up for haMaxTimeSlaveNotCatchup leave it. */
  async #checkSyncStateSetAndDoReport(): Promise<void> {
    if (!this.isMasterState || this.#brokerControllerId === null) return;
    const next = this.haService.maybeShrinkSyncStateSet();
    next.add(this.#brokerControllerId);
    if (next.size === this.#syncStateSet.size && [...next].every((id) => this.#syncStateSet.has(id))) return;
    await this.#doReportSyncStateSetChanged([...next]);
  }

  async #doReportSyncStateSetChanged(set: number[]): Promise<void> {
    const bc = this.broker.brokerConfig;
    this.#remoteSyncStateSet = new Set(set);
    try {
      const res = await this.#invoke(this.#controllerLeaderAddress, RequestCode.CONTROLLER_ALTER_SYNC_STATE_SET,
        AlterSyncStateSetRequestHeader.encode({ brokerName: bc.brokerName, masterBrokerId: this.#brokerControllerId!, masterEpoch: this.#masterEpoch, invokeTime: Date.now() }),
        encodeSyncStateSet({ syncStateSet: set, syncStateSetEpoch: this.#syncStateSetEpoch }));
      if (res.code !== ResponseCode.SUCCESS) throw new MQBrokerError(res.code, res.remark, this.#controllerLeaderAddress);
      const r = decodeSyncStateSet(res.body);
      this.#changeSyncStateSet(r.syncStateSet, r.syncStateSetEpoch);
    } catch (err) {
      this.#log.error({ err, masterEpoch: this.#masterEpoch, syncStateSet: set, syncStateSetEpoch: this.#syncStateSetEpoch }, 'CONTROLLER_ALTER_SYNC_STATE_SET failed');
    }
  }
}
