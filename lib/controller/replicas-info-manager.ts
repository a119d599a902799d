/**
 * The controller's state machine: per broker set the replicas (broker id → address and register check code, the
 * next id to assign) and the sync state (master id, master epoch, SyncStateSet and its epoch).
 *
 * Requests are decided here against the applied state and produce events; state changes only when an event is
 * applied (after it is committed in the controller's DLedger log, and again on replay after a restart), so every
 * controller of a group holds the same state. Answers and remarks follow Java's ReplicasInfoManager line by line:
 * epoch fencing (CONTROLLER_FENCED_MASTER_EPOCH, CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH), the master check
 * (CONTROLLER_INVALID_MASTER), the first election taking the asking broker, and the controller-triggered election
 * that records "no master" when nobody qualifies.
 *
 * @see org.apache.rocketmq.controller.impl.manager.ReplicasInfoManager
 * @see org.apache.rocketmq.controller.impl.manager.BrokerReplicaInfo
 * @see org.apache.rocketmq.controller.impl.manager.SyncStateInfo
 */
import { ResponseCode } from '../../protocol/code/response-code';
import type { ExtFields } from '../../protocol/remoting-command';
import { type BrokerReplicasInfo, type ReplicaIdentity, type ReplicasInfo, encodeBrokerReplicasInfo } from '../../protocol/body/broker-replicas-info';
import { encodeElectMasterResponseBody } from '../../protocol/body/elect-master-response-body';
import { encodeSyncStateSet, sortedIds } from '../../protocol/body/sync-state-set';
import { AlterSyncStateSetResponseHeader } from '../../protocol/header/alter-sync-state-set-response-header';
import { ApplyBrokerIdResponseHeader } from '../../protocol/header/apply-broker-id-response-header';
import type { ApplyBrokerIdRequestHeader } from '../../protocol/header/apply-broker-id-request-header';
import type { CleanControllerBrokerDataRequestHeader } from '../../protocol/header/clean-controller-broker-data-request-header';
import type { ElectMasterRequestHeader } from '../../protocol/header/elect-master-request-header';
import { ElectMasterResponseHeader } from '../../protocol/header/elect-master-response-header';
import type { GetNextBrokerIdRequestHeader } from '../../protocol/header/get-next-broker-id-request-header';
import { GetNextBrokerIdResponseHeader } from '../../protocol/header/get-next-broker-id-response-header';
import { GetReplicaInfoResponseHeader } from '../../protocol/header/get-replica-info-response-header';
import type { RegisterBrokerToControllerRequestHeader } from '../../protocol/header/register-broker-to-controller-request-header';
import { RegisterBrokerToControllerResponseHeader } from '../../protocol/header/register-broker-to-controller-response-header';
import type { Logger } from '../logger';
import type { BrokerValidPredicate, ElectPolicy } from './elect-policy';
import type { EventMessage } from './event-serializer';

/** Java MixAll.FIRST_BROKER_CONTROLLER_ID. */
export const FIRST_BROKER_CONTROLLER_ID = 1;

/** A decision: the answer (code, remark, header, body) and the events to commit before answering. */
export interface ControllerResult {
  responseCode: number;
  remark: string | null;
  header: ExtFields;
  body: Buffer | null;
  events: EventMessage[];
}

function result(header: ExtFields = {}): ControllerResult {
  return { responseCode: ResponseCode.SUCCESS, remark: null, header, body: null, events: [] };
}

function fail(r: ControllerResult, code: number, remark: string): ControllerResult {
  r.responseCode = code;
  r.remark = remark;
  return r;
}

/** @see org.apache.rocketmq.controller.impl.manager.BrokerReplicaInfo */
export class BrokerReplicaInfo {
  nextAssignBrokerId = FIRST_BROKER_CONTROLLER_ID;
  /** brokerId → [address, registerCheckCode] */
  readonly brokerIdInfo = new Map<number, [string, string]>();

  constructor(readonly clusterName: string, readonly brokerName: string) {}

  addBroker(brokerId: number, address: string, registerCheckCode: string): void {
    this.brokerIdInfo.set(brokerId, [address, registerCheckCode]);
    this.nextAssignBrokerId++;
  }

