/**
 * The controller on a DLedger group (Java's DLedgerController): decisions of the ReplicasInfoManager run one at
 * a time (Java's EventScheduler thread) on the leader only; a decision's events are appended to the controller's
 * DLedger log, one entry each, in Java's form (event-serializer.ts), and the answer goes out once they are
 * committed and applied. The state machine applies every committed entry in order, on every controller of the
 * group and, after a restart, again from the first entry (the state is rebuilt by replay; no snapshot).
 *
 * A controller that becomes DLedger leader first commits an empty entry (so everything before it is applied),
 * then serves (Java's RoleChangeHandler); until then, and on followers, requests get CONTROLLER_NOT_LEADER.
 * The leader scans every `scanInactiveMasterInterval` for broker sets whose master stopped beating and tells the
 * listeners (the ControllerManager elects).
 *
 * @see org.apache.rocketmq.controller.impl.DLedgerController
 * @see org.apache.rocketmq.controller.impl.DLedgerControllerStateMachine
 */
import path from 'node:path';
import { ResponseCode } from '../../protocol/code/response-code';
import { DLedgerServer, type Role } from '../dledger/dledger-server';
import type { DLedgerEntry } from '../dledger/dledger-entry';
import { parsePeers } from '../dledger/dledger-config';
import type { Logger } from '../logger';
import { ServiceLoop } from '../util/service-loop';
import { type ControllerConfig, controllerStorePath } from './controller-config';
import type { BrokerValidPredicate, ElectPolicy } from './elect-policy';
import { deserializeEvent, serializeEvent } from './event-serializer';
import type { BrokerLifecycleListener } from './broker-heartbeat-manager';
import { type ControllerResult, ReplicasInfoManager } from './replicas-info-manager';

/** How long a request waits for its events to commit (Java: the processor's 5 s future wait). */
export const WAIT_TIMEOUT_MS = 5000;

export class DLedgerController {
  readonly dledger: DLedgerServer;
  readonly replicasInfoManager: ReplicasInfoManager;
  readonly #config: ControllerConfig;
  readonly #log: Logger;
  readonly #alive: BrokerValidPredicate;
  /** The policy elections use (Java's DefaultElectPolicy on the heartbeat manager by default). */
  readonly electPolicy: ElectPolicy;
  readonly #listeners: BrokerLifecycleListener[] = [];
  readonly #scanInactiveMaster: ServiceLoop;
  #leaderState = false;
  #roleGeneration = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #queued = 0;
  #stopped = true;
  #removeRoleListener: (() => void) | null = null;

