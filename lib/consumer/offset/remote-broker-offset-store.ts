/**
 * Offsets kept by the broker (clustering): QUERY_CONSUMER_OFFSET on first use, UPDATE_CONSUMER_OFFSET when
 * persisted (every persistConsumerOffsetInterval, when a queue is dropped, at shutdown).
 *
 * @see org.apache.rocketmq.client.consumer.store.RemoteBrokerOffsetStore
 */
import { ResponseCode } from '../../../protocol/code/response-code';
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { QueryConsumerOffset, UpdateConsumerOffset } from '../../../protocol/requests/index';
import { call, callOneway } from '../../client/request-invoker';
import { BrokerNotFoundError, MQBrokerError } from '../../errors';
import { type Logger, componentLogger } from '../../logger';
import type { ConsumerClient } from '../consumer-client';
import { type OffsetStore, OffsetTable, ReadOffsetType } from './offset-store';

const MASTER_ID = 0;

export class RemoteBrokerOffsetStore implements OffsetStore {
  readonly #table = new OffsetTable();
  readonly #log: Logger;

  constructor(private readonly client: ConsumerClient, private readonly groupName: string, private readonly timeoutMillis = 5_000, logger?: Logger) {
    this.#log = componentLogger('offset-store', logger);
  }

  async load(): Promise<void> {
    // nothing local to load
  }

  updateOffset(mq: MessageQueue, offset: number, increaseOnly: boolean): void {
    this.#table.update(mq, offset, increaseOnly);
  }

  async readOffset(mq: MessageQueue, type: ReadOffsetType): Promise<number> {
    if (type === ReadOffsetType.MEMORY_FIRST_THEN_STORE || type === ReadOffsetType.READ_FROM_MEMORY) {
      const off = this.#table.get(mq);
      if (off !== undefined) return off;
      if (type === ReadOffsetType.READ_FROM_MEMORY) return -1;
    }
    try {
      const brokerOffset = await this.fetchConsumeOffsetFromBroker(mq);
      this.#table.update(mq, brokerOffset, false);
      return brokerOffset;
    } catch (err) {
      if (err instanceof MQBrokerError && err.responseCode === ResponseCode.QUERY_NOT_FOUND) return -1;
      this.#log.warn({ err, group: this.groupName, topic: mq.topic, queueId: mq.queueId }, 'fetchConsumeOffsetFromBroker failed');
      return -2;
    }
  }

  async persistAll(mqs: readonly MessageQueue[]): Promise<void> {
    if (mqs.length === 0) return;
    const wanted = new Set(mqs.map(OffsetTable.key));
    const unused: MessageQueue[] = [];
    const work: Promise<void>[] = [];
    for (const [k, { mq, offset }] of this.#table.map) {
      if (wanted.has(k)) {
        work.push(this.updateConsumeOffsetToBroker(mq, offset, false).catch((err: unknown) => {
          this.#log.error({ err, group: this.groupName, topic: mq.topic, queueId: mq.queueId }, 'updateConsumeOffsetToBroker failed');
        }));
      } else {
        unused.push(mq);
      }
    }
    await Promise.all(work);
    for (const mq of unused) {
      this.#table.delete(mq);
      this.#log.info({ group: this.groupName, topic: mq.topic, queueId: mq.queueId }, 'remove unused mq');
    }
  }

  async persist(mq: MessageQueue): Promise<void> {
    const offset = this.#table.get(mq);
    if (offset === undefined) return;
    try {
      await this.updateConsumeOffsetToBroker(mq, offset, true);
    } catch (err) {
      this.#log.error({ err, group: this.groupName, topic: mq.topic, queueId: mq.queueId }, 'updateConsumeOffsetToBroker failed');
    }
  }

  removeOffset(mq: MessageQueue): void {
    this.#table.delete(mq);
  }

  cloneOffsetTable(topic?: string): Array<[MessageQueue, number]> {
    return this.#table.clone(topic);
  }

  async updateConsumeOffsetToBroker(mq: MessageQueue, offset: number, isOneway: boolean): Promise<void> {
    const addr = await this.#masterAddr(mq);
    // bname as Java 4.9.8 sends it (RpcRequestHeader), the queue's broker
    const header = { consumerGroup: this.groupName, topic: mq.topic, queueId: mq.queueId, commitOffset: offset, bname: mq.brokerName };
    if (isOneway) await callOneway(this.client.api, addr, UpdateConsumerOffset, header, this.timeoutMillis);
    else await call(this.client.api, addr, UpdateConsumerOffset, header, this.timeoutMillis);
  }

  private async fetchConsumeOffsetFromBroker(mq: MessageQueue): Promise<number> {
    const addr = await this.#masterAddr(mq);
    return call(this.client.api, addr, QueryConsumerOffset, { consumerGroup: this.groupName, topic: mq.topic, queueId: mq.queueId, bname: mq.brokerName }, this.timeoutMillis);
  }

  /**
   * The master, else (after a route refresh) any broker of the group: with the master gone, offsets are read from
   * and written to a slave, as Java's RemoteBrokerOffsetStore (second lookup with onlyThisBroker=false).
   */
  async #masterAddr(mq: MessageQueue): Promise<string> {
    let found = this.client.findBrokerAddressInSubscribe(mq.brokerName, MASTER_ID, true);
    if (!found) {
      await this.client.updateTopicRouteInfoFromNameServer(mq.topic);
      found = this.client.findBrokerAddressInSubscribe(mq.brokerName, MASTER_ID, false);
    }
    if (!found) throw new BrokerNotFoundError(mq.brokerName);
    return found.brokerAddr;
  }
}
