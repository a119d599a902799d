/**
 * Holds POP and NOTIFICATION requests that found nothing, until a message arrives on one of the topics they watch
 * (the topic or its pop retry topic) or their poll time is up; then the request runs once more, without holding.
 * At most maxPopPollingSize requests are held (beyond: POLLING_FULL).
 *
 * @see org.apache.rocketmq.broker.longpolling.PopLongPollingService
 */
export interface HeldRequest {
  /** Topics whose arrivals wake it. */
  readonly topics: readonly string[];
  /** The consumer group (a notification for one group wakes only its requests). */
  readonly group?: string;
  /** Runs the request again (woken or timed out). */
  wake(timedOut: boolean): void;
}

interface Entry {
  readonly req: HeldRequest;
  timer: NodeJS.Timeout | null;
  done: boolean;
}

export class PopLongPollingService {
  readonly #byTopic = new Map<string, Set<Entry>>();
  #count = 0;
  #stopped = false;

  constructor(private readonly maxPopPollingSize = 100_000) {}

  get size(): number {
    return this.#count;
  }

  /** Holds the request up to `pollTimeMillis`; false when the table is full (POLLING_FULL) or the service stopped. */
  hold(req: HeldRequest, pollTimeMillis: number): boolean {
    if (this.#stopped || this.#count >= this.maxPopPollingSize) return false;
    const e: Entry = { req, timer: null, done: false };
    for (const t of req.topics) {
      let s = this.#byTopic.get(t);
      if (!s) this.#byTopic.set(t, (s = new Set()));
      s.add(e);
    }
    this.#count++;
    e.timer = setTimeout(() => this.#finish(e, true), Math.max(0, pollTimeMillis));
    e.timer.unref();
    return true;
  }

  #finish(e: Entry, timedOut: boolean): void {
    if (e.done) return;
    e.done = true;
    if (e.timer) clearTimeout(e.timer);
    e.timer = null;
    this.#count--;
    for (const t of e.req.topics) {
      const s = this.#byTopic.get(t);
      if (!s) continue;
      s.delete(e);
      if (s.size === 0) this.#byTopic.delete(t);
    }
    e.req.wake(timedOut);
  }

  /**
   * A message arrived on `topic`: every request watching it runs again; with `group`, only that group's requests
   * (an orderly queue of the group unblocked: Java's notifyMessageArriving(topic, queueId, cid)). True when one ran.
   */
  notifyMessageArriving(topic: string, group?: string): boolean {
    const s = this.#byTopic.get(topic);
    if (!s) return false;
    let woken = false;
    for (const e of [...s]) {
      if (group !== undefined && e.req.group !== group) continue;
      this.#finish(e, false);
      woken = true;
    }
    return woken;
  }

  /** Holds requests again after a shutdown(). */
  start(): void {
    this.#stopped = false;
  }

  /** Answers every held request (as timed out) and holds no more. */
  shutdown(): void {
    this.#stopped = true;
    for (const s of [...this.#byTopic.values()]) for (const e of [...s]) this.#finish(e, true);
  }
}
