/**
 * NOTIFICATION (200054): whether a pop of the group would find messages on the topic (one queue or all, and the
 * group's pop retry topic); held up to pollTime until a message arrives when there are none. For an orderly consumer
 * (order=true) a queue blocked by its in-flight batch has nothing (ConsumerOrderInfoManager.checkBlock).
 *
 * @see org.apache.rocketmq.broker.processor.NotificationProcessor (5.3.3)
 */
import type { PopController } from './pop-controller';
import type { BrokerProcessor } from '../processor/broker-processor';
import type { RemotingContext } from '../../transport/processor';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { KeyBuilder } from '../../../protocol/message/extra-info-util';
import { Notification } from '../../../protocol/requests/notification';
import type { PopLongPollingService } from './pop-long-polling-service';
import type { ConsumerOrderInfoManager } from '../offset/consumer-order-info-manager';

/** The orderly part of a NOTIFICATION: the attempt whose batch does not block. */
interface OrderCheck {
  attemptId: string | undefined;
  topic: string;
}

export class NotificationProcessor implements BrokerProcessor {
  readonly requestCodes = [RequestCode.NOTIFICATION] as const;

  constructor(private readonly controller: PopController, private readonly polling: PopLongPollingService,
    private readonly orderInfo: ConsumerOrderInfoManager) {}

  processRequest(request: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand | null> {
    return Promise.resolve(this.#notify(request, ctx, true));
  }

  #hasMsg(group: string, topic: string, queueId: number, order: OrderCheck | null = null): boolean {
    const c = this.controller;
    const tc = c.topicConfigManager.selectTopicConfig(topic);
    if (!tc) return false;
    const queues = queueId < 0 ? [...Array(tc.readQueueNums).keys()] : [queueId];
    for (const q of queues) {
      if (order && this.orderInfo.checkBlock(order.attemptId, order.topic, group, q, 0)) continue;
      const max = c.messageStore.getMaxOffsetInQueue(topic, q);
      const committed = c.consumerOffsetManager.queryOffset(group, topic, q);
      const from = committed >= 0 ? committed : Math.max(0, c.messageStore.getMinOffsetInQueue(topic, q));
      if (max > from) return true;
    }
    return false;
  }

  #notify(request: RemotingCommand, ctx: RemotingContext, allowHold: boolean): RemotingCommand | null {
    const c = this.controller;
    const h = Notification.requestHeader.decode(request.extFields);
    const tc = c.topicConfigManager.selectTopicConfig(h.topic);
    if (!tc) return RemotingCommand.createResponse(request, ResponseCode.TOPIC_NOT_EXIST, `topic[${h.topic}] not exist, apply first please!`);
    if (h.queueId >= tc.readQueueNums) {
      return RemotingCommand.createResponse(request, ResponseCode.INVALID_PARAMETER,
        `queueId[${h.queueId}] is illegal, topic:[${h.topic}] topicConfig.readQueueNums:[${tc.readQueueNums}] consumer:[${ctx.remoteAddress}]`);
    }
    const retryTopic = KeyBuilder.buildPopRetryTopicV1(h.topic, h.consumerGroup);
    const order = h.order === true ? { attemptId: h.attemptId, topic: h.topic } : null;
    // As Java's hasMsgFromQueue, the block is checked for the retry topic's queues too, by the topic's queue of that id.
    const hasMsg = this.#hasMsg(h.consumerGroup, h.topic, h.queueId, order) || this.#hasMsg(h.consumerGroup, retryTopic, -1, order);
    let pollingFull = false;
    if (!hasMsg && allowHold && h.pollTime > 0) {
      const held = this.polling.hold({
        topics: [h.topic, retryTopic],
        group: h.consumerGroup,
        wake: () => { const r = this.#notify(request, ctx, false); if (r) ctx.writeResponse(r); },
      }, h.pollTime);
      if (held) return null;
      pollingFull = true;
    }
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, Notification.responseHeader.encode({ hasMsg, pollingFull }));
  }
}
