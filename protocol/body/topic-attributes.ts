/**
 * Topic attributes of 5.x (`updateTopic -a +message.type=FIFO`): the supported attributes with their values, the
 * "+key=value,-key" modification string of UPDATE_AND_CREATE_TOPIC's `attributes` header, and how a modification
 * alters a topic's current attributes (only additions when the topic is created; unchangeable attributes only
 * then). Failures are thrown with Java's messages (the broker answers them as SYSTEM_ERROR with the message).
 *
 * @see org.apache.rocketmq.common.TopicAttributes
 * @see org.apache.rocketmq.common.attribute.AttributeParser
 * @see org.apache.rocketmq.common.attribute.AttributeUtil
 */
import { ProtocolError } from '../errors';

interface Attribute {
  readonly name: string;
  readonly changeable: boolean;
  verify(value: string): void;
}

function enumAttribute(name: string, changeable: boolean, universe: readonly string[]): Attribute {
  return {
    name, changeable,
    verify(value: string) {
      if (!universe.includes(value)) throw new ProtocolError(`value is not in set: [${universe.join(', ')}]`);
    },
  };
}

function longRangeAttribute(name: string, changeable: boolean, min: bigint, max: bigint): Attribute {
  return {
    name, changeable,
    verify(value: string) {
      let l: bigint;
      try {
        if (!/^[+-]?\d+$/.test(value)) throw new Error(value);
        l = BigInt(value);
      } catch {
        throw new ProtocolError(`For input string: "${value}"`);
      }
      if (l < min || l > max) throw new ProtocolError(`value is not in range(${min}, ${max})`);
    },
  };
}

/** TopicMessageType's values. */
export const TOPIC_MESSAGE_TYPES = ['UNSPECIFIED', 'NORMAL', 'FIFO', 'DELAY', 'TRANSACTION', 'MIXED'] as const;

/** TopicAttributes.ALL. */
export const TOPIC_ATTRIBUTES: ReadonlyMap<string, Attribute> = new Map([
  enumAttribute('queue.type', false, ['BatchCQ', 'SimpleCQ']),
  enumAttribute('cleanup.policy', false, ['DELETE', 'COMPACTION']),
  enumAttribute('message.type', true, TOPIC_MESSAGE_TYPES),
  longRangeAttribute('reserve.time', true, -1n, 9223372036854775807n),
].map((a) => [a.name, a]));

/** AttributeParser.parseToMap: "+k1=v1,-k2" → {"+k1": "v1", "-k2": ""}. */
export function parseAttributes(modification: string | undefined | null): Map<string, string> {
  const attributes = new Map<string, string>();
  if (!modification) return attributes;
  for (const kv of modification.split(',')) {
    let key: string;
    let value: string;
    if (kv.includes('=')) {
      const splits = kv.split('=');
      key = splits[0];
      value = splits[1];
      if (!key.includes('+')) throw new ProtocolError(`add/alter attribute format is wrong: ${key}`);
    } else {
      key = kv;
      value = '';
      if (!key.includes('-')) throw new ProtocolError(`delete attribute format is wrong: ${key}`);
    }
    if (attributes.has(key)) throw new ProtocolError(`key duplication: ${key}`);
    attributes.set(key, value);
  }
  return attributes;
}

/** AttributeParser.parseToString: the modification string of a map of "+key" → value / "-key" → "". */
export function attributesToString(attributes: ReadonlyMap<string, string> | undefined): string {
  if (!attributes || attributes.size === 0) return '';
  return [...attributes].map(([k, v]) => (v ? `${k}=${v}` : k)).join(',');
}

function validateKey(kvAttribute: string): void {
  if (!kvAttribute || kvAttribute.includes('+') || kvAttribute.includes('-')) throw new ProtocolError('kv string format wrong.');
}

function validateAlter(alter: ReadonlyMap<string, string>, init: boolean, del: boolean): void {
  for (const [key, value] of alter) {
    const attribute = TOPIC_ATTRIBUTES.get(key);
    if (!attribute) throw new ProtocolError(`unsupported key: ${key}`);
    if (!init && !attribute.changeable) throw new ProtocolError(`attempt to update an unchangeable attribute. key: ${key}`);
    if (!del) attribute.verify(value);
  }
}

/** AttributeUtil.alterCurrentAttributes: the topic's attributes after a modification (keys without their sign). */
export function alterCurrentAttributes(create: boolean, current: ReadonlyMap<string, string>, modification: ReadonlyMap<string, string>): Map<string, string> {
  const init = new Map<string, string>();
  const add = new Map<string, string>();
  const update = new Map<string, string>();
  const del = new Map<string, string>();
  const keys = new Set<string>();
  for (const [key, value] of modification) {
    const realKey = key.substring(1);
    validateKey(realKey);
    if (keys.has(realKey)) throw new ProtocolError(`alter duplication key. key: ${realKey}`);
    keys.add(realKey);
    if (create) {
      if (!key.startsWith('+')) throw new ProtocolError(`only add attribute is supported while creating topic. key: ${realKey}`);
      init.set(realKey, value);
    } else if (key.startsWith('+')) {
      (current.has(realKey) ? update : add).set(realKey, value);
    } else if (key.startsWith('-')) {
      if (!current.has(realKey)) throw new ProtocolError(`attempt to delete a nonexistent key: ${realKey}`);
      del.set(realKey, value);
    } else {
      throw new ProtocolError(`wrong format key: ${realKey}`);
    }
  }
  validateAlter(init, true, false);
  validateAlter(add, false, false);
  validateAlter(update, false, false);
  validateAlter(del, false, true);
  const result = new Map(current);
  for (const m of [init, add, update]) for (const [k, v] of m) result.set(k, v);
  for (const k of del.keys()) result.delete(k);
  return result;
}
