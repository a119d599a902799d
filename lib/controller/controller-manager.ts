/**
 * The controller role (Java's ControllerManager + ControllerRequestProcessor): a DLedger-replicated controller,
 * the broker heartbeat manager, and the request processor for codes 1001-1006, 1009-1013 and BROKER_HEARTBEAT
 * (904), all on the controller's DLedger peer port, as Java serves them.
 *
 *   const cm = new ControllerManager({ controllerDLegerGroup: 'g', controllerDLegerPeers: 'n0-127.0.0.1:9878',
 *     controllerDLegerSelfId: 'n0', controllerStorePath: '/data/controller' });
 *   await cm.start();   // cm.address -> "127.0.0.1:9878": brokers' controllerAddr
 *   await cm.shutdown();
 *
 * When a broker goes away (its connection closed, or its heartbeat expired) and it was its set's master, or when
 * the leader's scan finds a set whose master is no longer alive, the controller elects (up to
 * `electMasterMaxRetryCount` tries) and, with `notifyBrokerRoleChanged`, sends NOTIFY_BROKER_ROLE_CHANGED (oneway,
 * header + SyncStateSet body) to every alive replica of the set. An election a broker asks for (1002) that
 * succeeds notifies the same way.
 *
 * start() and shutdown() are idempotent and merge concurrent calls.
 *
 * @see org.apache.rocketmq.controller.ControllerManager
 * @see org.apache.rocketmq.controller.processor.ControllerRequestProcessor
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { RequestCode } from '../../protocol/code/request-code';
import { ResponseCode } from '../../protocol/code/response-code';
import { RemotingCommand } from '../../protocol/remoting-command';
import { decodeBrokerNameList } from '../../protocol/body/broker-replicas-info';
import { decodeElectMasterResponseBody } from '../../protocol/body/elect-master-response-body';
import { decodeSyncStateSet, encodeSyncStateSet } from '../../protocol/body/sync-state-set';
import { AlterSyncStateSetRequestHeader } from '../../protocol/header/alter-sync-state-set-request-header';
import { ApplyBrokerIdRequestHeader } from '../../protocol/header/apply-broker-id-request-header';
import { BrokerHeartbeatRequestHeader } from '../../protocol/header/broker-heartbeat-request-header';
import { CleanControllerBrokerDataRequestHeader } from '../../protocol/header/clean-controller-broker-data-request-header';
import { ElectMasterRequestHeader } from '../../protocol/header/elect-master-request-header';
import { ElectMasterResponseHeader } from '../../protocol/header/elect-master-response-header';
import { GetMetaDataResponseHeader } from '../../protocol/header/get-meta-data-response-header';
import { GetNextBrokerIdRequestHeader } from '../../protocol/header/get-next-broker-id-request-header';
import { GetReplicaInfoRequestHeader } from '../../protocol/header/get-replica-info-request-header';
import { GetReplicaInfoResponseHeader } from '../../protocol/header/get-replica-info-response-header';
import { NotifyBrokerRoleChangedRequestHeader } from '../../protocol/header/notify-broker-role-changed-request-header';
import { RegisterBrokerToControllerRequestHeader } from '../../protocol/header/register-broker-to-controller-request-header';
import { type Logger, componentLogger } from '../logger';
import type { Channel } from '../transport/connection';
import { RemotingClient } from '../transport/remoting-client';
import type { RemotingContext } from '../transport/processor';
import { Lifecycle } from '../util/lifecycle';
import { applyProperties, parseProperties } from '../util/properties-file';
import { BrokerHeartbeatManager } from './broker-heartbeat-manager';
import { type ControllerConfig, controllerConfigToProperties, createControllerConfig } from './controller-config';
import { DLedgerController } from './dledger-controller';
import { DefaultElectPolicy, type ElectPolicy } from './elect-policy';
import type { ControllerResult } from './replicas-info-manager';

/** The codes the controller serves (Java ControllerManager.registerProcessor). */
export const CONTROLLER_REQUEST_CODES: readonly number[] = Object.freeze([
  RequestCode.CONTROLLER_ALTER_SYNC_STATE_SET,
  RequestCode.CONTROLLER_ELECT_MASTER,
  RequestCode.CONTROLLER_REGISTER_BROKER,
  RequestCode.CONTROLLER_GET_REPLICA_INFO,
  RequestCode.CONTROLLER_GET_METADATA_INFO,
  RequestCode.CONTROLLER_GET_SYNC_STATE_DATA,
  RequestCode.BROKER_HEARTBEAT,
  RequestCode.UPDATE_CONTROLLER_CONFIG,
  RequestCode.GET_CONTROLLER_CONFIG,
  RequestCode.CLEAN_BROKER_DATA,
  RequestCode.CONTROLLER_GET_NEXT_BROKER_ID,
  RequestCode.CONTROLLER_APPLY_BROKER_ID,
]);

