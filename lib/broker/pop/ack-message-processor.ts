/**
 * ACK_MESSAGE (200051): a popped message is consumed; its checkpoint forgets it (an unknown or already revived
 * checkpoint is answered SUCCESS too, as Java appends the ack whatever it finds). CHANGE_MESSAGE_INVISIBLETIME
 * (200053): a new one-message checkpoint from now for invisibleTime, then the old one is acknowledged; the answer
 * carries the new popTime, which the client puts in the message's new extraInfo.
 *
 * A message of an orderly pop (reviveQid 999 in its extraInfo) has no checkpoint: its ack marks it in the queue's
 * order info and commits the group's offset to the first message of the batch not acknowledged (an ack of an older
 * pop, or below the committed offset, is answered SUCCESS and changes nothing; a message not in the batch is
 * MESSAGE_ILLEGAL), and when that ends the queue's block the group's held pops run again; its change of invisible
 * time sets the message's next visible time in the order info and answers the same popTime, the invisible time
 * counted from it, and reviveQid 999. Both wait for a pop reading the queue to finish (the queue lock).
 *
 * @see org.apache.rocketmq.broker.processor.AckMessageProcessor (5.3.3)
 * @see org.apache.rocketmq.broker.processor.ChangeInvisibleTimeProcessor (5.3.3)
 */
import type { PopController } from './pop-controller';
import type { BrokerProcessor } from '../processor/broker-processor';
import type { RemotingContext } from '../../transport/processor';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { type ChangeInvisibleTimeRequestHeader } from '../../../protocol/header/change-invisible-time-request-header';
import { ProtocolError } from '../../../protocol/errors';
import { type ExtraInfo, isOrderExtraInfo, parseExtraInfo } from '../../../protocol/message/extra-info-util';
import { AckMessage } from '../../../protocol/requests/ack-message';
import { ChangeInvisibleTime } from '../../../protocol/requests/change-invisible-time';
import type { PopCheckPointStore } from './pop-checkpoint-store';
import type { ConsumerOrderInfoManager } from '../offset/consumer-order-info-manager';
import type { PopLongPollingService } from './pop-long-polling-service';
import { QueueLockManager } from './queue-lock-manager';

export class AckMessageProcessor implements BrokerProcessor {
  readonly requestCodes = [RequestCode.ACK_MESSAGE, RequestCode.CHANGE_MESSAGE_INVISIBLETIME] as const;

  constructor(
    private readonly controller: PopController,
    private readonly checkPoints: PopCheckPointStore,
    private readonly orderInfo: ConsumerOrderInfoManager,
    private readonly queueLockManager: QueueLockManager,
    private readonly polling: PopLongPollingService,
  ) {}

  async processRequest(request: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand | null> {
    const change = request.code === RequestCode.CHANGE_MESSAGE_INVISIBLETIME;
    const h = change ? ChangeInvisibleTime.requestHeader.decode(request.extFields) : AckMessage.requestHeader.decode(request.extFields);
    const c = this.controller;
    const fail = (code: number, remark: string | null) => RemotingCommand.createResponse(request, code, remark);
    const tc = c.topicConfigManager.selectTopicConfig(h.topic);
    if (!tc) return fail(ResponseCode.TOPIC_NOT_EXIST, `topic[${h.topic}] not exist, apply first please!`);
    if (h.queueId >= tc.readQueueNums || h.queueId < 0) {
      return fail(ResponseCode.MESSAGE_ILLEGAL,
        `queueId[${h.queueId}] is illegal, topic:[${h.topic}] topicConfig.readQueueNums:[${tc.readQueueNums}] consumer:[${ctx.remoteAddress}]`);
    }
    const minOffset = c.messageStore.getMinOffsetInQueue(h.topic, h.queueId);
    const maxOffset = c.messageStore.getMaxOffsetInQueue(h.topic, h.queueId);
    if (h.offset < minOffset || h.offset > maxOffset || (change && h.offset === maxOffset)) {
      return fail(ResponseCode.NO_MESSAGE, `offset is illegal, key:${h.topic}@${h.queueId}, commit:${h.offset}, store:${minOffset}~${maxOffset}`);
    }
    let info: ExtraInfo;
    try {
      info = parseExtraInfo(h.extraInfo);
    } catch (err) {
      if (err instanceof ProtocolError) return fail(ResponseCode.MESSAGE_ILLEGAL, err.message);
      throw err;
    }
    if (isOrderExtraInfo(info)) {
      return change
        ? this.#changeInvisibleTimeForOrder(request, h as ChangeInvisibleTimeRequestHeader, info)
        : this.#ackOrderly(request, h.consumerGroup, h.topic, h.queueId, h.offset, info, ctx);
    }
    if (!change) {
      this.checkPoints.ack(h.consumerGroup, h.topic, h.queueId, info.ckQueueOffset, info.popTime, h.offset);
      return fail(ResponseCode.SUCCESS, null);
    }
    const invisibleTime = (h as ChangeInvisibleTimeRequestHeader).invisibleTime;
    // The new checkpoint first, then the ack of the old one (in the pop's millisecond the store keys them apart).
    const ck = this.checkPoints.add(h.consumerGroup, h.topic, h.queueId, h.offset, Date.now(), invisibleTime, info.reviveQid, [h.offset]);
    this.checkPoints.ack(h.consumerGroup, h.topic, h.queueId, info.ckQueueOffset, info.popTime, h.offset);
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null,
      ChangeInvisibleTime.responseHeader.encode({ popTime: ck.popTime, invisibleTime, reviveQid: info.reviveQid }));
  }

