/**
 * POP_MESSAGE (200050, 5.x): pop messages of a queue (or all queues, queueId -1) invisible for a while. `parse` gives
 * the answer as it came: SUCCESS, POLLING_FULL, POLLING_TIMEOUT and PULL_NOT_FOUND are all answers, which
 * lib/client/mq-client-api-pop.ts maps to a PopResult as Java's processPopResponse.
 *
 * @see org.apache.rocketmq.broker.processor.PopMessageProcessor (5.3.3)
 */
import { RequestCode } from '../code/request-code';
import { PopMessageRequestHeader } from '../header/pop-message-request-header';
import { PopMessageResponseHeader } from '../header/pop-message-response-header';
import { defineRequest } from './request';

export const PopMessage = defineRequest({
  code: RequestCode.POP_MESSAGE,
  name: 'POP_MESSAGE',
  requestHeader: PopMessageRequestHeader,
  responseHeader: PopMessageResponseHeader,
  parse: (response) => response,
});
