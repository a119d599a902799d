import { javaStringHashCode } from './java-hash';

/**
 * A queue of a topic on one broker.
 *
 * @see org.apache.rocketmq.common.message.MessageQueue
 */
export interface MessageQueue {
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
}

export function messageQueueKey(mq: MessageQueue): string {
  return `${mq.topic}@${mq.brokerName}@${mq.queueId}`;
}

/** Java's MessageQueue.compareTo: topic, then brokerName, then queueId. */
export function compareMessageQueue(a: MessageQueue, b: MessageQueue): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  if (a.brokerName !== b.brokerName) return a.brokerName < b.brokerName ? -1 : 1;
  return a.queueId - b.queueId;
}

/** Java's MessageQueue.hashCode() (the order of a HashSet<MessageQueue>, with javaHashOrderByHash). */
export function javaMessageQueueHashCode(mq: MessageQueue): number {
  let h = 1;
  h = (Math.imul(31, h) + javaStringHashCode(mq.brokerName)) | 0;
  h = (Math.imul(31, h) + mq.queueId) | 0;
  h = (Math.imul(31, h) + javaStringHashCode(mq.topic)) | 0;
  return h;
}
