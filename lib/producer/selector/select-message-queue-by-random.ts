/**
 * A uniformly random queue.
 *
 * @see org.apache.rocketmq.client.producer.selector.SelectMessageQueueByRandom
 */
import { randomInt } from 'node:crypto';
import type { MessageQueue } from '../../../protocol/message/message-queue';
import type { MessageQueueSelector } from './message-queue-selector';

export class SelectMessageQueueByRandom implements MessageQueueSelector {
  select(mqs: readonly MessageQueue[], _msg: unknown, _arg: unknown): MessageQueue {
    return mqs[randomInt(mqs.length)];
  }
}
