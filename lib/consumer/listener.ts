/**
 * Message listeners of the push consumer and their results.
 *
 * @see org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently
 * @see org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly
 * @see org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext
 * @see org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext
 */
import type { MessageExt } from '../../protocol/message/message';
import type { MessageQueue } from '../../protocol/message/message-queue';

export const ConsumeConcurrentlyStatus = { CONSUME_SUCCESS: 'CONSUME_SUCCESS', RECONSUME_LATER: 'RECONSUME_LATER' } as const;
export type ConsumeConcurrentlyStatus = (typeof ConsumeConcurrentlyStatus)[keyof typeof ConsumeConcurrentlyStatus];

export const ConsumeOrderlyStatus = {
  SUCCESS: 'SUCCESS',
  /** @deprecated as in Java: only with autoCommit false. */
  ROLLBACK: 'ROLLBACK',
  /** @deprecated as in Java: only with autoCommit false. */
  COMMIT: 'COMMIT',
  SUSPEND_CURRENT_QUEUE_A_MOMENT: 'SUSPEND_CURRENT_QUEUE_A_MOMENT',
} as const;
export type ConsumeOrderlyStatus = (typeof ConsumeOrderlyStatus)[keyof typeof ConsumeOrderlyStatus];

/** ConsumeReturnType, as the consume hooks and statistics see a call. */
export const ConsumeReturnType = {
  SUCCESS: 'SUCCESS', TIME_OUT: 'TIME_OUT', EXCEPTION: 'EXCEPTION', RETURNNULL: 'RETURNNULL', FAILED: 'FAILED',
} as const;
export type ConsumeReturnType = (typeof ConsumeReturnType)[keyof typeof ConsumeReturnType];

export class ConsumeConcurrentlyContext {
  /**
   * Delay level of a message sent back: 0 lets the broker choose (3 + reconsumeTimes); -1 sends it to the DLQ
   * at once; a positive level is used as is.
   */
  delayLevelWhenNextConsume = 0;
  /** Index of the last successfully consumed message of the batch (CONSUME_SUCCESS); the rest are sent back. */
  ackIndex = Number.MAX_SAFE_INTEGER;
  constructor(readonly messageQueue: MessageQueue) {}
}

export class ConsumeOrderlyContext {
  autoCommit = true;
  /** -1: the consumer's suspendCurrentQueueTimeMillis. */
  suspendCurrentQueueTimeMillis = -1;
  constructor(readonly messageQueue: MessageQueue) {}
}

export type MessageListenerConcurrently = (
  msgs: MessageExt[], context: ConsumeConcurrentlyContext,
) => ConsumeConcurrentlyStatus | Promise<ConsumeConcurrentlyStatus>;

export type MessageListenerOrderly = (
  msgs: MessageExt[], context: ConsumeOrderlyContext,
) => ConsumeOrderlyStatus | Promise<ConsumeOrderlyStatus>;
