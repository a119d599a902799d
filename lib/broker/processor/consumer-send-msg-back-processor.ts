/**
 * CONSUMER_SEND_MSG_BACK (36): a consumer hands back a message it failed to consume. The broker re-stores it in
 * `%RETRY%<group>` (created on demand with the group's retryQueueNums) with delay level 3 + reconsumeTimes (or the
 * level asked for), so it comes back after that delay; once reconsumeTimes reaches maxReconsumeTimes (the group's
 * retryMaxTimes, 16 by default, or the request's since V3_4_9), or when the level asked for is negative, it goes to
 * `%DLQ%<group>` (one queue, created on demand) instead. RETRY_TOPIC keeps the first topic, ORIGIN_MESSAGE_ID the
 * first offset msgId, and the reconsume count grows by one.
 *
 * Note: 4.9.8 creates the DLQ topic with PERM_WRITE | PERM_READ (so a consumer may subscribe to it); releases up to
 * 4.7 created it with PERM_WRITE only. We follow 4.9.8 ({@link DLQ_TOPIC_PERM}).
 *
 * @see org.apache.rocketmq.broker.processor.SendMessageProcessor#asyncConsumerSendMsgBack (4.9.8)
 */
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { PermName, isWriteable } from '../../../protocol/body/perm-name';
import { buildTopicSysFlag } from '../../../protocol/body/topic-sys-flag';
import type { SubscriptionGroupConfig } from '../../../protocol/body/subscription-group-wrapper';
import type { TopicConfig } from '../../../protocol/body/topic-config';
import { MessageConst } from '../../../protocol/message/message-const';
import { decodeMessage } from '../../../protocol/message/message-decoder';
import { propertiesToString } from '../../../protocol/message/properties';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { ConsumerSendMsgBack } from '../../../protocol/requests/consumer-send-msg-back';
import type { MessageExtBrokerInner } from '../../store/commit-log';
import type { PutMessageResult } from '../../store/store-status';
import type { RemotingContext } from '../../transport/processor';

export const RETRY_GROUP_TOPIC_PREFIX = '%RETRY%';
export const DLQ_GROUP_TOPIC_PREFIX = '%DLQ%';
/** Java's AbstractSendMessageProcessor.DLQ_NUMS_PER_GROUP. */
export const DLQ_NUMS_PER_GROUP = 1;
/** Perm of an on-demand %DLQ% topic, as 4.9.8. */
export const DLQ_TOPIC_PERM = PermName.PERM_WRITE | PermName.PERM_READ;
/** MQVersion.Version.V3_4_9.ordinal(): from this request version on the header's maxReconsumeTimes counts. */
export const VERSION_V3_4_9 = 165;
export const FAQ_SUFFIX = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';

/** What the processor needs of the controller. */
export interface SendMsgBackController {
  readonly brokerConfig: { brokerPermission: number; brokerIP1: string };
  readonly subscriptionGroupManager: {
    findSubscriptionGroupConfig(group: string): SubscriptionGroupConfig | null | undefined;
  };
  readonly topicConfigManager: {
    createTopicInSendMessageBackMethod(topic: string, queueNums: number, perm: number, topicSysFlag: number): TopicConfig | null;
  };
  readonly messageStore: {
    lookMessageByOffset(commitLogOffset: number): Promise<Buffer | null>;
    putMessage(msg: MessageExtBrokerInner): Promise<PutMessageResult>;
  };
  readonly scheduleMessageService: { rewriteDelayedMessage(msg: MessageExtBrokerInner): number };
}

function randomQueueId(n: number): number {
  return Math.floor(Math.random() * 99999999) % n;
}

export class ConsumerSendMsgBackProcessor {
  readonly requestCodes: readonly number[] = [RequestCode.CONSUMER_SEND_MSG_BACK];

  constructor(private readonly controller: SendMsgBackController) {}

