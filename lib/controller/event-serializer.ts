/**
 * The controller's state changes as they lie in its DLedger log, in Java's form: a 2-byte big-endian event type
 * and the event as fastjson writes it (FastJsonSerializer: bean fields in alphabetical order, nulls left out,
 * the `eventType` getter as the enum's name, SerializerFeature.BrowserSecure escaping `<`, `>`, `(`, `)`):
 *
 *   0x0001 {"brokerName":"b","eventType":"ALTER_SYNC_STATE_SET_EVENT","newSyncStateSet":[1,2]}
 *   0x0002 {"brokerAddress":"..","brokerName":"b","clusterName":"c","eventType":"APPLY_BROKER_ID_EVENT","newBrokerId":1,"registerCheckCode":"..;ms"}
 *   0x0003 {"brokerName":"b","eventType":"ELECT_MASTER_EVENT","newMasterBrokerId":2,"newMasterElected":true}
 *   0x0005 {"brokerIdSetToClean":[3],"brokerName":"b","eventType":"CLEAN_BROKER_DATA_EVENT"}
 *   0x0006 {"brokerAddress":"..","brokerId":1,"brokerName":"b","clusterName":"c","eventType":"UPDATE_BROKER_ADDRESS"}
 *
 * (checked against Java 5.3.3's EventSerializer). An entry with an empty body is the no-op a new leader
 * commits first; type 4 (READ_EVENT) and unknown types are skipped, as Java skips them.
 *
 * @see org.apache.rocketmq.controller.impl.event.EventSerializer
 * @see org.apache.rocketmq.controller.impl.event.EventType
 */
import { ProtocolError } from '../errors';
import { type JsonObject, asObject, bool, long, reqStr } from '../../protocol/body/body-util';
import { decodeFastjson, toFastjson } from '../../protocol/body/fastjson';
import { longSetOf, sortedIds } from '../../protocol/body/sync-state-set';

export const EventType = {
  ALTER_SYNC_STATE_SET_EVENT: 1,
  APPLY_BROKER_ID_EVENT: 2,
  ELECT_MASTER_EVENT: 3,
  READ_EVENT: 4,
  CLEAN_BROKER_DATA_EVENT: 5,
  UPDATE_BROKER_ADDRESS: 6,
} as const;
export type EventTypeName = keyof typeof EventType;

export interface AlterSyncStateSetEvent {
  eventType: 'ALTER_SYNC_STATE_SET_EVENT';
  brokerName: string;
  newSyncStateSet: number[];
}

export interface ApplyBrokerIdEvent {
  eventType: 'APPLY_BROKER_ID_EVENT';
  clusterName: string;
  brokerName: string;
  brokerAddress: string;
  registerCheckCode: string;
  newBrokerId: number;
}

export interface ElectMasterEvent {
  eventType: 'ELECT_MASTER_EVENT';
  /** False: the master went away and no replica could take over (the master is cleared). */
  newMasterElected: boolean;
  brokerName: string;
  newMasterBrokerId: number | null;
}

export interface CleanBrokerDataEvent {
  eventType: 'CLEAN_BROKER_DATA_EVENT';
  brokerName: string;
  /** Null or empty: the whole broker set. */
  brokerIdSetToClean: number[] | null;
}

export interface UpdateBrokerAddressEvent {
  eventType: 'UPDATE_BROKER_ADDRESS';
  clusterName: string;
  brokerName: string;
  brokerAddress: string;
  brokerId: number;
}

export type EventMessage = AlterSyncStateSetEvent | ApplyBrokerIdEvent | ElectMasterEvent | CleanBrokerDataEvent | UpdateBrokerAddressEvent;

