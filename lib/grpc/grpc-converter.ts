/**
 * Messages between the two protocols. In: a gRPC Message becomes the remoting message's properties and sysFlag
 * (the 5.x message id as UNIQ_KEY, tag, keys, delivery time as TIMER_DELIVER_MS, message group as __SHARDINGKEY,
 * the producer group = the topic, born host and time), with the checks of Java's SendMessageActivity. Out: a
 * stored message becomes a gRPC Message with its system properties (message type from its properties, MD5 digest,
 * receipt handle from POP_CK, delivery attempt = reconsume times + 1) and the rest as user properties.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.producer.SendMessageActivity
 * @see org.apache.rocketmq.proxy.grpc.v2.common.GrpcConverter
 */
import crypto from 'node:crypto';
import { MessageConst, SYSTEM_PROPERTY_KEYS } from '../../protocol/message/message-const';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import type { MessageExt } from '../../protocol/message/message';
import type { MessageProperties } from '../../protocol/message/properties';
import { socketAddressToString } from '../../protocol/message/socket-address';
import { GrpcProxyError } from '../errors';
import type { GrpcProxyConfig } from './grpc-proxy-config';
import { type PbMessage, type PbMessageQueue, type PbResource, type PbSystemProperties, pbFromMillis, pbToMillis } from './pb';

