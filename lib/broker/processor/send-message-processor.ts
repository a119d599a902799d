/**
 * SEND_MESSAGE (10), SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320): checks the topic (auto-creating it from the
 * default topic), the queue id, retry/DLQ re-routing of `%RETRY%` sends, and stores the message, answering with the
 * offset msgId, queue id and queue offset and the store status mapped to Java's response codes.
 *
 * A prepared transaction message (TRAN_MSG=true) goes to the transaction service, which stores it as a half
 * message in RMQ_SYS_TRANS_HALF_TOPIC (refused with NO_PERMISSION when rejectTransactionMessage is set).
 *
 * @see org.apache.rocketmq.broker.processor.SendMessageProcessor
 * @see org.apache.rocketmq.broker.processor.AbstractSendMessageProcessor
 */
import type { BrokerConfig } from '../broker-config';
import type { MessageStoreConfig } from '../../store/message-store-config';
import type { Logger } from '../../logger';
import type { TopicConfigManager } from '../topic/topic-config-manager';
import type { SubscriptionGroupManager } from '../subscription/subscription-group-manager';
import type { DefaultMessageStore } from '../../store/message-store';
import type { ScheduleMessageService } from '../schedule/schedule-message-service';
import type { TransactionalMessageService } from '../transaction/transactional-message-service';
import type { BrokerStatsManager } from '../stats/broker-stats-manager';
import type { BrokerLatencyMetrics } from '../metrics/broker-metrics';
import type { BrokerProcessor } from './broker-processor';
import type { RemotingContext } from '../../transport/processor';
import { parseAddress } from '../../transport/remoting-client';
import { RemotingCommand, type ExtFields } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import type { SendMessageRequestHeader } from '../../../protocol/header/send-message-request-header';
import { fromSendMessageRequestHeaderV2 } from '../../../protocol/header/send-message-request-header-v2';
import { SendMessage, SendMessageV2 } from '../../../protocol/requests/send-message';
import { MessageConst } from '../../../protocol/message/message-const';
import { NAME_VALUE_SEPARATOR, PROPERTY_SEPARATOR, findProperty, removeProperty, stringToProperties } from '../../../protocol/message/properties';
import { MessageSysFlag } from '../../../protocol/message/sys-flag';
import { PermName, isWriteable } from '../../../protocol/body/perm-name';
import { TopicFilterType } from '../../../protocol/body/topic-filter-type';
import { buildTopicSysFlag } from '../../../protocol/body/topic-sys-flag';
import type { TopicConfig } from '../../../protocol/body/topic-config';
import { PutMessageStatus, type PutMessageResult } from '../../store/store-status';
import { TimerRefusal, mayBeTimerMessage, rewriteTimerMessage } from '../../store/timer/timer-message-store';
import type { MessageExtBatch, MessageExtBrokerInner } from '../../store/commit-log';
import { MixAll, getDLQTopic, isNotAllowedSendTopic, isSystemTopic, validateTopic } from '../topic/topic-validator';

/** Java's DLQ_NUMS_PER_GROUP. */
export const DLQ_NUMS_PER_GROUP = 1;
/** MQVersion.Version.V3_4_9.ordinal(): from this request version on, the header's maxReconsumeTimes counts. */
const V3_4_9 = 73;
const APPLY_TOPIC_URL = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';

/** What the send processor uses of the broker (the controller in production, fakes in unit tests). */
export interface SendMessageController {
  readonly brokerConfig: BrokerConfig;
  readonly messageStoreConfig: Pick<MessageStoreConfig, 'maxMessageSize' | 'timerWheelEnable' | 'timerMaxDelaySec'>;
  readonly logger: Logger;
  /** The broker's own address, stamped on stored messages. */
  readonly storeHost: { address: string; port: number };
  readonly topicConfigManager: Pick<TopicConfigManager,
    'selectTopicConfig' | 'createTopicInSendMessageMethod' | 'createTopicInSendMessageBackMethod' | 'isOrderTopic'>;
  readonly subscriptionGroupManager: Pick<SubscriptionGroupManager, 'findSubscriptionGroupConfig'>;
  readonly messageStore: Pick<DefaultMessageStore, 'putMessage' | 'putMessages' | 'putMessageCoalesced' | 'commitLogDiskRatio' | 'consumeQueueDiskRatio'>;
  /** Rewrites a delayed message to SCHEDULE_TOPIC_XXXX (absent: delays are not handled). */
  readonly scheduleMessageService?: Pick<ScheduleMessageService, 'rewriteDelayMessage'> | null;
  readonly transactionalMessageService: Pick<TransactionalMessageService, 'prepareMessage'>;
  readonly brokerStatsManager: Pick<BrokerStatsManager, 'incTopicPutNums' | 'incTopicPutSize' | 'incBrokerPutNums'>;
  readonly latencyMetrics: Pick<BrokerLatencyMetrics, 'put'>;
}

