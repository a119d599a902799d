/**
 * One error hierarchy for the whole package. `RocketMQError` and `ProtocolError` are defined in `protocol/`
 * (which imports nothing of the repo) and re-exported here.
 */
import { ProtocolError, RocketMQError, type RocketMQErrorOptions } from '../protocol/errors';

export { ProtocolError, RocketMQError, type RocketMQErrorOptions };

/** A connection to `addr` could not be made. */
export class RemotingConnectError extends RocketMQError {
  constructor(readonly addr: string, options: RocketMQErrorOptions = {}) {
    super(`connect to ${addr} failed`, { retriable: true, ...options });
  }
}

/** No response arrived within the timeout. */
export class RemotingTimeoutError extends RocketMQError {
  constructor(readonly addr: string, readonly timeoutMillis: number, options: RocketMQErrorOptions = {}) {
    super(`wait response on the channel <${addr}> timeout, ${timeoutMillis}(ms)`, { retriable: true, ...options });
  }
}

/** The request could not be written, or the connection closed before its response arrived. */
export class RemotingSendRequestError extends RocketMQError {
  constructor(readonly addr: string, message?: string, options: RocketMQErrorOptions = {}) {
    super(message ?? `send request to <${addr}> failed`, { retriable: true, ...options });
  }
}

/** Too many requests in flight on one connection (Java's RemotingTooMuchRequestException). */
export class RemotingTooMuchRequestError extends RocketMQError {
  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super(message, { retriable: true, ...options });
  }
}

/** A client-side failure: bad arguments, bad state, or a response code the client cannot use. */
export class MQClientError extends RocketMQError {
  constructor(readonly responseCode: number, message: string, options: RocketMQErrorOptions = {}) {
    super(message, options);
  }
}

/** A broker (or name server) answered with a failure code. */
export class MQBrokerError extends RocketMQError {
  constructor(
    readonly responseCode: number,
    readonly remark: string | null,
    readonly brokerAddr?: string,
    options: RocketMQErrorOptions = {},
  ) {
    super(`CODE: ${responseCode} DESC: ${remark ?? ''}${brokerAddr ? ` BROKER: ${brokerAddr}` : ''}`, options);
  }
}

/** A store-level failure (corrupt file, I/O error). */
export class MessageStoreError extends RocketMQError {}

/** Invalid configuration. */
export class ConfigError extends RocketMQError {}

/** The name server knows no route for the topic (response TOPIC_NOT_EXIST, 17). */
export class TopicNotExistError extends MQClientError {
  constructor(readonly topic: string, remark: string | null, options: RocketMQErrorOptions = {}) {
    super(17, `No topic route info in name server for the topic: ${topic}${remark ? ` (${remark})` : ''}`, options);
  }
}

/**
 * An ACL refusal (Java's org.apache.rocketmq.acl.common.AclException). `javaFrame` is the Java stack frame that
 * throws it, so the broker's SYSTEM_ERROR remark reads as Java's RemotingHelper.exceptionSimpleDesc does:
 * "org.apache.rocketmq.acl.common.AclException: <message>, <frame>".
 */
export class AclException extends RocketMQError {
  static readonly JAVA_CLASS = 'org.apache.rocketmq.acl.common.AclException';

  constructor(message: string, readonly javaFrame: string | null = null, options: RocketMQErrorOptions = {}) {
    super(message, options);
  }

  /** The remark a Java broker answers with. */
  get javaExceptionDesc(): string {
    const head = this.message ? `${AclException.JAVA_CLASS}: ${this.message}` : AclException.JAVA_CLASS;
    return this.javaFrame ? `${head}, ${this.javaFrame}` : head;
  }
}

/** A dashboard request the page sent with a missing or malformed field (answered 400 with the message). */
export class DashboardInputError extends RocketMQError {}
