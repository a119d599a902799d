/** GET_CONSUMER_LIST_BY_GROUP (38): the client ids of a group's consumers on that broker. @see org.apache.rocketmq.broker.processor.ConsumerManageProcessor#getConsumerListByGroup */
import { RequestCode } from '../code/request-code';
import { decodeGetConsumerListByGroupResponseBody } from '../body/get-consumer-list-by-group-response-body';
import { GetConsumerListByGroupRequestHeader } from '../header/get-consumer-list-by-group-request-header';
import { createBrokerError } from '../code/response-code-table';
import { ResponseCode } from '../code/response-code';
import { defineRequest } from './request';

export const GetConsumerListByGroup = defineRequest({
  code: RequestCode.GET_CONSUMER_LIST_BY_GROUP,
  name: 'GET_CONSUMER_LIST_BY_GROUP',
  requestHeader: GetConsumerListByGroupRequestHeader,
  parse: (response, addr): string[] => {
    if (response.code === ResponseCode.SUCCESS && response.body) {
      return decodeGetConsumerListByGroupResponseBody(response.body).consumerIdList;
    }
    throw createBrokerError(response.code, response.remark, addr);
  },
});
