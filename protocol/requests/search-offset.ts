/** SEARCH_OFFSET_BY_TIMESTAMP (29): the offset of the first message stored at or after a timestamp. @see org.apache.rocketmq.broker.processor.AdminBrokerProcessor#searchOffsetByTimestamp */
import { RequestCode } from '../code/request-code';
import { SearchOffsetRequestHeader } from '../header/search-offset-request-header';
import { SearchOffsetResponseHeader } from '../header/search-offset-response-header';
import { defineRequest, headerField } from './request';

export const SearchOffset = defineRequest({
  code: RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
  name: 'SEARCH_OFFSET_BY_TIMESTAMP',
  requestHeader: SearchOffsetRequestHeader,
  responseHeader: SearchOffsetResponseHeader,
  parse: headerField(SearchOffsetResponseHeader, 'offset'),
});
