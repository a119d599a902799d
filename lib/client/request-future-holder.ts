/**
 * Request-reply bookkeeping: one pending future per CORRELATION_ID, completed by the reply the broker pushes
 * (PUSH_REPLY_MESSAGE_TO_CLIENT) or failed by its timeout. Like Java's singleton, one table per process: a reply
 * reaches whichever client instance the broker pushes it to, and the correlation id (a UUID) names the request alone.
 * Each pending request owns one unref'd timer, cleared when it completes (Java scans the table every second instead).
 *
 * @see org.apache.rocketmq.client.producer.RequestFutureHolder
 * @see org.apache.rocketmq.client.producer.RequestResponseFuture
 */
import { randomUUID } from 'node:crypto';
import type { MessageExt } from '../../protocol/message/message';
import { OperationFailedError, RequestTimeoutError } from '../errors';
import { ClientErrorCode } from './send-result';

/** Java CorrelationIdUtil.createCorrelationId(). */
export function createCorrelationId(): string {
  return randomUUID();
}

export class RequestResponseFuture {
  sendRequestOk = false;
  cause: Error | null = null;
  readonly beginTimestamp = Date.now();
  readonly promise: Promise<MessageExt>;
  #resolve!: (m: MessageExt) => void;
  #reject!: (e: Error) => void;
  #timer: NodeJS.Timeout;
  #done = false;

  /** `timeoutMillis`: the request's timeout (in messages); `waitMillis`: how long from now until it expires. */
  constructor(
    readonly correlationId: string, readonly timeoutMillis: number, waitMillis: number, private readonly topic: string,
    private readonly onDone: (f: RequestResponseFuture) => void,
  ) {
    this.promise = new Promise<MessageExt>((resolve, reject) => { this.#resolve = resolve; this.#reject = reject; });
    this.#timer = setTimeout(() => this.#timeout(), Math.max(0, waitMillis));
    this.#timer.unref();
  }

  /** The reply arrived. */
  putResponseMessage(msg: MessageExt): void {
    if (this.#finish()) this.#resolve(msg);
  }

  /** The request could not be sent: fail at once (Java putResponseMessage(null) + setCause). */
  failSend(cause: Error): void {
    this.sendRequestOk = false;
    this.cause = cause;
    if (this.#finish()) this.#reject(new OperationFailedError(`send request message to <${this.topic}> fail`, { cause }));
  }

  /** Completed with an error from outside (shutdown). */
  abort(err: Error): void {
    if (this.#finish()) this.#reject(err);
  }

  #timeout(): void {
    if (!this.#finish()) return;
    if (this.sendRequestOk) {
      this.#reject(new RequestTimeoutError(ClientErrorCode.REQUEST_TIMEOUT_EXCEPTION,
        `send request message to <${this.topic}> OK, but wait reply message timeout, ${this.timeoutMillis} ms.`));
    } else {
      this.#reject(new OperationFailedError(`send request message to <${this.topic}> fail`, { cause: this.cause ?? undefined }));
    }
  }

  #finish(): boolean {
    if (this.#done) return false;
    this.#done = true;
    clearTimeout(this.#timer);
    this.onDone(this);
    return true;
  }
}

/** The process-wide table of pending requests by correlation id. */
export class RequestFutureHolder {
  static readonly instance = new RequestFutureHolder();
  readonly #table = new Map<string, RequestResponseFuture>();

  /** A new pending request for `correlationId`, removed from the table when it completes. */
  create(correlationId: string, timeoutMillis: number, waitMillis: number, topic: string): RequestResponseFuture {
    const f = new RequestResponseFuture(correlationId, timeoutMillis, waitMillis, topic, (done) => {
      if (this.#table.get(done.correlationId) === done) this.#table.delete(done.correlationId);
    });
    this.#table.set(correlationId, f);
    return f;
  }

  get(correlationId: string): RequestResponseFuture | undefined {
    return this.#table.get(correlationId);
  }

  get size(): number {
    return this.#table.size;
  }
}
