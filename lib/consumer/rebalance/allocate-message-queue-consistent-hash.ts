/**
 * Consistent hashing of `MessageQueue.toString()` onto a ring of the group's client ids (10 virtual nodes each
 * by default), so that a member joining or leaving moves few queues.
 *
 * @see org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { ConfigError } from '../../errors';
import { checkAllocateArguments, messageQueueToString, type AllocateMessageQueueStrategy } from './allocate-message-queue-strategy';
import { ConsistentHashRouter, type HashFunction, type Node } from './consistent-hash-router';

class ClientNode implements Node {
  constructor(readonly clientID: string) {}
  getKey(): string {
    return this.clientID;
  }
}

export class AllocateMessageQueueConsistentHash implements AllocateMessageQueueStrategy {
  readonly virtualNodeCnt: number;
  readonly #customHashFunction: HashFunction | undefined;

  constructor(virtualNodeCnt = 10, customHashFunction?: HashFunction) {
    if (virtualNodeCnt < 0) throw new ConfigError(`illegal virtualNodeCnt :${virtualNodeCnt}`);
    this.virtualNodeCnt = virtualNodeCnt;
    this.#customHashFunction = customHashFunction;
  }

  allocate(consumerGroup: string, currentCID: string, mqAll: readonly MessageQueue[], cidAll: readonly string[]): MessageQueue[] {
    if (!checkAllocateArguments(consumerGroup, currentCID, mqAll, cidAll)) return [];
    const router = new ConsistentHashRouter(cidAll.map((cid) => new ClientNode(cid)), this.virtualNodeCnt, this.#customHashFunction);
    return mqAll.filter((mq) => router.routeNode(messageQueueToString(mq))?.getKey() === currentCID);
  }

  getName(): string {
    return 'CONSISTENT_HASH';
  }
}
