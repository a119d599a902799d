/** GET_MAX_OFFSET (30): the queue's max offset (one past the last message). @see org.apache.rocketmq.broker.processor.AdminBrokerProcessor#getMaxOffset */
import { RequestCode } from '../code/request-code';
import { GetMaxOffsetRequestHeader } from '../header/get-max-offset-request-header';
import { GetMaxOffsetResponseHeader } from '../header/get-max-offset-response-header';
import { defineRequest, headerField } from './request';

export const GetMaxOffset = defineRequest({
  code: RequestCode.GET_MAX_OFFSET,
  name: 'GET_MAX_OFFSET',
  requestHeader: GetMaxOffsetRequestHeader,
  responseHeader: GetMaxOffsetResponseHeader,
  parse: headerField(GetMaxOffsetResponseHeader, 'offset'),
});
