/**
 * `abs(arg.hashCode() % mqs.size())`: the same key always lands on the same queue, the queue Java's
 * SelectMessageQueueByHash picks for the same Java value (see javaHashCode). 4.9.8 takes the remainder before
 * the absolute value, so Integer.MIN_VALUE needs no special case.
 *
 * @see org.apache.rocketmq.client.producer.selector.SelectMessageQueueByHash
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { javaHashCode } from './java-hash-code';
import type { MessageQueueSelector } from './message-queue-selector';

export class SelectMessageQueueByHash implements MessageQueueSelector {
  select(mqs: readonly MessageQueue[], _msg: unknown, arg: unknown): MessageQueue {
    let value = javaHashCode(arg) % mqs.length;
    if (value < 0) value = Math.abs(value);
    return mqs[value];
  }
}
