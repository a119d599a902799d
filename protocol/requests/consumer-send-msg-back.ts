/** CONSUMER_SEND_MSG_BACK (36): a message that failed to consume goes back for a later retry. @see org.apache.rocketmq.broker.processor.SendMessageProcessor#consumerSendMsgBack */
import { RequestCode } from '../code/request-code';
import { ConsumerSendMsgBackRequestHeader } from '../header/consumer-send-msg-back-request-header';
import { defineRequest } from './request';

export const ConsumerSendMsgBack = defineRequest({
  code: RequestCode.CONSUMER_SEND_MSG_BACK,
  name: 'CONSUMER_SEND_MSG_BACK',
  requestHeader: ConsumerSendMsgBackRequestHeader,
});
