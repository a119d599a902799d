/**
 * A version stamp of a broker's tables: `{"counter":N,"timestamp":ms}` (5.x adds `stateVersion`).
 *
 * @see org.apache.rocketmq.common.DataVersion
 */
import { type JsonObject, asObject, long, parseBody } from './body-util';
import { encodeFastjson } from './fastjson';

export interface DataVersion {
  timestamp: number;
  counter: number;
  /** 5.x only; omitted when undefined. */
  stateVersion?: number;
}

export function newDataVersion(now = Date.now()): DataVersion {
  return { timestamp: now, counter: 0 };
}

/** Java's nextVersion(): counter + 1 and a new timestamp. */
export function nextVersion(v: DataVersion, now = Date.now()): DataVersion {
  return { ...v, timestamp: now, counter: v.counter + 1 };
}

export function dataVersionEquals(a: DataVersion, b: DataVersion): boolean {
  return a.timestamp === b.timestamp && a.counter === b.counter && (a.stateVersion ?? 0) === (b.stateVersion ?? 0);
}

export function dataVersionFromJson(v: unknown): DataVersion {
  const o = asObject(v, 'DataVersion');
  const out: DataVersion = { timestamp: long(o, 'timestamp'), counter: long(o, 'counter') };
  if (o.stateVersion !== undefined) out.stateVersion = long(o, 'stateVersion');
  return out;
}

export function dataVersionToJson(v: DataVersion): JsonObject {
  return { counter: v.counter, stateVersion: v.stateVersion, timestamp: v.timestamp };
}

export function decodeDataVersion(buf: Buffer): DataVersion {
  return dataVersionFromJson(parseBody(buf, 'DataVersion'));
}

export function encodeDataVersion(v: DataVersion): Buffer {
  return encodeFastjson(dataVersionToJson(v));
}
