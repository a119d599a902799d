/**
 * Messages as the application sends them (`Message`) and as the broker stores and delivers them (`MessageExt`),
 * with Java's property accessors as plain functions over the `properties` map.
 *
 * @see org.apache.rocketmq.common.message.Message
 * @see org.apache.rocketmq.common.message.MessageExt
 * @see org.apache.rocketmq.common.message.MessageClientExt
 */
import { RocketMQError } from '../errors';
import { MessageConst, SYSTEM_PROPERTY_KEYS } from './message-const';
import type { MessageProperties } from './properties';
import type { SocketAddress } from './socket-address';

export interface Message {
  topic: string;
  /** Application flag, stored and delivered untouched. */
  flag: number;
  /** System properties (TAGS, KEYS, UNIQ_KEY, ...) and user properties in one map, as in Java. */
  properties: MessageProperties;
  body: Buffer;
  /** Set by the transaction producer (not on the wire). */
  transactionId?: string;
}

/** A stored or delivered message. Timestamps are epoch milliseconds; offsets fit in a JS number (< 2^53). */
export interface MessageExt extends Message {
  brokerName?: string;
  queueId: number;
  /** TOTALSIZE of the stored record. */
  storeSize: number;
  queueOffset: number;
  /** The stored sysFlag, unchanged even when the body was decompressed on decode (as 4.9.8's client). */
  sysFlag: number;
  bornTimestamp: number;
  bornHost: SocketAddress;
  storeTimestamp: number;
  storeHost: SocketAddress;
  /** UNIQ_KEY when present (what Java's consumer calls `getMsgId()`), else {@link offsetMsgId}. */
  msgId: string;
  /** The broker's id: store host + commit-log offset, upper-case hex. */
  offsetMsgId: string;
  commitLogOffset: number;
  bodyCRC: number;
  reconsumeTimes: number;
  preparedTransactionOffset: number;
}

export interface MessageInit {
  tags?: string;
  keys?: string | readonly string[];
  flag?: number;
  /** Default true; Java's constructor always writes WAIT. */
  waitStoreMsgOK?: boolean;
  properties?: MessageProperties;
}

/** Java's `new Message(topic, tags, keys, flag, body, waitStoreMsgOK)`. A string body is encoded as UTF-8. */
export function createMessage(topic: string, body: Buffer | string, init: MessageInit = {}): Message {
  const msg: Message = {
    topic,
    flag: init.flag ?? 0,
    properties: init.properties ? { ...init.properties } : {},
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
  };
  if (init.tags) setTags(msg, init.tags);
  if (init.keys && init.keys.length > 0) setKeys(msg, init.keys);
  setWaitStoreMsgOK(msg, init.waitStoreMsgOK ?? true);
  return msg;
}

export function getProperty(msg: Message, name: string): string | undefined {
  return msg.properties[name];
}

/** Sets a property without the system-name check (Java's package-private `putProperty`). */
export function putProperty(msg: Message, name: string, value: string): void {
  msg.properties[name] = value;
}

export function clearProperty(msg: Message, name: string): void {
  delete msg.properties[name];
}

/** Java's `putUserProperty`: refuses system property names and blank names or values. */
export function putUserProperty(msg: Message, name: string, value: string): void {
  if (SYSTEM_PROPERTY_KEYS.has(name)) {
    throw new RocketMQError(`The Property<${name}> is used by system, input another please`);
  }
  if (value == null || value.trim() === '' || name == null || name.trim() === '') {
    throw new RocketMQError('The name or value of property can not be null or blank string!');
  }
  msg.properties[name] = value;
}

export function getUserProperty(msg: Message, name: string): string | undefined {
  return msg.properties[name];
}

export function getTags(msg: Message): string | undefined {
  return msg.properties[MessageConst.PROPERTY_TAGS];
}

export function setTags(msg: Message, tags: string): void {
  msg.properties[MessageConst.PROPERTY_TAGS] = tags;
}

/** The KEYS property: keys separated by a space. */
export function getKeys(msg: Message): string | undefined {
  return msg.properties[MessageConst.PROPERTY_KEYS];
}

