/**
 * GET_CONSUMER_CONNECTION_LIST (203) and GET_PRODUCER_CONNECTION_LIST (204) response bodies.
 * `language` is the LanguageCode name (`"JAVA"`).
 *
 * @see org.apache.rocketmq.common.protocol.body.ConsumerConnection
 * @see org.apache.rocketmq.common.protocol.body.ProducerConnection
 * @see org.apache.rocketmq.common.protocol.body.Connection
 */
import { type JsonObject, asObject, int, objArr, parseBody, reqStr, str, stringMap, mapValues } from './body-util';
import { encodeFastjson } from './fastjson';
import {
  type ConsumeFromWhere, type ConsumeType, type MessageModel, type SubscriptionData,
  subscriptionDataFromJson, subscriptionDataToJson,
} from './heartbeat-data';

export interface Connection {
  clientId: string;
  clientAddr: string;
  language: string;
  version: number;
}

export interface ConsumerConnection {
  connectionSet: Connection[];
  /** topic to subscription. */
  subscriptionTable: Map<string, SubscriptionData>;
  consumeType?: ConsumeType;
  messageModel?: MessageModel;
  consumeFromWhere?: ConsumeFromWhere;
}

export interface ProducerConnection {
  connectionSet: Connection[];
}

function connectionFromJson(o: JsonObject): Connection {
  return {
    clientId: reqStr(o, 'clientId'),
    clientAddr: reqStr(o, 'clientAddr'),
    language: reqStr(o, 'language'),
    version: int(o, 'version'),
  };
}

function connectionToJson(c: Connection): JsonObject {
  return { clientAddr: c.clientAddr, clientId: c.clientId, language: c.language, version: c.version };
}

export function decodeConsumerConnection(buf: Buffer): ConsumerConnection {
  const o = parseBody(buf, 'ConsumerConnection');
  const c: ConsumerConnection = {
    connectionSet: objArr(o, 'connectionSet', connectionFromJson),
    subscriptionTable: stringMap(o, 'subscriptionTable', subscriptionDataFromJson),
  };
  const ct = str(o, 'consumeType');
  if (ct !== undefined) c.consumeType = ct as ConsumeType;
  const mm = str(o, 'messageModel');
  if (mm !== undefined) c.messageModel = mm as MessageModel;
  const cfw = str(o, 'consumeFromWhere');
  if (cfw !== undefined) c.consumeFromWhere = cfw as ConsumeFromWhere;
  return c;
}

export function encodeConsumerConnection(c: ConsumerConnection): Buffer {
  return encodeFastjson({
    connectionSet: c.connectionSet.map(connectionToJson),
    consumeFromWhere: c.consumeFromWhere,
    consumeType: c.consumeType,
    messageModel: c.messageModel,
    subscriptionTable: mapValues(c.subscriptionTable, subscriptionDataToJson),
  });
}

export function decodeProducerConnection(buf: Buffer): ProducerConnection {
  const o = parseBody(buf, 'ProducerConnection');
  return { connectionSet: objArr(o, 'connectionSet', (x) => connectionFromJson(asObject(x, 'Connection'))) };
}

export function encodeProducerConnection(p: ProducerConnection): Buffer {
  return encodeFastjson({ connectionSet: p.connectionSet.map(connectionToJson) });
}
