/**
 * Status codes and result shapes of the store, with Java's names.
 *
 * @see org.apache.rocketmq.store.PutMessageStatus
 * @see org.apache.rocketmq.store.AppendMessageStatus
 * @see org.apache.rocketmq.store.GetMessageStatus
 */
export const PutMessageStatus = {
  PUT_OK: 'PUT_OK',
  FLUSH_DISK_TIMEOUT: 'FLUSH_DISK_TIMEOUT',
  FLUSH_SLAVE_TIMEOUT: 'FLUSH_SLAVE_TIMEOUT',
  SLAVE_NOT_AVAILABLE: 'SLAVE_NOT_AVAILABLE',
  SERVICE_NOT_AVAILABLE: 'SERVICE_NOT_AVAILABLE',
  CREATE_MAPEDFILE_FAILED: 'CREATE_MAPEDFILE_FAILED',
  MESSAGE_ILLEGAL: 'MESSAGE_ILLEGAL',
  PROPERTIES_SIZE_EXCEEDED: 'PROPERTIES_SIZE_EXCEEDED',
  OS_PAGECACHE_BUSY: 'OS_PAGECACHE_BUSY',
  UNKNOWN_ERROR: 'UNKNOWN_ERROR',
  /** Controller mode: the SyncStateSet is smaller than minInSyncReplicas (the message is not appended). */
  IN_SYNC_REPLICAS_NOT_ENOUGH: 'IN_SYNC_REPLICAS_NOT_ENOUGH',
} as const;
export type PutMessageStatus = (typeof PutMessageStatus)[keyof typeof PutMessageStatus];

export const AppendMessageStatus = {
  PUT_OK: 'PUT_OK',
  END_OF_FILE: 'END_OF_FILE',
  MESSAGE_SIZE_EXCEEDED: 'MESSAGE_SIZE_EXCEEDED',
  PROPERTIES_SIZE_EXCEEDED: 'PROPERTIES_SIZE_EXCEEDED',
  UNKNOWN_ERROR: 'UNKNOWN_ERROR',
} as const;
export type AppendMessageStatus = (typeof AppendMessageStatus)[keyof typeof AppendMessageStatus];

export const GetMessageStatus = {
  FOUND: 'FOUND',
  NO_MATCHED_MESSAGE: 'NO_MATCHED_MESSAGE',
  MESSAGE_WAS_REMOVING: 'MESSAGE_WAS_REMOVING',
  OFFSET_FOUND_NULL: 'OFFSET_FOUND_NULL',
  OFFSET_OVERFLOW_BADLY: 'OFFSET_OVERFLOW_BADLY',
  OFFSET_OVERFLOW_ONE: 'OFFSET_OVERFLOW_ONE',
  OFFSET_TOO_SMALL: 'OFFSET_TOO_SMALL',
  NO_MATCHED_LOGIC_QUEUE: 'NO_MATCHED_LOGIC_QUEUE',
  NO_MESSAGE_IN_QUEUE: 'NO_MESSAGE_IN_QUEUE',
} as const;
export type GetMessageStatus = (typeof GetMessageStatus)[keyof typeof GetMessageStatus];

/** @see org.apache.rocketmq.store.AppendMessageResult */
export interface AppendMessageResult {
  status: AppendMessageStatus;
  /** Commit-log offset of the first record written. */
  wroteOffset: number;
  wroteBytes: number;
  /** Offset message id(s) (store host + commit-log offset), comma-separated for a batch as Java does. */
  msgId: string;
  storeTimestamp: number;
  /** Queue offset of the first record. */
  logicsOffset: number;
  pagecacheRT: number;
  msgNum: number;
}

/** @see org.apache.rocketmq.store.PutMessageResult */
export interface PutMessageResult {
  putMessageStatus: PutMessageStatus;
  appendMessageResult: AppendMessageResult | null;
}

/** @see org.apache.rocketmq.store.GetMessageResult */
export interface GetMessageResult {
  status: GetMessageStatus;
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
  /**
   * Raw stored records, as they lie in the commit log: views of its map where it is mapped (Java's
   * SelectMappedBufferResult slices), so a pull answer sends them with no copy. Their bytes change only if the commit
   * log is cut back below them (recovery, a slave truncating): what must outlive the request is copied or decoded.
   */
  messages: Buffer[];
  /** Queue offsets of the returned records, in order. */
  messageQueueOffsets: number[];
  bufferTotalSize: number;
  suggestPullingFromSlave: boolean;
}

/** @see org.apache.rocketmq.store.QueryMessageResult */
export interface QueryMessageResult {
  messages: Buffer[];
  indexLastUpdateTimestamp: number;
  indexLastUpdatePhyoffset: number;
  bufferTotalSize: number;
}
