/**
 * BrokerReplicasInfo: the CONTROLLER_GET_SYNC_STATE_DATA (1006) answer, what `mqadmin getSyncStateSet` prints:
 * per broker set its master, epochs, and the replicas in and out of the SyncStateSet with their liveness.
 * `{"replicasInfoTable":{"b":{"inSyncReplicas":[{"alive":true,"brokerAddress":"..","brokerId":1,"brokerName":"b"}],
 *   "masterAddress":"..","masterBrokerId":1,"masterEpoch":1,"notInSyncReplicas":[],"syncStateSetEpoch":1}}}`
 *
 * The request body is the broker names, a JSON list: `["b1","b2"]` ({@link decodeBrokerNameList}).
 *
 * @see org.apache.rocketmq.remoting.protocol.body.BrokerReplicasInfo
 */
import { ProtocolError } from '../errors';
import { type JsonObject, bool, int, long, objArr, parseBody, reqStr, str, stringMap } from './body-util';
import { decodeFastjson, encodeFastjson } from './fastjson';

export interface ReplicaIdentity {
  brokerName: string;
  brokerId: number;
  brokerAddress: string;
  alive: boolean;
}

export interface ReplicasInfo {
  masterBrokerId: number | null;
  masterAddress: string | null;
  masterEpoch: number;
  syncStateSetEpoch: number;
  inSyncReplicas: ReplicaIdentity[];
  notInSyncReplicas: ReplicaIdentity[];
}

export interface BrokerReplicasInfo {
  replicasInfoTable: Map<string, ReplicasInfo>;
}

function replicaFromJson(o: JsonObject): ReplicaIdentity {
  return { brokerName: reqStr(o, 'brokerName'), brokerId: long(o, 'brokerId'), brokerAddress: reqStr(o, 'brokerAddress'), alive: bool(o, 'alive') };
}

function replicaToJson(r: ReplicaIdentity): JsonObject {
  return { alive: r.alive, brokerAddress: r.brokerAddress, brokerId: r.brokerId, brokerName: r.brokerName };
}

export function decodeBrokerReplicasInfo(buf: Buffer): BrokerReplicasInfo {
  const o = parseBody(buf, 'BrokerReplicasInfo');
  return {
    replicasInfoTable: stringMap(o, 'replicasInfoTable', (v) => {
      const r = v as JsonObject;
      const master = r.masterBrokerId === undefined || r.masterBrokerId === null ? null : long(r, 'masterBrokerId');
      return {
        masterBrokerId: master,
        masterAddress: str(r, 'masterAddress') ?? null,
        masterEpoch: int(r, 'masterEpoch'),
        syncStateSetEpoch: int(r, 'syncStateSetEpoch'),
        inSyncReplicas: objArr(r, 'inSyncReplicas', replicaFromJson),
        notInSyncReplicas: objArr(r, 'notInSyncReplicas', replicaFromJson),
      };
    }),
  };
}

export function encodeBrokerReplicasInfo(b: BrokerReplicasInfo): Buffer {
  const table = new Map<string, JsonObject>();
  for (const [name, r] of b.replicasInfoTable) {
    table.set(name, {
      inSyncReplicas: r.inSyncReplicas.map(replicaToJson),
      masterAddress: r.masterAddress,
      masterBrokerId: r.masterBrokerId,
      masterEpoch: r.masterEpoch,
      notInSyncReplicas: r.notInSyncReplicas.map(replicaToJson),
      syncStateSetEpoch: r.syncStateSetEpoch,
    });
  }
  return encodeFastjson({ replicasInfoTable: table });
}

/** The CONTROLLER_GET_SYNC_STATE_DATA request body: a JSON list of broker names. */
export function decodeBrokerNameList(buf: Buffer): string[] {
  const v = decodeFastjson(buf);
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new ProtocolError('broker name list: expected a JSON array of strings');
  return v as string[];
}

export function encodeBrokerNameList(names: readonly string[]): Buffer {
  return encodeFastjson([...names]);
}
