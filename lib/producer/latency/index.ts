export * from './latency-fault-tolerance';
export * from './mq-fault-strategy';
export { TopicPublishInfo } from '../../client/topic-publish-info';
export { topicRouteData2TopicPublishInfo, topicRouteData2TopicSubscribeInfo } from '../../client/route-convert';
