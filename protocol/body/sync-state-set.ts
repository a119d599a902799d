/**
 * SyncStateSet: the broker ids of a broker set that are in sync with its master, and the epoch of that set.
 * The body of CONTROLLER_ALTER_SYNC_STATE_SET (both ways), CONTROLLER_REGISTER_BROKER and CONTROLLER_GET_REPLICA_INFO
 * answers, and NOTIFY_BROKER_ROLE_CHANGED: `{"syncStateSet":[1,2],"syncStateSetEpoch":3}`.
 *
 * The ids are a Java `HashSet<Long>`; small longs iterate in ascending order there, so we write them sorted.
 *
 * @see org.apache.rocketmq.remoting.protocol.body.SyncStateSet
 */
import { ProtocolError } from '../errors';
import { type JsonObject, arr, asLong, int, parseBody } from './body-util';
import { encodeFastjson } from './fastjson';

export interface SyncStateSet {
  syncStateSet: number[];
  syncStateSetEpoch: number;
}

/** A Java Set<Long> field as sorted, distinct numbers. */
export function longSetOf(o: JsonObject, k: string): number[] {
  const ids = arr(o, k).map((v) => asLong(v, k));
  return sortedIds(ids);
}

/** Distinct ids in ascending order (a Java HashSet<Long> of small ids iterates so). */
export function sortedIds(ids: Iterable<number>): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

export function syncStateSetFromJson(o: JsonObject): SyncStateSet {
  return { syncStateSet: longSetOf(o, 'syncStateSet'), syncStateSetEpoch: int(o, 'syncStateSetEpoch') };
}

export function syncStateSetToJson(s: SyncStateSet): JsonObject {
  return { syncStateSet: sortedIds(s.syncStateSet), syncStateSetEpoch: s.syncStateSetEpoch };
}

export function decodeSyncStateSet(buf: Buffer | null): SyncStateSet {
  if (!buf || buf.length === 0) throw new ProtocolError('SyncStateSet: empty body');
  return syncStateSetFromJson(parseBody(buf, 'SyncStateSet'));
}

export function encodeSyncStateSet(s: SyncStateSet): Buffer {
  return encodeFastjson(syncStateSetToJson(s));
}
