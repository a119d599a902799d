/**
 * SEND_REPLY_MESSAGE (324) and SEND_REPLY_MESSAGE_V2 (325): a consumer's reply to a request message. The broker
 * pushes it at once to the requesting client named by its REPLY_TO_CLIENT property (PUSH_REPLY_MESSAGE_TO_CLIENT,
 * 326, over the connection that client's producer registered with its heartbeat) and, with storeReplyMessageEnable
 * (default true), also stores it in the reply topic. The response code says whether the push succeeded (SUCCESS,
 * msgId "0" and queue offset 0, or the stored message's offset msgId and queue offset when it was stored), or
 * SYSTEM_ERROR with the reason (no REPLY_TO_CLIENT, the client is not connected, the client answered a failure).
 *
 * @see org.apache.rocketmq.broker.processor.ReplyMessageProcessor
 */
import type { BrokerConfig } from '../broker-config';
import type { Logger } from '../../logger';
import type { DefaultMessageStore } from '../../store/message-store';
import type { BrokerStatsManager } from '../stats/broker-stats-manager';
import type { ProducerManager } from '../client-manager/producer-manager';
import type { Broker2Client } from '../client-manager/broker2-client';
import type { SendMessageProcessor } from './send-message-processor';
import type { BrokerProcessor } from './broker-processor';
import type { RemotingContext } from '../../transport/processor';
import { parseAddress } from '../../transport/remoting-client';
import { RemotingCommand, type ExtFields } from '../../../protocol/remoting-command';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import type { SendMessageRequestHeader } from '../../../protocol/header/send-message-request-header';
import { fromSendMessageRequestHeaderV2 } from '../../../protocol/header/send-message-request-header-v2';
import { SendReplyMessage, SendReplyMessageV2 } from '../../../protocol/requests/send-message';
import { ReplyMessageRequestHeader } from '../../../protocol/header/reply-message-request-header';
import { MessageConst } from '../../../protocol/message/message-const';
import { findProperty, stringToProperties, propertiesToJavaString } from '../../../protocol/message/properties';
import { PutMessageStatus } from '../../store/store-status';
import type { MessageExtBrokerInner } from '../../store/commit-log';

/** What the reply processor uses of the broker (the controller in production, fakes in unit tests). */
export interface ReplyMessageController {
  readonly brokerConfig: BrokerConfig;
  readonly logger: Logger;
  /** The broker's own address, stamped on stored messages. */
  readonly storeHost: { address: string; port: number };
  readonly messageStore: Pick<DefaultMessageStore, 'putMessage'>;
  readonly brokerStatsManager: Pick<BrokerStatsManager, 'incTopicPutNums' | 'incTopicPutSize' | 'incBrokerPutNums'>;
  readonly producerManager: Pick<ProducerManager, 'findChannel'>;
  readonly broker2Client: Pick<Broker2Client, 'callClient'>;
  /** The send processor's checks (msgCheck) and stored-host pair, shared with plain sends. */
  readonly sendMessageProcessor: Pick<SendMessageProcessor, 'msgCheck' | 'storeHostPair'>;
}

export class ReplyMessageProcessor implements BrokerProcessor {
  readonly requestCodes = [RequestCode.SEND_REPLY_MESSAGE, RequestCode.SEND_REPLY_MESSAGE_V2] as const;

  constructor(private readonly controller: ReplyMessageController) {}

  static parseRequestHeader(request: RemotingCommand): SendMessageRequestHeader {
    if (request.code === RequestCode.SEND_REPLY_MESSAGE_V2) {
      return fromSendMessageRequestHeaderV2(SendReplyMessageV2.requestHeader.decode(request.extFields));
    }
    return SendReplyMessage.requestHeader.decode(request.extFields);
  }