  removeBrokerId(brokerId: number): void {
    this.brokerIdInfo.delete(brokerId);
  }

  isBrokerExist(brokerId: number | null | undefined): boolean {
    return brokerId !== null && brokerId !== undefined && this.brokerIdInfo.has(brokerId);
  }

  allBrokers(): Set<number> {
    return new Set(sortedIds(this.brokerIdInfo.keys()));
  }

  /** brokerId → address, ids ascending. */
  brokerIdTable(): Map<number, string> {
    return new Map([...this.brokerIdInfo].sort((a, b) => a[0] - b[0]).map(([id, [addr]]) => [id, addr]));
  }

  brokerAddress(brokerId: number | null | undefined): string | null {
    if (brokerId === null || brokerId === undefined) return null;
    return this.brokerIdInfo.get(brokerId)?.[0] ?? null;
  }

  registerCheckCode(brokerId: number): string | null {
    return this.brokerIdInfo.get(brokerId)?.[1] ?? null;
  }

  updateBrokerAddress(brokerId: number, address: string): void {
    const old = this.brokerIdInfo.get(brokerId);
    if (old) this.brokerIdInfo.set(brokerId, [address, old[1]]);
  }
}

/** @see org.apache.rocketmq.controller.impl.manager.SyncStateInfo */
export class SyncStateInfo {
  masterEpoch = 0;
  syncStateSetEpoch = 0;
  syncStateSet = new Set<number>();
  masterBrokerId: number | null = null;

  constructor(readonly clusterName: string, readonly brokerName: string) {}

  updateMasterInfo(masterBrokerId: number | null): void {
    this.masterBrokerId = masterBrokerId;
    this.masterEpoch++;
  }

  updateSyncStateSetInfo(newSyncStateSet: Iterable<number>): void {
    this.syncStateSet = new Set(newSyncStateSet);
    this.syncStateSetEpoch++;
  }

  get isFirstTimeForElect(): boolean {
    return this.masterEpoch === 0;
  }

  get isMasterExist(): boolean {
    return this.masterBrokerId !== null;
  }
}

