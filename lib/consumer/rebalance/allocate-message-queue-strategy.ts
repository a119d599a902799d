/**
 * How a consumer group's queues are divided among its members. `allocate` receives every queue of the topic and
 * every client id of the group, both sorted (queues by compareMessageQueue, ids by String.compareTo) as
 * RebalanceImpl does, and returns the queues of `currentCID`.
 *
 * @see org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy
 * @see org.apache.rocketmq.client.consumer.rebalance.AbstractAllocateMessageQueueStrategy
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { ConfigError } from '../../errors';
import { componentLogger } from '../../logger';

export interface AllocateMessageQueueStrategy {
  allocate(consumerGroup: string, currentCID: string, mqAll: readonly MessageQueue[], cidAll: readonly string[]): MessageQueue[];
  /** Java's name of the algorithm ("AVG", "CONSISTENT_HASH", ...). */
  getName(): string;
}

/**
 * AbstractAllocateMessageQueueStrategy.check: throws on an empty currentCID, mqAll or cidAll; returns false (and
 * logs) when currentCID is not among cidAll, in which case the strategy allocates nothing.
 */
export function checkAllocateArguments(
  consumerGroup: string,
  currentCID: string,
  mqAll: readonly MessageQueue[] | null | undefined,
  cidAll: readonly string[] | null | undefined,
): boolean {
  if (!currentCID) throw new ConfigError('currentCID is empty');
  if (!mqAll || mqAll.length === 0) throw new ConfigError('mqAll is null or mqAll empty');
  if (!cidAll || cidAll.length === 0) throw new ConfigError('cidAll is null or cidAll empty');
  if (!cidAll.includes(currentCID)) {
    // a rare path: the logger is derived here, so it follows setRootLogger()
    componentLogger('rebalance').info({ group: consumerGroup, currentCID, cidAll }, '[BUG] consumerId not in cidAll');
    return false;
  }
  return true;
}

/** Java's MessageQueue.toString(), the key AllocateMessageQueueConsistentHash hashes. */
export function messageQueueToString(mq: MessageQueue): string {
  return `MessageQueue [topic=${mq.topic}, brokerName=${mq.brokerName}, queueId=${mq.queueId}]`;
}

/** Java String.compareTo order for client ids (UTF-16 code units, as JS `<`). */
export function compareClientId(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}
