/**
 * Message sysFlag bits.
 *
 * @see org.apache.rocketmq.common.sysflag.MessageSysFlag
 */
export const MessageSysFlag = {
  COMPRESSED_FLAG: 0x1,
  MULTI_TAGS_FLAG: 0x1 << 1,
  TRANSACTION_NOT_TYPE: 0,
  TRANSACTION_PREPARED_TYPE: 0x1 << 2,
  TRANSACTION_COMMIT_TYPE: 0x2 << 2,
  TRANSACTION_ROLLBACK_TYPE: 0x3 << 2,
  BORNHOST_V6_FLAG: 0x1 << 4,
  STOREHOSTADDRESS_V6_FLAG: 0x1 << 5,
  /** 5.x: the topic length is an i16 (magic V2). */
  NEED_UNWRAP_FLAG: 0x1 << 6,
  INNER_BATCH_FLAG: 0x1 << 7,
  /** 5.x compression type bits (0x700): LZ4 0x100, ZSTD 0x200, ZLIB 0x300. */
  COMPRESSION_LZ4_TYPE: 0x1 << 8,
  COMPRESSION_ZSTD_TYPE: 0x2 << 8,
  COMPRESSION_ZLIB_TYPE: 0x3 << 8,
  COMPRESSION_TYPE_COMPARATOR: 0x7 << 8,
} as const;

export function getTransactionValue(flag: number): number {
  return flag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
}

export function resetTransactionValue(flag: number, type: number): number {
  return (flag & ~MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) | type;
}

export function clearCompressedFlag(flag: number): number {
  return flag & ~MessageSysFlag.COMPRESSED_FLAG;
}