/** SerializerFeature.BrowserSecure: these four only ever occur inside strings of a JSON text. */
function browserSecure(json: string): string {
  return json.replace(/[<>()]/g, (c) => '\\u00' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
}

/** The bean fastjson writes for an event (keys in any order: the writer sorts bean fields). */
function toBean(e: EventMessage): JsonObject {
  switch (e.eventType) {
    case 'ALTER_SYNC_STATE_SET_EVENT':
      return { brokerName: e.brokerName, eventType: e.eventType, newSyncStateSet: sortedIds(e.newSyncStateSet) };
    case 'APPLY_BROKER_ID_EVENT':
      return {
        brokerAddress: e.brokerAddress, brokerName: e.brokerName, clusterName: e.clusterName, eventType: e.eventType,
        newBrokerId: e.newBrokerId, registerCheckCode: e.registerCheckCode,
      };
    case 'ELECT_MASTER_EVENT':
      return { brokerName: e.brokerName, eventType: e.eventType, newMasterBrokerId: e.newMasterBrokerId, newMasterElected: e.newMasterElected };
    case 'CLEAN_BROKER_DATA_EVENT':
      return { brokerIdSetToClean: e.brokerIdSetToClean ? sortedIds(e.brokerIdSetToClean) : null, brokerName: e.brokerName, eventType: e.eventType };
    case 'UPDATE_BROKER_ADDRESS':
      return { brokerAddress: e.brokerAddress, brokerId: e.brokerId, brokerName: e.brokerName, clusterName: e.clusterName, eventType: e.eventType };
  }
}

/** An event as a DLedger entry body: type (int16 BE) + fastjson. */
export function serializeEvent(e: EventMessage): Buffer {
  const json = Buffer.from(browserSecure(toFastjson(toBean(e))), 'utf8');
  const out = Buffer.allocUnsafe(2 + json.length);
  out.writeInt16BE(EventType[e.eventType], 0);
  json.copy(out, 2);
  return out;
}

function optLong(o: JsonObject, k: string): number | null {
  return o[k] === undefined || o[k] === null ? null : long(o, k);
}

/** An entry body back to its event; null for an empty body, READ_EVENT, or a type this version does not know. */
export function deserializeEvent(body: Buffer): EventMessage | null {
  if (body.length < 2) return null;
  const type = body.readInt16BE(0);
  if (type <= 0) return null;
  let o: JsonObject;
  const parse = () => asObject(decodeFastjson(body.subarray(2)), 'controller event');
  switch (type) {
    case EventType.ALTER_SYNC_STATE_SET_EVENT:
      o = parse();
      return { eventType: 'ALTER_SYNC_STATE_SET_EVENT', brokerName: reqStr(o, 'brokerName'), newSyncStateSet: longSetOf(o, 'newSyncStateSet') };
    case EventType.APPLY_BROKER_ID_EVENT:
      o = parse();
      return {
        eventType: 'APPLY_BROKER_ID_EVENT', clusterName: reqStr(o, 'clusterName'), brokerName: reqStr(o, 'brokerName'),
        brokerAddress: reqStr(o, 'brokerAddress'), registerCheckCode: reqStr(o, 'registerCheckCode'), newBrokerId: long(o, 'newBrokerId'),
      };
    case EventType.ELECT_MASTER_EVENT:
      o = parse();
      return { eventType: 'ELECT_MASTER_EVENT', brokerName: reqStr(o, 'brokerName'), newMasterElected: bool(o, 'newMasterElected'), newMasterBrokerId: optLong(o, 'newMasterBrokerId') };
    case EventType.CLEAN_BROKER_DATA_EVENT:
      o = parse();
      return { eventType: 'CLEAN_BROKER_DATA_EVENT', brokerName: reqStr(o, 'brokerName'), brokerIdSetToClean: o.brokerIdSetToClean == null ? null : longSetOf(o, 'brokerIdSetToClean') };
    case EventType.UPDATE_BROKER_ADDRESS:
      o = parse();
      return { eventType: 'UPDATE_BROKER_ADDRESS', clusterName: reqStr(o, 'clusterName'), brokerName: reqStr(o, 'brokerName'), brokerAddress: reqStr(o, 'brokerAddress'), brokerId: long(o, 'brokerId') };
    case EventType.READ_EVENT:
      return null;
    default:
      if (type > 6) return null;
      throw new ProtocolError(`controller event: bad type ${type}`);
  }
}
