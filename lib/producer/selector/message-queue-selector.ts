/**
 * Chooses the queue of a message from the topic's writable queues and a user argument (ordered messages).
 *
 * @see org.apache.rocketmq.client.producer.MessageQueueSelector
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';

export interface MessageQueueSelector<M = unknown, A = unknown> {
  /** Returns null only where Java does (SelectMessageQueueByMachineRoom); the producer then refuses the send. */
  select(mqs: readonly MessageQueue[], msg: M, arg: A): MessageQueue | null;
}
