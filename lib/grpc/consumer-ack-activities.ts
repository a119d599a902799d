/**
 * AckMessage (each entry on its own, as Java's proxy without batch ack), ChangeInvisibleDuration (answering the
 * new receipt handle) and ForwardMessageToDeadLetterQueue, each on the receipt handle a ReceiveMessage gave.
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.consumer.AckMessageActivity
 * @see org.apache.rocketmq.proxy.grpc.v2.consumer.ChangeInvisibleDurationActivity
 * @see org.apache.rocketmq.proxy.grpc.v2.producer.ForwardMessageToDLQActivity
 */
import { ResponseCode } from '../../protocol/code/response-code';
import type { ActivityContext } from './activity-context';
import { type ConsumerProcessor, parseReceiptHandle } from './consumer-processor';
import type { GrpcClientChannel } from './grpc-client-channel';
import { validateConsumerGroup, validateInvisibleTime, validateTopic } from './grpc-validator';
import {
  type AckMessageRequest, type ChangeInvisibleDurationRequest, type ForwardMessageToDeadLetterQueueRequest, type PbStatus, pbToMillis,
} from './pb';
import type { ReceiptHandleManager } from './receipt-handle-manager';
import { buildStatus, buildStatusOfError, buildStatusOfResponse } from './response-builder';

interface AckMessageResultEntry { messageId: string; receiptHandle: string; status: PbStatus }

/** One status for several results: the common code, or MULTIPLE_RESULTS. */
export function combinedStatus(statuses: readonly PbStatus[], emptyMessage: string): PbStatus {
  const codes = new Set(statuses.map((s) => s.code));
  if (codes.size > 1) return buildStatus('MULTIPLE_RESULTS', 'MULTIPLE_RESULTS');
  if (codes.size === 1) {
    const code = [...codes][0];
    return buildStatus(code, code);
  }
  return buildStatus('INTERNAL_SERVER_ERROR', emptyMessage);
}

export class ConsumerAckActivities {
  constructor(private readonly a: ActivityContext, private readonly consumer: ConsumerProcessor,
    private readonly receiptHandles: ReceiptHandleManager) {}

  /** The handle to act on: the newest one when the endpoint renews the message (the entry is forgotten), else the client's. */
  async #handleString(channel: GrpcClientChannel, group: string, messageId: string, receiptHandle: string): Promise<string> {
    const kept = await this.receiptHandles.removeReceiptHandle(channel.clientId, group, messageId, receiptHandle);
    return kept?.receiptHandleStr ?? receiptHandle;
  }

  async ackMessage(req: AckMessageRequest, channel: GrpcClientChannel): Promise<{ status: PbStatus; entries: AckMessageResultEntry[] }> {
    const topic = validateTopic(req.topic);
    const group = validateConsumerGroup(req.group);
    const entries = await Promise.all(req.entries.map(async (e): Promise<AckMessageResultEntry> => {
      try {
        const handle = await this.#handleString(channel, group, e.messageId, e.receiptHandle);
        const ok = await this.consumer.ackMessage(parseReceiptHandle(handle), group, topic, channel);
        return {
          messageId: e.messageId,
          receiptHandle: e.receiptHandle,
          status: ok ? buildStatus('OK', 'OK') : buildStatus('INTERNAL_SERVER_ERROR', 'ack failed: status is abnormal'),
        };
      } catch (err) {
        return { messageId: e.messageId, receiptHandle: e.receiptHandle, status: buildStatusOfError(err, this.a.logger) };
      }
    }));
    return { status: combinedStatus(entries.map((e) => e.status), 'ack message result is empty'), entries };
  }

  async changeInvisibleDuration(req: ChangeInvisibleDurationRequest, channel: GrpcClientChannel): Promise<{ status: PbStatus; receiptHandle: string }> {
    const topic = validateTopic(req.topic);
    const group = validateConsumerGroup(req.group);
    const invisibleTime = pbToMillis(req.invisibleDuration);
    validateInvisibleTime(invisibleTime, this.a.config);
    parseReceiptHandle(req.receiptHandle);
    const current = await this.#handleString(channel, group, req.messageId, req.receiptHandle);
    const handle = await this.consumer.changeInvisibleTime(parseReceiptHandle(current), group, topic, invisibleTime, channel);
    if (handle === null) return { status: buildStatus('INTERNAL_SERVER_ERROR', 'changeInvisibleDuration failed: status is abnormal'), receiptHandle: '' };
    return { status: buildStatus('OK', 'OK'), receiptHandle: handle };
  }

  async forwardMessageToDeadLetterQueue(req: ForwardMessageToDeadLetterQueueRequest, channel: GrpcClientChannel): Promise<{ status: PbStatus }> {
    const topic = validateTopic(req.topic);
    const group = validateConsumerGroup(req.group);
    parseReceiptHandle(req.receiptHandle);
    const current = await this.#handleString(channel, group, req.messageId, req.receiptHandle);
    const code = await this.consumer.forwardMessageToDeadLetterQueue(parseReceiptHandle(current), req.messageId, group, topic, channel);
    return { status: code === ResponseCode.SUCCESS ? buildStatus('OK', 'OK') : buildStatusOfResponse(code, null) };
  }
}