function sameSet(a: ReadonlySet<number>, b: ReadonlySet<number>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

export class ReplicasInfoManager {
  readonly replicaInfoTable = new Map<string, BrokerReplicaInfo>();
  readonly syncStateSetInfoTable = new Map<string, SyncStateInfo>();

  constructor(private readonly config: { enableElectUncleanMaster: boolean }, private readonly log?: Logger) {}

  isContainsBroker(brokerName: string): boolean {
    return this.replicaInfoTable.has(brokerName) && this.syncStateSetInfoTable.has(brokerName);
  }

  // ---- decisions ----

  alterSyncStateSet(request: { brokerName?: string; masterBrokerId?: number; masterEpoch?: number }, syncStateSet: { syncStateSet: number[]; syncStateSetEpoch: number },
    alive: BrokerValidPredicate): ControllerResult {
    const brokerName = request.brokerName ?? '';
    const r = result(AlterSyncStateSetResponseHeader.encode({ newSyncStateSetEpoch: 0 }));
    if (!this.isContainsBroker(brokerName)) return fail(r, ResponseCode.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED, 'Broker metadata is not existed');
    const newSet = new Set(syncStateSet.syncStateSet);
    const info = this.syncStateSetInfoTable.get(brokerName)!;
    const replicas = this.replicaInfoTable.get(brokerName)!;
    if (sameSet(info.syncStateSet, newSet)) {
      return fail(r, ResponseCode.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED, 'The newSyncStateSet is equal with oldSyncStateSet, no needed to update syncStateSet');
    }
    if (info.masterBrokerId === null || info.masterBrokerId !== request.masterBrokerId) {
      return fail(r, ResponseCode.CONTROLLER_INVALID_MASTER,
        `Rejecting alter syncStateSet request because the current leader is:{${info.masterBrokerId}}, not {${request.masterBrokerId ?? null}}`);
    }
    if (request.masterEpoch !== info.masterEpoch) {
      return fail(r, ResponseCode.CONTROLLER_FENCED_MASTER_EPOCH,
        `Rejecting alter syncStateSet request because the current master epoch is:{${info.masterEpoch}}, not {${request.masterEpoch ?? null}}`);
    }
    if (syncStateSet.syncStateSetEpoch !== info.syncStateSetEpoch) {
      return fail(r, ResponseCode.CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH,
        `Rejecting alter syncStateSet request because the current syncStateSet epoch is:{${info.syncStateSetEpoch}}, not {${syncStateSet.syncStateSetEpoch}}`);
    }
    for (const replica of newSet) {
      if (!replicas.isBrokerExist(replica)) {
        return fail(r, ResponseCode.CONTROLLER_INVALID_REPLICAS, `Rejecting alter syncStateSet request because the replicas {${replica}} don't exist`);
      }
      if (!alive(replicas.clusterName, replicas.brokerName, replica)) {
        return fail(r, ResponseCode.CONTROLLER_BROKER_NOT_ALIVE, `Rejecting alter syncStateSet request because the replicas {${replica}} don't alive`);
      }
    }
    if (!newSet.has(info.masterBrokerId)) {
      return fail(r, ResponseCode.CONTROLLER_ALTER_SYNC_STATE_SET_FAILED,
        `Rejecting alter syncStateSet request because the newSyncStateSet don't contains origin leader {${info.masterBrokerId}}`);
    }
    const epoch = info.syncStateSetEpoch + 1;
    r.header = AlterSyncStateSetResponseHeader.encode({ newSyncStateSetEpoch: epoch });
    r.body = encodeSyncStateSet({ syncStateSet: [...newSet], syncStateSetEpoch: epoch });
    r.events.push({ eventType: 'ALTER_SYNC_STATE_SET_EVENT', brokerName, newSyncStateSet: sortedIds(newSet) });
    return r;
  }

  electMaster(request: Partial<ElectMasterRequestHeader>, electPolicy: ElectPolicy): ControllerResult {
    const brokerName = request.brokerName ?? '';
    const brokerId = request.brokerId ?? null;
    const r = result();
    if (!this.isContainsBroker(brokerName)) return fail(r, ResponseCode.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED, "Broker hasn't been registered");
    const info = this.syncStateSetInfoTable.get(brokerName)!;
    const replicas = this.replicaInfoTable.get(brokerName)!;
    const syncStateSet = new Set(info.syncStateSet);
    const oldMaster = info.masterBrokerId;
    const allReplicaBrokers = this.config.enableElectUncleanMaster ? replicas.allBrokers() : null;
    let newMaster: number | null = null;
    // never had a master: the asking broker becomes the first one
    if (info.isFirstTimeForElect) newMaster = brokerId;
    if (newMaster === null || newMaster === -1) {
      const assigned = request.designateElect ? brokerId : null;
      newMaster = electPolicy.elect(replicas.clusterName, replicas.brokerName, syncStateSet, allReplicaBrokers, oldMaster, assigned);
    }
    if (newMaster !== null && newMaster === oldMaster) {
      const err = `The old master ${oldMaster} is still alive, not need to elect new master for broker ${replicas.brokerName}`;
      this.log?.warn({ brokerName, oldMaster }, 'old master still alive; no election');
      r.header = ElectMasterResponseHeader.encode({
        masterEpoch: info.masterEpoch, syncStateSetEpoch: info.syncStateSetEpoch, masterBrokerId: oldMaster, masterAddress: replicas.brokerAddress(oldMaster) ?? undefined,
      });
      r.body = encodeElectMasterResponseBody({ brokerMemberGroup: null, syncStateSet: [...syncStateSet] });
      return fail(r, ResponseCode.CONTROLLER_MASTER_STILL_EXIST, err);
    }
    if (newMaster !== null) {
      r.header = ElectMasterResponseHeader.encode({
        masterBrokerId: newMaster, masterAddress: replicas.brokerAddress(newMaster) ?? undefined, masterEpoch: info.masterEpoch + 1, syncStateSetEpoch: info.syncStateSetEpoch + 1,
      });
      r.body = encodeElectMasterResponseBody({
        brokerMemberGroup: { cluster: replicas.clusterName, brokerName: replicas.brokerName, brokerAddrs: replicas.brokerIdTable() },
        syncStateSet: [newMaster],
      });
      r.events.push({ eventType: 'ELECT_MASTER_EVENT', newMasterElected: true, brokerName, newMasterBrokerId: newMaster });
      this.log?.info({ brokerName, newMaster }, 'Elect new master');
      return r;
    }
    // nobody qualifies: when the controller triggered it (the master went away), record that there is no master
    if (brokerId === null || brokerId === -1) {
      r.events.push({ eventType: 'ELECT_MASTER_EVENT', newMasterElected: false, brokerName, newMasterBrokerId: null });
      fail(r, ResponseCode.CONTROLLER_MASTER_NOT_AVAILABLE, 'Old master has down and failed to elect a new broker master');
    } else {
      fail(r, ResponseCode.CONTROLLER_ELECT_MASTER_FAILED, 'Failed to elect a new master');
    }
    this.log?.warn({ brokerName }, 'Failed to elect a new master');
    return r;
  }

  getNextBrokerId(request: Partial<GetNextBrokerIdRequestHeader>): ControllerResult {
    const clusterName = request.clusterName;
    const brokerName = request.brokerName ?? '';
    const replicas = this.replicaInfoTable.get(brokerName);
    return result(GetNextBrokerIdResponseHeader.encode({ clusterName, brokerName, nextBrokerId: replicas ? replicas.nextAssignBrokerId : FIRST_BROKER_CONTROLLER_ID }));
  }

  applyBrokerId(request: Partial<ApplyBrokerIdRequestHeader>): ControllerResult {
    const clusterName = request.clusterName ?? '';
    const brokerName = request.brokerName ?? '';
    const brokerId = request.appliedBrokerId ?? -1;
    const registerCheckCode = request.registerCheckCode ?? '';
    const brokerAddress = registerCheckCode.split(';')[0];
    const replicas = this.replicaInfoTable.get(brokerName);
    const r = result(ApplyBrokerIdResponseHeader.encode({ clusterName: request.clusterName, brokerName: request.brokerName }));
    const event: EventMessage = { eventType: 'APPLY_BROKER_ID_EVENT', clusterName, brokerName, brokerAddress, newBrokerId: brokerId, registerCheckCode };
    if (!replicas) {
      if (brokerId === FIRST_BROKER_CONTROLLER_ID) r.events.push(event);
      else fail(r, ResponseCode.CONTROLLER_BROKER_ID_INVALID, `Broker-set: ${brokerName} hasn't been registered in controller, but broker try to apply brokerId: ${brokerId}`);
      return r;
    }
    if (!replicas.isBrokerExist(brokerId) || registerCheckCode === replicas.registerCheckCode(brokerId)) {
      r.events.push(event);
      return r;
    }
    return fail(r, ResponseCode.CONTROLLER_BROKER_ID_INVALID, `Fail to apply brokerId: ${brokerId} in broker-set: ${brokerName}`);
  }

  registerBroker(request: Partial<RegisterBrokerToControllerRequestHeader>, alive: BrokerValidPredicate): ControllerResult {
    const brokerAddress = request.brokerAddress ?? '';
    const brokerName = request.brokerName ?? '';
    const clusterName = request.clusterName ?? '';
    const brokerId = request.brokerId ?? null;
    const r = result(RegisterBrokerToControllerResponseHeader.encode({ clusterName: request.clusterName, brokerName: request.brokerName }));
    if (!this.isContainsBroker(brokerName)) {
      return fail(r, ResponseCode.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED, `Broker-set: ${brokerName} hasn't been registered in controller`);
    }
    const replicas = this.replicaInfoTable.get(brokerName)!;
    const info = this.syncStateSetInfoTable.get(brokerName)!;
    if (brokerId === null || !replicas.isBrokerExist(brokerId)) {
      return fail(r, ResponseCode.CONTROLLER_BROKER_NEED_TO_BE_REGISTERED, `BrokerId: ${brokerId} hasn't been registered in broker-set: ${brokerName}`);
    }
    if (info.masterBrokerId !== null && alive(clusterName, brokerName, info.masterBrokerId)) {
      r.header = RegisterBrokerToControllerResponseHeader.encode({
        clusterName: request.clusterName, brokerName: request.brokerName, masterBrokerId: info.masterBrokerId,
        masterAddress: replicas.brokerAddress(info.masterBrokerId) ?? undefined, masterEpoch: info.masterEpoch, syncStateSetEpoch: info.syncStateSetEpoch,
      });
    }
    r.body = encodeSyncStateSet({ syncStateSet: [...info.syncStateSet], syncStateSetEpoch: info.syncStateSetEpoch });
    if (brokerAddress !== replicas.brokerAddress(brokerId)) {
      r.events.push({ eventType: 'UPDATE_BROKER_ADDRESS', clusterName, brokerName, brokerAddress, brokerId });
    }
    return r;
  }

  getReplicaInfo(request: { brokerName?: string }): ControllerResult {
    const brokerName = request.brokerName ?? '';
    const r = result();
    if (!this.isContainsBroker(brokerName)) return fail(r, ResponseCode.CONTROLLER_BROKER_METADATA_NOT_EXIST, 'Broker metadata is not existed');
    const info = this.syncStateSetInfoTable.get(brokerName)!;
    const replicas = this.replicaInfoTable.get(brokerName)!;
    r.header = GetReplicaInfoResponseHeader.encode({
      masterBrokerId: info.masterBrokerId ?? undefined, masterAddress: replicas.brokerAddress(info.masterBrokerId) ?? undefined, masterEpoch: info.masterEpoch,
    });
    r.body = encodeSyncStateSet({ syncStateSet: [...info.syncStateSet], syncStateSetEpoch: info.syncStateSetEpoch });
    return r;
  }

  /** The BrokerReplicasInfo of the named sets (unknown names are left out). */
  syncStateData(brokerNames: readonly string[], alive: BrokerValidPredicate): BrokerReplicasInfo {
    const table = new Map<string, ReplicasInfo>();
    for (const brokerName of brokerNames) {
      if (!this.isContainsBroker(brokerName)) continue;
      const info = this.syncStateSetInfoTable.get(brokerName)!;
      const replicas = this.replicaInfoTable.get(brokerName)!;
      const inSync: ReplicaIdentity[] = [];
      const notInSync: ReplicaIdentity[] = [];
      for (const [brokerId, brokerAddress] of replicas.brokerIdTable()) {
        const replica = { brokerName, brokerId, brokerAddress, alive: alive(replicas.clusterName, brokerName, brokerId) };
        (info.syncStateSet.has(brokerId) ? inSync : notInSync).push(replica);
      }
      table.set(brokerName, {
        masterBrokerId: info.masterBrokerId, masterAddress: replicas.brokerAddress(info.masterBrokerId), masterEpoch: info.masterEpoch,
        syncStateSetEpoch: info.syncStateSetEpoch, inSyncReplicas: inSync, notInSyncReplicas: notInSync,
      });
    }
    return { replicasInfoTable: table };
  }

  getSyncStateData(brokerNames: readonly string[], alive: BrokerValidPredicate): ControllerResult {
    const r = result();
    r.body = encodeBrokerReplicasInfo(this.syncStateData(brokerNames, alive));
    return r;
  }

  cleanBrokerData(request: Partial<CleanControllerBrokerDataRequestHeader>, valid: BrokerValidPredicate): ControllerResult {
    const r = result();
    const clusterName = request.clusterName ?? '';
    const brokerName = request.brokerName ?? '';
    const idsToClean = request.brokerControllerIdsToClean ?? '';
    let brokerIdSet: number[] | null = null;
    if (!request.isCleanLivingBroker) {
      const info = this.syncStateSetInfoTable.get(brokerName);
      if (idsToClean.trim() === '' && info && info.masterBrokerId !== null) {
        return fail(r, ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA, `Broker ${brokerName} is still alive, clean up failure`);
      }
      if (idsToClean.trim() !== '') {
        const parts = idsToClean.split(';');
        if (parts.some((p) => !/^-?\d+$/.test(p.trim()))) {
          return fail(r, ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA,
            `Please set the option <brokerControllerIdsToClean> according to the format, exception: java.lang.NumberFormatException: For input string: "${parts.find((p) => !/^-?\d+$/.test(p.trim()))}"`);
        }
        brokerIdSet = sortedIds(parts.map((p) => Number(p.trim())));
        for (const id of brokerIdSet) {
          if (valid(clusterName, brokerName, id)) {
            return fail(r, ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA, `Broker [${brokerName},  ${id}] is still alive, clean up failure`);
          }
        }
      }
    }
    if (this.isContainsBroker(brokerName)) {
      r.events.push({ eventType: 'CLEAN_BROKER_DATA_EVENT', brokerName, brokerIdSetToClean: brokerIdSet });
      return r;
    }
    return fail(r, ResponseCode.CONTROLLER_INVALID_CLEAN_BROKER_METADATA, `Broker ${brokerName} is not existed,clean broker data failure.`);
  }

  /** Broker sets whose master is no longer alive while some replica is (Java scanNeedReelectBrokerSets). */
  scanNeedReelectBrokerSets(valid: BrokerValidPredicate): string[] {
    const out: string[] = [];
    for (const [brokerName, info] of this.syncStateSetInfoTable) {
      const master = info.masterBrokerId;
      if (master === null || valid(info.clusterName, brokerName, master)) continue;
      const replicas = this.replicaInfoTable.get(brokerName);
      if (replicas && [...replicas.brokerIdInfo.keys()].some((id) => valid(info.clusterName, brokerName, id))) out.push(brokerName);
    }
    return out;
  }

  // ---- applying committed events ----

  applyEvent(event: EventMessage): void {
    switch (event.eventType) {
      case 'ALTER_SYNC_STATE_SET_EVENT':
        if (this.isContainsBroker(event.brokerName)) this.syncStateSetInfoTable.get(event.brokerName)!.updateSyncStateSetInfo(event.newSyncStateSet);
        return;
      case 'APPLY_BROKER_ID_EVENT': {
        const replicas = this.replicaInfoTable.get(event.brokerName);
        if (replicas && this.isContainsBroker(event.brokerName)) {
          if (!replicas.isBrokerExist(event.newBrokerId)) replicas.addBroker(event.newBrokerId, event.brokerAddress, event.registerCheckCode);
        } else {
          const fresh = new BrokerReplicaInfo(event.clusterName, event.brokerName);
          fresh.addBroker(event.newBrokerId, event.brokerAddress, event.registerCheckCode);
          this.replicaInfoTable.set(event.brokerName, fresh);
          this.syncStateSetInfoTable.set(event.brokerName, new SyncStateInfo(event.clusterName, event.brokerName));
        }
        return;
      }
      case 'ELECT_MASTER_EVENT': {
        const info = this.syncStateSetInfoTable.get(event.brokerName);
        if (!info || !this.isContainsBroker(event.brokerName)) {
          this.log?.error({ event }, 'Receive an ElectMasterEvent which contains the un-registered broker');
          return;
        }
        if (event.newMasterElected) {
          info.updateMasterInfo(event.newMasterBrokerId);
          info.updateSyncStateSetInfo(event.newMasterBrokerId === null ? [] : [event.newMasterBrokerId]);
        } else {
          info.updateMasterInfo(null);
        }
        return;
      }
      case 'CLEAN_BROKER_DATA_EVENT': {
        const ids = event.brokerIdSetToClean;
        if (!ids || ids.length === 0) {
          this.replicaInfoTable.delete(event.brokerName);
          this.syncStateSetInfoTable.delete(event.brokerName);
          return;
        }
        if (!this.isContainsBroker(event.brokerName)) return;
        const replicas = this.replicaInfoTable.get(event.brokerName)!;
        const info = this.syncStateSetInfoTable.get(event.brokerName)!;
        for (const id of ids) {
          replicas.removeBrokerId(id);
          info.syncStateSet.delete(id);
        }
        if (replicas.brokerIdInfo.size === 0) this.replicaInfoTable.delete(event.brokerName);
        if (info.syncStateSet.size === 0) this.syncStateSetInfoTable.delete(event.brokerName);
        return;
      }
      case 'UPDATE_BROKER_ADDRESS':
        this.replicaInfoTable.get(event.brokerName)?.updateBrokerAddress(event.brokerId, event.brokerAddress);
        return;
    }
  }
}