/** CharMatcher.javaIsoControl: U+0000–U+001F and U+007F–U+009F. */
export function containControlCharacter(data: string): boolean {
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

function isBlank(s: string): boolean {
  return s.trim().length === 0;
}

/** GrpcValidator.validateTag. */
export function validateTag(tag: string): void {
  if (!tag) return;
  if (isBlank(tag)) throw new GrpcProxyError('ILLEGAL_MESSAGE_TAG', 'tag cannot be the char sequence of whitespace');
  if (tag.includes('|')) throw new GrpcProxyError('ILLEGAL_MESSAGE_TAG', "tag cannot contain '|'");
  if (containControlCharacter(tag)) throw new GrpcProxyError('ILLEGAL_MESSAGE_TAG', 'tag cannot contain control character');
}

const utf8Length = (s: string) => Buffer.byteLength(s, 'utf8');

/** The sysFlag of a message to store: COMPRESSED_FLAG for a GZIP body, TRANSACTION_PREPARED_TYPE for a transactional one. */
export function buildSysFlag(m: PbMessage): number {
  let sysFlag = 0;
  if (m.systemProperties?.bodyEncoding === 'GZIP') sysFlag |= MessageSysFlag.COMPRESSED_FLAG;
  if (m.systemProperties?.messageType === 'TRANSACTION') sysFlag |= MessageSysFlag.TRANSACTION_PREPARED_TYPE;
  return sysFlag;
}

/** SendMessageActivity.validateMessageBodySize. */
export function validateMessageBodySize(body: Buffer, config: GrpcProxyConfig): void {
  if (config.enableMessageBodyEmptyCheck && body.length === 0) throw new GrpcProxyError('MESSAGE_BODY_EMPTY', 'message body cannot be empty');
  if (config.maxMessageSize > 0 && body.length > config.maxMessageSize) {
    throw new GrpcProxyError('MESSAGE_BODY_TOO_LARGE', `message body cannot exceed the max ${config.maxMessageSize}`);
  }
}

/**
 * SendMessageActivity.buildMessageProperty: the remoting properties of a gRPC message. `producerGroup` is the topic
 * (Java 5.x's transaction check finds the producer by it); `remoteAddress` is the born host when the client gave none.
 */
export function buildMessageProperties(m: PbMessage, producerGroup: string, remoteAddress: string, config: GrpcProxyConfig,
  now = Date.now()): MessageProperties {
  const sp = m.systemProperties;
  if (!sp) throw new GrpcProxyError('MESSAGE_CORRUPTED', 'message has no system properties');
  const props: Record<string, string> = {};
  let userPropertySize = 0;
  const user = m.userProperties ?? {};
  const userKeys = Object.keys(user);
  if (userKeys.length > config.userPropertyMaxNum) {
    throw new GrpcProxyError('MESSAGE_PROPERTIES_TOO_LARGE', `too many user properties, max is ${config.userPropertyMaxNum}`);
  }
  for (const key of userKeys) {
    const value = user[key];
    if (SYSTEM_PROPERTY_KEYS.has(key)) throw new GrpcProxyError('ILLEGAL_MESSAGE_PROPERTY_KEY', `property is used by system: ${key}`);
    if (containControlCharacter(key)) throw new GrpcProxyError('ILLEGAL_MESSAGE_PROPERTY_KEY', 'the key of property cannot contain control character');
    if (containControlCharacter(value)) throw new GrpcProxyError('ILLEGAL_MESSAGE_PROPERTY_KEY', 'the value of property cannot contain control character');
    userPropertySize += utf8Length(key) + utf8Length(value);
    props[key] = value;
  }
  const tag = sp.tag ?? '';
  validateTag(tag);
  // Message.setTags: a null tag sets nothing; an empty one is stored as is (Java puts "" too).
  if (sp._tag !== undefined || tag) props[MessageConst.PROPERTY_TAGS] = tag;
  userPropertySize += utf8Length(tag);
  for (const key of sp.keys ?? []) {
    if (key && isBlank(key)) throw new GrpcProxyError('ILLEGAL_MESSAGE_KEY', 'key cannot be the char sequence of whitespace');
    if (key && containControlCharacter(key)) throw new GrpcProxyError('ILLEGAL_MESSAGE_KEY', 'key cannot contain control character');
    userPropertySize += utf8Length(key);
  }
  if ((sp.keys ?? []).length > 0) props[MessageConst.PROPERTY_KEYS] = sp.keys.join(MessageConst.KEY_SEPARATOR);
  if (userPropertySize > config.maxUserPropertySize) {
    throw new GrpcProxyError('MESSAGE_PROPERTIES_TOO_LARGE', `the total size of user property is too large, max is ${config.maxUserPropertySize}`);
  }
  if (!sp.messageId || isBlank(sp.messageId)) throw new GrpcProxyError('ILLEGAL_MESSAGE_ID', 'message id cannot be empty');
  props[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX] = sp.messageId;
  if (sp.messageType === 'TRANSACTION') {
    props[MessageConst.PROPERTY_TRANSACTION_PREPARED] = 'true';
    if (sp.orphanedTransactionRecoveryDuration) {
      props[MessageConst.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS] = String(Number(sp.orphanedTransactionRecoveryDuration.seconds));
    }
  }
  if (sp.deliveryTimestamp) {
    const deliveryTimestampMs = pbToMillis(sp.deliveryTimestamp);
    if (config.maxDelayTimeMills > 0 && deliveryTimestampMs - now > config.maxDelayTimeMills) {
      throw new GrpcProxyError('ILLEGAL_DELIVERY_TIME', `the max delay time of message is too large, max is ${config.maxDelayTimeMills}`);
    }
    props[MessageConst.PROPERTY_TIMER_DELIVER_MS] = String(deliveryTimestampMs);
  }
  props[MessageConst.PROPERTY_RECONSUME_TIME] = String(sp.deliveryAttempt ?? 0);
  props[MessageConst.PROPERTY_PRODUCER_GROUP] = producerGroup;
  const messageGroup = sp.messageGroup ?? '';
  if (messageGroup) {
    if (isBlank(messageGroup)) throw new GrpcProxyError('ILLEGAL_MESSAGE_GROUP', 'message group cannot be the char sequence of whitespace');
    if (config.maxMessageGroupSize > 0 && utf8Length(messageGroup) >= config.maxMessageGroupSize) {
      throw new GrpcProxyError('ILLEGAL_MESSAGE_GROUP', `message group exceed the max size ${config.maxMessageGroupSize}`);
    }
    if (containControlCharacter(messageGroup)) throw new GrpcProxyError('ILLEGAL_MESSAGE_GROUP', 'message group cannot contain control character');
    props[MessageConst.PROPERTY_SHARDING_KEY] = messageGroup;
  }
  if (sp.traceContext) props[MessageConst.PROPERTY_TRACE_CONTEXT] = sp.traceContext;
  const bornHost = sp.bornHost && !isBlank(sp.bornHost) ? sp.bornHost : remoteAddress;
  if (bornHost && !isBlank(bornHost)) props[MessageConst.PROPERTY_BORN_HOST] = bornHost;
  if (sp.bornTimestamp) props[MessageConst.PROPERTY_BORN_TIMESTAMP] = String(pbToMillis(sp.bornTimestamp));
  return props;
}

/** A resource name and its namespace (`ns%name` → ns, name), as NamespaceUtil. */
export function buildResource(nameWithNamespace: string): PbResource {
  const i = nameWithNamespace.startsWith('%RETRY%') || nameWithNamespace.startsWith('%DLQ%') ? -1 : nameWithNamespace.indexOf('%');
  if (i > 0) return { resourceNamespace: nameWithNamespace.slice(0, i), name: nameWithNamespace.slice(i + 1) };
  return { resourceNamespace: '', name: nameWithNamespace };
}

/** GrpcConverter.buildMessageQueue. */
export function buildMessageQueueOf(m: MessageExt, brokerName: string): PbMessageQueue {
  return {
    id: m.queueId,
    topic: buildResource(m.topic),
    broker: { name: brokerName, id: 0, endpoints: null },
    permission: 'PERMISSION_UNSPECIFIED',
    acceptMessageTypes: [],
  };
}

/** The message type Java's proxy answers for stored properties. */
export function messageTypeOf(props: MessageProperties): string {
  if (props[MessageConst.PROPERTY_TRANSACTION_PREPARED] === 'true') return 'TRANSACTION';
  if (props[MessageConst.PROPERTY_DELAY_TIME_LEVEL] !== undefined || props[MessageConst.PROPERTY_TIMER_DELIVER_MS] !== undefined
    || props[MessageConst.PROPERTY_TIMER_DELAY_SEC] !== undefined) return 'DELAY';
  if (props[MessageConst.PROPERTY_SHARDING_KEY] !== undefined) return 'FIFO';
  return 'NORMAL';
}

/**
 * GrpcConverter.buildMessage: a message as a gRPC client receives it. `m.body` must be the body as the client is to
 * read it; `compressed` says whether it still is compressed (then GZIP, as Java answers a COMPRESSED_FLAG message).
 */
export function buildMessage(m: MessageExt, compressed: boolean, now = Date.now()): PbMessage {
  const props = m.properties;
  const userProperties: Record<string, string> = {};
  for (const [k, v] of Object.entries(props)) if (!SYSTEM_PROPERTY_KEYS.has(k)) userProperties[k] = v;
  const sp: Partial<PbSystemProperties> = {};
  const tag = props[MessageConst.PROPERTY_TAGS];
  if (tag !== undefined) sp.tag = tag;
  const keys = props[MessageConst.PROPERTY_KEYS];
  sp.keys = keys !== undefined ? keys.split(MessageConst.KEY_SEPARATOR) : [];
  sp.messageId = props[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX] ?? m.msgId;
  sp.bodyDigest = { type: 'MD5', checksum: crypto.createHash('md5').update(m.body).digest('hex').toUpperCase() };
  sp.bodyEncoding = compressed ? 'GZIP' : 'IDENTITY';
  sp.messageType = messageTypeOf(props);
  sp.bornTimestamp = pbFromMillis(m.bornTimestamp);
  const bornHost = props[MessageConst.PROPERTY_BORN_HOST];
  sp.bornHost = bornHost && !isBlank(bornHost) ? bornHost : m.bornHost.address;
  sp.storeTimestamp = pbFromMillis(m.storeTimestamp);
  sp.storeHost = socketAddressToString(m.storeHost);
  const delaySec = props[MessageConst.PROPERTY_TIMER_DELAY_SEC];
  const deliverMs = props[MessageConst.PROPERTY_TIMER_DELIVER_MS];
  if (delaySec !== undefined) sp.deliveryTimestamp = pbFromMillis(now + Number(delaySec) * 1000);
  else if (deliverMs !== undefined) sp.deliveryTimestamp = pbFromMillis(Number(deliverMs));
  const shardingKey = props[MessageConst.PROPERTY_SHARDING_KEY];
  if (shardingKey !== undefined) sp.messageGroup = shardingKey;
  const handle = props[MessageConst.PROPERTY_POP_CK];
  if (handle !== undefined) sp.receiptHandle = handle;
  sp.queueId = m.queueId;
  sp.queueOffset = m.queueOffset;
  sp.deliveryAttempt = m.reconsumeTimes + 1;
  const traceContext = props[MessageConst.PROPERTY_TRACE_CONTEXT];
  if (traceContext !== undefined) sp.traceContext = traceContext;
  const dlqTopic = props[MessageConst.PROPERTY_DLQ_ORIGIN_TOPIC];
  const dlqMsgId = props[MessageConst.PROPERTY_DLQ_ORIGIN_MESSAGE_ID];
  if (dlqTopic !== undefined && dlqMsgId !== undefined) sp.deadLetterQueue = { topic: dlqTopic, messageId: dlqMsgId };
  return { topic: buildResource(m.topic), userProperties, systemProperties: sp as PbSystemProperties, body: m.body };
}
