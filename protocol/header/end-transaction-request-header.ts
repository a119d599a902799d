/**
 * EndTransactionRequestHeader: A producer's commit or rollback of a half message.
 *
 * Used by: END_TRANSACTION (37) request (oneway).
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   producerGroup         string   required  producer group
 *   tranStateTableOffset  long     required  queue offset of the half message
 *   commitLogOffset       long     required  commit-log offset of the half message
 *   commitOrRollback      int      required  MessageSysFlag: TRANSACTION_NOT_TYPE 0, COMMIT 8, ROLLBACK 12
 *   fromTransactionCheck  boolean  optional  answer to a CHECK_TRANSACTION_STATE
 *   msgId                 string   required  message id
 *   transactionId         string   optional  transaction id
 *   topic                 string   5.x opt.  topic (5.x)
 *   bname                 string   optional  broker name the request is meant for (RpcRequestHeader)
 *   ns                    string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd                   boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway                  boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.EndTransactionRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.EndTransactionRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const EndTransactionRequestHeader = defineHeader('EndTransactionRequestHeader', {
  producerGroup: { type: 'string', required: true },
  tranStateTableOffset: { type: 'long', required: true },
  commitLogOffset: { type: 'long', required: true },
  commitOrRollback: { type: 'int', required: true },
  fromTransactionCheck: { type: 'boolean' },
  msgId: { type: 'string', required: true },
  transactionId: { type: 'string' },
  topic: { type: 'string' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
} as const);
export type EndTransactionRequestHeader = HeaderValues<typeof EndTransactionRequestHeader.schema>;
