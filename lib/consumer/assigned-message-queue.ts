/**
 * The queues a lite pull consumer holds (assigned by the user, or allocated by the rebalance), with the state of each:
 * paused, the next pull offset, the consumed offset (what a commit would store) and a pending seek.
 *
 * @see org.apache.rocketmq.client.impl.consumer.AssignedMessageQueue
 */
import { type MessageQueue, messageQueueKey } from '../../protocol/message/message-queue';
import { ProcessQueue } from './process-queue';

interface MessageQueueState {
  readonly messageQueue: MessageQueue;
  readonly processQueue: ProcessQueue;
  paused: boolean;
  pullOffset: number;
  consumeOffset: number;
  seekOffset: number;
}

export class AssignedMessageQueue {
  readonly #state = new Map<string, MessageQueueState>();
  /** Subscribe mode: the ProcessQueue the rebalance created for a queue is shared. */
  #processQueueOf: ((mq: MessageQueue) => ProcessQueue | undefined) | undefined;

  setProcessQueueSource(source: (mq: MessageQueue) => ProcessQueue | undefined): void {
    this.#processQueueOf = source;
  }

  messageQueues(): MessageQueue[] {
    return [...this.#state.values()].map((s) => s.messageQueue);
  }

  has(mq: MessageQueue): boolean {
    return this.#state.has(messageQueueKey(mq));
  }

  /** True for a paused queue and for a queue not held (Java's answer). */
  isPaused(mq: MessageQueue): boolean {
    return this.#state.get(messageQueueKey(mq))?.paused ?? true;
  }

  pause(mqs: Iterable<MessageQueue>): void {
    for (const mq of mqs) {
      const s = this.#state.get(messageQueueKey(mq));
      if (s) s.paused = true;
    }
  }

  resume(mqs: Iterable<MessageQueue>): void {
    for (const mq of mqs) {
      const s = this.#state.get(messageQueueKey(mq));
      if (s) s.paused = false;
    }
  }

  getProcessQueue(mq: MessageQueue): ProcessQueue | undefined {
    return this.#state.get(messageQueueKey(mq))?.processQueue;
  }

  getPullOffset(mq: MessageQueue): number {
    return this.#state.get(messageQueueKey(mq))?.pullOffset ?? -1;
  }

  /** Ignored when the queue was re-added since (another ProcessQueue). */
  updatePullOffset(mq: MessageQueue, offset: number, pq: ProcessQueue): void {
    const s = this.#state.get(messageQueueKey(mq));
    if (s && s.processQueue === pq) s.pullOffset = offset;
  }

  getConsumerOffset(mq: MessageQueue): number {
    return this.#state.get(messageQueueKey(mq))?.consumeOffset ?? -1;
  }

  updateConsumeOffset(mq: MessageQueue, offset: number): void {
    const s = this.#state.get(messageQueueKey(mq));
    if (s) s.consumeOffset = offset;
  }

  getSeekOffset(mq: MessageQueue): number {
    return this.#state.get(messageQueueKey(mq))?.seekOffset ?? -1;
  }

  setSeekOffset(mq: MessageQueue, offset: number): void {
    const s = this.#state.get(messageQueueKey(mq));
    if (s) s.seekOffset = offset;
  }

  /** Holds exactly `assigned` among the queues of `topic` (or of every topic when `topic` is undefined). */
  updateAssignedMessageQueue(topic: string | undefined, assigned: readonly MessageQueue[]): void {
    const wanted = new Set(assigned.map(messageQueueKey));
    for (const [key, s] of [...this.#state]) {
      if (topic !== undefined && s.messageQueue.topic !== topic) continue;
      if (!wanted.has(key)) {
        s.processQueue.dropped = true;
        this.#state.delete(key);
      }
    }
    for (const mq of assigned) {
      const key = messageQueueKey(mq);
      if (this.#state.has(key)) continue;
      const pq = this.#processQueueOf?.(mq) ?? new ProcessQueue();
      this.#state.set(key, {
        messageQueue: { topic: mq.topic, brokerName: mq.brokerName, queueId: mq.queueId },
        processQueue: pq, paused: false, pullOffset: -1, consumeOffset: -1, seekOffset: -1,
      });
    }
  }

  removeAssignedMessageQueue(topic: string): void {
    for (const [key, s] of [...this.#state]) {
      if (s.messageQueue.topic === topic) {
        s.processQueue.dropped = true;
        this.#state.delete(key);
      }
    }
  }

  clear(): void {
    for (const s of this.#state.values()) s.processQueue.dropped = true;
    this.#state.clear();
  }
}
