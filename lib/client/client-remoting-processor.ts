/**
 * Requests brokers send to clients over the client's own connection, dispatched to the producer or consumer of
 * the group they name. Java answers CHECK_TRANSACTION_STATE, NOTIFY_CONSUMER_IDS_CHANGED and
 * RESET_CONSUMER_CLIENT_OFFSET with nothing (the broker sends them oneway); the other three get a response.
 * PUSH_REPLY_MESSAGE_TO_CLIENT (326) carries the reply to a `producer.request(...)`: it completes the pending request
 * of its CORRELATION_ID (RequestFutureHolder) and is answered SUCCESS.
 *
 * @see org.apache.rocketmq.client.impl.ClientRemotingProcessor
 */
import { RequestCode } from '../../protocol/code/request-code';
import { ResponseCode } from '../../protocol/code/response-code';
import { encodeConsumeMessageDirectlyResult } from '../../protocol/body/consume-message-directly-result';
import { encodeConsumerRunningInfo } from '../../protocol/body/consumer-running-info';
import { messageQueueBean } from '../../protocol/body/body-util';
import { FastjsonMap, encodeFastjson } from '../../protocol/body/fastjson';
import { decodeResetOffsetBody } from '../../protocol/body/reset-offset-body';
import { CheckTransactionStateRequestHeader } from '../../protocol/header/check-transaction-state-request-header';
import { ConsumeMessageDirectlyResultRequestHeader } from '../../protocol/header/consume-message-directly-result-request-header';
import { GetConsumerRunningInfoRequestHeader } from '../../protocol/header/get-consumer-running-info-request-header';
import { GetConsumerStatusRequestHeader } from '../../protocol/header/get-consumer-status-request-header';
import { NotifyConsumerIdsChangedRequestHeader } from '../../protocol/header/notify-consumer-ids-changed-request-header';
import { ResetOffsetRequestHeader } from '../../protocol/header/reset-offset-request-header';
import { MessageConst } from '../../protocol/message/message-const';
import { decodeMessage } from '../../protocol/message/message-decoder';
import { RemotingCommand } from '../../protocol/remoting-command';
import { ReplyMessageRequestHeader } from '../../protocol/header/reply-message-request-header';
import { decompressBody } from '../../protocol/message/compression';
import type { MessageExt } from '../../protocol/message/message';
import { stringToProperties } from '../../protocol/message/properties';
import { parseSocketAddress } from '../../protocol/message/socket-address';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import { RequestFutureHolder } from './request-future-holder';
import type { Logger } from '../logger';
import type { RemotingContext } from '../transport';
import type { MQConsumerInner, MQProducerInner } from './inner';

/** What the processor needs of its MQClientInstance. */
export interface ClientProcessorHost {
  readonly clientId: string;
  selectProducer(group: string): MQProducerInner | undefined;
  selectConsumer(group: string): MQConsumerInner | undefined;
  rebalanceImmediately(): void;
  namesrvAddr(): string;
}

