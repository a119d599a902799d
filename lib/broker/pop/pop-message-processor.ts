/**
 * POP_MESSAGE (200050): pops up to maxMsgNums messages from one queue or every queue of a topic (queueId -1),
 * from the group's pop offset on, and from the group's pop retry topic (`%RETRY%<group>_<topic>`, where the revive
 * service puts what was not acknowledged in time: first with popFromRetryProbability %, else after the topic when
 * the pop is not full). Each queue's messages get a checkpoint (PopCheckPointStore) and the pop offset moves past
 * them; nothing found and pollTime > 0: the request is held until a message arrives or the poll time is up
 * (then POLLING_TIMEOUT). Messages from the retry topic are answered re-encoded under the requested topic with
 * their POP_CK property set, as Java does when popResponseReturnActualRetryTopic=false (its default).
 *
 * Orderly pops (order=true, FIFO consumer groups) read no retry topic and write no checkpoint: a queue whose last
 * orderly batch still has a message in flight (neither acknowledged nor past its invisible time) is skipped unless the
 * pop repeats that batch's attemptId; a queue popped gets its batch recorded in the ConsumerOrderInfoManager (the
 * answer's orderCountInfo carries each message's times delivered before, which the client makes its reconsumeTimes)
 * and the group's offset stays at the batch's start, so what is not acknowledged in time is popped again, in order.
 * The reviveQid of an orderly answer is 999 (KeyBuilder.POP_ORDER_REVIVE_QUEUE), which routes its ack and change of
 * invisible time to the order info.
 *
 * @see org.apache.rocketmq.broker.processor.PopMessageProcessor (5.3.3)
 */
import type { PopController } from './pop-controller';
import type { BrokerProcessor } from '../processor/broker-processor';
import { requesterActive, type RemotingContext } from '../../transport/processor';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { ConsumeInitMode, type PopMessageRequestHeader } from '../../../protocol/header/pop-message-request-header';
import { isReadable } from '../../../protocol/body/perm-name';
import { MessageConst } from '../../../protocol/message/message-const';
import { decodeMessage, encodeStoredMessage } from '../../../protocol/message/message-decoder';
import { PopMessage } from '../../../protocol/requests/pop-message';
import {
  KeyBuilder, POP_ORDER_REVIVE_QUEUE, appendMsgOffsetInfo, appendStartOffsetInfo, buildExtraInfo,
} from '../../../protocol/message/extra-info-util';
import { GetMessageStatus } from '../../store/store-status';
import { ExpressionMessageFilter, isTagType } from '../filter/message-filter';
import { FilterExpressionError } from '../filter/filter-expression-error';
import { buildSubscriptionData } from '../filter-api';
import { setPullBody, storeFilter } from '../processor/pull-message-processor';
import type { PopCheckPointStore } from './pop-checkpoint-store';
import type { PopLongPollingService } from './pop-long-polling-service';
import { QueueLockManager } from './queue-lock-manager';
import type { ConsumerOrderInfoManager } from '../offset/consumer-order-info-manager';

/** Java BrokerConfig defaults the POP path uses. */
export const POP_DEFAULTS = Object.freeze({
  /** % of pops that read the retry topic first. */
  popFromRetryProbability: 20,
  /** Revive queues a checkpoint is spread over (reviveQid in extraInfo). */
  reviveQueueNum: 8,
  maxPopPollingSize: 100_000,
  /** The most messages one pop may ask for. */
  maxPopMsgNums: 32,
});

interface PopState {
  readonly header: PopMessageRequestHeader;
  readonly popTime: number;
  readonly reviveQid: number;
  readonly filter: ExpressionMessageFilter | null;
  readonly records: Buffer[];
  startOffsetInfo: string;
  msgOffsetInfo: string;
  /** Orderly pops: per message and per queue, the times delivered before. */
  orderCountInfo: string;
  restNum: number;
}

export class PopMessageProcessor implements BrokerProcessor {
  readonly requestCodes = [RequestCode.POP_MESSAGE] as const;
  #ckCounter = 0;

  constructor(
    private readonly controller: PopController,
    private readonly checkPoints: PopCheckPointStore,
    private readonly polling: PopLongPollingService,
    private readonly orderInfo: ConsumerOrderInfoManager,
    readonly queueLockManager: QueueLockManager = new QueueLockManager(),
  ) {}

