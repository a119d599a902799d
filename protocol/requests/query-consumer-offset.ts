/** QUERY_CONSUMER_OFFSET (14): a group's committed offset; QUERY_NOT_FOUND (22) is an MQBrokerError, as Java. @see org.apache.rocketmq.broker.processor.ConsumerManageProcessor#queryConsumerOffset */
import { RequestCode } from '../code/request-code';
import { QueryConsumerOffsetRequestHeader } from '../header/query-consumer-offset-request-header';
import { QueryConsumerOffsetResponseHeader } from '../header/query-consumer-offset-response-header';
import { defineRequest, headerField } from './request';

export const QueryConsumerOffset = defineRequest({
  code: RequestCode.QUERY_CONSUMER_OFFSET,
  name: 'QUERY_CONSUMER_OFFSET',
  requestHeader: QueryConsumerOffsetRequestHeader,
  responseHeader: QueryConsumerOffsetResponseHeader,
  parse: headerField(QueryConsumerOffsetResponseHeader, 'offset'),
});