export function registerClientProcessors(
  register: (code: number, p: (req: RemotingCommand, ctx: RemotingContext) => Promise<RemotingCommand | null> | RemotingCommand | null) => void,
  host: ClientProcessorHost,
  logger: Logger,
): void {
  register(RequestCode.CHECK_TRANSACTION_STATE, (request, ctx) => {
    const header = CheckTransactionStateRequestHeader.decode(request.extFields);
    if (!request.body) {
      logger.warn({ remoteAddr: ctx.remoteAddress }, 'checkTransactionState, decode message failed');
      return null;
    }
    const msg = decodeMessage(request.body, 0, { copyBody: true });
    const transactionId = msg.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX];
    if (transactionId) msg.transactionId = transactionId;
    const group = msg.properties[MessageConst.PROPERTY_PRODUCER_GROUP];
    const producer = group ? host.selectProducer(group) : undefined;
    if (producer?.checkTransactionState) producer.checkTransactionState(ctx.remoteAddress, msg, header);
    else logger.debug({ group }, 'checkTransactionState, pick producer by group failed');
    return null;
  });

  register(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, (request, ctx) => {
    const header = NotifyConsumerIdsChangedRequestHeader.decode(request.extFields);
    logger.info({ clientId: host.clientId, remoteAddr: ctx.remoteAddress, group: header.consumerGroup }, 'receive broker notification: the consumer group changed, rebalance immediately');
    host.rebalanceImmediately();
    return null;
  });

  register(RequestCode.RESET_CONSUMER_CLIENT_OFFSET, async (request) => {
    const header = ResetOffsetRequestHeader.decode(request.extFields);
    logger.info({ topic: header.topic, group: header.group, timestamp: header.timestamp }, 'invoke reset offset operation from broker');
    const offsetTable = request.body ? decodeResetOffsetBody(request.body).offsetTable : [];
    const consumer = host.selectConsumer(header.group);
    if (consumer?.resetOffset) await consumer.resetOffset(header.topic, offsetTable);
    return null;
  });

  register(RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT, (request) => {
    const header = GetConsumerStatusRequestHeader.decode(request.extFields);
    const consumer = host.selectConsumer(header.group);
    const table = consumer?.getConsumerStatus ? consumer.getConsumerStatus(header.topic) : [];
    const body = encodeFastjson({
      consumerTable: new FastjsonMap(),
      messageQueueTable: new FastjsonMap(table.map(([mq, offset]) => [messageQueueBean(mq), offset])),
    });
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, body);
  });

  register(RequestCode.GET_CONSUMER_RUNNING_INFO, (request) => {
    const header = GetConsumerRunningInfoRequestHeader.decode(request.extFields);
    const consumer = host.selectConsumer(header.consumerGroup);
    if (!consumer) {
      return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, `The Consumer Group <${header.consumerGroup}> not exist in this consumer`);
    }
    const info = consumer.consumerRunningInfo();
    info.properties.set('PROP_NAMESERVER_ADDR', host.namesrvAddr());
    info.properties.set('PROP_CONSUME_TYPE', consumer.consumeType());
    info.properties.set('PROP_CLIENT_VERSION', 'V4_9_8');
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, encodeConsumerRunningInfo(info));
  });

  register(RequestCode.CONSUME_MESSAGE_DIRECTLY, async (request) => {
    const header = ConsumeMessageDirectlyResultRequestHeader.decode(request.extFields);
    const consumer = host.selectConsumer(header.consumerGroup);
    if (!consumer?.consumeMessageDirectly || !request.body) {
      return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, `The Consumer Group <${header.consumerGroup}> not exist in this consumer`);
    }
    const msg = decodeMessage(request.body, 0, { copyBody: true });
    const result = await consumer.consumeMessageDirectly(msg, header.brokerName);
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, encodeConsumeMessageDirectlyResult(result));
  });

  register(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, (request, ctx) => {
    const receiveTime = Date.now();
    try {
      const msg = decodeReplyMessage(request, receiveTime);
      const correlationId = msg.properties[MessageConst.PROPERTY_CORRELATION_ID];
      const future = correlationId ? RequestFutureHolder.instance.get(correlationId) : undefined;
      if (future) future.putResponseMessage(msg);
      else logger.warn({ correlationId, bornHost: msg.bornHost.address, remoteAddr: ctx.remoteAddress }, 'receive reply message, but not matched any request');
      return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null);
    } catch (err) {
      logger.warn({ err, remoteAddr: ctx.remoteAddress }, 'unknown err when receiveReplyMsg');
      return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'process reply message fail');
    }
  });
}

/** The reply of a PUSH_REPLY_MESSAGE_TO_CLIENT as a MessageExt (ClientRemotingProcessor.receiveReplyMessage). */
export function decodeReplyMessage(request: RemotingCommand, receiveTime: number): MessageExt {
  const h = ReplyMessageRequestHeader.decode(request.extFields);
  let body: Buffer = request.body ?? Buffer.alloc(0);
  if ((h.sysFlag & MessageSysFlag.COMPRESSED_FLAG) === MessageSysFlag.COMPRESSED_FLAG) body = decompressBody(body, h.sysFlag);
  const properties = stringToProperties(h.properties);
  properties[MessageConst.PROPERTY_REPLY_MESSAGE_ARRIVE_TIME] = String(receiveTime);
  return {
    topic: h.topic,
    flag: h.flag,
    properties,
    body,
    queueId: h.queueId,
    storeSize: 0,
    queueOffset: 0,
    sysFlag: h.sysFlag,
    bornTimestamp: h.bornTimestamp,
    bornHost: parseSocketAddress(h.bornHost),
    storeTimestamp: h.storeTimestamp,
    storeHost: parseSocketAddress(h.storeHost),
    msgId: properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX] ?? '',
    offsetMsgId: '',
    commitLogOffset: 0,
    bodyCRC: 0,
    reconsumeTimes: h.reconsumeTimes ?? 0,
    preparedTransactionOffset: 0,
  };
}