  constructor(config: ControllerConfig, alive: BrokerValidPredicate, electPolicy: ElectPolicy, log: Logger) {
    this.#config = config;
    this.#log = log;
    this.#alive = alive;
    this.electPolicy = electPolicy;
    this.replicasInfoManager = new ReplicasInfoManager(config, log);
    this.dledger = new DLedgerServer({
      group: config.controllerDLegerGroup,
      peers: config.controllerDLegerPeers,
      selfId: config.controllerDLegerSelfId,
      storeBaseDir: controllerStorePath(config),
      mappedFileSizeForEntryData: config.mappedFileSize,
      heartBeatTimeIntervalMs: config.controllerDLegerHeartBeatTimeIntervalMs,
      maxHeartBeatLeak: config.controllerDLegerMaxHeartBeatLeak,
      minVoteIntervalMs: config.controllerDLegerMinVoteIntervalMs,
      maxVoteIntervalMs: config.controllerDLegerMaxVoteIntervalMs,
      bindAddress: config.controllerBindAddress,
    }, {
      logger: log,
      stateMachine: {
        // the state lives in memory: replay the whole log on start
        lastAppliedIndex: async () => -1,
        apply: async (entry: DLedgerEntry) => this.#apply(entry),
      },
    });
    this.#scanInactiveMaster = new ServiceLoop(
      { name: 'scanInactiveMaster', intervalMillis: config.scanInactiveMasterInterval, logger: log },
      () => this.#scanInactiveMasterAndTriggerReelect(),
    );
  }

  /** The folder of this controller's DLedger files. */
  get storeDir(): string {
    return path.join(controllerStorePath(this.#config), `dledger-${this.#config.controllerDLegerSelfId}`);
  }

  /** True once this controller leads and has applied everything committed before its term (Java isLeaderState). */
  get isLeaderState(): boolean {
    return this.#leaderState;
  }

  registerBrokerLifecycleListener(l: BrokerLifecycleListener): void {
    this.#listeners.push(l);
  }

  async start(): Promise<void> {
    this.#stopped = false;
    this.#removeRoleListener = this.dledger.onRoleChange((role, term) => this.#onRoleChange(role, term));
    await this.dledger.start();
  }

  async shutdown(): Promise<void> {
    this.#stopped = true;
    this.#leaderState = false;
    this.#roleGeneration++;
    this.#removeRoleListener?.();
    await this.#scanInactiveMaster.stop();
    await this.dledger.shutdown();
    await this.#queue.catch(() => undefined);
  }

  /** The address this controller answers on: its peer host with the port it bound. */
  get selfAddress(): string {
    const addr = parsePeers(this.#config.controllerDLegerPeers).get(this.#config.controllerDLegerSelfId)!;
    return `${addr.slice(0, addr.lastIndexOf(':'))}:${this.dledger.listenPort}`;
  }

  /** peer id → address, with this controller's own port as bound (peers may say port 0 in tests). */
  peerAddresses(): Map<string, string> {
    const m = parsePeers(this.#config.controllerDLegerPeers);
    m.set(this.#config.controllerDLegerSelfId, this.selfAddress);
    return m;
  }

  #apply(entry: DLedgerEntry): void {
    if (entry.body.length === 0) return;
    const event = deserializeEvent(entry.body);
    if (event) this.replicasInfoManager.applyEvent(event);
  }

  #onRoleChange(role: Role, term: number): void {
    const generation = ++this.#roleGeneration;
    if (role !== 'LEADER') {
      if (this.#leaderState) this.#log.info({ role, term }, 'controller stops scheduling');
      this.#leaderState = false;
      void this.#scanInactiveMaster.stop();
      return;
    }
    this.#log.info({ term }, 'controller became DLedger leader; committing an initial entry before serving');
    void (async () => {
      for (let tries = 1; !this.#stopped && generation === this.#roleGeneration && this.dledger.isLeader; tries++) {
        try {
          await this.dledger.append(Buffer.alloc(0));
          if (generation !== this.#roleGeneration) return;
          this.#leaderState = true;
          this.#scanInactiveMaster.start();
          this.#log.info({ term, appliedIndex: this.dledger.appliedIndex }, 'controller is leader and serving');
          return;
        } catch (err) {
          this.#log.warn({ err, tries }, 'controller leader failed to commit its initial entry; retrying');
          await new Promise((r) => setTimeout(r, 100).unref());
        }
      }
    })();
  }

  #scanInactiveMasterAndTriggerReelect(): void {
    if (!this.#leaderState) return;
    for (const brokerName of this.replicasInfoManager.scanNeedReelectBrokerSets(this.#alive)) {
      for (const l of this.#listeners) l(null, brokerName, null);
    }
  }

  /**
   * Runs a decision in turn (Java EventScheduler.appendEvent): refused with CONTROLLER_NOT_LEADER unless this
   * controller leads; a write's events are committed before the result is returned. A failed append rejects.
   */
  appendEvent(name: string, decide: () => ControllerResult, isWriteEvent: boolean): Promise<ControllerResult> {
    if (this.#stopped || !this.#leaderState) {
      return Promise.resolve({ responseCode: ResponseCode.CONTROLLER_NOT_LEADER, remark: 'The controller is not in leader state', header: {}, body: null, events: [] });
    }
    if (this.#queued >= this.#config.controllerRequestThreadPoolQueueCapacity) {
      return Promise.resolve({ responseCode: ResponseCode.SYSTEM_BUSY, remark: '[OVERLOAD]system busy, start flow control for a while', header: {}, body: null, events: [] });
    }
    this.#queued++;
    const run = async (): Promise<ControllerResult> => {
      if (!this.#leaderState) {
        return { responseCode: ResponseCode.CONTROLLER_NOT_LEADER, remark: 'The controller is not in leader state', header: {}, body: null, events: [] };
      }
      const result = decide();
      this.#log.debug({ name, code: result.responseCode, events: result.events.length }, 'controller event');
      if (isWriteEvent && result.events.length > 0) {
        const appends = result.events.map((e) => this.dledger.append(serializeEvent(e)));
        await withTimeout(Promise.all(appends), WAIT_TIMEOUT_MS, name);
      } else if (this.#config.processReadEvent) {
        await withTimeout(this.dledger.append(Buffer.alloc(0)), WAIT_TIMEOUT_MS, name);
      }
      return result;
    };
    const p = this.#queue.then(run, run);
    this.#queue = p.catch(() => undefined).finally(() => { this.#queued--; });
    return p;
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, name: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`controller event ${name}: not committed in ${ms} ms`)), ms);
    t.unref();
    p.then((v) => { clearTimeout(t); resolve(v); }, (e: unknown) => { clearTimeout(t); reject(e); });
  });
}
