/**
 * What the broker needs of its message store (Java's MessageStore interface, the subset the broker calls).
 * lib/store's DefaultMessageStore implements it; tests may pass another implementation.
 *
 * @see org.apache.rocketmq.store.MessageStore
 */
import type { MessageExtBatch, MessageExtBrokerInner } from '../store/commit-log';
import type { GetMessageResult, PutMessageResult, QueryMessageResult } from '../store/store-status';

/** Filters consume-queue entries by tags code, then (optionally) the stored record by its properties. */
export interface MessageFilter {
  isMatchedByConsumeQueue(tagsCode: number | null): boolean;
  /** Checks the stored message's properties string (`name\u0001value\u0002...`). */
  isMatchedByCommitLog(propertiesString: string | null): boolean;
}

/** Called by the store's dispatch for each new consume-queue entry (long polling). */
export type MessageArrivingListener = (topic: string, queueId: number, logicOffset: number, tagsCode: number, storeTimestamp: number, propertiesString: string | null) => void;

export interface BrokerMessageStore {
  load(): Promise<boolean>;
  start(): Promise<void>;
  shutdown(): Promise<void>;
  putMessage(msg: MessageExtBrokerInner): Promise<PutMessageResult>;
  putMessages(batch: MessageExtBatch): Promise<PutMessageResult>;
  getMessage(group: string, topic: string, queueId: number, offset: number, maxMsgNums: number, filter: MessageFilter | null, maxBytes?: number): Promise<GetMessageResult>;
  getMaxOffsetInQueue(topic: string, queueId: number): number;
  getMinOffsetInQueue(topic: string, queueId: number): number;
  getOffsetInQueueByTime(topic: string, queueId: number, timestamp: number): Promise<number>;
  getEarliestMessageTime(topic: string, queueId: number): Promise<number>;
  getCommitLogOffsetInQueue?(topic: string, queueId: number, consumeQueueOffset: number): Promise<number>;
  getMessageStoreTimeStamp?(topic: string, queueId: number, consumeQueueOffset: number): Promise<number>;
  lookMessageByOffset(commitLogOffset: number): Promise<Buffer | null>;
  queryMessage?(topic: string, key: string, maxNum: number, begin: number, end: number): Promise<QueryMessageResult>;
  getMaxPhyOffset(): number;
  now?(): number;
  setMessageArrivingListener(listener: MessageArrivingListener | null): void;
  /** Cleans consume queues of topics no longer configured (Java cleanUnusedTopic). */
  cleanUnusedTopic?(topics: Set<string>): Promise<number>;
}
