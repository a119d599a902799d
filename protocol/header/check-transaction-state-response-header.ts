/**
 * CheckTransactionStateResponseHeader: Unused by 4.9.8 peers, kept for completeness.
 *
 * Used by: declared by Java for CHECK_TRANSACTION_STATE; no 4.9.8 code path sends it.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   producerGroup         string   required  producer group
 *   tranStateTableOffset  long     required  queue offset
 *   commitLogOffset       long     required  commit-log offset
 *   commitOrRollback      int      required  transaction type
 *
 * @see org.apache.rocketmq.common.protocol.header.CheckTransactionStateResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.CheckTransactionStateResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const CheckTransactionStateResponseHeader = defineHeader('CheckTransactionStateResponseHeader', {
  producerGroup: { type: 'string', required: true },
  tranStateTableOffset: { type: 'long', required: true },
  commitLogOffset: { type: 'long', required: true },
  commitOrRollback: { type: 'int', required: true },
} as const);
export type CheckTransactionStateResponseHeader = HeaderValues<typeof CheckTransactionStateResponseHeader.schema>;
