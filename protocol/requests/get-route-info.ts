/**
 * GET_ROUTEINFO_BY_TOPIC (105): a topic's TopicRouteData body. `parse` returns the response; the client tells
 * TOPIC_NOT_EXIST (17) apart.
 *
 * @see org.apache.rocketmq.namesrv.processor.DefaultRequestProcessor#getRouteInfoByTopic
 */
import { RequestCode } from '../code/request-code';
import { GetRouteInfoRequestHeader } from '../header/get-route-info-request-header';
import { defineRequest } from './request';

export const GetRouteInfoByTopic = defineRequest({
  code: RequestCode.GET_ROUTEINFO_BY_TOPIC,
  name: 'GET_ROUTEINFO_BY_TOPIC',
  requestHeader: GetRouteInfoRequestHeader,
  parse: (response) => response,
});
