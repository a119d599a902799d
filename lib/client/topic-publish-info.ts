/**
 * The queues a producer may send a topic's messages to, and the round-robin choice among them.
 * It lives in lib/client (not lib/producer) because MQClientInstance builds it from the route.
 *
 * @see org.apache.rocketmq.client.impl.producer.TopicPublishInfo
 */
import { ResourceNotFoundError } from '../errors';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { isWriteable, type RouteQueues as TopicRouteData } from './route-types';
import { ThreadLocalIndex, javaAbs } from './thread-local-index';

export class TopicPublishInfo {
  orderTopic = false;
  haveTopicRouterInfo = false;
  messageQueueList: MessageQueue[] = [];
  sendWhichQueue: ThreadLocalIndex;
  topicRouteData: TopicRouteData | undefined;

  /** @param sendWhichQueue the round-robin counter (tests pass one with a known start). */
  constructor(sendWhichQueue: ThreadLocalIndex = new ThreadLocalIndex()) {
    this.sendWhichQueue = sendWhichQueue;
  }

  /** At least one queue. */
  ok(): boolean {
    return this.messageQueueList.length > 0;
  }

  /**
   * The next queue in round-robin order, skipping queues of `lastBrokerName` (the broker the previous attempt
   * failed on) for up to one full turn; if every queue is on that broker, the next queue anyway.
   */
  selectOneMessageQueue(lastBrokerName?: string | null): MessageQueue {
    if (lastBrokerName == null) {
      const pos = this.#pos(this.sendWhichQueue.incrementAndGet());
      return this.messageQueueList[pos];
    }
    for (let i = 0; i < this.messageQueueList.length; i++) {
      const mq = this.messageQueueList[this.#pos(this.sendWhichQueue.incrementAndGet())];
      if (mq.brokerName !== lastBrokerName) return mq;
    }
    return this.selectOneMessageQueue();
  }

  #pos(index: number): number {
    const pos = javaAbs(index) % this.messageQueueList.length;
    return pos < 0 ? 0 : pos;
  }

  /** The writeQueueNums of the first writable QueueData of `brokerName`, or -1. */
  getQueueIdByBroker(brokerName: string | null | undefined): number {
    // Java dereferences topicRouteData without a check; MQFaultStrategy catches the failure.
    if (!this.topicRouteData) throw new ResourceNotFoundError('TopicPublishInfo has no topicRouteData');
    for (const queueData of this.topicRouteData.queueDatas) {
      if (isWriteable(queueData.perm) && queueData.brokerName === brokerName) return queueData.writeQueueNums;
    }
    return -1;
  }

  toString(): string {
    const mqs = this.messageQueueList.map((mq) => `MessageQueue [topic=${mq.topic}, brokerName=${mq.brokerName}, queueId=${mq.queueId}]`);
    return `TopicPublishInfo [orderTopic=${this.orderTopic}, messageQueueList=[${mqs.join(', ')}], sendWhichQueue=${this.sendWhichQueue}, haveTopicRouterInfo=${this.haveTopicRouterInfo}]`;
  }
}
