/** GET_MIN_OFFSET (31): the queue's min offset. @see org.apache.rocketmq.broker.processor.AdminBrokerProcessor#getMinOffset */
import { RequestCode } from '../code/request-code';
import { GetMinOffsetRequestHeader } from '../header/get-min-offset-request-header';
import { GetMinOffsetResponseHeader } from '../header/get-min-offset-response-header';
import { defineRequest, headerField } from './request';

export const GetMinOffset = defineRequest({
  code: RequestCode.GET_MIN_OFFSET,
  name: 'GET_MIN_OFFSET',
  requestHeader: GetMinOffsetRequestHeader,
  responseHeader: GetMinOffsetResponseHeader,
  parse: headerField(GetMinOffsetResponseHeader, 'offset'),
});
