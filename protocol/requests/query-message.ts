/**
 * QUERY_MESSAGE (12): messages of a topic indexed under a key (or, with `_UNIQUE_KEY_QUERY`, whose UNIQ_KEY is the
 * key) stored in a time range. `parse` gives the answer as it came: QUERY_NOT_FOUND is an answer (no messages) for
 * lib/client/mq-client-api-admin.ts.
 *
 * @see org.apache.rocketmq.broker.processor.QueryMessageProcessor#queryMessage
 */
import { RequestCode } from '../code/request-code';
import { QueryMessageRequestHeader } from '../header/query-message-request-header';
import { QueryMessageResponseHeader } from '../header/query-message-response-header';
import { defineRequest } from './request';

export const QueryMessage = defineRequest({
  code: RequestCode.QUERY_MESSAGE,
  name: 'QUERY_MESSAGE',
  requestHeader: QueryMessageRequestHeader,
  responseHeader: QueryMessageResponseHeader,
  parse: (response) => response,
});
