/**
 * Java 4.9.8's SelectMessageQueueByMachineRoom holds a set of consumer idcs and selects nothing: `select` returns
 * null, which makes the producer refuse the send ("select message queue return null"). Kept as Java for parity;
 * subclass it to route by machine room.
 *
 * @see org.apache.rocketmq.client.producer.selector.SelectMessageQueueByMachineRoom
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';
import type { MessageQueueSelector } from './message-queue-selector';

export class SelectMessageQueueByMachineRoom implements MessageQueueSelector {
  consumeridcs: Set<string>;

  constructor(consumeridcs: Iterable<string> = []) {
    this.consumeridcs = new Set(consumeridcs);
  }

  select(_mqs: readonly MessageQueue[], _msg: unknown, _arg: unknown): MessageQueue | null {
    return null;
  }

  getConsumeridcs(): Set<string> {
    return this.consumeridcs;
  }

  setConsumeridcs(consumeridcs: Iterable<string>): void {
    this.consumeridcs = new Set(consumeridcs);
  }
}
