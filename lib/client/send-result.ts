/**
 * The outcome of a send, and how a send travels.
 *
 * @see org.apache.rocketmq.client.producer.SendResult
 * @see org.apache.rocketmq.client.producer.SendStatus
 * @see org.apache.rocketmq.client.impl.CommunicationMode
 */
import type { MessageQueue } from '../../protocol/message/message-queue';

/** SEND_OK, or a stored message whose flush or replication did not finish in time (the message is stored). */
export const SendStatus = {
  SEND_OK: 'SEND_OK',
  FLUSH_DISK_TIMEOUT: 'FLUSH_DISK_TIMEOUT',
  FLUSH_SLAVE_TIMEOUT: 'FLUSH_SLAVE_TIMEOUT',
  SLAVE_NOT_AVAILABLE: 'SLAVE_NOT_AVAILABLE',
} as const;
export type SendStatus = (typeof SendStatus)[keyof typeof SendStatus];

export interface SendResult {
  sendStatus: SendStatus;
  /** The client unique id (UNIQ_KEY); for a batch, the ids of its messages joined by ",". */
  msgId: string;
  /** The broker's offset message id(s) (store host + commit-log offset). */
  offsetMsgId: string;
  /** The queue the message went to (topic without namespace). */
  messageQueue: MessageQueue;
  queueOffset: number;
  transactionId?: string;
  /** The broker's MSG_REGION, "DefaultRegion" when absent. */
  regionId: string;
  /** False only when the broker says TRACE_ON=false. */
  traceOn: boolean;
}

export const CommunicationMode = { SYNC: 'SYNC', ASYNC: 'ASYNC', ONEWAY: 'ONEWAY' } as const;
export type CommunicationMode = (typeof CommunicationMode)[keyof typeof CommunicationMode];

/**
 * Codes a client error carries when no broker code applies.
 *
 * @see org.apache.rocketmq.client.common.ClientErrorCode
 */
export const ClientErrorCode = {
  CONNECT_BROKER_EXCEPTION: 10001,
  ACCESS_BROKER_TIMEOUT: 10002,
  BROKER_NOT_EXIST_EXCEPTION: 10003,
  NO_NAME_SERVER_EXCEPTION: 10004,
  NOT_FOUND_TOPIC_EXCEPTION: 10005,
  REQUEST_TIMEOUT_EXCEPTION: 10006,
  CREATE_REPLY_MESSAGE_EXCEPTION: 10007,
} as const;
