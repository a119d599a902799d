/**
 * The client's in-flight accounting: an optional cap on requests waiting for an answer, a FIFO queue of the
 * requests waiting for a slot, and a drain for a graceful shutdown.
 *
 * - `maxInflight` 0 means no cap: `acquire` resolves at once and only counts.
 * - A request that waits longer than its timeout for a slot fails with RemotingTooMuchRequestError (Java's
 *   `invokeAsyncImpl tryAcquire semaphore timeout`), having sent nothing.
 * - `onQueueSize(size)` reports every change of the waiting queue's length (the `network.request_queue_size` event).
 * - `drain(timeoutMillis)` resolves once nothing is in flight or queued, or the timeout passed (false then).
 *
 * Modelled on KafkaJS src/network/requestQueue/index.js (`maxInFlightRequests`, pending queue,
 * `waitForPendingRequests`).
 */
import { RemotingTooMuchRequestError } from '../errors';
import { trackTimer } from './connection';

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout | null;
}

export class RequestQueue {
  #active = 0;
  readonly #waiting: Waiter[] = [];
  readonly #drainers = new Set<() => void>();

  constructor(
    readonly maxInflight: number,
    private readonly onQueueSize: ((size: number) => void) | null = null,
  ) {}

  /** Requests holding a slot (sent or about to be). */
  get inflight(): number {
    return this.#active;
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.#waiting.length;
  }

  /** Takes a slot, waiting at most `timeoutMillis` for one; `release()` gives it back. */
  acquire(timeoutMillis: number): Promise<void> | null {
    if (this.maxInflight <= 0 || this.#active < this.maxInflight) {
      this.#active++;
      return null;
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { grant: resolve, timer: null };
      trackTimer(1);
      waiter.timer = setTimeout(() => {
        trackTimer(-1);
        waiter.timer = null;
        const i = this.#waiting.indexOf(waiter);
        if (i >= 0) this.#waiting.splice(i, 1);
        this.onQueueSize?.(this.#waiting.length);
        this.#settled();
        reject(new RemotingTooMuchRequestError(
          `invoke tryAcquire semaphore timeout, ${timeoutMillis}ms, waiting queue size: ${this.#waiting.length}, ` +
            `maxInflightRequests: ${this.maxInflight}`,
        ));
      }, Math.max(0, timeoutMillis));
      this.#waiting.push(waiter);
      this.onQueueSize?.(this.#waiting.length);
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) {
      // the slot passes to the next waiter: #active stays
      if (next.timer) {
        clearTimeout(next.timer);
        trackTimer(-1);
        next.timer = null;
      }
      this.onQueueSize?.(this.#waiting.length);
      next.grant();
      return;
    }
    this.#active--;
    this.#settled();
  }

  /** Resolves true once nothing is in flight or queued, false when `timeoutMillis` passed first. */
  drain(timeoutMillis: number): Promise<boolean> {
    if (this.#active === 0 && this.#waiting.length === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      const done = (ok: boolean) => {
        if (timer) {
          clearTimeout(timer);
          trackTimer(-1);
          timer = null;
        }
        this.#drainers.delete(onIdle);
        resolve(ok);
      };
      const onIdle = () => done(true);
      this.#drainers.add(onIdle);
      trackTimer(1);
      timer = setTimeout(() => {
        trackTimer(-1);
        timer = null;
        done(false);
      }, Math.max(0, timeoutMillis));
    });
  }

  #settled(): void {
    if (this.#active !== 0 || this.#waiting.length !== 0 || this.#drainers.size === 0) return;
    for (const d of [...this.#drainers]) d();
  }
}
