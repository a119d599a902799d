/**
 * Only the queues of brokers named `<idc>@<name>` whose idc is in `consumeridcs`, split in blocks of
 * floor(n / consumers), the remainder going one each to the first consumers.
 *
 * @see org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { checkAllocateArguments, type AllocateMessageQueueStrategy } from './allocate-message-queue-strategy';

export class AllocateMessageQueueByMachineRoom implements AllocateMessageQueueStrategy {
  consumeridcs: Set<string>;

  constructor(consumeridcs: Iterable<string> = []) {
    this.consumeridcs = new Set(consumeridcs);
  }

  allocate(consumerGroup: string, currentCID: string, mqAll: readonly MessageQueue[], cidAll: readonly string[]): MessageQueue[] {
    const result: MessageQueue[] = [];
    if (!checkAllocateArguments(consumerGroup, currentCID, mqAll, cidAll)) return result;
    const currentIndex = cidAll.indexOf(currentCID);
    if (currentIndex < 0) return result;
    const premqAll = mqAll.filter((mq) => {
      const temp = javaSplitAt(mq.brokerName);
      return temp.length === 2 && this.consumeridcs.has(temp[0]);
    });
    const mod = Math.trunc(premqAll.length / cidAll.length);
    const rem = premqAll.length % cidAll.length;
    const startIndex = mod * currentIndex;
    for (let i = startIndex; i < startIndex + mod; i++) result.push(premqAll[i]);
    if (rem > currentIndex) result.push(premqAll[currentIndex + mod * cidAll.length]);
    return result;
  }

  getName(): string {
    return 'MACHINE_ROOM';
  }

  getConsumeridcs(): Set<string> {
    return this.consumeridcs;
  }

  setConsumeridcs(consumeridcs: Iterable<string>): void {
    this.consumeridcs = new Set(consumeridcs);
  }
}

/** Java's `brokerName.split("@")`: trailing empty strings dropped ("a@" → ["a"], "@" → []). */
function javaSplitAt(s: string): string[] {
  const parts = s.split('@');
  while (parts.length > 0 && parts[parts.length - 1] === '' && s.length > 0) parts.pop();
  return parts;
}