  async processRequest(request: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand> {
    const bc = this.controller.brokerConfig;
    const header = ReplyMessageProcessor.parseRequestHeader(request);
    const extFields: ExtFields = { MSG_REGION: bc.regionId, TRACE_ON: String(bc.traceOn) };
    if (Date.now() < bc.startAcceptSendRequestTimeStamp) {
      return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR,
        `broker unable to service, until ${new Date(bc.startAcceptSendRequestTimeStamp).toISOString()}`, extFields);
    }
    const sendProcessor = this.controller.sendMessageProcessor;
    const check = sendProcessor.msgCheck(request, ctx, header);
    if (check.response) return check.response;
    let queueId = header.queueId;
    if (queueId < 0) queueId = Math.floor(Math.random() * 99999999) % Math.max(1, check.topicConfig.writeQueueNums);
    const body = request.body ?? Buffer.alloc(0);

    // push to the requesting client
    const push = await this.#pushReplyMessage(ctx, header, body);
    let code: number;
    let remark: string | null;
    if (push.ok) {
      code = ResponseCode.SUCCESS;
      remark = null;
      // "0" keeps the client's decoding happy when the reply is not stored
      extFields.msgId = '0';
      extFields.queueId = String(queueId);
      extFields.queueOffset = '0';
    } else {
      code = ResponseCode.SYSTEM_ERROR;
      remark = push.remark;
    }

    if (bc.storeReplyMessageEnable) {
      // Java stores the request's properties string as it came (the push's PUSH_REPLY_TIME is not in it) and sysFlag 0.
      const msg: MessageExtBrokerInner = {
        topic: header.topic,
        queueId,
        flag: header.flag,
        body,
        propertiesString: header.properties ?? '',
        bornTimestamp: header.bornTimestamp,
        bornHost: Object.freeze(parseAddress(ctx.remoteAddress)),
        storeHost: sendProcessor.storeHostPair(),
        sysFlag: 0,
        reconsumeTimes: header.reconsumeTimes ?? 0,
        preparedTransactionOffset: 0,
      };
      const result = await this.controller.messageStore.putMessage(msg);
      const s = result?.putMessageStatus;
      const putOk = s === PutMessageStatus.PUT_OK || s === PutMessageStatus.FLUSH_DISK_TIMEOUT ||
        s === PutMessageStatus.FLUSH_SLAVE_TIMEOUT || s === PutMessageStatus.SLAVE_NOT_AVAILABLE;
      if (putOk && result?.appendMessageResult) {
        const a = result.appendMessageResult;
        const stats = this.controller.brokerStatsManager;
        stats.incTopicPutNums(msg.topic, a.msgNum, 1);
        stats.incTopicPutSize(msg.topic, a.wroteBytes);
        stats.incBrokerPutNums(a.msgNum);
        extFields.msgId = a.msgId;
        extFields.queueId = String(queueId);
        extFields.queueOffset = String(a.logicsOffset);
      } else {
        this.controller.logger.warn({ topic: msg.topic, status: s }, 'process reply message, store putMessage failed');
      }
    }
    return RemotingCommand.createResponse(request, code, remark, extFields);
  }

  async #pushReplyMessage(ctx: RemotingContext, header: SendMessageRequestHeader, body: Buffer): Promise<{ ok: boolean; remark: string }> {
    const log = this.controller.logger;
    const props = header.properties ?? '';
    const senderId = findProperty(props, MessageConst.PROPERTY_MESSAGE_REPLY_TO_CLIENT);
    if (senderId === undefined) {
      log.warn(`${MessageConst.PROPERTY_MESSAGE_REPLY_TO_CLIENT} is null, can not reply message`);
      return { ok: false, remark: `reply message properties[${MessageConst.PROPERTY_MESSAGE_REPLY_TO_CLIENT}] is null` };
    }
    const channel = this.controller.producerManager.findChannel(senderId);
    if (!channel) {
      const remark = `push reply message fail, channel of <${senderId}> not found.`;
      log.warn({ senderId }, remark);
      return { ok: false, remark };
    }
    const born = parseAddress(ctx.remoteAddress);
    const store = this.controller.storeHost;
    const properties = stringToProperties(props);
    properties[MessageConst.PROPERTY_PUSH_REPLY_TIME] = String(Date.now());
    const pushHeader: ReplyMessageRequestHeader = {
      producerGroup: header.producerGroup,
      topic: header.topic,
      defaultTopic: header.defaultTopic,
      defaultTopicQueueNums: header.defaultTopicQueueNums,
      queueId: header.queueId,
      sysFlag: header.sysFlag,
      bornTimestamp: header.bornTimestamp,
      flag: header.flag,
      properties: propertiesToJavaString(properties),
      reconsumeTimes: header.reconsumeTimes,
      unitMode: header.unitMode ?? false,
      bornHost: `${born.host}:${born.port}`,
      storeHost: `${store.address}:${store.port}`,
      storeTimestamp: Date.now(),
    };
    const request = RemotingCommand.createRequest(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, ReplyMessageRequestHeader.encode(pushHeader), body);
    try {
      const response = await this.controller.broker2Client.callClient(channel, request);
      if (response.code === ResponseCode.SUCCESS) return { ok: true, remark: '' };
      log.warn({ senderId, remark: response.remark }, 'push reply message return fail');
      return { ok: false, remark: `push reply message to ${senderId}fail.` };
    } catch (err) {
      log.warn({ err, senderId }, 'push reply message fail');
      return { ok: false, remark: `push reply message to ${senderId}fail.` };
    }
  }
}
