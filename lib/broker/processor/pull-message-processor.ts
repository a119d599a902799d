/**
 * PULL_MESSAGE (11): reads a queue from an offset through the subscription's filter and answers the stored records
 * as they lie in the commit log; nothing there and the suspend flag set → the pull is held (long polling) and
 * answered when a matching message arrives or its time is up. Commits the consumer offset when flagged.
 *
 * @see org.apache.rocketmq.broker.processor.PullMessageProcessor
 */
import type { BrokerConfig } from '../broker-config';
import type { MessageStoreConfig } from '../../store/message-store-config';
import type { Logger } from '../../logger';
import type { TopicConfigManager } from '../topic/topic-config-manager';
import type { SubscriptionGroupManager } from '../subscription/subscription-group-manager';
import type { ConsumerManager } from '../client-manager/consumer-manager';
import type { ConsumerOffsetManager } from '../offset/consumer-offset-manager';
import type { DefaultMessageStore } from '../../store/message-store';
import type { PullRequestHoldService } from '../longpolling/pull-request-hold-service';
import type { BrokerStatsManager } from '../stats/broker-stats-manager';
import type { BrokerLatencyMetrics } from '../metrics/broker-metrics';
import type { BrokerProcessor } from './broker-processor';
import type { RemotingContext } from '../../transport/processor';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { MessageModel, type SubscriptionData } from '../../../protocol/body/heartbeat-data';
import { isReadable } from '../../../protocol/body/perm-name';
import { GetMessageStatus } from '../../store/store-status';
import type { MessageFilter } from '../../store/message-store';
import { layoutRecord } from '../../../protocol/message/message-decoder';
import { BrokerRole } from '../../store/message-store-config';
import { ExpressionMessageFilter, isTagType } from '../filter/message-filter';
import { FilterExpressionError } from '../filter/filter-expression-error';
import { PullSysFlag, buildSubscriptionData } from '../filter-api';
import { MixAll, TopicValidator } from '../topic/topic-validator';
import { PutMessageStatus } from '../../store/store-status';
import { MessageConst } from '../../../protocol/message/message-const';
import { propertiesToString } from '../../../protocol/message/properties';
import { javaStringHashCode } from '../../../protocol/message/java-hash';
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { encodeFastjson } from '../../../protocol/body/fastjson';
import { messageQueueBean } from '../../../protocol/body/body-util';
import { PullMessage } from '../../../protocol/requests/pull-message';

const FAQ = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';

/**
 * Puts the stored records in a pull response without copying them (they are views of the commit log's map, or
 * buffers of their own): records lying back to back in one buffer become one view, and the body is that view or the
 * views as a gathered body (`bodyParts`) the transport writes with one writev.
 */
export function setPullBody(response: RemotingCommand, slices: readonly Buffer[]): void {
  if (slices.length === 0) return;
  const runs = adjacentRuns(slices);
  if (runs.length === 1) response.body = runs[0];
  else response.setBodyParts(runs);
}

/** The slices with each run of them lying back to back in one ArrayBuffer joined into one view. */
function adjacentRuns(slices: readonly Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  let first = slices[0];
  let end = first.byteOffset + first.length;
  let joined = false;
  const close = (): void => {
    out.push(joined ? Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset) : first);
  };
  for (let i = 1; i < slices.length; i++) {
    const s = slices[i];
    if (s.buffer === first.buffer && s.byteOffset === end) {
      end += s.length;
      joined = true;
      continue;
    }
    close();
    first = s;
    end = s.byteOffset + s.length;
    joined = false;
  }
  close();
  return out;
}

/** What the pull processor uses of the broker (the controller in production, fakes in unit tests). */
export interface PullMessageController {
  readonly brokerConfig: BrokerConfig;
  readonly messageStoreConfig: Pick<MessageStoreConfig, 'brokerRole' | 'offsetCheckInSlave'>;
  readonly logger: Logger;
  /** The broker's own address (the pull-to-DLQ path stamps it on stored messages). */
  readonly storeHost: { address: string; port: number };
  readonly topicConfigManager: Pick<TopicConfigManager, 'selectTopicConfig'>;
  readonly subscriptionGroupManager: Pick<SubscriptionGroupManager, 'findSubscriptionGroupConfig'>;
  readonly consumerManager: Pick<ConsumerManager, 'getConsumerGroupInfo'>;
  readonly consumerOffsetManager: Pick<ConsumerOffsetManager, 'commitOffset'>;
  readonly messageStore: Pick<DefaultMessageStore, 'getMessage' | 'putMessage'>;
  readonly pullRequestHoldService: Pick<PullRequestHoldService, 'suspendPullRequest'>;
  readonly brokerStatsManager: Pick<BrokerStatsManager, 'incGroupGet' | 'incBrokerGetNums'>;
  readonly latencyMetrics: Pick<BrokerLatencyMetrics, 'get'>;
}