export class SendMessageProcessor implements BrokerProcessor {
  readonly requestCodes = [RequestCode.SEND_MESSAGE, RequestCode.SEND_MESSAGE_V2, RequestCode.SEND_BATCH_MESSAGE] as const;

  /** Parsed remote addresses (a producer sends many messages over one connection). */
  #bornHosts = new Map<string, { host: string; port: number }>();
  #storeHost: { host: string; port: number } | null = null;

  constructor(private readonly controller: SendMessageController) {}

  /** The producer's address as a host/port pair, shared by the messages of one connection (read-only). */
  #bornHost(remoteAddress: string): { host: string; port: number } {
    let h = this.#bornHosts.get(remoteAddress);
    if (h === undefined) {
      if (this.#bornHosts.size >= 4096) this.#bornHosts.clear();
      h = Object.freeze(parseAddress(remoteAddress));
      this.#bornHosts.set(remoteAddress, h);
    }
    return h;
  }

  #storeHostOf(): { host: string; port: number } {
    const sh = this.controller.storeHost;
    let h = this.#storeHost;
    if (h === null || h.host !== sh.address || h.port !== sh.port) h = this.#storeHost = Object.freeze({ host: sh.address, port: sh.port });
    return h;
  }

  /** Decodes either header form into the V1 values. */
  static parseRequestHeader(request: RemotingCommand): SendMessageRequestHeader {
    if (request.code === RequestCode.SEND_MESSAGE_V2 || request.code === RequestCode.SEND_BATCH_MESSAGE) {
      return fromSendMessageRequestHeaderV2(SendMessageV2.requestHeader.decode(request.extFields));
    }
    return SendMessage.requestHeader.decode(request.extFields);
  }

  async processRequest(request: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand> {
    const header = SendMessageProcessor.parseRequestHeader(request);
    const pre = this.#preSend(request, ctx, header);
    if (pre.response) return pre.response;
    const topicConfig = pre.topicConfig;
    if (request.code === RequestCode.SEND_BATCH_MESSAGE || header.batch) return this.#sendBatch(request, ctx, header, topicConfig);
    return this.#sendMessage(request, ctx, header, topicConfig);
  }

  /**
   * Java AbstractSendMessageProcessor.msgCheck for the other send paths (SEND_REPLY_MESSAGE): a failure response, or
   * the topic's config (auto-created from the default topic where allowed).
   */
  msgCheck(request: RemotingCommand, ctx: RemotingContext, header: SendMessageRequestHeader): { response: RemotingCommand | null; topicConfig: TopicConfig } {
    return this.#preSend(request, ctx, header);
  }

  /** The store host as a frozen host/port pair. */
  storeHostPair(): { host: string; port: number } {
    return this.#storeHostOf();
  }

  #fail(request: RemotingCommand, code: number, remark: string): RemotingCommand {
    return RemotingCommand.createResponse(request, code, remark, this.#regionFields());
  }

  #regionFields(): ExtFields {
    const bc = this.controller.brokerConfig;
    return { MSG_REGION: bc.regionId, TRACE_ON: String(bc.traceOn) };
  }

  #preSend(request: RemotingCommand, ctx: RemotingContext, header: SendMessageRequestHeader): { response: RemotingCommand | null; topicConfig: TopicConfig } {
    const bc = this.controller.brokerConfig;
    const none = { response: null, topicConfig: null as unknown as TopicConfig };
    if (Date.now() < bc.startAcceptSendRequestTimeStamp) {
      return { ...none, response: this.#fail(request, ResponseCode.SYSTEM_ERROR, `broker unable to service, until ${new Date(bc.startAcceptSendRequestTimeStamp).toISOString()}`) };
    }
    const tcm = this.controller.topicConfigManager;
    if (!isWriteable(bc.brokerPermission) && tcm.isOrderTopic(header.topic)) {
      return { ...none, response: this.#fail(request, ResponseCode.NO_PERMISSION, `the broker[${bc.brokerIP1}] sending message is forbidden`) };
    }
    const invalid = validateTopic(header.topic);
    if (invalid) return { ...none, response: this.#fail(request, ResponseCode.SYSTEM_ERROR, invalid) };
    if (isNotAllowedSendTopic(header.topic)) {
      return { ...none, response: this.#fail(request, ResponseCode.NO_PERMISSION, `Sending message to topic[${header.topic}] is forbidden.`) };
    }
    let topicConfig = tcm.selectTopicConfig(header.topic) ?? null;
    if (!topicConfig) {
      let topicSysFlag = 0;
      if (header.unitMode) {
        topicSysFlag = header.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) ? buildTopicSysFlag(false, true) : buildTopicSysFlag(true, false);
      }
      this.controller.logger.info({ topic: header.topic, remoteAddr: ctx.remoteAddress }, 'the topic does not exist, creating it from the default topic');
      topicConfig = tcm.createTopicInSendMessageMethod(header.topic, header.defaultTopic, ctx.remoteAddress, header.defaultTopicQueueNums, topicSysFlag);
      if (!topicConfig && header.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
        topicConfig = tcm.createTopicInSendMessageBackMethod(header.topic, 1, PermName.PERM_WRITE | PermName.PERM_READ, topicSysFlag);
      }
      if (!topicConfig) {
        return { ...none, response: this.#fail(request, ResponseCode.TOPIC_NOT_EXIST, `topic[${header.topic}] not exist, apply first please!${APPLY_TOPIC_URL}`) };
      }
    }
    const idValid = Math.max(topicConfig.writeQueueNums, topicConfig.readQueueNums);
    if (header.queueId >= idValid) {
      return {
        ...none,
        response: this.#fail(request, ResponseCode.SYSTEM_ERROR, `request queueId[${header.queueId}] is illegal, ${topicConfigString(topicConfig)} Producer: ${ctx.remoteAddress}`),
      };
    }
    return { response: null, topicConfig };
  }

  async #sendMessage(request: RemotingCommand, ctx: RemotingContext, header: SendMessageRequestHeader, topicConfig: TopicConfig): Promise<RemotingCommand> {
    const bc = this.controller.brokerConfig;
    let queueId = header.queueId;
    if (queueId < 0) queueId = randomQueueId(topicConfig.writeQueueNums);
    const msg: MessageExtBrokerInner = {
      topic: header.topic,
      queueId,
      flag: header.flag,
      body: request.body ?? Buffer.alloc(0),
      propertiesString: '',
      bornTimestamp: header.bornTimestamp,
      bornHost: this.#bornHost(ctx.remoteAddress),
      storeHost: this.#storeHostOf(),
      sysFlag: 0,
      reconsumeTimes: header.reconsumeTimes ?? 0,
      preparedTransactionOffset: 0,
    };
    let origProps = header.properties ?? '';
    const retry = this.#handleRetryAndDLQ(request, header, msg, topicConfig);
    if (retry.response) return retry.response;
    if (retry.clearDelay) origProps = removeProperty(origProps, MessageConst.PROPERTY_DELAY_TIME_LEVEL);
    // cut out of the string: no properties map per message
    origProps = removeProperty(origProps, MessageConst.PROPERTY_WAIT_STORE_MSG_OK);
    msg.propertiesString = appendProperty(origProps, MessageConst.PROPERTY_CLUSTER, bc.brokerClusterName);
    const tranFlag = findProperty(origProps, MessageConst.PROPERTY_TRANSACTION_PREPARED);
    if (tranFlag !== undefined && tranFlag.toLowerCase() === 'true' && bc.rejectTransactionMessage) {
      return this.#fail(request, ResponseCode.NO_PERMISSION, `the broker[${bc.brokerIP1}] sending transaction message is forbidden`);
    }
    // The transaction type bits of the request are not stored (a half message is kept with TRANSACTION_NOT_TYPE).
    if ((msg.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) === MessageSysFlag.TRANSACTION_PREPARED_TYPE) {
      msg.sysFlag &= ~MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
    }
    const halfMessage = tranFlag !== undefined && tranFlag.toLowerCase() === 'true';
    if (!halfMessage && mayBeTimerMessage(msg.propertiesString)) {
      // 5.x timer messages (Java HookUtils.handleScheduleMessage): to rmq_sys_wheel_timer, or refused. A half message
      // is left alone and its commit is stored without a timer: transactional messages are not delayed. (Java 5.3.3's
      // put hook sees the half message's cleared type and makes it a timer message for the half topic, which loses
      // its real topic; the 5.x clients and ours refuse a delivery time on a transactional message.)
      const msc = this.controller.messageStoreConfig;
      const refusal = rewriteTimerMessage(msg, msc, Date.now());
      if (refusal === TimerRefusal.WHEEL_TIMER_NOT_ENABLE) {
        return this.#fail(request, ResponseCode.SYSTEM_ERROR, `accurate timer message is not enabled, timerWheelEnable is ${msc.timerWheelEnable}`);
      }
      if (refusal === TimerRefusal.WHEEL_TIMER_MSG_ILLEGAL) {
        return this.#fail(request, ResponseCode.MESSAGE_ILLEGAL,
          `timer message illegal, the delay time should not be bigger than the max delay ${msc.timerMaxDelaySec * 1000}ms; or if set del msg, the delay time should be bigger than the current time`);
      }
    }
    const delay = findProperty(msg.propertiesString, MessageConst.PROPERTY_DELAY_TIME_LEVEL);
    const tranType = msg.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
    if (delay !== undefined && Number(delay) > 0 && (tranType === 0 || tranType === MessageSysFlag.TRANSACTION_COMMIT_TYPE)) {
      // Java's CommitLog re-encodes the property map here, and that map still holds WAIT: a delayed message is
      // stored (and delivered) with WAIT, unlike a plain one.
      const wait = findProperty(header.properties ?? '', MessageConst.PROPERTY_WAIT_STORE_MSG_OK);
      if (wait !== undefined) msg.propertiesString = appendProperty(msg.propertiesString, MessageConst.PROPERTY_WAIT_STORE_MSG_OK, wait);
      this.controller.scheduleMessageService?.rewriteDelayMessage(msg);
    }
    const t0 = performance.now();
    const result = tranFlag !== undefined && tranFlag.toLowerCase() === 'true'
      ? await this.controller.transactionalMessageService.prepareMessage(msg, withWait(stringToProperties(msg.propertiesString), header.properties))
      : await this.controller.messageStore.putMessageCoalesced(msg);
    this.controller.latencyMetrics.put.observe((performance.now() - t0) / 1000);
    return this.#handlePutMessageResult(result, request, queueId, msg.topic,
      findProperty(msg.propertiesString, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX));
  }

  async #sendBatch(request: RemotingCommand, ctx: RemotingContext, header: SendMessageRequestHeader, topicConfig: TopicConfig): Promise<RemotingCommand> {
    const bc = this.controller.brokerConfig;
    let queueId = header.queueId;
    if (queueId < 0) queueId = randomQueueId(topicConfig.writeQueueNums);
    if (header.topic.length > 127) {
      return this.#fail(request, ResponseCode.MESSAGE_ILLEGAL, `message topic length too long ${header.topic.length}`);
    }
    if (!request.body || request.body.length === 0) {
      return this.#fail(request, ResponseCode.MESSAGE_ILLEGAL, 'the message body is empty');
    }
    let sysFlag = header.sysFlag;
    if (topicConfig.topicFilterType === TopicFilterType.MULTI_TAG) sysFlag |= MessageSysFlag.MULTI_TAGS_FLAG;
    const batch: MessageExtBatch = {
      topic: header.topic,
      queueId,
      body: request.body,
      propertiesString: appendProperty(header.properties ?? '', MessageConst.PROPERTY_CLUSTER, bc.brokerClusterName),
      bornTimestamp: header.bornTimestamp,
      bornHost: this.#bornHost(ctx.remoteAddress),
      storeHost: this.#storeHostOf(),
      sysFlag,
      reconsumeTimes: header.reconsumeTimes ?? 0,
    };
    const t0 = performance.now();
    const result = await this.controller.messageStore.putMessages(batch);
    this.controller.latencyMetrics.put.observe((performance.now() - t0) / 1000);
    return this.#handlePutMessageResult(result, request, queueId, batch.topic);
  }

  /** Java handleRetryAndDLQ: a `%RETRY%` send past its max reconsume times goes to the group's DLQ. */
  #handleRetryAndDLQ(request: RemotingCommand, header: SendMessageRequestHeader, msg: MessageExtBrokerInner, topicConfig: TopicConfig): { response: RemotingCommand | null; clearDelay: boolean } {
    let clearDelay = false;
    if (header.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
      const groupName = header.topic.slice(MixAll.RETRY_GROUP_TOPIC_PREFIX.length);
      const sgc = this.controller.subscriptionGroupManager.findSubscriptionGroupConfig(groupName);
      if (!sgc) {
        return {
          response: this.#fail(request, ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, `subscription group not exist, ${groupName} ${APPLY_TOPIC_URL}`),
          clearDelay,
        };
      }
      let maxReconsumeTimes = sgc.retryMaxTimes;
      if (request.version >= V3_4_9 && header.maxReconsumeTimes !== undefined) maxReconsumeTimes = header.maxReconsumeTimes;
      const reconsumeTimes = header.reconsumeTimes ?? 0;
      if (reconsumeTimes >= maxReconsumeTimes) {
        const newTopic = getDLQTopic(groupName);
        const dlq = this.controller.topicConfigManager.createTopicInSendMessageBackMethod(newTopic, DLQ_NUMS_PER_GROUP, PermName.PERM_WRITE | PermName.PERM_READ, 0);
        msg.topic = newTopic;
        msg.queueId = Math.floor(Math.random() * 99999999) % DLQ_NUMS_PER_GROUP;
        clearDelay = true;
        topicConfig = dlq;
      }
    }
    let sysFlag = header.sysFlag;
    if (topicConfig.topicFilterType === TopicFilterType.MULTI_TAG) sysFlag |= MessageSysFlag.MULTI_TAGS_FLAG;
    msg.sysFlag = sysFlag;
    return { response: null, clearDelay };
  }

  /** `uniqId`: the message's own id (UNIQ_KEY), answered as its transaction id as Java 5.3.3 does; none for a batch. */
  #handlePutMessageResult(result: PutMessageResult | null, request: RemotingCommand, queueId: number, topic: string, uniqId?: string): RemotingCommand {
    const extFields = this.#regionFields();
    if (!result) return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'store putMessage return null', extFields);
    let code: number = ResponseCode.SYSTEM_ERROR;
    let remark: string | null = null;
    let sendOK = false;
    switch (result.putMessageStatus) {
      case PutMessageStatus.PUT_OK:
        code = ResponseCode.SUCCESS;
        sendOK = true;
        break;
      case PutMessageStatus.FLUSH_DISK_TIMEOUT:
        code = ResponseCode.FLUSH_DISK_TIMEOUT;
        sendOK = true;
        break;
      case PutMessageStatus.FLUSH_SLAVE_TIMEOUT:
        code = ResponseCode.FLUSH_SLAVE_TIMEOUT;
        sendOK = true;
        break;
      case PutMessageStatus.SLAVE_NOT_AVAILABLE:
        code = ResponseCode.SLAVE_NOT_AVAILABLE;
        sendOK = true;
        break;
      case PutMessageStatus.IN_SYNC_REPLICAS_NOT_ENOUGH:
        remark = 'in-sync replicas not enough';
        break;
      case PutMessageStatus.CREATE_MAPEDFILE_FAILED:
        remark = 'create mapped file failed, server is busy or broken.';
        break;
      case PutMessageStatus.MESSAGE_ILLEGAL:
      case PutMessageStatus.PROPERTIES_SIZE_EXCEEDED:
        code = ResponseCode.MESSAGE_ILLEGAL;
        remark = `the message is illegal, maybe msg body or properties length not matched. msg body length limit ${this.controller.messageStoreConfig.maxMessageSize}B, msg properties length limit 32KB.`;
        break;
      case PutMessageStatus.SERVICE_NOT_AVAILABLE:
        code = ResponseCode.SERVICE_NOT_AVAILABLE;
        remark = `service not available now. It may be caused by one of the following reasons: the broker's disk is full [${this.#diskUtil()}], messages are put to the slave, message store has been shut down, etc.`;
        break;
      case PutMessageStatus.OS_PAGECACHE_BUSY:
        remark = '[PC_SYNCHRONIZED]broker busy, start flow control for a while';
        break;
      case PutMessageStatus.UNKNOWN_ERROR:
        remark = 'UNKNOWN_ERROR';
        break;
      default:
        remark = 'UNKNOWN_ERROR DEFAULT';
    }
    if (sendOK && result.appendMessageResult) {
      // SendMessageResponseHeader fields written straight into the response's extFields (no intermediate object)
      const a = result.appendMessageResult;
      extFields.msgId = a.msgId;
      extFields.queueId = String(queueId);
      extFields.queueOffset = String(a.logicsOffset);
      if (uniqId) extFields.transactionId = uniqId;
      const stats = this.controller.brokerStatsManager;
      stats.incTopicPutNums(topic, a.msgNum, 1);
      stats.incTopicPutSize(topic, a.wroteBytes);
      stats.incBrokerPutNums(a.msgNum);
    }
    return RemotingCommand.createResponse(request, code, remark, extFields);
  }

  /** True when `topic` is a system topic (used by admin paths). */
  /** Java's diskUtil(): used ratios of the commit-log, consume-queue and index disks, `CL: %5.2f CQ: %5.2f INDEX: %5.2f`. */
  #diskUtil(): string {
    const store = this.controller.messageStore;
    const f = (x: number) => x.toFixed(2).padStart(5, ' ');
    return `CL: ${f(store.commitLogDiskRatio)} CQ: ${f(store.consumeQueueDiskRatio)} INDEX: ${f(store.consumeQueueDiskRatio)}`;
  }

  static isSystemTopic(topic: string): boolean {
    return isSystemTopic(topic);
  }
}

