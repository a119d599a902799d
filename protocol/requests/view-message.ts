/**
 * VIEW_MESSAGE_BY_ID (33): the one stored record at a commit-log offset, as the body. `parse` gives the answer as it
 * came (the admin client decodes the record).
 *
 * @see org.apache.rocketmq.broker.processor.QueryMessageProcessor#viewMessageById
 */
import { RequestCode } from '../code/request-code';
import { ViewMessageRequestHeader } from '../header/view-message-request-header';
import { defineRequest } from './request';

export const ViewMessage = defineRequest({
  code: RequestCode.VIEW_MESSAGE_BY_ID,
  name: 'VIEW_MESSAGE_BY_ID',
  requestHeader: ViewMessageRequestHeader,
  parse: (response) => response,
});
