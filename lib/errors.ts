/**
 * One error hierarchy for the whole package. `RocketMQError` and `ProtocolError` are defined in `protocol/`
 * (which imports nothing of the repo) and re-exported here.
 */
import { CompressionCodecUnavailableError, MQBrokerError, ProtocolError, RocketMQError, type RocketMQErrorOptions } from '../protocol/errors';

export { CompressionCodecUnavailableError, MQBrokerError, ProtocolError, RocketMQError, type RocketMQErrorOptions };

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

/**
 * A request-reply call got no reply in time (Java's RequestTimeoutException, code REQUEST_TIMEOUT_EXCEPTION 10006):
 * the request was sent (or its send failed with no reply to wait for: then `cause` says why).
 */
export class RequestTimeoutError extends RocketMQError {
  constructor(readonly responseCode: number, message: string, options: RocketMQErrorOptions = {}) {
    super(message, options);
  }
}

/**
 * The named client errors below replace Java's `new MQClientException(-1, msg)`: each keeps responseCode -1 (so
 * `instanceof MQClientError` and the code read as before) and says by its class what went wrong.
 */

/** A broker name with no address in the route (Java: "The broker[x] not exist"). */
export class BrokerNotFoundError extends MQClientError {
  constructor(readonly brokerName: string, options: RocketMQErrorOptions = {}) {
    super(-1, `The broker[${brokerName}] not exist`, options);
  }
}

/** A call the client's state does not allow (not started, shut down, or only before start). */
export class ServiceStateError extends MQClientError {
  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super(-1, message, { retriable: false, ...options });
  }
}

/** An argument or configuration the client refuses (a reserved group name, a batch it cannot send, ...). */
export class InvalidArgumentError extends MQClientError {
  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super(-1, message, { retriable: false, ...options });
  }
}

/** Something looked up is not there (a topic's stats, a group's connections, a start offset). */
export class ResourceNotFoundError extends MQClientError {
  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super(-1, message, options);
  }
}

/** An operation over several calls failed as a whole; `cause` is the last failure. */
export class OperationFailedError extends MQClientError {
  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super(-1, message, options);
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

/**
 * A gRPC request refused or failed with one of apache.rocketmq.v2.Code's names (ILLEGAL_TOPIC, TOPIC_NOT_FOUND...):
 * the endpoint answers it as the response's in-band status.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.common.GrpcProxyException
 */
export class GrpcProxyError extends RocketMQError {
  constructor(readonly code: string, message: string, options: RocketMQErrorOptions = {}) {
    super(message, options);
  }
}

/** startCluster gave up waiting for a state of its servers (a controller leading, a master elected and registered). */
export class ClusterStartTimeoutError extends RocketMQError {
  constructor(readonly what: string, readonly limitMillis: number, options: RocketMQErrorOptions = {}) {
    super(`startCluster: timed out after ${limitMillis} ms waiting for ${what}`, options);
  }
}
