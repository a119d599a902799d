/**
 * Contiguous blocks: with 8 queues and 3 consumers, ids 0-2, 3-5, 6-7.
 *
 * @see org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { checkAllocateArguments, type AllocateMessageQueueStrategy } from './allocate-message-queue-strategy';

export class AllocateMessageQueueAveragely implements AllocateMessageQueueStrategy {
  allocate(consumerGroup: string, currentCID: string, mqAll: readonly MessageQueue[], cidAll: readonly string[]): MessageQueue[] {
    const result: MessageQueue[] = [];
    if (!checkAllocateArguments(consumerGroup, currentCID, mqAll, cidAll)) return result;
    const index = cidAll.indexOf(currentCID);
    const mod = mqAll.length % cidAll.length;
    const base = Math.trunc(mqAll.length / cidAll.length);
    const averageSize = mqAll.length <= cidAll.length ? 1 : mod > 0 && index < mod ? base + 1 : base;
    const startIndex = mod > 0 && index < mod ? index * averageSize : index * averageSize + mod;
    const range = Math.min(averageSize, mqAll.length - startIndex);
    for (let i = 0; i < range; i++) result.push(mqAll[(startIndex + i) % mqAll.length]);
    return result;
  }

  getName(): string {
    return 'AVG';
  }
}