/** What an election's answer tells the replicas (Java RoleChangeNotifyEntry). */
export interface RoleChangeNotifyEntry {
  masterAddress: string | null;
  masterBrokerId: number | null;
  masterEpoch: number;
  syncStateSetEpoch: number;
  syncStateSet: number[];
  /** brokerId → address of the set, with its cluster and name; null when the answer had none. */
  brokerMemberGroup: { cluster: string; brokerName: string; brokerAddrs: Map<number, string> } | null;
}

export interface ControllerManagerOptions {
  logger?: Logger;
  /** Clock of the heartbeat manager (tests). */
  now?: () => number;
  /** Another elect policy (Java's ElectPolicy is pluggable); default DefaultElectPolicy on the heartbeats. */
  electPolicy?: ElectPolicy;
}

export class ControllerManager {
  readonly config: ControllerConfig;
  readonly heartbeatManager: BrokerHeartbeatManager;
  readonly controller: DLedgerController;
  readonly #log: Logger;
  readonly #client: RemotingClient;
  readonly #lifecycle: Lifecycle;
  readonly #electing = new Set<string>();
  /** Role-change notifications sent (for metrics and tests). */
  notificationsSent = 0;

  constructor(config: Partial<ControllerConfig> | ControllerConfig, options: ControllerManagerOptions = {}) {
    this.config = createControllerConfig(config);
    this.#log = componentLogger('controller', options.logger).child({ selfId: this.config.controllerDLegerSelfId });
    this.heartbeatManager = new BrokerHeartbeatManager(this.config, this.#log, options.now);
    const alive = (c: string, b: string, id: number) => this.heartbeatManager.isBrokerActive(c, b, id);
    const policy = options.electPolicy ?? new DefaultElectPolicy(alive, (c, b, id) => this.heartbeatManager.getBrokerLiveInfo(c, b, id));
    this.controller = new DLedgerController(this.config, alive, policy, this.#log);
    this.#client = new RemotingClient({ logger: this.#log });
    this.heartbeatManager.registerBrokerLifecycleListener((c, b, id) => this.#onBrokerInactive(c, b, id));
    this.controller.registerBrokerLifecycleListener((c, b, id) => this.#onBrokerInactive(c, b, id));
    const server = this.controller.dledger.remotingServer;
    for (const code of CONTROLLER_REQUEST_CODES) server.registerProcessor(code, (req, ctx) => this.processRequest(req, ctx));
    const onChannelGone = (_addr: string, channel: Channel) => {
      this.heartbeatManager.onBrokerChannelClose(channel);
    };
    server.on('close', onChannelGone);
    server.on('exception', onChannelGone);
    server.on('idle', onChannelGone);
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

  /** "host:port" brokers give as controllerAddr (the DLedger peer address, with the bound port). */
  get address(): string {
    return this.controller.selfAddress;
  }

  /** The bound port. */
  get port(): number {
    return this.controller.dledger.listenPort;
  }

  get isLeaderState(): boolean {
    return this.controller.isLeaderState;
  }

  async #doStart(): Promise<void> {
    await this.controller.start();
    this.heartbeatManager.start();
    this.#log.info({ address: this.address, group: this.config.controllerDLegerGroup }, 'The ControllerManager boot success');
  }

  async #doShutdown(): Promise<void> {
    await this.heartbeatManager.shutdown();
    await this.controller.shutdown();
    await this.#client.shutdown();
    this.#log.info('controller shut down');
  }

  // ---- elections the controller triggers ----

  #onBrokerInactive(clusterName: string | null, brokerName: string, brokerId: number | null): void {
    this.#log.info({ clusterName, brokerName, brokerId }, 'broker inactive');
    if (!this.controller.isLeaderState) return;
    if (brokerId === null) {
      void this.#triggerElectMaster(brokerName);
      return;
    }
    const info = this.controller.replicasInfoManager.syncStateSetInfoTable.get(brokerName);
    void this.controller.appendEvent('getReplicaInfo', () => this.controller.replicasInfoManager.getReplicaInfo({ brokerName }), false).then((r) => {
      if (r.responseCode !== ResponseCode.SUCCESS) return;
      const master = GetReplicaInfoResponseHeader.decode(r.header).masterBrokerId;
      if (master !== brokerId) {
        this.#log.warn({ brokerName, brokerId, master: master ?? info?.masterBrokerId ?? null }, 'a replica that is not the master became inactive');
        return;
      }
      void this.#triggerElectMaster(brokerName);
    }, (err: unknown) => this.#log.error({ err, brokerName }, 'getReplicaInfo failed on broker inactive'));
  }

  async #triggerElectMaster(brokerName: string): Promise<void> {
    if (this.#electing.has(brokerName)) return;
    this.#electing.add(brokerName);
    try {
      for (let i = 0; i < this.config.electMasterMaxRetryCount; i++) {
        try {
          const r = await this.controller.appendEvent('electMaster',
            () => this.controller.replicasInfoManager.electMaster({ clusterName: '', brokerName, brokerId: -1, designateElect: false }, this.controller.electPolicy), true);
          if (r.responseCode === ResponseCode.SUCCESS) {
            this.#log.info({ brokerName, master: ElectMasterResponseHeader.decode(r.header).masterBrokerId }, 'Elect a new master done');
            if (this.config.notifyBrokerRoleChanged) this.notifyBrokerRoleChanged(roleChangeEntry(r));
            return;
          }
          this.#log.error({ brokerName, code: r.responseCode, remark: r.remark }, 'Failed to trigger elect-master');
          if (r.responseCode === ResponseCode.CONTROLLER_NOT_LEADER) return;
        } catch (err) {
          this.#log.warn({ err, brokerName, retry: i }, 'Failed to trigger elect-master');
        }
      }
    } finally {
      this.#electing.delete(brokerName);
    }
  }

  /** Sends NOTIFY_BROKER_ROLE_CHANGED to every alive replica of the set (Java notifyBrokerRoleChanged). */
  notifyBrokerRoleChanged(entry: RoleChangeNotifyEntry): void {
    const group = entry.brokerMemberGroup;
    if (!group) return;
    if (entry.masterBrokerId === null) {
      this.#log.warn({ entry }, 'Notify broker role change failed: member group without a master');
      return;
    }
    for (const [id, addr] of group.brokerAddrs) {
      if (!this.heartbeatManager.isBrokerActive(group.cluster, group.brokerName, id) || !addr) continue;
      const req = RemotingCommand.createRequest(RequestCode.NOTIFY_BROKER_ROLE_CHANGED, NotifyBrokerRoleChangedRequestHeader.encode({
        masterAddress: entry.masterAddress ?? undefined, masterEpoch: entry.masterEpoch, syncStateSetEpoch: entry.syncStateSetEpoch, masterBrokerId: entry.masterBrokerId,
      }), encodeSyncStateSet({ syncStateSet: entry.syncStateSet, syncStateSetEpoch: entry.syncStateSetEpoch }));
      this.notificationsSent++;
      this.#log.info({ brokerAddr: addr, masterBrokerId: entry.masterBrokerId, masterEpoch: entry.masterEpoch }, 'notify broker that role changed');
      this.#client.invokeOneway(addr, req, 3000).catch((err: unknown) => this.#log.warn({ err, brokerAddr: addr }, 'Failed to notify broker that role changed'));
    }
  }

  // ---- requests ----

  /** The processor of every controller code (Java ControllerRequestProcessor.processRequest). */
  async processRequest(req: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand | null> {
    const c = this.controller;
    const m = c.replicasInfoManager;
    const alive = (cl: string, b: string, id: number) => this.heartbeatManager.isBrokerActive(cl, b, id);
    const answer = (r: ControllerResult) => RemotingCommand.createResponse(req, r.responseCode, r.remark, r.header, r.body);
    switch (req.code) {
      case RequestCode.CONTROLLER_ALTER_SYNC_STATE_SET: {
        const h = AlterSyncStateSetRequestHeader.decode(req.extFields);
        const set = decodeSyncStateSet(req.body);
        return answer(await c.appendEvent('alterSyncStateSet', () => m.alterSyncStateSet(h, set, alive), true));
      }
      case RequestCode.CONTROLLER_ELECT_MASTER: {
        const h = ElectMasterRequestHeader.decode(req.extFields);
        const r = await c.appendEvent('electMaster', () => m.electMaster(h, this.controller.electPolicy), true);
        if (r.responseCode === ResponseCode.SUCCESS && this.config.notifyBrokerRoleChanged) this.notifyBrokerRoleChanged(roleChangeEntry(r));
        return answer(r);
      }
      case RequestCode.CONTROLLER_GET_REPLICA_INFO: {
        const h = GetReplicaInfoRequestHeader.decode(req.extFields);
        return answer(await c.appendEvent('getReplicaInfo', () => m.getReplicaInfo(h), false));
      }
      case RequestCode.CONTROLLER_GET_METADATA_INFO:
        return this.#metadata(req);
      case RequestCode.BROKER_HEARTBEAT: {
        const h = BrokerHeartbeatRequestHeader.decode(req.extFields);
        if (h.brokerId === undefined) return RemotingCommand.createResponse(req, ResponseCode.CONTROLLER_INVALID_REQUEST, 'Heart beat with empty brokerId');
        this.heartbeatManager.onBrokerHeartbeat({ ...h, brokerId: h.brokerId }, ctx.channel);
        return RemotingCommand.createResponse(req, ResponseCode.SUCCESS, 'Heart beat success');
      }
      case RequestCode.CONTROLLER_GET_SYNC_STATE_DATA: {
        if (req.body && req.body.length > 0) {
          const names = decodeBrokerNameList(req.body);
          if (names.length > 0) return answer(await c.appendEvent('getSyncStateData', () => m.getSyncStateData(names, alive), false));
        }
        // Java answers RemotingCommand.createResponseCommand(null): SYSTEM_ERROR with this remark
        return RemotingCommand.createResponse(req, ResponseCode.SYSTEM_ERROR, 'not set any response code');
      }
      case RequestCode.UPDATE_CONTROLLER_CONFIG:
        return await this.#updateConfig(req, ctx);
      case RequestCode.GET_CONTROLLER_CONFIG:
        return RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null, null, Buffer.from(controllerConfigToProperties(this.config), 'utf8'));
      case RequestCode.CLEAN_BROKER_DATA: {
        const h = CleanControllerBrokerDataRequestHeader.decode(req.extFields);
        return answer(await c.appendEvent('cleanBrokerData', () => m.cleanBrokerData(h, alive), true));
      }
      case RequestCode.CONTROLLER_GET_NEXT_BROKER_ID: {
        const h = GetNextBrokerIdRequestHeader.decode(req.extFields);
        return answer(await c.appendEvent('getNextBrokerId', () => m.getNextBrokerId(h), false));
      }
      case RequestCode.CONTROLLER_APPLY_BROKER_ID: {
        const h = ApplyBrokerIdRequestHeader.decode(req.extFields);
        return answer(await c.appendEvent('applyBrokerId', () => m.applyBrokerId(h), true));
      }
      case RequestCode.CONTROLLER_REGISTER_BROKER: {
        const h = RegisterBrokerToControllerRequestHeader.decode(req.extFields);
        return answer(await c.appendEvent('registerSuccess', () => m.registerBroker(h, alive), true));
      }
      default:
        return RemotingCommand.createResponse(req, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, ` request type ${req.code} not supported`);
    }
  }

  /** CONTROLLER_GET_METADATA_INFO: answered by every controller (Java getControllerMetadata). */
  #metadata(req: RemotingCommand): RemotingCommand {
    const d = this.controller.dledger;
    const peers = this.controller.peerAddresses();
    const leaderId = d.leaderId ?? (d.isLeader ? d.selfId : null);
    return RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null, GetMetaDataResponseHeader.encode({
      group: this.config.controllerDLegerGroup,
      controllerLeaderId: leaderId ?? undefined,
      controllerLeaderAddress: leaderId ? peers.get(leaderId) : undefined,
      isLeader: d.isLeader,
      peers: [...peers].map(([id, addr]) => `${id}:${addr};`).join(''),
    }));
  }

  async #updateConfig(req: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand> {
    this.#log.info({ remoteAddr: ctx.remoteAddress }, 'updateConfig called');
    if (req.body && req.body.length > 0) {
      const props = parseProperties(req.body.toString('utf8'));
      const black = new Set(['configBlackList', 'configStorePath', 'rocketmqHome', ...this.config.configBlackList.split(';')]);
      for (const k of props.keys()) {
        if (black.has(k)) return RemotingCommand.createResponse(req, ResponseCode.NO_PERMISSION, 'Can not update config in black list.');
      }
      applyProperties(this.config, props);
      // Java's Configuration.update persists every option to configStorePath
      try {
        await persistProperties(this.config.configStorePath, controllerConfigToProperties(this.config));
      } catch (err) {
        this.#log.error({ err, configStorePath: this.config.configStorePath }, 'persist controller config failed');
      }
    }
    return RemotingCommand.createResponse(req, ResponseCode.SUCCESS, null);
  }
}

/** Writes `text` to `file` through a temp file and a rename (the folder is created). */
async function persistProperties(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  await fs.writeFile(tmp, text);
  await fs.rename(tmp, file);
}

/** Java RoleChangeNotifyEntry.convert: what an election's answer says. */
export function roleChangeEntry(r: ControllerResult): RoleChangeNotifyEntry {
  const h = ElectMasterResponseHeader.decode(r.header);
  const body = r.body && r.body.length > 0 ? decodeElectMasterResponseBody(r.body) : null;
  return {
    masterAddress: h.masterAddress ?? null,
    masterBrokerId: h.masterBrokerId ?? null,
    masterEpoch: h.masterEpoch ?? 0,
    syncStateSetEpoch: h.syncStateSetEpoch ?? 0,
    syncStateSet: body?.syncStateSet ?? [],
    brokerMemberGroup: body?.brokerMemberGroup ?? null,
  };
}