export class PullMessageProcessor implements BrokerProcessor {
  readonly requestCodes = [RequestCode.PULL_MESSAGE, RequestCode.LITE_PULL_MESSAGE] as const;

  constructor(private readonly controller: PullMessageController) {}

  processRequest(request: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand | null> {
    return this.pull(request, ctx, true);
  }

  /** A held pull woken by an arrival or its timeout: run again without suspension and write the answer. */
  executeRequestWhenWakeup(request: RemotingCommand, ctx: RemotingContext): void {
    this.pull(request, ctx, false).then(
      (response) => {
        if (response) ctx.writeResponse(response);
      },
      (err: unknown) => {
        this.controller.logger.error({ err, remoteAddr: ctx.remoteAddress }, 'execute pull request when wakeup failed');
        ctx.writeResponse(RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, String(err)));
      },
    );
  }

  /**
   * Stores the event in OFFSET_MOVED_EVENT (queue 0, tag and key the group, DELAY=0 as Java's setDelayTimeLevel(0)
   * leaves it, properties in Java's HashMap order), born and stored by the broker itself. Failures are logged only.
   */
  async generateOffsetMovedEvent(event: OffsetMovedEvent): Promise<void> {
    const c = this.controller;
    const host = { host: c.storeHost.address, port: c.storeHost.port };
    const g = event.consumerGroup;
    try {
      const r = await c.messageStore.putMessage({
        topic: TopicValidator.RMQ_SYS_OFFSET_MOVED_EVENT,
        queueId: 0,
        flag: 0,
        body: encodeOffsetMovedEvent(event),
        propertiesString: propertiesToString({ [MessageConst.PROPERTY_KEYS]: g, [MessageConst.PROPERTY_DELAY_TIME_LEVEL]: '0', [MessageConst.PROPERTY_TAGS]: g }),
        tagsCode: javaStringHashCode(g),
        bornTimestamp: Date.now(),
        bornHost: host,
        storeHost: host,
        sysFlag: 0,
        reconsumeTimes: 0,
        preparedTransactionOffset: 0,
      });
      if (r.putMessageStatus !== PutMessageStatus.PUT_OK) c.logger.warn({ event, status: r.putMessageStatus }, 'generateOffsetMovedEvent not stored');
    } catch (err) {
      c.logger.warn({ err, event }, 'generateOffsetMovedEvent Exception');
    }
  }

