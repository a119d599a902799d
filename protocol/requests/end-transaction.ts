/** END_TRANSACTION (37, oneway from the client): commit or roll back a half message. @see org.apache.rocketmq.broker.processor.EndTransactionProcessor */
import { RequestCode } from '../code/request-code';
import { EndTransactionRequestHeader } from '../header/end-transaction-request-header';
import { defineRequest } from './request';

export const EndTransaction = defineRequest({
  code: RequestCode.END_TRANSACTION,
  name: 'END_TRANSACTION',
  requestHeader: EndTransactionRequestHeader,
});
