/**
 * ACK_MESSAGE (200051): a popped message is consumed; its checkpoint forgets it (an unknown or already revived
 * checkpoint is answered SUCCESS too, as Java appends the ack whatever it finds). CHANGE_MESSAGE_INVISIBLETIME
 * (200053): a new one-message checkpoint from now for invisibleTime, then the old one is acknowledged; the answer
 * carries the new popTime, which the client puts in the message's new extraInfo.
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
import { type ExtraInfo, parseExtraInfo } from '../../../protocol/message/extra-info-util';
import { AckMessage } from '../../../protocol/requests/ack-message';
import { ChangeInvisibleTime } from '../../../protocol/requests/change-invisible-time';
import type { PopCheckPointStore } from './pop-checkpoint-store';

export class AckMessageProcessor implements BrokerProcessor {
  readonly requestCodes = [RequestCode.ACK_MESSAGE, RequestCode.CHANGE_MESSAGE_INVISIBLETIME] as const;

  constructor(private readonly controller: PopController, private readonly checkPoints: PopCheckPointStore) {}

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
}
