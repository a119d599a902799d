/**
 * Small typed readers over parsed fastjson values, shared by the body codecs. Missing fields take the Java
 * field's default (as fastjson leaves them); a field of the wrong type is a ProtocolError.
 */
import { ProtocolError } from '../errors';
import type { MessageQueue } from '../message/message-queue';
import { FastjsonMap, decodeFastjson, parseFastjson } from './fastjson';

export type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof FastjsonMap);
}

export function asObject(v: unknown, what: string): JsonObject {
  if (!isObject(v)) throw new ProtocolError(`${what}: expected a JSON object`);
  return v;
}

/** Parses a body that must be one JSON object. */
export function parseBody(buf: Buffer, what: string): JsonObject {
  return asObject(decodeFastjson(buf), what);
}

export function str(o: JsonObject, k: string): string | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ProtocolError(`field ${k}: expected a string`);
  return v;
}

export function reqStr(o: JsonObject, k: string, def = ''): string {
  return str(o, k) ?? def;
}

function num(o: JsonObject, k: string, def: number, kind: string): number {
  const v = o[k];
  if (v === undefined || v === null) return def;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) {
    const n = Number(v);
    if (Number.isSafeInteger(n) || v.includes('.')) return n;
  }
  if (typeof v === 'bigint') throw new ProtocolError(`field ${k}: ${kind} ${v} is beyond 2^53`);
  throw new ProtocolError(`field ${k}: expected a number`);
}

export function int(o: JsonObject, k: string, def = 0): number {
  return num(o, k, def, 'int');
}

/** A Java long; a value beyond +-2^53 is refused rather than rounded. */
export function long(o: JsonObject, k: string, def = 0): number {
  return num(o, k, def, 'long');
}

export function double(o: JsonObject, k: string, def = 0): number {
  return num(o, k, def, 'double');
}

export function bool(o: JsonObject, k: string, def = false): boolean {
  const v = o[k];
  if (v === undefined || v === null) return def;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new ProtocolError(`field ${k}: expected a boolean`);
}

export function arr(o: JsonObject, k: string): unknown[] {
  const v = o[k];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ProtocolError(`field ${k}: expected an array`);
  return v;
}

export function strArr(o: JsonObject, k: string): string[] {
  return arr(o, k).map((x) => {
    if (typeof x !== 'string') throw new ProtocolError(`field ${k}: expected strings`);
    return x;
  });
}

export function objArr<T>(o: JsonObject, k: string, f: (x: JsonObject) => T): T[] {
  return arr(o, k).map((x) => f(asObject(x, k)));
}

/** The entries of a Java map, whether fastjson wrote string keys (plain object) or other keys (FastjsonMap). */
export function entries(o: JsonObject, k: string): Array<[unknown, unknown]> {
  const v = o[k];
  if (v === undefined || v === null) return [];
  if (v instanceof FastjsonMap) return v.entries;
  if (isObject(v)) return Object.entries(v);
  throw new ProtocolError(`field ${k}: expected a map`);
}

/** A Java Map<String, V> as a JS Map, in wire order. */
export function stringMap<V>(o: JsonObject, k: string, f: (v: unknown, key: string) => V): Map<string, V> {
  const m = new Map<string, V>();
  for (const [key, v] of entries(o, k)) {
    if (v === null) continue;
    m.set(String(key), f(v, String(key)));
  }
  return m;
}

/** A Java Map<Long|Integer, V>: keys arrive unquoted (`{0:..}`) or quoted (`{"0":..}`). */
export function numberMap<V>(o: JsonObject, k: string, f: (v: unknown) => V): Map<number, V> {
  const m = new Map<number, V>();
  for (const [key, v] of entries(o, k)) {
    const n = typeof key === 'number' ? key : typeof key === 'string' && /^-?\d+$/.test(key) ? Number(key) : NaN;
    if (!Number.isSafeInteger(n)) throw new ProtocolError(`field ${k}: bad numeric key ${String(key)}`);
    m.set(n, f(v));
  }
  return m;
}

export function asString(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new ProtocolError(`${what}: expected a string`);
  return v;
}

export function asLong(v: unknown, what: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  if (typeof v === 'bigint') throw new ProtocolError(`${what}: long ${v} is beyond 2^53`);
  throw new ProtocolError(`${what}: expected a number`);
}

/** A MessageQueue bean, as a map key (inline object) or a quoted JSON text key (BrowserCompatible). */
export function messageQueueOf(v: unknown, what = 'messageQueue'): MessageQueue {
  let o: unknown = v;
  if (typeof v === 'string') o = parseFastjson(v);
  const m = asObject(o, what);
  return { topic: reqStr(m, 'topic'), brokerName: reqStr(m, 'brokerName'), queueId: int(m, 'queueId') };
}

/** A MessageQueue in fastjson's bean form (fields sorted by the writer). */
export function messageQueueBean(mq: MessageQueue): JsonObject {
  return { brokerName: mq.brokerName, queueId: mq.queueId, topic: mq.topic };
}

/** Map<MessageQueue, V> entries. */
export function mqEntries<V>(o: JsonObject, k: string, f: (v: unknown) => V): Array<[MessageQueue, V]> {
  return entries(o, k).map(([key, v]) => [messageQueueOf(key, k), f(v)]);
}

/** Re-keys a Map for writing, keeping order. */
export function mapValues<K, V, W>(m: ReadonlyMap<K, V>, f: (v: V) => W): Map<K, W> {
  const out = new Map<K, W>();
  for (const [k, v] of m) out.set(k, f(v));
  return out;
}
