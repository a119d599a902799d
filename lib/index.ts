/**
 * rocketmq-ts: the client SDK entry point (clients, admin, messages, errors, types).
 * It never loads server code; the name server and broker live in `rocketmq-ts/server`.
 */
export * from './errors';
export { setRootLogger } from './logger';

// Messages
export {
  type Message, type MessageExt, type MessageInit, createMessage, getProperty, putUserProperty, getUserProperty, getTags, setTags,
  getKeys, setKeys, getDelayTimeLevel, setDelayTimeLevel, setDeliverTimeMs, getDeliverTimeMs, setDelayTimeSec, getDelayTimeSec,
  setDelayTimeMs, getDelayTimeMs, isWaitStoreMsgOK, setWaitStoreMsgOK, getUniqId, getUserProperties,
} from '../protocol/message/message';
export { type MessageQueue, messageQueueKey } from '../protocol/message/message-queue';
export { MessageConst } from '../protocol/message/message-const';
export { decodeBatchBody } from '../protocol/message/batch';

// Client core
export { ClientConfig, type ClientConfigOptions, DEFAULT_CLIENT_CONFIG } from './client/client-config';
export { MQClientManager } from './client/mq-client-manager';
export { AclClientRPCHook, type SessionCredentials } from './client/acl/acl-client-rpc-hook';
export {
  DEFAULT_TLS_SYSTEM_CONFIG, TlsMode, type TlsSystemConfig, buildClientTlsOptions, tlsConfigFromProperties,
} from './transport/tls-system-config';
export { MQClientInstance, type MQClientInstanceOptions } from './client/mq-client-instance';
export { MQClientAPI } from './client/mq-client-api';
export { createReplyMessage, getReplyToClient } from './client/message-util';
export { AsyncTraceDispatcher } from './client/trace/async-trace-dispatcher';
export {
  TraceConstants, TraceType, TraceMessageType, decodeTraceData, encodeTraceContext, type TraceBean, type TraceContext, type TraceTransferBean,
} from '../protocol/trace/trace-data-encoder';
export { type SendResult, SendStatus, CommunicationMode, ClientErrorCode } from './client/send-result';
export type { ClientEvents, ProducerEvents } from './client/events';
export type { MQProducerInner, MQConsumerInner } from './client/inner';
export { PullStatus, type PullResultRaw } from './client/mq-client-api-consumer';
export { PopStatus, type PopResult, AckStatus, type AckResult } from './client/mq-client-api-pop';
export { ConsumeInitMode } from '../protocol/header/pop-message-request-header';
export { TopAddressing, getWSAddr } from './client/top-addressing';

// Producer
export {
  DefaultMQProducer, type DefaultMQProducerOptions, type ProducerOptions, DEFAULT_PRODUCER_OPTIONS, type SendCallback, type RequestCallback,
  DEFAULT_RETRY_RESPONSE_CODES,
} from './producer/default-mq-producer';
export { splitBatch, checkBatch, DEFAULT_BATCH_SIZE_LIMIT } from './producer/message-batch';
export {
  type MessageQueueSelector, SelectMessageQueueByHash, SelectMessageQueueByRandom, SelectMessageQueueByMachineRoom,
} from './producer/selector';
export type { InstrumentationEvent } from './instrumentation/emitter';

// Transactional messages (TransactionMQProducer, listener states, results)
export {
  TransactionMQProducer, type TransactionMQProducerOptions, type TransactionProducerOptions, DEFAULT_TRANSACTION_PRODUCER_OPTIONS,
  LocalTransactionState, type TransactionListener, type TransactionSendResult,
} from './producer/transaction-mq-producer';

// ---- admin (lib/admin) ----
export {
  DefaultMQAdminExt, DEFAULT_MQ_ADMIN_EXT_OPTIONS, type DefaultMQAdminExtOptions, type DefaultMQAdminExtExtras, type QueryResult,
} from './admin/default-mq-admin-ext';

// ---- consumer (lib/consumer): DefaultMQPushConsumer, DefaultLitePullConsumer, listeners, offset stores ----
export * from './consumer';
export { MessageModel, ConsumeFromWhere } from '../protocol/body/heartbeat-data';
// ---- end consumer ----

// Namespaces (`namespace` option of every client: `ns%topic`, `%RETRY%ns%group`) and body compression types
export { NamespaceUtil, withoutNamespace } from './client/namespace';
export {
  CompressionType, type CompressionTypeName, COMPRESSION_CODEC_PACKAGES, isCompressionAvailable,
} from '../protocol/message/compression';
