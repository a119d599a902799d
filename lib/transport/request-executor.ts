/**
 * RequestExecutor: a bounded pool of requests for one request family (sends, pulls, ...), shared by every
 * connection of a server. It stands where Java's per-family ThreadPoolExecutor and its BlockingQueue stand
 * (sendThreadPoolQueueCapacity, pullThreadPoolQueueCapacity, ...):
 *
 * - `capacity` bounds the requests of the family admitted and not yet answered, over all connections; one more
 *   is refused (the dispatcher answers SYSTEM_BUSY "[OVERLOAD]system busy, ..." as Java does on
 *   RejectedExecutionException).
 * - While `ready()` says no (the store's append lock is busy), admitted requests wait in a FIFO queue instead of
 *   running; `drain()` starts them once it says yes again, and every finished request drains too. A request
 *   that waited too long, or every waiting one while the page cache is busy, is answered SYSTEM_BUSY by
 *   BrokerFastFailure through `cleanExpired` / `cleanAll` (Java polls the executor's queue the same way).
 *
 * @see java.util.concurrent.ThreadPoolExecutor (BrokerController.sendMessageExecutor and friends)
 * @see org.apache.rocketmq.remoting.netty.RequestTask
 */

/** One admitted request, as the dispatcher hands it over. */
export interface ExecutorTask {
  /** When the request arrived (the executor's clock). */
  readonly createTimestamp: number;
  /** Starts processing. */
  run(): void;
  /** Answers the request with SYSTEM_BUSY and `remark` without processing it. */
  reject(remark: string): void;
}

export interface RequestExecutorOptions {
  /** Name for logs and metrics ("send", "pull", ...). */
  name: string;
  /** Requests admitted and not answered yet, over every connection; 0 or less: unbounded. */
  capacity: number;
  /** When false, admitted requests wait in the queue (default: always ready). */
  ready?: () => boolean;
  /** Clock of the wait times (default Date.now; tests pass a fake one). */
  now?: () => number;
}

export class RequestExecutor {
  readonly name: string;
  readonly capacity: number;
  readonly now: () => number;
  readonly #ready: () => boolean;
  #queue: ExecutorTask[] = [];
  #queueHead = 0;
  /** Requests started and not finished. */
  #running = 0;
  /** Requests refused because the executor was full (since start). */
  rejectedCount = 0;

  constructor(options: RequestExecutorOptions) {
    this.name = options.name;
    this.capacity = options.capacity;
    this.now = options.now ?? Date.now;
    this.#ready = options.ready ?? (() => true);
  }

  /** Requests running now. */
  get running(): number {
    return this.#running;
  }

  /** Requests waiting to run. */
  get queueSize(): number {
    return this.#queue.length - this.#queueHead;
  }

  /** Running plus waiting: what `capacity` bounds. */
  get size(): number {
    return this.#running + this.queueSize;
  }

  /** How long the first waiting request has waited, ms (0: none waits; Java's headSlowTimeMills). */
  headWaitTimeMills(): number {
    return this.queueSize > 0 ? this.now() - this.#queue[this.#queueHead].createTimestamp : 0;
  }

  /** Whether one more request would be refused. */
  get isFull(): boolean {
    return this.capacity > 0 && this.size >= this.capacity;
  }

  /**
   * Admits `task`: runs it at once when nothing waits and the executor is ready, else queues it. False (and the
   * task untouched) when full.
   */
  submit(task: ExecutorTask): boolean {
    if (this.isFull) {
      this.rejectedCount++;
      return false;
    }
    if (this.queueSize === 0 && this.#ready()) {
      this.#running++;
      task.run();
    } else {
      this.#queue.push(task);
    }
    return true;
  }

  /** A task started by this executor finished (answered or failed): frees its place, starts waiting ones. */
  done(): void {
    this.#running--;
    if (this.queueSize > 0) this.drain();
  }

  /** Starts waiting tasks, in order, while the executor is ready. */
  drain(): void {
    while (this.queueSize > 0 && this.#ready()) {
      const task = this.#shift();
      this.#running++;
      task.run();
    }
  }

  /**
   * Answers SYSTEM_BUSY to the waiting tasks at the head of the queue that waited `maxWaitMillis` or more
   * (Java's BrokerFastFailure.cleanExpiredRequestInQueue); returns how many.
   */
  cleanExpired(maxWaitMillis: number, remark: (behindMillis: number, queueSize: number) => string): number {
    let n = 0;
    const now = this.now();
    while (this.queueSize > 0) {
      const task = this.#queue[this.#queueHead];
      const behind = now - task.createTimestamp;
      if (behind < maxWaitMillis) break;
      this.#shift();
      task.reject(remark(behind, this.queueSize));
      n++;
    }
    return n;
  }

  /** Answers SYSTEM_BUSY to every waiting task (Java's PCBUSY_CLEAN_QUEUE); returns how many. */
  cleanAll(remark: (behindMillis: number, queueSize: number) => string): number {
    let n = 0;
    const now = this.now();
    while (this.queueSize > 0) {
      const task = this.#shift();
      task.reject(remark(now - task.createTimestamp, this.queueSize));
      n++;
    }
    return n;
  }

  #shift(): ExecutorTask {
    const task = this.#queue[this.#queueHead++];
    if (this.#queueHead >= this.#queue.length) {
      this.#queue = [];
      this.#queueHead = 0;
    } else if (this.#queueHead > 1024) {
      this.#queue = this.#queue.slice(this.#queueHead);
      this.#queueHead = 0;
    }
    return task;
  }
}