  async pull(request: RemotingCommand, ctx: RemotingContext, brokerAllowSuspend: boolean): Promise<RemotingCommand | null> {
    const c = this.controller;
    const bc = c.brokerConfig;
    const header = PullMessage.requestHeader.decode(request.extFields);
    const fail = (code: number, remark: string) => RemotingCommand.createResponse(request, code, remark);
    if (!isReadable(bc.brokerPermission)) return fail(ResponseCode.NO_PERMISSION, `the broker[${bc.brokerIP1}] pulling message is forbidden`);
    const sgc = c.subscriptionGroupManager.findSubscriptionGroupConfig(header.consumerGroup);
    if (!sgc) return fail(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, `subscription group [${header.consumerGroup}] does not exist, ${FAQ}`);
    if (!sgc.consumeEnable) return fail(ResponseCode.NO_PERMISSION, `subscription group no permission, ${header.consumerGroup}`);
    const hasSuspendFlag = (header.sysFlag & PullSysFlag.FLAG_SUSPEND) !== 0;
    const hasCommitOffsetFlag = (header.sysFlag & PullSysFlag.FLAG_COMMIT_OFFSET) !== 0;
    const hasSubscriptionFlag = (header.sysFlag & PullSysFlag.FLAG_SUBSCRIPTION) !== 0;
    const suspendTimeoutMillis = hasSuspendFlag ? header.suspendTimeoutMillis : 0;
    const topicConfig = c.topicConfigManager.selectTopicConfig(header.topic);
    if (!topicConfig) return fail(ResponseCode.TOPIC_NOT_EXIST, `topic[${header.topic}] not exist, apply first please! ${FAQ}`);
    if (!isReadable(topicConfig.perm)) return fail(ResponseCode.NO_PERMISSION, `the topic[${header.topic}] pulling message is forbidden`);
    if (header.queueId < 0 || header.queueId >= topicConfig.readQueueNums) {
      return fail(
        ResponseCode.SYSTEM_ERROR,
        `queueId[${header.queueId}] is illegal, topic:[${header.topic}] topicConfig.readQueueNums:[${topicConfig.readQueueNums}] consumer:[${ctx.remoteAddress}]`,
      );
    }
    let subscriptionData: SubscriptionData | undefined;
    if (hasSubscriptionFlag) {
      subscriptionData = buildSubscriptionData(header.topic, header.subscription, header.expressionType);
    } else {
      const groupInfo = c.consumerManager.getConsumerGroupInfo(header.consumerGroup);
      if (!groupInfo) return fail(ResponseCode.SUBSCRIPTION_NOT_EXIST, "the consumer's group info not exist" + FAQ);
      if (!sgc.consumeBroadcastEnable && groupInfo.messageModel === MessageModel.BROADCASTING) {
        return fail(ResponseCode.NO_PERMISSION, `the consumer group[${header.consumerGroup}] can not consume by broadcast way`);
      }
      subscriptionData = groupInfo.findSubscriptionData(header.topic);
      if (!subscriptionData) return fail(ResponseCode.SUBSCRIPTION_NOT_EXIST, "the consumer's subscription not exist" + FAQ);
      if (subscriptionData.subVersion < header.subVersion) {
        return fail(ResponseCode.SUBSCRIPTION_NOT_LATEST, "the consumer's subscription not latest");
      }
    }
    if (!isTagType(subscriptionData.expressionType) && !bc.enablePropertyFilter) {
      return fail(ResponseCode.SYSTEM_ERROR, `The broker does not support consumer to filter message by ${subscriptionData.expressionType}`);
    }
    let messageFilter: ExpressionMessageFilter;
    try {
      messageFilter = ExpressionMessageFilter.create(subscriptionData);
    } catch (err) {
      if (err instanceof FilterExpressionError) return fail(ResponseCode.SUBSCRIPTION_PARSE_FAILED, "parse the consumer's subscription failed");
      throw err;
    }

    const t0 = performance.now();
    const result = await c.messageStore.getMessage(
      header.consumerGroup, header.topic, header.queueId, header.queueOffset, header.maxMsgNums, header.maxMsgBytes, storeFilter(messageFilter),
    );
    c.latencyMetrics.get.observe((performance.now() - t0) / 1000);
    let code: number;
    switch (result.status) {
      case GetMessageStatus.FOUND: {
        code = ResponseCode.SUCCESS;
        const stats = c.brokerStatsManager;
        stats.incGroupGet(header.consumerGroup, header.topic, result.messages.length, result.bufferTotalSize);
        stats.incBrokerGetNums(result.messages.length);
        break;
      }
      case GetMessageStatus.MESSAGE_WAS_REMOVING:
      case GetMessageStatus.NO_MATCHED_MESSAGE:
        code = ResponseCode.PULL_RETRY_IMMEDIATELY;
        break;
      case GetMessageStatus.NO_MATCHED_LOGIC_QUEUE:
      case GetMessageStatus.NO_MESSAGE_IN_QUEUE:
        code = header.queueOffset !== 0 ? ResponseCode.PULL_OFFSET_MOVED : ResponseCode.PULL_NOT_FOUND;
        break;
      case GetMessageStatus.OFFSET_FOUND_NULL:
      case GetMessageStatus.OFFSET_OVERFLOW_ONE:
        code = ResponseCode.PULL_NOT_FOUND;
        break;
      case GetMessageStatus.OFFSET_OVERFLOW_BADLY:
      case GetMessageStatus.OFFSET_TOO_SMALL:
        code = ResponseCode.PULL_OFFSET_MOVED;
        break;
      default:
        code = ResponseCode.SYSTEM_ERROR;
    }
    const isSlave = c.messageStoreConfig.brokerRole === BrokerRole.SLAVE;
    // Java: with slaveReadEnable, a pull whose message is no longer in memory is sent to the slave
    // (whichBrokerWhenConsumeSlowly), else to the group's broker; without it, always to the master.
    let suggestWhichBrokerId = bc.slaveReadEnable
      ? (result.suggestPullingFromSlave ? sgc.whichBrokerWhenConsumeSlowly : sgc.brokerId)
      : MixAll.MASTER_ID;
    if (code === ResponseCode.PULL_OFFSET_MOVED && isSlave && !c.messageStoreConfig.offsetCheckInSlave) {
      suggestWhichBrokerId = sgc.brokerId;
      code = ResponseCode.PULL_RETRY_IMMEDIATELY;
      c.logger.warn(
        { topic: header.topic, group: header.consumerGroup, requestOffset: header.queueOffset, suggestBrokerId: suggestWhichBrokerId },
        'PULL_OFFSET_MOVED:none correction',
      );
    }
    const storeOffsetEnable = brokerAllowSuspend && hasCommitOffsetFlag && !isSlave;
    if (storeOffsetEnable) {
      c.consumerOffsetManager.commitOffset(ctx.remoteAddress, header.consumerGroup, header.topic, header.queueId, header.commitOffset);
    }
    if (code === ResponseCode.PULL_NOT_FOUND && brokerAllowSuspend && hasSuspendFlag) {
      const pollingTimeMills = bc.longPollingEnable ? suspendTimeoutMillis : bc.shortPollingTimeMills;
      c.pullRequestHoldService.suspendPullRequest(header.topic, header.queueId, {
        request,
        ctx,
        suspendTimestamp: Date.now(),
        timeoutMillis: pollingTimeMills,
        pullFromThisOffset: header.queueOffset,
        messageFilter,
      });
      return null;
    }
    if (code === ResponseCode.PULL_OFFSET_MOVED) {
      const event: OffsetMovedEvent = {
        consumerGroup: header.consumerGroup,
        messageQueue: { topic: header.topic, brokerName: bc.brokerName, queueId: header.queueId },
        offsetRequest: header.queueOffset,
        offsetNew: result.nextBeginOffset,
      };
      void this.generateOffsetMovedEvent(event);
      c.logger.warn(
        { topic: header.topic, group: header.consumerGroup, requestOffset: event.offsetRequest, newOffset: event.offsetNew, suggestBrokerId: suggestWhichBrokerId },
        'PULL_OFFSET_MOVED:correction offset',
      );
    }
    const extFields = PullMessage.responseHeader.encode({
      suggestWhichBrokerId,
      nextBeginOffset: result.nextBeginOffset,
      minOffset: result.minOffset,
      maxOffset: result.maxOffset,
    });
    // Java sets the store status as remark on every answer ("FOUND" included; see the 03 and 09 captures).
    const response = RemotingCommand.createResponse(request, code, getStatusRemark(result.status), extFields);
    if (code === ResponseCode.SUCCESS) setPullBody(response, result.messages);
    return response;
  }
}

