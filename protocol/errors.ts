/**
 * The root of the error hierarchy and the wire-level error. They live in `protocol/` because the codec must
 * raise them without importing anything else of the repo; `lib/errors.ts` re-exports them with the rest.
 */

export interface RocketMQErrorOptions {
  cause?: unknown;
  retriable?: boolean;
}

/** Base class of every error this package throws. */
export class RocketMQError extends Error {
  /** Whether repeating the same operation may succeed. */
  readonly retriable: boolean;
  override readonly cause?: unknown;

  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super(message);
    this.name = new.target.name;
    this.retriable = options.retriable ?? false;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/** Malformed bytes: a bad frame, header or body, or a missing required header field. */
export class ProtocolError extends RocketMQError {
  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super(message, { retriable: false, ...options });
  }
}

/**
 * A body compressed with LZ4 or ZSTD met (or asked for) without the optional npm package that implements the codec
 * (`lz4-napi`, `@toondepauw/node-zstd`): install it next to rocketmq-ts. Not retriable.
 */
export class CompressionCodecUnavailableError extends RocketMQError {
  /** `LZ4` or `ZSTD`. */
  readonly codec: string;
  /** The npm package to install. */
  readonly packageName: string;

  constructor(codec: string, packageName: string, options: RocketMQErrorOptions = {}) {
    super(`${codec} compression needs the optional dependency "${packageName}" (npm install ${packageName})`, { retriable: false, ...options });
    this.codec = codec;
    this.packageName = packageName;
  }
}

/**
 * A broker (or name server) answered with a failure code. Defined here so a request module (protocol/requests/)
 * can raise it from its `parse`; lib/errors.ts re-exports it.
 */
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
