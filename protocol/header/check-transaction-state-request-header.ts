/**
 * CheckTransactionStateRequestHeader: The broker asking a producer the state of a transaction; the body is the half message.
 *
 * Used by: CHECK_TRANSACTION_STATE (39) request, broker to producer (oneway).
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   tranStateTableOffset  long     required  queue offset of the half message
 *   commitLogOffset       long     required  commit-log offset of the half message
 *   msgId                 string   optional  message's unique id
 *   transactionId         string   optional  transaction id
 *   offsetMsgId           string   optional  offset message id
 *   topic                 string   5.x opt.  topic (5.x)
 *   bname                 string   optional  broker name the request is meant for (RpcRequestHeader)
 *   ns                    string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd                   boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway                  boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.CheckTransactionStateRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.CheckTransactionStateRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const CheckTransactionStateRequestHeader = defineHeader('CheckTransactionStateRequestHeader', {
  tranStateTableOffset: { type: 'long', required: true },
  commitLogOffset: { type: 'long', required: true },
  msgId: { type: 'string' },
  transactionId: { type: 'string' },
  offsetMsgId: { type: 'string' },
  topic: { type: 'string' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
} as const);
export type CheckTransactionStateRequestHeader = HeaderValues<typeof CheckTransactionStateRequestHeader.schema>;