  /** AckMessageProcessor.ackOrderly. */
  async #ackOrderly(request: RemotingCommand, group: string, topic: string, queueId: number, ackOffset: number, info: ExtraInfo,
    ctx: RemotingContext): Promise<RemotingCommand> {
    const c = this.controller;
    const ok = () => RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null);
    if (ackOffset < c.consumerOffsetManager.queryOffset(group, topic, queueId)) return ok();
    await this.queueLockManager.whenFree(QueueLockManager.buildLockKey(topic, group, queueId));
    // From here to the answer nothing yields: no pop of the queue can interleave.
    const oldOffset = c.consumerOffsetManager.queryOffset(group, topic, queueId);
    if (ackOffset < oldOffset) return ok();
    const nextOffset = this.orderInfo.commitAndNext(topic, group, queueId, ackOffset, info.popTime);
    if (nextOffset > -1) {
      c.consumerOffsetManager.commitOffset(ctx.remoteAddress, group, topic, queueId, nextOffset);
      if (!this.orderInfo.checkBlock(null, topic, group, queueId, info.invisibleTime)) this.polling.notifyMessageArriving(topic, group);
    } else if (nextOffset === -1) {
      const remark = `offset is illegal, key:${topic}@${group}@${queueId}, old:${oldOffset}, commit:${ackOffset}, next:${nextOffset}, ${ctx.remoteAddress}`;
      c.logger.warn({ topic, group, queueId, oldOffset, ackOffset }, 'orderly ack of a message not in the batch');
      return RemotingCommand.createResponse(request, ResponseCode.MESSAGE_ILLEGAL, remark);
    }
    return ok();
  }

  /** ChangeInvisibleTimeProcessor.processChangeInvisibleTimeForOrder. */
  async #changeInvisibleTimeForOrder(request: RemotingCommand, h: ChangeInvisibleTimeRequestHeader, info: ExtraInfo): Promise<RemotingCommand> {
    const c = this.controller;
    // For an offset already committed Java answers popTime 0, invisibleTime 0, reviveQid 0 (its header's unset
    // primitives), from which a client builds a handle whose ack leaves the order info; the pop's own keep it orderly.
    // Either way nothing changes.
    const answer = (invisibleTime: number) => RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null,
      ChangeInvisibleTime.responseHeader.encode({ popTime: info.popTime, invisibleTime, reviveQid: info.reviveQid }));
    if (h.offset < c.consumerOffsetManager.queryOffset(h.consumerGroup, h.topic, h.queueId)) return answer(info.invisibleTime);
    await this.queueLockManager.whenFree(QueueLockManager.buildLockKey(h.topic, h.consumerGroup, h.queueId));
    if (h.offset < c.consumerOffsetManager.queryOffset(h.consumerGroup, h.topic, h.queueId)) return answer(info.invisibleTime);
    const nextVisibleTime = Date.now() + h.invisibleTime;
    this.orderInfo.updateNextVisibleTime(h.topic, h.consumerGroup, h.queueId, h.offset, info.popTime, nextVisibleTime);
    return answer(nextVisibleTime - info.popTime);
  }
}
