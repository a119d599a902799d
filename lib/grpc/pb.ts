/**
 * The apache.rocketmq.v2 messages as @grpc/proto-loader gives and takes them (lib/grpc/grpc-loader.ts options:
 * camelCase fields, enums by name, int64 as numbers, bytes as Buffers, defaults filled, a oneof's case named by
 * its oneof field). Only the fields the endpoint reads or writes; protocol/grpc/apache/rocketmq/v2/*.proto is the
 * definition.
 */

export interface PbDuration { seconds: number; nanos: number }
export interface PbTimestamp { seconds: number; nanos: number }
export interface PbResource { resourceNamespace?: string; name: string }
export interface PbAddress { host: string; port: number }
export interface PbEndpoints { scheme: string; addresses: PbAddress[] }
export interface PbStatus { code: string; message: string }
export interface PbBroker { name: string; id: number; endpoints?: PbEndpoints | null }
export interface PbMessageQueue {
  topic: PbResource | null;
  id: number;
  permission: string;
  broker: PbBroker | null;
  acceptMessageTypes?: string[];
}
export interface PbFilterExpression { type: string; expression: string }
export interface PbSubscriptionEntry { topic: PbResource | null; expression: PbFilterExpression | null }
export interface PbExponentialBackoff { initial: PbDuration; max: PbDuration; multiplier: number }
export interface PbRetryPolicy {
  maxAttempts: number;
  exponentialBackoff?: PbExponentialBackoff | null;
  customizedBackoff?: { next: PbDuration[] } | null;
  strategy?: string;
}
export interface PbPublishing { topics: PbResource[]; maxBodySize: number; validateMessageType: boolean }
export interface PbSubscription {
  group?: PbResource | null;
  subscriptions: PbSubscriptionEntry[];
  fifo?: boolean;
  receiveBatchSize?: number;
  longPollingTimeout?: PbDuration | null;
}
export interface PbSettings {
  clientType?: string;
  accessPoint?: PbEndpoints | null;
  backoffPolicy?: PbRetryPolicy | null;
  requestTimeout?: PbDuration | null;
  publishing?: PbPublishing | null;
  subscription?: PbSubscription | null;
  pubSub?: 'publishing' | 'subscription';
  userAgent?: { language: string; version: string; platform: string; hostname: string } | null;
  metric?: { on: boolean; endpoints?: PbEndpoints | null } | null;
}
export interface PbSystemProperties {
  tag?: string;
  keys: string[];
  messageId: string;
  bodyDigest?: { type: string; checksum: string } | null;
  bodyEncoding: string;
  messageType: string;
  bornTimestamp: PbTimestamp | null;
  bornHost: string;
  storeTimestamp?: PbTimestamp | null;
  storeHost: string;
  deliveryTimestamp?: PbTimestamp | null;
  receiptHandle?: string;
  queueId: number;
  queueOffset?: number;
  invisibleDuration?: PbDuration | null;
  deliveryAttempt?: number;
  messageGroup?: string;
  traceContext?: string;
  orphanedTransactionRecoveryDuration?: PbDuration | null;
  deadLetterQueue?: { topic: string; messageId: string } | null;
  /** Set when the proto3 `optional` field of that name was on the wire (proto-loader's synthetic oneofs). */
  _tag?: string;
  _deliveryTimestamp?: string;
  _deliveryAttempt?: string;
  _messageGroup?: string;
  _traceContext?: string;
  _orphanedTransactionRecoveryDuration?: string;
}
export interface PbMessage {
  topic: PbResource | null;
  userProperties: Record<string, string>;
  systemProperties: PbSystemProperties | null;
  body: Buffer;
}

export interface QueryRouteRequest { topic: PbResource | null; endpoints: PbEndpoints | null }
export interface HeartbeatRequest { group?: PbResource | null; clientType: string }
export interface SendMessageRequest { messages: PbMessage[] }
export interface QueryAssignmentRequest { topic: PbResource | null; group: PbResource | null; endpoints: PbEndpoints | null }
export interface ReceiveMessageRequest {
  group: PbResource | null;
  messageQueue: PbMessageQueue | null;
  filterExpression: PbFilterExpression | null;
  batchSize: number;
  invisibleDuration?: PbDuration | null;
  autoRenew: boolean;
  longPollingTimeout?: PbDuration | null;
  attemptId?: string;
  _attemptId?: string;
}
export interface AckMessageEntry { messageId: string; receiptHandle: string }
export interface AckMessageRequest { group: PbResource | null; topic: PbResource | null; entries: AckMessageEntry[] }
export interface ForwardMessageToDeadLetterQueueRequest {
  group: PbResource | null;
  topic: PbResource | null;
  receiptHandle: string;
  messageId: string;
  deliveryAttempt: number;
  maxDeliveryAttempts: number;
}
export interface NotifyClientTerminationRequest { group?: PbResource | null }
export interface ChangeInvisibleDurationRequest {
  group: PbResource | null;
  topic: PbResource | null;
  receiptHandle: string;
  invisibleDuration: PbDuration | null;
  messageId: string;
}
export interface EndTransactionRequest {
  topic: PbResource | null;
  messageId: string;
  transactionId: string;
  /** TransactionResolution by name (COMMIT, ROLLBACK, TRANSACTION_RESOLUTION_UNSPECIFIED). */
  resolution: string;
  /** TransactionSource by name (SOURCE_CLIENT, SOURCE_SERVER_CHECK, SOURCE_UNSPECIFIED). */
  source: string;
  traceContext?: string;
}
export interface TelemetryCommand {
  status?: PbStatus | null;
  command?: string;
  settings?: PbSettings | null;
  recoverOrphanedTransactionCommand?: { message: PbMessage; transactionId: string } | null;
  threadStackTrace?: { nonce: string; threadStackTrace?: string } | null;
  verifyMessageResult?: { nonce: string } | null;
  printThreadStackTraceCommand?: { nonce: string } | null;
  verifyMessageCommand?: { nonce: string; message: PbMessage } | null;
}

/** google.protobuf.Duration / Timestamp from millis. */
export function pbFromMillis(ms: number): PbDuration {
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: Math.round((ms - seconds * 1000) * 1e6) };
}

/** Millis of a google.protobuf.Duration / Timestamp (Durations.toMillis: seconds * 1000 + nanos / 1e6, floored). */
export function pbToMillis(d: PbDuration | PbTimestamp | null | undefined): number {
  if (!d) return 0;
  return Number(d.seconds) * 1000 + Math.floor(Number(d.nanos) / 1e6);
}
