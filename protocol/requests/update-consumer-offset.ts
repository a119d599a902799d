/** UPDATE_CONSUMER_OFFSET (15): commit a group's offset (answered or oneway). @see org.apache.rocketmq.broker.processor.ConsumerManageProcessor#updateConsumerOffset */
import { RequestCode } from '../code/request-code';
import { UpdateConsumerOffsetRequestHeader } from '../header/update-consumer-offset-request-header';
import { defineRequest } from './request';

export const UpdateConsumerOffset = defineRequest({
  code: RequestCode.UPDATE_CONSUMER_OFFSET,
  name: 'UPDATE_CONSUMER_OFFSET',
  requestHeader: UpdateConsumerOffsetRequestHeader,
});