  async processRequest(request: RemotingCommand, _ctx: RemotingContext): Promise<RemotingCommand | null> {
    const c = this.controller;
    const header = ConsumerSendMsgBack.requestHeader.decode(request.extFields);
    const reply = (code: number, remark: string | null) => RemotingCommand.createResponse(request, code, remark);
    const sub = c.subscriptionGroupManager.findSubscriptionGroupConfig(header.group);
    if (!sub) {
      return reply(ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, `subscription group not exist, ${header.group} ${FAQ_SUFFIX}`);
    }
    if (!isWriteable(c.brokerConfig.brokerPermission)) {
      return reply(ResponseCode.NO_PERMISSION, `the broker[${c.brokerConfig.brokerIP1}] sending message is forbidden`);
    }
    if (sub.retryQueueNums <= 0) return reply(ResponseCode.SUCCESS, null);

    let newTopic = RETRY_GROUP_TOPIC_PREFIX + header.group;
    let queueId = randomQueueId(sub.retryQueueNums);
    const topicSysFlag = header.unitMode ? buildTopicSysFlag(false, true) : 0;
    let topicConfig = c.topicConfigManager.createTopicInSendMessageBackMethod(
      newTopic, sub.retryQueueNums, PermName.PERM_WRITE | PermName.PERM_READ, topicSysFlag);
    if (!topicConfig) return reply(ResponseCode.SYSTEM_ERROR, `topic[${newTopic}] not exist`);
    if (!isWriteable(topicConfig.perm)) {
      return reply(ResponseCode.NO_PERMISSION, `the topic[${newTopic}] sending message is forbidden`);
    }
    const record = await c.messageStore.lookMessageByOffset(header.offset);
    if (!record) return reply(ResponseCode.SYSTEM_ERROR, `look message by offset failed, ${header.offset}`);
    const msgExt = decodeMessage(record, 0, { decompressBody: false, clientMsgId: false });
    const props = msgExt.properties;
    if (props[MessageConst.PROPERTY_RETRY_TOPIC] === undefined) props[MessageConst.PROPERTY_RETRY_TOPIC] = msgExt.topic;
    props[MessageConst.PROPERTY_WAIT_STORE_MSG_OK] = 'false';

    let delayLevel = header.delayLevel;
    let maxReconsumeTimes = sub.retryMaxTimes;
    if (request.version >= VERSION_V3_4_9 && header.maxReconsumeTimes !== undefined) maxReconsumeTimes = header.maxReconsumeTimes;

    if (msgExt.reconsumeTimes >= maxReconsumeTimes || delayLevel < 0) {
      newTopic = DLQ_GROUP_TOPIC_PREFIX + header.group;
      queueId = randomQueueId(DLQ_NUMS_PER_GROUP);
      topicConfig = c.topicConfigManager.createTopicInSendMessageBackMethod(newTopic, DLQ_NUMS_PER_GROUP, DLQ_TOPIC_PERM, 0);
      if (!topicConfig) return reply(ResponseCode.SYSTEM_ERROR, `topic[${newTopic}] not exist`);
      props[MessageConst.PROPERTY_DELAY_TIME_LEVEL] = '0';
    } else {
      if (delayLevel === 0) delayLevel = 3 + msgExt.reconsumeTimes;
      props[MessageConst.PROPERTY_DELAY_TIME_LEVEL] = String(delayLevel);
    }
    const origin = props[MessageConst.PROPERTY_ORIGIN_MESSAGE_ID];
    props[MessageConst.PROPERTY_ORIGIN_MESSAGE_ID] = origin && origin.trim() ? origin : msgExt.offsetMsgId;

    const inner: MessageExtBrokerInner = {
      topic: newTopic,
      queueId,
      flag: msgExt.flag,
      body: msgExt.body,
      propertiesString: propertiesToString(props),
      bornTimestamp: msgExt.bornTimestamp,
      bornHost: { host: msgExt.bornHost.address, port: msgExt.bornHost.port },
      storeHost: { host: msgExt.storeHost.address, port: msgExt.storeHost.port },
      sysFlag: msgExt.sysFlag,
      reconsumeTimes: msgExt.reconsumeTimes + 1,
      preparedTransactionOffset: 0,
    };
    c.scheduleMessageService.rewriteDelayedMessage(inner);
    const r = await c.messageStore.putMessage(inner);
    if (r.putMessageStatus === 'PUT_OK') return reply(ResponseCode.SUCCESS, null);
    return reply(ResponseCode.SYSTEM_ERROR, r.putMessageStatus);
  }
}
