/**
 * A fixed list of queues, whatever the group looks like (no argument check, as Java).
 *
 * @see org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByConfig
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';
import type { AllocateMessageQueueStrategy } from './allocate-message-queue-strategy';

export class AllocateMessageQueueByConfig implements AllocateMessageQueueStrategy {
  messageQueueList: MessageQueue[];

  constructor(messageQueueList: MessageQueue[] = []) {
    this.messageQueueList = messageQueueList;
  }

  allocate(_consumerGroup: string, _currentCID: string, _mqAll: readonly MessageQueue[], _cidAll: readonly string[]): MessageQueue[] {
    return this.messageQueueList;
  }

  getName(): string {
    return 'CONFIG';
  }

  getMessageQueueList(): MessageQueue[] {
    return this.messageQueueList;
  }

  setMessageQueueList(messageQueueList: MessageQueue[]): void {
    this.messageQueueList = messageQueueList;
  }
}