function randomQueueId(writeQueueNums: number): number {
  return Math.floor(Math.random() * 99999999) % Math.max(1, writeQueueNums);
}

function appendProperty(props: string, name: string, value: string): string {
  const entry = name + NAME_VALUE_SEPARATOR + value;
  return props.length > 0 ? props + PROPERTY_SEPARATOR + entry : entry;
}

/** Java TopicConfig.toString(). */
export function topicConfigString(tc: TopicConfig): string {
  return `TopicConfig [topicName=${tc.topicName}, readQueueNums=${tc.readQueueNums}, writeQueueNums=${tc.writeQueueNums}, perm=${permString(tc.perm)}, topicFilterType=${tc.topicFilterType}, topicSysFlag=${tc.topicSysFlag}, order=${tc.order}]`;
}

function permString(perm: number): string {
  return ((perm & PermName.PERM_READ) ? 'R' : '-') + ((perm & PermName.PERM_WRITE) ? 'W' : '-') + ((perm & PermName.PERM_INHERIT) ? 'X' : '-');
}

/** The properties with the request's WAIT back: Java re-encodes the half message from its map, which holds WAIT. */
function withWait(props: Record<string, string>, requestProperties: string | undefined): Record<string, string> {
  const wait = findProperty(requestProperties ?? '', MessageConst.PROPERTY_WAIT_STORE_MSG_OK);
  if (wait !== undefined) props[MessageConst.PROPERTY_WAIT_STORE_MSG_OK] = wait;
  return props;
}
