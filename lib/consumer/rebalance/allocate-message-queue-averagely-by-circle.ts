/**
 * Round robin: consumer i gets queues i, i + n, i + 2n, ...
 *
 * @see org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { checkAllocateArguments, type AllocateMessageQueueStrategy } from './allocate-message-queue-strategy';

export class AllocateMessageQueueAveragelyByCircle implements AllocateMessageQueueStrategy {
  allocate(consumerGroup: string, currentCID: string, mqAll: readonly MessageQueue[], cidAll: readonly string[]): MessageQueue[] {
    const result: MessageQueue[] = [];
    if (!checkAllocateArguments(consumerGroup, currentCID, mqAll, cidAll)) return result;
    const index = cidAll.indexOf(currentCID);
    for (let i = index; i < mqAll.length; i++) {
      if (i % cidAll.length === index) result.push(mqAll[i]);
    }
    return result;
  }

  getName(): string {
    return 'AVG_BY_CIRCLE';
  }
}
