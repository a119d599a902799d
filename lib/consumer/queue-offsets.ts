/**
 * Broker-side queue offsets a consumer needs: where a newly owned queue starts (Java's
 * computePullFromWhereWithException, shared by the push and the lite pull consumer), and the min / max / by-time
 * offsets of a queue at its master broker.
 *
 * @see org.apache.rocketmq.client.impl.consumer.RebalancePushImpl#computePullFromWhereWithException
 * @see org.apache.rocketmq.client.impl.consumer.RebalanceLitePullImpl#computePullFromWhereWithException
 */
import { ConsumeFromWhere } from '../../protocol/body/heartbeat-data';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { GetMaxOffset, GetMinOffset, SearchOffset } from '../../protocol/requests/index';
import { call } from '../client/request-invoker';
import { MixAll } from '../client/mix-all';
import { BrokerNotFoundError } from '../errors';
import type { ConsumerClient } from './consumer-client';
import { type OffsetStore, ReadOffsetType } from './offset/offset-store';
import { parseConsumeTimestamp } from './consume-timestamp';

export class QueueOffsets {
  constructor(private readonly client: () => ConsumerClient, private readonly timeoutMillis: () => number) {}

  /** The master's address for `mq`, refreshing the route once when unknown. */
  async brokerAddr(mq: MessageQueue): Promise<string> {
    const client = this.client();
    let addr = client.findBrokerAddressInPublish(mq.brokerName);
    if (!addr) {
      await client.updateTopicRouteInfoFromNameServer(mq.topic);
      addr = client.findBrokerAddressInPublish(mq.brokerName);
    }
    if (!addr) throw new BrokerNotFoundError(mq.brokerName);
    return addr;
  }

  async brokerOffset(mq: MessageQueue, which: 'max' | 'min'): Promise<number> {
    const addr = await this.brokerAddr(mq);
    return call(this.client().api, addr, which === 'max' ? GetMaxOffset : GetMinOffset, { topic: mq.topic, queueId: mq.queueId }, this.timeoutMillis());
  }

  async searchOffset(mq: MessageQueue, timestamp: number): Promise<number> {
    const addr = await this.brokerAddr(mq);
    return call(this.client().api, addr, SearchOffset, { topic: mq.topic, queueId: mq.queueId, timestamp }, this.timeoutMillis());
  }

  /**
   * Where consumption of a newly owned queue starts: the stored offset when there is one; else by
   * consumeFromWhere (a retry topic starts at 0, or at its end for TIMESTAMP); -1 when the offset could not be read.
   */
  async computePullFromWhere(
    mq: MessageQueue,
    offsetStore: OffsetStore,
    readType: ReadOffsetType,
    consumeFromWhere: ConsumeFromWhere,
    consumeTimestamp: string,
  ): Promise<number> {
    const lastOffset = await offsetStore.readOffset(mq, readType);
    if (lastOffset >= 0) return lastOffset;
    if (lastOffset !== -1) return -1;
    const isRetry = mq.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX);
    switch (consumeFromWhere) {
      case ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET:
        return 0;
      case ConsumeFromWhere.CONSUME_FROM_TIMESTAMP:
        if (isRetry) return this.brokerOffset(mq, 'max');
        return this.searchOffset(mq, parseConsumeTimestamp(consumeTimestamp));
      default:
        return isRetry ? 0 : this.brokerOffset(mq, 'max');
    }
  }
}

export { ReadOffsetType };
