/**
 * Brokers that failed or answered slowly, each unavailable until a moment computed by MQFaultStrategy.
 *
 * @see org.apache.rocketmq.client.latency.LatencyFaultTolerance
 * @see org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl
 */
import { ThreadLocalIndex } from '../../client/thread-local-index';

export interface LatencyFaultTolerance<T> {
  updateFaultItem(name: T, currentLatency: number, notAvailableDuration: number): void;
  isAvailable(name: T): boolean;
  remove(name: T): void;
  pickOneAtLeast(): T | null;
}

/** A clock in milliseconds; tests pass a fake one. */
export type Clock = () => number;

export class FaultItem {
  currentLatency = 0;
  startTimestamp = 0;

  constructor(readonly name: string, private readonly now: Clock) {}

  isAvailable(): boolean {
    return this.now() - this.startTimestamp >= 0;
  }

  /** Available first, then lower latency, then earlier startTimestamp. */
  compareTo(other: FaultItem): number {
    const a = this.isAvailable();
    if (a !== other.isAvailable()) return a ? -1 : 1;
    if (this.currentLatency !== other.currentLatency) return this.currentLatency < other.currentLatency ? -1 : 1;
    if (this.startTimestamp !== other.startTimestamp) return this.startTimestamp < other.startTimestamp ? -1 : 1;
    return 0;
  }

  toString(): string {
    return `FaultItem{name='${this.name}', currentLatency=${this.currentLatency}, startTimestamp=${this.startTimestamp}}`;
  }
}

export class LatencyFaultToleranceImpl implements LatencyFaultTolerance<string> {
  readonly faultItemTable = new Map<string, FaultItem>();
  readonly #whichItemWorst: ThreadLocalIndex;
  readonly #now: Clock;

  constructor(options: { now?: Clock; whichItemWorst?: ThreadLocalIndex } = {}) {
    this.#now = options.now ?? Date.now;
    this.#whichItemWorst = options.whichItemWorst ?? new ThreadLocalIndex();
  }

  /** Records `name`'s latency; it stays unavailable for `notAvailableDuration` ms from now. */
  updateFaultItem(name: string, currentLatency: number, notAvailableDuration: number): void {
    let item = this.faultItemTable.get(name);
    if (!item) {
      item = new FaultItem(name, this.#now);
      this.faultItemTable.set(name, item);
    }
    item.currentLatency = currentLatency;
    item.startTimestamp = this.#now() + notAvailableDuration;
  }

  isAvailable(name: string): boolean {
    const item = this.faultItemTable.get(name);
    return item ? item.isAvailable() : true;
  }

  remove(name: string | null): void {
    if (name != null) this.faultItemTable.delete(name);
  }

  /** Of the recorded brokers sorted best first, one of the better half in turn (the best if there is only one). */
  pickOneAtLeast(): string | null {
    const items = [...this.faultItemTable.values()];
    if (items.length === 0) return null;
    items.sort((a, b) => a.compareTo(b));
    const half = Math.trunc(items.length / 2);
    if (half <= 0) return items[0].name;
    return items[this.#whichItemWorst.incrementAndGet() % half].name;
  }

  toString(): string {
    return `LatencyFaultToleranceImpl{faultItemTable={${[...this.faultItemTable.values()].map((i) => `${i.name}=${i}`).join(', ')}}, whichItemWorst=${this.#whichItemWorst}}`;
  }
}
