/**
 * The settings of the gRPC endpoint: Java 5.3.3 ProxyConfig's names and defaults for what a proxy in local mode
 * applies to gRPC clients (the backoff and body size sent in Settings, the polling and invisible-time bounds of
 * ReceiveMessage, the limits SendMessage checks).
 *
 * @see org.apache.rocketmq.proxy.config.ProxyConfig
 */
export interface GrpcProxyConfig {
  /** The most bytes of one message body (also sent to producers as Publishing.max_body_size). */
  maxMessageSize: number;
  enableMessageBodyEmptyCheck: boolean;
  maxUserPropertySize: number;
  userPropertyMaxNum: number;
  maxMessageGroupSize: number;
  /** Invisible time of a message received with auto_renew (the endpoint renews it). */
  defaultInvisibleTimeMills: number;
  minInvisibleTimeMillsForRecv: number;
  maxInvisibleTimeMills: number;
  maxDelayTimeMills: number;
  enableTopicMessageTypeCheck: boolean;
  grpcClientProducerMaxAttempts: number;
  grpcClientProducerBackoffInitialMillis: number;
  grpcClientProducerBackoffMaxMillis: number;
  grpcClientProducerBackoffMultiplier: number;
  grpcClientConsumerMinLongPollingTimeoutMillis: number;
  grpcClientConsumerMaxLongPollingTimeoutMillis: number;
  grpcClientConsumerLongPollingBatchSize: number;
  /** The most messages one POP asks for (ProxyUtils.MAX_MSG_NUMS_FOR_POP_REQUEST). */
  maxMsgNumsForPopRequest: number;
  /** Invisible time of a message the endpoint could not deliver (ReceiveMessageResponseStreamWriter.NACK_INVISIBLE_TIME). */
  nackInvisibleTimeMills: number;
  /** How often expired transaction data are dropped. */
  transactionDataExpireScanPeriodMillis: number;
  /** How long the data of a half message (from its send or a check) stay usable by an EndTransaction. */
  transactionDataExpireMillis: number;
  /** The most data kept per producer group and transaction id. */
  transactionDataMaxNum: number;
  /** Renew the receipt handles of messages received with auto_renew (push consumers). */
  enableProxyAutoRenew: boolean;
  /** Failed renewals of one handle before the endpoint gives it up. */
  maxRenewRetryTimes: number;
  /** A handle is renewed when it has less than this left before it becomes visible. */
  renewAheadTimeMillis: number;
  /** A message held longer than this since its receive is no longer renewed but nacked with its group's retry delay. */
  renewMaxTimeMillis: number;
  /** How often the handles are scanned for renewal. */
  renewSchedulePeriodMillis: number;
  /** Invisible time given to the messages of a client that went away (they are visible again after it). */
  invisibleTimeMillisWhenClear: number;
  /**
   * With TLS on (permissive or enforcing), a connection that sends nothing this long after it is accepted is closed
   * (the endpoint waits for its first byte to choose TLS or plain HTTP/2). Java's name; its proxy applies it as the
   * connections' max idle time.
   */
  grpcClientIdleTimeMills: number;
}

export const DEFAULT_GRPC_PROXY_CONFIG: Readonly<GrpcProxyConfig> = Object.freeze({
  maxMessageSize: 4 * 1024 * 1024,
  enableMessageBodyEmptyCheck: true,
  maxUserPropertySize: 16 * 1024,
  userPropertyMaxNum: 128,
  maxMessageGroupSize: 64,
  defaultInvisibleTimeMills: 60_000,
  minInvisibleTimeMillsForRecv: 10_000,
  maxInvisibleTimeMills: 12 * 3600_000,
  maxDelayTimeMills: 24 * 3600_000,
  enableTopicMessageTypeCheck: true,
  grpcClientProducerMaxAttempts: 3,
  grpcClientProducerBackoffInitialMillis: 10,
  grpcClientProducerBackoffMaxMillis: 1000,
  grpcClientProducerBackoffMultiplier: 2,
  grpcClientConsumerMinLongPollingTimeoutMillis: 5000,
  grpcClientConsumerMaxLongPollingTimeoutMillis: 20_000,
  grpcClientConsumerLongPollingBatchSize: 32,
  maxMsgNumsForPopRequest: 32,
  nackInvisibleTimeMills: 1000,
  transactionDataExpireScanPeriodMillis: 10_000,
  transactionDataExpireMillis: 30_000,
  transactionDataMaxNum: 15,
  enableProxyAutoRenew: true,
  maxRenewRetryTimes: 3,
  renewAheadTimeMillis: 10_000,
  renewMaxTimeMillis: 3 * 3600_000,
  renewSchedulePeriodMillis: 5000,
  invisibleTimeMillisWhenClear: 1000,
  grpcClientIdleTimeMills: 120_000,
});