/** @see org.apache.rocketmq.common.protocol.topic.OffsetMovedEvent */
export interface OffsetMovedEvent {
  consumerGroup: string;
  messageQueue: MessageQueue;
  offsetRequest: number;
  offsetNew: number;
}

/** The event's JSON body as fastjson writes it (fields sorted). */
export function encodeOffsetMovedEvent(e: OffsetMovedEvent): Buffer {
  return encodeFastjson({
    consumerGroup: e.consumerGroup, messageQueue: messageQueueBean(e.messageQueue), offsetNew: e.offsetNew, offsetRequest: e.offsetRequest,
  });
}

/** The store's filter view: tags code, then the record's properties (SQL92 subscriptions only). */
export function storeFilter(filter: ExpressionMessageFilter): MessageFilter {
  const sql = filter.sqlFilter !== null;
  return {
    isMatchedByConsumeQueue: (tagsCode) => filter.isMatchedByConsumeQueue(tagsCode),
    isMatchedByCommitLog: sql
      ? (record) => {
          const l = layoutRecord(record, 0);
          return filter.isMatchedByCommitLog(record.toString('utf8', l.propertiesPosition, l.propertiesPosition + l.propertiesLength));
        }
      : undefined,
  };
}

function getStatusRemark(status: string): string {
  return status;
}
