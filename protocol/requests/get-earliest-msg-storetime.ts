/** GET_EARLIEST_MSG_STORETIME (32): the store time of a queue's first message. @see org.apache.rocketmq.broker.processor.AdminBrokerProcessor#getEarliestMsgStoretime */
import { RequestCode } from '../code/request-code';
import { GetEarliestMsgStoretimeRequestHeader } from '../header/get-earliest-msg-storetime-request-header';
import { GetEarliestMsgStoretimeResponseHeader } from '../header/get-earliest-msg-storetime-response-header';
import { defineRequest, headerField } from './request';

export const GetEarliestMsgStoretime = defineRequest({
  code: RequestCode.GET_EARLIEST_MSG_STORETIME,
  name: 'GET_EARLIEST_MSG_STORETIME',
  requestHeader: GetEarliestMsgStoretimeRequestHeader,
  responseHeader: GetEarliestMsgStoretimeResponseHeader,
  parse: headerField(GetEarliestMsgStoretimeResponseHeader, 'timestamp'),
});
