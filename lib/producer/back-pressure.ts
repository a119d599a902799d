/**
 * Back-pressure for asynchronous sends (Java 5.x DefaultMQProducer enableBackpressureForAsyncMode,
 * backPressureForAsyncSendNum, backPressureForAsyncSendSize): a fair counting semaphore whose acquire waits at most
 * the send's remaining timeout. Permits are taken at once when free (no tick), so a burst of sends is capped before
 * any of them reaches the network.
 *
 * @see org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl#executeAsyncMessageSend
 */

interface Waiter {
  n: number;
  resolve: (ok: boolean) => void;
  timer: NodeJS.Timeout;
}

export class TimedSemaphore {
  #available: number;
  readonly #waiters: Waiter[] = [];

  constructor(readonly permits: number) {
    this.#available = permits;
  }

  get availablePermits(): number {
    return this.#available;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** Takes `n` permits now if free and nobody waits before us (fair); else null. */
  tryAcquireNow(n = 1): boolean {
    if (this.#waiters.length === 0 && this.#available >= n) {
      this.#available -= n;
      return true;
    }
    return false;
  }

  /** Resolves true once `n` permits are taken, false after `timeoutMillis` without them (Java tryAcquire). */
  tryAcquire(n: number, timeoutMillis: number): Promise<boolean> {
    if (this.tryAcquireNow(n)) return Promise.resolve(true);
    if (timeoutMillis <= 0 || n > this.permits) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        n,
        resolve,
        timer: setTimeout(() => {
          const i = this.#waiters.indexOf(waiter);
          if (i >= 0) this.#waiters.splice(i, 1);
          resolve(false);
          this.#drain(); // a big waiter leaving may unblock smaller ones behind it
        }, timeoutMillis),
      };
      this.#waiters.push(waiter);
    });
  }

  release(n = 1): void {
    this.#available = Math.min(this.permits, this.#available + n);
    this.#drain();
  }

  #drain(): void {
    while (this.#waiters.length > 0 && this.#available >= this.#waiters[0].n) {
      const w = this.#waiters.shift()!;
      clearTimeout(w.timer);
      this.#available -= w.n;
      w.resolve(true);
    }
  }

  /** Fails every waiter (shutdown). */
  rejectAll(): void {
    for (const w of this.#waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
  }
}