  /**
   * Wakes the group's held pops of `topic` when the queue has messages past the group's offset (an orderly queue's
   * block ended). Java's notifyLongPollingRequestIfNeed.
   */
  notifyLongPollingRequestIfNeed(topic: string, group: string, queueId: number): void {
    const c = this.controller;
    if (c.messageStore.getMaxOffsetInQueue(topic, queueId) > c.consumerOffsetManager.queryOffset(group, topic, queueId)) {
      this.polling.notifyMessageArriving(topic, group);
    }
  }

  processRequest(request: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand | null> {
    return this.#pop(request, ctx, true);
  }

  async #pop(request: RemotingCommand, ctx: RemotingContext, allowHold: boolean): Promise<RemotingCommand | null> {
    const c = this.controller;
    const bc = c.brokerConfig;
    const header = PopMessage.requestHeader.decode(request.extFields);
    const fail = (code: number, remark: string) => RemotingCommand.createResponse(request, code, remark, emptyHeader());
    if (allowHold && Date.now() - header.bornTime - header.pollTime > 500) {
      return fail(ResponseCode.POLLING_TIMEOUT, `the broker[${bc.brokerIP1}] pop message is timeout too much`);
    }
    if (!isReadable(bc.brokerPermission)) return fail(ResponseCode.NO_PERMISSION, `the broker[${bc.brokerIP1}] pop message is forbidden`);
    if (header.maxMsgNums > POP_DEFAULTS.maxPopMsgNums) {
      return fail(ResponseCode.INVALID_PARAMETER, `the broker[${bc.brokerIP1}] pop message's num is greater than 32`);
    }
    const topicConfig = c.topicConfigManager.selectTopicConfig(header.topic);
    if (!topicConfig) return fail(ResponseCode.TOPIC_NOT_EXIST, `topic[${header.topic}] not exist, apply first please!`);
    if (!isReadable(topicConfig.perm)) return fail(ResponseCode.NO_PERMISSION, `the topic[${header.topic}] peeking message is forbidden`);
    if (header.queueId >= topicConfig.readQueueNums) {
      return fail(ResponseCode.INVALID_PARAMETER,
        `queueId[${header.queueId}] is illegal, topic:[${header.topic}] topicConfig.readQueueNums:[${topicConfig.readQueueNums}] consumer:[${ctx.remoteAddress}]`);
    }
    const sgc = c.subscriptionGroupManager.findSubscriptionGroupConfig(header.consumerGroup);
    if (!sgc) return fail(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, `subscription group [${header.consumerGroup}] does not exist`);
    if (!sgc.consumeEnable) return fail(ResponseCode.NO_PERMISSION, `subscription group no permission, ${header.consumerGroup}`);
    let filter: ExpressionMessageFilter | null = null;
    if (header.exp) {
      const sd = buildSubscriptionData(header.topic, header.exp, header.expType);
      if (!isTagType(sd.expressionType) && !bc.enablePropertyFilter) {
        return fail(ResponseCode.SYSTEM_ERROR, `The broker does not support consumer to filter message by ${sd.expressionType}`);
      }
      try {
        filter = ExpressionMessageFilter.create(sd);
      } catch (err) {
        if (err instanceof FilterExpressionError) return fail(ResponseCode.SUBSCRIPTION_PARSE_FAILED, 'parse the consumer\'s subscription failed');
        throw err;
      }
    }

    const order = header.order === true;
    const s: PopState = {
      header, popTime: Date.now(), reviveQid: order ? POP_ORDER_REVIVE_QUEUE : this.#ckCounter++ % POP_DEFAULTS.reviveQueueNum, filter,
      records: [], startOffsetInfo: '', msgOffsetInfo: '', orderCountInfo: '', restNum: 0,
    };
    const randomQ = Math.floor(Math.random() * 100);
    const needRetry = randomQ < POP_DEFAULTS.popFromRetryProbability;
    const retryTopic = KeyBuilder.buildPopRetryTopicV1(header.topic, header.consumerGroup);
    // An orderly pop reads no retry topic: its redeliveries are the queue's own messages, popped again.
    if (needRetry && !order) await this.#popFromTopic(s, retryTopic, true, randomQ, ctx);
    if (header.queueId < 0) await this.#popFromTopic(s, header.topic, false, randomQ, ctx);
    else await this.#popFromQueue(s, header.topic, false, header.queueId, ctx);
    if (!needRetry && !order && s.records.length < header.maxMsgNums) await this.#popFromTopic(s, retryTopic, true, randomQ, ctx);

    let code: number = ResponseCode.SUCCESS;
    let remark = 'FOUND';
    if (s.records.length === 0) {
      if (allowHold && header.pollTime > 0) {
        const held = this.polling.hold({
          topics: [header.topic, retryTopic],
          group: header.consumerGroup,
          wake: () => {
            // Its requester gone (connection closed, call cancelled), a woken request pops nothing: what it would pop
            // would stay invisible for a consumer that cannot take it. It is answered (empty) all the same, so an
            // in-process caller settles.
            if (!requesterActive(ctx)) {
              ctx.writeResponse(fail(ResponseCode.POLLING_TIMEOUT, 'NO_MESSAGE_IN_QUEUE'));
              return;
            }
            this.#pop(request, ctx, false).then(
              (r) => { if (r) ctx.writeResponse(r); },
              (err: unknown) => {
                c.logger.error({ err, remoteAddr: ctx.remoteAddress }, 'pop request when wakeup failed');
                ctx.writeResponse(RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, String(err)));
              },
            );
          },
        }, header.pollTime);
        if (held) return null;
        code = ResponseCode.POLLING_FULL;
      } else {
        code = ResponseCode.POLLING_TIMEOUT;
      }
      remark = 'NO_MESSAGE_IN_QUEUE';
    }
    const response = RemotingCommand.createResponse(request, code, remark, PopMessage.responseHeader.encode({
      popTime: s.popTime,
      invisibleTime: header.invisibleTime,
      reviveQid: s.reviveQid,
      restNum: s.restNum,
      startOffsetInfo: s.startOffsetInfo,
      msgOffsetInfo: s.msgOffsetInfo,
      ...(order ? { orderCountInfo: s.orderCountInfo } : {}),
    }));
    if (code === ResponseCode.SUCCESS) {
      setPullBody(response, s.records);
      c.brokerStatsManager.incGroupGet(header.consumerGroup, header.topic, s.records.length, s.records.reduce((n, b) => n + b.length, 0));
      c.brokerStatsManager.incBrokerGetNums(s.records.length);
    }
    return response;
  }

  async #popFromTopic(s: PopState, topic: string, isRetry: boolean, randomQ: number, ctx: RemotingContext): Promise<void> {
    const tc = this.controller.topicConfigManager.selectTopicConfig(topic);
    if (!tc) return;
    for (let i = 0; i < tc.readQueueNums; i++) await this.#popFromQueue(s, topic, isRetry, (randomQ + i) % tc.readQueueNums, ctx);
  }

  /** The group's pop offset of a queue; a queue never popped starts where initMode says (and that start is committed). */
  #popOffset(topic: string, group: string, queueId: number, initMode: number): number {
    const c = this.controller;
    const committed = c.consumerOffsetManager.queryOffset(group, topic, queueId);
    if (committed >= 0) return committed;
    let offset: number;
    if (initMode === ConsumeInitMode.MIN || topic.startsWith('%RETRY%')) {
      offset = Math.max(0, c.messageStore.getMinOffsetInQueue(topic, queueId));
    } else if (c.messageStore.getMinOffsetInQueue(topic, queueId) <= 0) {
      // Java's initPopOffsetByCheckMsgInMem (default true): a queue still holding its first message starts at 0.
      offset = 0;
    } else {
      offset = Math.max(0, c.messageStore.getMaxOffsetInQueue(topic, queueId) - 1);
    }
    c.consumerOffsetManager.commitOffset('getPopOffset', group, topic, queueId, offset);
    return offset;
  }

  async #popFromQueue(s: PopState, topic: string, isRetry: boolean, queueId: number, ctx: RemotingContext): Promise<void> {
    const c = this.controller;
    const h = s.header;
    const group = h.consumerGroup;
    const order = h.order === true;
    const lockKey = QueueLockManager.buildLockKey(topic, group, queueId);
    const rest = () => Math.max(0, c.messageStore.getMaxOffsetInQueue(topic, queueId) - this.#popOffset(topic, group, queueId, h.initMode));
    if (!this.queueLockManager.tryLock(lockKey)) {
      // An orderly pop does not count a locked queue's backlog (it would wake held pops for nothing).
      if (!order) s.restNum += rest();
      return;
    }
    try {
      // The backlog of a blocked orderly queue is not counted either: its ack wakes the held pops.
      if (order && this.orderInfo.checkBlock(h.attemptId, topic, group, queueId, h.invisibleTime)) return;
      if (s.records.length >= h.maxMsgNums) {
        s.restNum += rest();
        return;
      }
      let offset = this.#popOffset(topic, group, queueId, h.initMode);
      const filter = s.filter ? storeFilter(s.filter) : null;
      let result = await c.messageStore.getMessage(group, topic, queueId, offset, h.maxMsgNums - s.records.length, undefined, filter);
      if (result.status === GetMessageStatus.OFFSET_TOO_SMALL || result.status === GetMessageStatus.OFFSET_OVERFLOW_BADLY
        || result.status === GetMessageStatus.OFFSET_FOUND_NULL) {
        c.consumerOffsetManager.commitOffset(ctx.remoteAddress, group, topic, queueId, result.nextBeginOffset);
        offset = result.nextBeginOffset;
        result = await c.messageStore.getMessage(group, topic, queueId, offset, h.maxMsgNums - s.records.length, undefined, filter);
      }
      if (result.messages.length > 0) {
        if (order) {
          // The batch is the queue's order info; the offset stays at its start until acknowledgements move it.
          s.orderCountInfo = this.orderInfo.update(h.attemptId ?? null, topic, group, queueId, s.popTime, h.invisibleTime,
            result.messageQueueOffsets, s.orderCountInfo);
          c.consumerOffsetManager.commitOffset(ctx.remoteAddress, group, topic, queueId, offset);
        } else {
          this.checkPoints.add(group, topic, queueId, offset, s.popTime, h.invisibleTime, s.reviveQid, result.messageQueueOffsets);
          c.consumerOffsetManager.commitOffset(ctx.remoteAddress, group, topic, queueId, result.nextBeginOffset);
        }
        s.startOffsetInfo = appendStartOffsetInfo(s.startOffsetInfo, topic, queueId, offset);
        s.msgOffsetInfo = appendMsgOffsetInfo(s.msgOffsetInfo, topic, queueId, result.messageQueueOffsets);
        const brokerName = c.brokerConfig.brokerName;
        for (const rec of result.messages) {
          if (!isRetry) {
            s.records.push(rec);
            continue;
          }
          // Answered under the requested topic with its checkpoint, as Java's default (popResponseReturnActualRetryTopic=false).
          const m = decodeMessage(rec, 0, { decompressBody: false, clientMsgId: false });
          const props = { ...m.properties };
          if (props[MessageConst.PROPERTY_POP_CK] === undefined) {
            props[MessageConst.PROPERTY_POP_CK] = buildExtraInfo(offset, s.popTime, h.invisibleTime, s.reviveQid, topic, brokerName, m.queueId, m.queueOffset);
          }
          s.records.push(encodeStoredMessage({
            topic: h.topic, flag: m.flag, properties: props, body: m.body, queueId: m.queueId, queueOffset: m.queueOffset,
            commitLogOffset: m.commitLogOffset, sysFlag: m.sysFlag, bornTimestamp: m.bornTimestamp, bornHost: m.bornHost,
            storeTimestamp: m.storeTimestamp, storeHost: m.storeHost, reconsumeTimes: m.reconsumeTimes,
            preparedTransactionOffset: m.preparedTransactionOffset, bodyCRC: m.bodyCRC,
          }));
        }
      } else if (result.nextBeginOffset > offset && (result.status === GetMessageStatus.NO_MATCHED_MESSAGE
        || result.status === GetMessageStatus.MESSAGE_WAS_REMOVING || result.status === GetMessageStatus.OFFSET_FOUND_NULL)) {
        // Nothing matched up to nextBeginOffset: nothing there to redeliver either.
        c.consumerOffsetManager.commitOffset(ctx.remoteAddress, group, topic, queueId, result.nextBeginOffset);
      }
      s.restNum += Math.max(0, result.maxOffset - result.nextBeginOffset);
    } finally {
      this.queueLockManager.unLock(lockKey);
    }
  }
}

/** The response header of an answer without messages (Java writes its primitive fields as 0). */
function emptyHeader() {
  return PopMessage.responseHeader.encode({ popTime: 0, invisibleTime: 0, reviveQid: 0, restNum: 0 });
}
