/**
 * HEART_BEAT (34) request body: the client's producer and consumer groups with their subscriptions.
 * Enums travel as names; Sets as arrays.
 *
 * @see org.apache.rocketmq.common.protocol.heartbeat.HeartbeatData
 * @see org.apache.rocketmq.common.protocol.heartbeat.ProducerData
 * @see org.apache.rocketmq.common.protocol.heartbeat.ConsumerData
 * @see org.apache.rocketmq.common.protocol.heartbeat.SubscriptionData
 */
import {
  type JsonObject, arr, asObject, bool, long, objArr, parseBody, reqStr, str, strArr,
} from './body-util';
import { encodeFastjson } from './fastjson';
import { ExpressionType } from './expression-type';
import { ProtocolError } from '../errors';

/** @see org.apache.rocketmq.common.protocol.heartbeat.ConsumeType */
export const ConsumeType = { CONSUME_ACTIVELY: 'CONSUME_ACTIVELY', CONSUME_PASSIVELY: 'CONSUME_PASSIVELY' } as const;
export type ConsumeType = (typeof ConsumeType)[keyof typeof ConsumeType];

/** @see org.apache.rocketmq.common.protocol.heartbeat.MessageModel */
export const MessageModel = { BROADCASTING: 'BROADCASTING', CLUSTERING: 'CLUSTERING' } as const;
export type MessageModel = (typeof MessageModel)[keyof typeof MessageModel];

/** @see org.apache.rocketmq.common.consumer.ConsumeFromWhere */
export const ConsumeFromWhere = {
  CONSUME_FROM_LAST_OFFSET: 'CONSUME_FROM_LAST_OFFSET',
  CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST: 'CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST',
  CONSUME_FROM_MIN_OFFSET: 'CONSUME_FROM_MIN_OFFSET',
  CONSUME_FROM_MAX_OFFSET: 'CONSUME_FROM_MAX_OFFSET',
  CONSUME_FROM_FIRST_OFFSET: 'CONSUME_FROM_FIRST_OFFSET',
  CONSUME_FROM_TIMESTAMP: 'CONSUME_FROM_TIMESTAMP',
} as const;
export type ConsumeFromWhere = (typeof ConsumeFromWhere)[keyof typeof ConsumeFromWhere];

/** Java's SubscriptionData.SUB_ALL. */
export const SUB_ALL = '*';

export interface SubscriptionData {
  classFilterMode: boolean;
  topic: string;
  subString: string;
  /** A Java Set<String>. */
  tagsSet: string[];
  /** A Java Set<Integer>: Java String.hashCode() of each tag. */
  codeSet: number[];
  subVersion: number;
  expressionType: string;
}

export interface ProducerData {
  groupName: string;
}

export interface ConsumerData {
  groupName: string;
  consumeType: ConsumeType;
  messageModel: MessageModel;
  consumeFromWhere: ConsumeFromWhere;
  subscriptionDataSet: SubscriptionData[];
  unitMode: boolean;
}

export interface HeartbeatData {
  clientID: string;
  producerDataSet: ProducerData[];
  consumerDataSet: ConsumerData[];
}

function enumOf<T extends string>(values: Record<string, T>, v: string | undefined, what: string): T {
  if (v === undefined) return undefined as unknown as T;
  if (!Object.prototype.hasOwnProperty.call(values, v)) throw new ProtocolError(`${what}: unknown value ${v}`);
  return v as T;
}

export function subscriptionDataFromJson(v: unknown): SubscriptionData {
  const o = asObject(v, 'SubscriptionData');
  return {
    classFilterMode: bool(o, 'classFilterMode'),
    topic: reqStr(o, 'topic'),
    subString: reqStr(o, 'subString'),
    tagsSet: strArr(o, 'tagsSet'),
    codeSet: arr(o, 'codeSet').map((x) => {
      if (typeof x !== 'number') throw new ProtocolError('codeSet: expected integers');
      return x;
    }),
    subVersion: long(o, 'subVersion'),
    expressionType: str(o, 'expressionType') ?? ExpressionType.TAG,
  };
}

export function subscriptionDataToJson(s: SubscriptionData): JsonObject {
  return {
    classFilterMode: s.classFilterMode,
    codeSet: s.codeSet,
    expressionType: s.expressionType,
    subString: s.subString,
    subVersion: s.subVersion,
    tagsSet: s.tagsSet,
    topic: s.topic,
  };
}

export function consumerDataFromJson(v: unknown): ConsumerData {
  const o = asObject(v, 'ConsumerData');
  return {
    groupName: reqStr(o, 'groupName'),
    consumeType: enumOf(ConsumeType, str(o, 'consumeType'), 'consumeType'),
    messageModel: enumOf(MessageModel, str(o, 'messageModel'), 'messageModel'),
    consumeFromWhere: enumOf(ConsumeFromWhere, str(o, 'consumeFromWhere'), 'consumeFromWhere'),
    subscriptionDataSet: objArr(o, 'subscriptionDataSet', subscriptionDataFromJson),
    unitMode: bool(o, 'unitMode'),
  };
}

export function consumerDataToJson(c: ConsumerData): JsonObject {
  return {
    consumeFromWhere: c.consumeFromWhere,
    consumeType: c.consumeType,
    groupName: c.groupName,
    messageModel: c.messageModel,
    subscriptionDataSet: c.subscriptionDataSet.map(subscriptionDataToJson),
    unitMode: c.unitMode,
  };
}

export function heartbeatDataFromJson(o: JsonObject): HeartbeatData {
  return {
    clientID: reqStr(o, 'clientID'),
    producerDataSet: objArr(o, 'producerDataSet', (p) => ({ groupName: reqStr(p, 'groupName') })),
    consumerDataSet: objArr(o, 'consumerDataSet', consumerDataFromJson),
  };
}

export function heartbeatDataToJson(h: HeartbeatData): JsonObject {
  return {
    clientID: h.clientID,
    consumerDataSet: h.consumerDataSet.map(consumerDataToJson),
    producerDataSet: h.producerDataSet.map((p) => ({ groupName: p.groupName })),
  };
}

export function decodeHeartbeatData(buf: Buffer): HeartbeatData {
  return heartbeatDataFromJson(parseBody(buf, 'HeartbeatData'));
}

export function encodeHeartbeatData(h: HeartbeatData): Buffer {
  return encodeFastjson(heartbeatDataToJson(h));
}
