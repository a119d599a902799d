/**
 * ReceiveMessage: one POP with long polling, answered as a stream: a status (OK, MESSAGE_NOT_FOUND, TOO_MANY_REQUESTS
 * "polling full"), the messages, then a delivery timestamp. The polling time is the request's (or what the deadline
 * leaves), bounded by the proxy's min and max; the invisible time is the request's (at least 10 s), or the default
 * 60 s when the client asks for auto-renewal. Messages the client can no longer take (call cancelled) are made
 * visible again after 1 s.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.consumer.ReceiveMessageActivity
 * @see org.apache.rocketmq.proxy.grpc.v2.consumer.ReceiveMessageResponseStreamWriter
 */
import { MessageConst } from '../../protocol/message/message-const';
import { MessageSysFlag } from '../../protocol/message/sys-flag';
import { decompressBody } from '../../protocol/message/compression';
import type { MessageExt } from '../../protocol/message/message';
import { GrpcProxyError } from '../errors';
import { buildSubscriptionData } from '../broker/filter-api';
import type { ActivityContext } from './activity-context';
import { buildExpressionType } from './client-activity';
import type { ConsumerProcessor } from './consumer-processor';
import { parseReceiptHandle } from './consumer-processor';
import type { GrpcClientChannel } from './grpc-client-channel';
import { buildMessage } from './grpc-converter';
import { validateConsumerGroup, validateInvisibleTime, validateTopic } from './grpc-validator';
import { type PbMessage, type PbStatus, type ReceiveMessageRequest, pbFromMillis, pbToMillis } from './pb';
import { type ProxyContext, remainingMs } from './proxy-context';
import { type ReceiptHandleManager, newMessageReceiptHandle } from './receipt-handle-manager';
import { buildStatus, buildStatusOfError } from './response-builder';

/** The first client version that knows ILLEGAL_POLLING_TIME (older ones get BAD_REQUEST). */
const ILLEGAL_POLLING_TIME_INTRODUCED_CLIENT_VERSION = '5.0.3';

export interface ReceiveMessageResponse {
  status?: PbStatus;
  message?: PbMessage;
  deliveryTimestamp?: { seconds: number; nanos: number };
}

/** Where the answers go: the server stream of the call. */
export interface ReceiveStream {
  write(response: ReceiveMessageResponse): boolean;
  end(): void;
  readonly cancelled: boolean;
}

/**
 * The message as a gRPC client reads it: a body the remoting producer compressed (zlib, or LZ4 / ZSTD of 5.x) is
 * inflated here, since the client only knows GZIP; one that cannot be inflated is answered as stored, marked GZIP.
 */
export function toClientMessage(m: MessageExt, logger?: { warn(obj: object, msg: string): void }): PbMessage {
  if ((m.sysFlag & MessageSysFlag.COMPRESSED_FLAG) === 0) return buildMessage(m, false);
  try {
    return buildMessage({ ...m, body: decompressBody(m.body, m.sysFlag) }, false);
  } catch (err) {
    logger?.warn({ err, msgId: m.msgId }, 'a compressed body could not be inflated; answered as stored');
    return buildMessage(m, true);
  }
}

export class ReceiveMessageActivity {
  constructor(private readonly a: ActivityContext, private readonly consumer: ConsumerProcessor,
    private readonly receiptHandles: ReceiptHandleManager) {}

