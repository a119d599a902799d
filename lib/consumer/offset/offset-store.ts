/**
 * Where a consumer keeps its queue offsets.
 *
 * @see org.apache.rocketmq.client.consumer.store.OffsetStore
 * @see org.apache.rocketmq.client.consumer.store.ReadOffsetType
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';

export const ReadOffsetType = {
  READ_FROM_MEMORY: 'READ_FROM_MEMORY',
  READ_FROM_STORE: 'READ_FROM_STORE',
  MEMORY_FIRST_THEN_STORE: 'MEMORY_FIRST_THEN_STORE',
} as const;
export type ReadOffsetType = (typeof ReadOffsetType)[keyof typeof ReadOffsetType];

export interface OffsetStore {
  load(): Promise<void>;
  /** Sets the offset; with `increaseOnly` a smaller value than the current one is ignored. */
  updateOffset(mq: MessageQueue, offset: number, increaseOnly: boolean): void;
  /**
   * The offset, or -1 when none is known; from the store, -2 when the store could not be read (the remote store
   * returns -1 for the broker's QUERY_NOT_FOUND and -2 for other failures).
   */
  readOffset(mq: MessageQueue, type: ReadOffsetType): Promise<number>;
  /** Persists the offsets of `mqs`; entries of other queues are dropped (remote store) or ignored. */
  persistAll(mqs: readonly MessageQueue[]): Promise<void>;
  persist(mq: MessageQueue): Promise<void>;
  removeOffset(mq: MessageQueue): void;
  /** A copy of the offsets, optionally of one topic. */
  cloneOffsetTable(topic?: string): Array<[MessageQueue, number]>;
  /** Sets the broker's offset directly (reset). */
  updateConsumeOffsetToBroker(mq: MessageQueue, offset: number, isOneway: boolean): Promise<void>;
}

/** The in-memory table both stores keep: queue key → (queue, offset). */
export class OffsetTable {
  readonly map = new Map<string, { mq: MessageQueue; offset: number }>();

  static key(mq: MessageQueue): string {
    return `${mq.topic}\u0001${mq.brokerName}\u0001${mq.queueId}`;
  }

  get(mq: MessageQueue): number | undefined {
    return this.map.get(OffsetTable.key(mq))?.offset;
  }

  update(mq: MessageQueue, offset: number, increaseOnly: boolean): void {
    const k = OffsetTable.key(mq);
    const e = this.map.get(k);
    if (!e) this.map.set(k, { mq: { topic: mq.topic, brokerName: mq.brokerName, queueId: mq.queueId }, offset });
    else if (!increaseOnly || offset > e.offset) e.offset = offset;
  }

  delete(mq: MessageQueue): void {
    this.map.delete(OffsetTable.key(mq));
  }

  clone(topic?: string): Array<[MessageQueue, number]> {
    const out: Array<[MessageQueue, number]> = [];
    for (const { mq, offset } of this.map.values()) if (topic === undefined || mq.topic === topic) out.push([mq, offset]);
    return out;
  }
}
