/**
 * What the consume services need from their push consumer, and the pieces both services share.
 *
 * @see org.apache.rocketmq.client.impl.consumer.ConsumeMessageService
 */
import type { AsyncTraceDispatcher } from '../client/trace/async-trace-dispatcher';
import type { ConsumeMessageDirectlyResult } from '../../protocol/body/consume-message-directly-result';
import type { MessageModel } from '../../protocol/body/heartbeat-data';
import { MessageConst } from '../../protocol/message/message-const';
import type { MessageExt } from '../../protocol/message/message';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { getRetryTopic } from '../client/mix-all';
import type { ProcessQueue } from './process-queue';
import type { OffsetStore } from './offset/offset-store';

export interface ConsumeServiceHost {
  readonly consumerGroup: string;
  messageModel(): MessageModel;
  readonly offsetStore: OffsetStore;
  readonly consumeThreadMax: number;
  readonly consumeMessageBatchMaxSize: number;
  /** Minutes. */
  readonly consumeTimeout: number;
  readonly suspendCurrentQueueTimeMillis: number;
  /** Concurrently: -1 means 16; orderly: -1 means unlimited. */
  readonly maxReconsumeTimes: number;
  /** CONSUMER_SEND_MSG_BACK (falls back to the inner producer); throws when both fail. */
  sendMessageBack(msg: MessageExt, delayLevel: number, brokerName: string | undefined): Promise<void>;
  /** Orderly: sends the message to %RETRY%<group> through the inner producer (the broker moves it to the DLQ). */
  sendRetryMessageForOrderly(msg: MessageExt): Promise<boolean>;
  /** Orderly, clustering: LOCK_BATCH_MQ of one queue. */
  lockOneMQ(mq: MessageQueue): Promise<boolean>;
  withoutNamespace(resource: string): string;
  /** The queues owned now. */
  processQueues(): Iterable<[MessageQueue, ProcessQueue]>;
  /** enableMsgTrace: SubBefore / SubAfter records around each listener call. */
  readonly traceDispatcher?: AsyncTraceDispatcher | null;
}

export interface ConsumeMessageService {
  start(): void;
  shutdown(awaitTerminationMillis: number): Promise<void>;
  submitConsumeRequest(msgs: MessageExt[], pq: ProcessQueue, mq: MessageQueue, dispatchToConsume: boolean): void;
  consumeMessageDirectly(msg: MessageExt, brokerName: string | undefined): Promise<ConsumeMessageDirectlyResult>;
  /** Listener calls running now (for drain and statistics). */
  readonly inFlight: number;
  stats(): ConsumeStats;
}

/** Per-consumer counters for ConsumeStatus in GET_CONSUMER_RUNNING_INFO. */
export class ConsumeStats {
  consumeOK = 0;
  consumeFailed = 0;
  consumeRTTotal = 0;
  consumeCalls = 0;
  pulls = 0;
  pullRTTotal = 0;
  readonly since = Date.now();
}

/**
 * resetRetryAndNamespace: a message from %RETRY%<group> gets its original topic back (RETRY_TOPIC property), then
 * loses the namespace. `consumerGroup` is the group as the user named it or with its namespace: with a namespace
 * the retry topic is `%RETRY%ns%group` (Java compares with the group its start() wrapped).
 */
export function resetRetryAndNamespace(msgs: MessageExt[], consumerGroup: string, withoutNamespace: (s: string) => string): void {
  const groupTopic = getRetryTopic(consumerGroup);
  for (const msg of msgs) {
    const retryTopic = msg.properties[MessageConst.PROPERTY_RETRY_TOPIC];
    if (retryTopic !== undefined && (groupTopic === msg.topic || groupTopic === withoutNamespace(msg.topic))) msg.topic = retryTopic;
    msg.topic = withoutNamespace(msg.topic);
  }
}

/** A bounded set of async task slots (Java's consume thread pool). */
export class TaskPool {
  #running = 0;
  readonly #queue: Array<() => Promise<void>> = [];
  #idleWaiters: Array<() => void> = [];
  #closed = false;

  constructor(private limit: number) {}

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#queue.length;
  }

  setLimit(limit: number): void {
    this.limit = Math.max(1, limit);
    this.#drain();
  }

  submit(task: () => Promise<void>): void {
    if (this.#closed) return;
    this.#queue.push(task);
    this.#drain();
  }

  /** Stops taking tasks; drops the queued ones unless `keepQueued`; resolves when running tasks finish. */
  close(keepQueued = false): Promise<void> {
    this.#closed = true;
    if (!keepQueued) this.#queue.length = 0;
    return this.whenIdle();
  }

  reopen(): void {
    this.#closed = false;
  }

  whenIdle(): Promise<void> {
    if (this.#running === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #drain(): void {
    while (this.#running < this.limit && this.#queue.length > 0) {
      const task = this.#queue.shift()!;
      this.#running++;
      void task().catch(() => undefined).finally(() => {
        this.#running--;
        this.#drain();
        if (this.#running === 0 && this.#queue.length === 0) {
          const w = this.#idleWaiters;
          this.#idleWaiters = [];
          for (const r of w) r();
        }
      });
    }
  }
}

/** Timers of "later" work, cleared on shutdown. */
export class TimerSet {
  readonly #timers = new Set<NodeJS.Timeout>();

  schedule(delayMillis: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, delayMillis);
    t.unref();
    this.#timers.add(t);
  }

  /** Runs `fn` every `intervalMillis` until clear(). */
  every(intervalMillis: number, fn: () => void): void {
    const t = setInterval(fn, intervalMillis);
    t.unref();
    this.#timers.add(t);
  }

  clear(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  get size(): number {
    return this.#timers.size;
  }
}