  async receiveMessage(ctx: ProxyContext, req: ReceiveMessageRequest, stream: ReceiveStream, channel: GrpcClientChannel): Promise<void> {
    const c = this.a.config;
    try {
      const settings = this.a.settings.getClientSettings(ctx.clientId);
      if (!settings) throw new GrpcProxyError('UNRECOGNIZED_CLIENT_TYPE', 'cannot find client settings for this client');
      const fifo = settings.subscription?.fifo ?? false;
      const maxAttempts = settings.backoffPolicy?.maxAttempts ?? 17;
      const timeRemaining = remainingMs(ctx);
      let pollingTime = req.longPollingTimeout
        ? pbToMillis(req.longPollingTimeout)
        : timeRemaining - Math.floor(pbToMillis(settings.requestTimeout) / 2);
      pollingTime = Math.min(Math.max(pollingTime, c.grpcClientConsumerMinLongPollingTimeoutMillis), c.grpcClientConsumerMaxLongPollingTimeoutMillis);
      if (pollingTime > timeRemaining) {
        if (timeRemaining >= c.grpcClientConsumerMinLongPollingTimeoutMillis) {
          pollingTime = timeRemaining;
        } else {
          const code = !ctx.clientVersion || ctx.clientVersion < ILLEGAL_POLLING_TIME_INTRODUCED_CLIENT_VERSION ? 'BAD_REQUEST' : 'ILLEGAL_POLLING_TIME';
          this.#writeAndComplete(stream, { status: buildStatus(code, 'The deadline time remaining is not enough for polling, please check network condition') });
          return;
        }
      }
      const topic = validateTopic(req.messageQueue?.topic);
      const group = validateConsumerGroup(req.group);
      let invisibleTime = pbToMillis(req.invisibleDuration);
      if (req.autoRenew) invisibleTime = c.defaultInvisibleTimeMills;
      else validateInvisibleTime(invisibleTime, c, c.minInvisibleTimeMillsForRecv);
      const filter = req.filterExpression;
      let subscription;
      try {
        subscription = buildSubscriptionData(topic, filter?.expression || '*', buildExpressionType(filter?.type));
      } catch (err) {
        this.#writeAndComplete(stream, { status: buildStatus('ILLEGAL_FILTER_EXPRESSION', (err as Error).message) });
        return;
      }
      const result = await this.consumer.popMessage({
        group, topic, maxMsgNums: req.batchSize, invisibleTime, pollTime: pollingTime, subscription, fifo, maxAttempts,
        attemptId: req._attemptId ? req.attemptId : undefined,
      }, channel, () => !stream.cancelled && channel.isActive);
      if (stream.cancelled) {
        // The client is gone: what it was given is visible again soon, not after the whole invisible time.
        for (const m of result.messages) this.#nack(m, group, topic, channel);
        stream.end();
        return;
      }
      switch (result.status) {
        case 'FOUND':
          if (result.messages.length === 0) {
            stream.write({ status: buildStatus('MESSAGE_NOT_FOUND', 'no match message') });
          } else {
            // Handles of messages received with auto_renew are renewed by the endpoint until acked (or the client leaves).
            if (c.enableProxyAutoRenew && req.autoRenew) for (const m of result.messages) this.#addReceiptHandle(m, group, topic, channel);
            stream.write({ status: buildStatus('OK', 'OK') });
            for (const m of result.messages) stream.write({ message: toClientMessage(m, this.a.logger) });
          }
          break;
        case 'POLLING_FULL':
          stream.write({ status: buildStatus('TOO_MANY_REQUESTS', 'polling full') });
          break;
        default:
          stream.write({ status: buildStatus('MESSAGE_NOT_FOUND', 'no new message') });
      }
      this.#complete(stream);
    } catch (err) {
      this.#writeAndComplete(stream, { status: buildStatusOfError(err, this.a.logger) });
    }
  }

  #addReceiptHandle(m: MessageExt, group: string, topic: string, channel: GrpcClientChannel): void {
    const handle = m.properties[MessageConst.PROPERTY_POP_CK];
    const messageId = m.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX] ?? m.msgId;
    if (!handle) return;
    try {
      this.receiptHandles.addReceiptHandle(channel, group, messageId,
        newMessageReceiptHandle(group, topic, m.queueId, handle, messageId, m.queueOffset, m.reconsumeTimes));
    } catch (err) {
      this.a.logger.warn({ err, messageId }, 'a receipt handle to renew could not be kept');
    }
  }

  #nack(m: MessageExt, group: string, topic: string, channel: GrpcClientChannel): void {
    const handle = m.properties[MessageConst.PROPERTY_POP_CK];
    if (!handle) return;
    this.consumer.changeInvisibleTime(parseReceiptHandle(handle), group, topic, this.a.config.nackInvisibleTimeMills, channel)
      .catch((err: unknown) => this.a.logger.warn({ err, msgId: m.msgId }, 'making an undelivered message visible again failed'));
  }

  #writeAndComplete(stream: ReceiveStream, response: ReceiveMessageResponse): void {
    if (!stream.cancelled) stream.write(response);
    this.#complete(stream);
  }

  #complete(stream: ReceiveStream): void {
    if (!stream.cancelled) stream.write({ deliveryTimestamp: pbFromMillis(Date.now()) });
    stream.end();
  }
}