/** The individual keys (empty when none). */
export function getKeyList(msg: Message): string[] {
  const k = msg.properties[MessageConst.PROPERTY_KEYS];
  return k ? k.split(MessageConst.KEY_SEPARATOR).filter((s) => s.length > 0) : [];
}

export function setKeys(msg: Message, keys: string | readonly string[]): void {
  msg.properties[MessageConst.PROPERTY_KEYS] = typeof keys === 'string' ? keys : keys.join(MessageConst.KEY_SEPARATOR);
}

/** 0 when unset. */
export function getDelayTimeLevel(msg: Message): number {
  const t = msg.properties[MessageConst.PROPERTY_DELAY_TIME_LEVEL];
  return t === undefined ? 0 : parseInt(t, 10);
}

export function setDelayTimeLevel(msg: Message, level: number): void {
  msg.properties[MessageConst.PROPERTY_DELAY_TIME_LEVEL] = String(level);
}

function longProperty(msg: Message, name: string): number {
  const t = msg.properties[name];
  return t === undefined ? 0 : Number(t);
}

function setLongProperty(msg: Message, name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${name} must be an integer, got ${value}`);
  msg.properties[name] = String(value);
}

/** 5.x timer message: delivered at `timeMs` (epoch ms; TIMER_DELIVER_MS, Java's Message.setDeliverTimeMs). */
export function setDeliverTimeMs(msg: Message, timeMs: number): void {
  setLongProperty(msg, MessageConst.PROPERTY_TIMER_DELIVER_MS, timeMs);
}

/** 0 when unset. */
export function getDeliverTimeMs(msg: Message): number {
  return longProperty(msg, MessageConst.PROPERTY_TIMER_DELIVER_MS);
}

/** 5.x timer message: delivered `sec` seconds after the broker stored it (TIMER_DELAY_SEC, Java's setDelayTimeSec). */
export function setDelayTimeSec(msg: Message, sec: number): void {
  setLongProperty(msg, MessageConst.PROPERTY_TIMER_DELAY_SEC, sec);
}

/** 0 when unset. */
export function getDelayTimeSec(msg: Message): number {
  return longProperty(msg, MessageConst.PROPERTY_TIMER_DELAY_SEC);
}

/** 5.x timer message: delivered `ms` milliseconds after the broker stored it (TIMER_DELAY_MS, Java's setDelayTimeMs). */
export function setDelayTimeMs(msg: Message, ms: number): void {
  setLongProperty(msg, MessageConst.PROPERTY_TIMER_DELAY_MS, ms);
}

/** 0 when unset. */
export function getDelayTimeMs(msg: Message): number {
  return longProperty(msg, MessageConst.PROPERTY_TIMER_DELAY_MS);
}

/** True when unset; otherwise Java's `Boolean.parseBoolean` (case-insensitive "true"). */
export function isWaitStoreMsgOK(msg: Message): boolean {
  const r = msg.properties[MessageConst.PROPERTY_WAIT_STORE_MSG_OK];
  return r === undefined ? true : r.toLowerCase() === 'true';
}

export function setWaitStoreMsgOK(msg: Message, wait: boolean): void {
  msg.properties[MessageConst.PROPERTY_WAIT_STORE_MSG_OK] = wait ? 'true' : 'false';
}

export function setInstanceId(msg: Message, instanceId: string): void {
  msg.properties[MessageConst.PROPERTY_INSTANCE_ID] = instanceId;
}

export function getBuyerId(msg: Message): string | undefined {
  return msg.properties[MessageConst.PROPERTY_BUYER_ID];
}

export function setBuyerId(msg: Message, buyerId: string): void {
  msg.properties[MessageConst.PROPERTY_BUYER_ID] = buyerId;
}

/** The client unique id (UNIQ_KEY), if set. */
export function getUniqId(msg: Message): string | undefined {
  return msg.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX];
}

/** The user properties only (everything not in Java's STRING_HASH_SET). */
export function getUserProperties(msg: Message): MessageProperties {
  const out: MessageProperties = {};
  for (const k in msg.properties) if (!SYSTEM_PROPERTY_KEYS.has(k)) out[k] = msg.properties[k];
  return out;
}
