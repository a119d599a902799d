/**
 * Queues of a machine room go to the consumers in the same room (divided by the wrapped strategy); queues of a
 * room with no live consumer are divided among all consumers.
 *
 * @see org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby
 */
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { ConfigError } from '../../errors';
import { checkAllocateArguments, compareClientId, type AllocateMessageQueueStrategy } from './allocate-message-queue-strategy';

/** Which machine room a broker queue or a consumer is deployed in. Must return a non-empty string. */
export interface MachineRoomResolver {
  brokerDeployIn(messageQueue: MessageQueue): string | null | undefined;
  consumerDeployIn(clientID: string): string | null | undefined;
}

export class AllocateMachineRoomNearby implements AllocateMessageQueueStrategy {
  readonly #strategy: AllocateMessageQueueStrategy;
  readonly #resolver: MachineRoomResolver;

  constructor(allocateMessageQueueStrategy: AllocateMessageQueueStrategy, machineRoomResolver: MachineRoomResolver) {
    if (allocateMessageQueueStrategy == null) throw new ConfigError('allocateMessageQueueStrategy is null');
    if (machineRoomResolver == null) throw new ConfigError('machineRoomResolver is null');
    this.#strategy = allocateMessageQueueStrategy;
    this.#resolver = machineRoomResolver;
  }

  allocate(consumerGroup: string, currentCID: string, mqAll: readonly MessageQueue[], cidAll: readonly string[]): MessageQueue[] {
    if (!checkAllocateArguments(consumerGroup, currentCID, mqAll, cidAll)) return [];

    // Java groups into TreeMaps: rooms are visited in String.compareTo order.
    const mr2Mq = new Map<string, MessageQueue[]>();
    for (const mq of mqAll) {
      const room = this.#resolver.brokerDeployIn(mq);
      if (!room) throw new ConfigError(`Machine room is null for mq ${JSON.stringify(mq)}`);
      let list = mr2Mq.get(room);
      if (!list) mr2Mq.set(room, (list = []));
      list.push(mq);
    }
    const mr2c = new Map<string, string[]>();
    for (const cid of cidAll) {
      const room = this.#resolver.consumerDeployIn(cid);
      if (!room) throw new ConfigError(`Machine room is null for consumer id ${cid}`);
      let list = mr2c.get(room);
      if (!list) mr2c.set(room, (list = []));
      list.push(cid);
    }

    const results: MessageQueue[] = [];
    const currentMachineRoom = this.#resolver.consumerDeployIn(currentCID) ?? '';
    const mqInThisMachineRoom = mr2Mq.get(currentMachineRoom);
    mr2Mq.delete(currentMachineRoom);
    const consumerInThisMachineRoom = mr2c.get(currentMachineRoom) ?? [];
    if (mqInThisMachineRoom && mqInThisMachineRoom.length > 0) {
      results.push(...this.#strategy.allocate(consumerGroup, currentCID, mqInThisMachineRoom, consumerInThisMachineRoom));
    }
    for (const room of [...mr2Mq.keys()].sort(compareClientId)) {
      if (!mr2c.has(room)) results.push(...this.#strategy.allocate(consumerGroup, currentCID, mr2Mq.get(room)!, cidAll));
    }
    return results;
  }

  getName(): string {
    return `MACHINE_ROOM_NEARBY-${this.#strategy.getName()}`;
  }
}
