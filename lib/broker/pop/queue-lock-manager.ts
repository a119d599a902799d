/**
 * The per-queue lock of POP, keyed `topic@group@queueId`: a pop takes it for the read of a queue (it spans an
 * asynchronous store read) and skips a queue that is locked; an orderly ack or change of invisible time waits for it,
 * so that it never lands between an orderly pop's check of the block and its update of the order info (Java spins on
 * tryLock there; here the waiter is woken by the unlock).
 *
 * @see org.apache.rocketmq.broker.processor.PopMessageProcessor.QueueLockManager (5.3.3)
 */
export class QueueLockManager {
  /** Locked keys → waiters to wake on unlock. */
  readonly #locked = new Map<string, Array<() => void>>();

  static buildLockKey(topic: string, consumerGroup: string, queueId: number): string {
    return `${topic}@${consumerGroup}@${queueId}`;
  }

  get size(): number {
    return this.#locked.size;
  }

  isLocked(key: string): boolean {
    return this.#locked.has(key);
  }

  tryLock(key: string): boolean {
    if (this.#locked.has(key)) return false;
    this.#locked.set(key, []);
    return true;
  }

  unLock(key: string): void {
    const waiters = this.#locked.get(key);
    if (!waiters) return;
    this.#locked.delete(key);
    for (const w of waiters) w();
  }

  /** Resolves once the key is not locked (at once when it is not); the caller then runs without yielding. */
  async whenFree(key: string): Promise<void> {
    for (;;) {
      const waiters = this.#locked.get(key);
      if (!waiters) return;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  }
}
