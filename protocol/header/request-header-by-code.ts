/**
 * Which custom header each request code carries, as the 4.9.8 processors decode it (broker, name server, client).
 * Codes whose request has no custom header (HEART_BEAT, CHECK_CLIENT_CONFIG, LOCK_BATCH_MQ, UNLOCK_BATCH_MQ,
 * GET_ALL_TOPIC_CONFIG, GET_BROKER_CLUSTER_INFO, ...: body only or nothing) are not in the table.
 *
 * @see org.apache.rocketmq.broker.processor.AdminBrokerProcessor and the other 4.9.8 processors
 */
import { RequestCode } from '../code/request-code';
import type { AnyHeaderCodec } from './header-schema';
import { CheckTransactionStateRequestHeader } from './check-transaction-state-request-header';
import { CloneGroupOffsetRequestHeader } from './clone-group-offset-request-header';
import { ConsumeMessageDirectlyResultRequestHeader } from './consume-message-directly-result-request-header';
import { ConsumerSendMsgBackRequestHeader } from './consumer-send-msg-back-request-header';
import { CreateAccessConfigRequestHeader } from './create-access-config-request-header';
import { CreateTopicRequestHeader } from './create-topic-request-header';
import { DeleteAccessConfigRequestHeader } from './delete-access-config-request-header';
import { DeleteKVConfigRequestHeader } from './delete-kv-config-request-header';
import { DeleteSubscriptionGroupRequestHeader } from './delete-subscription-group-request-header';
import { GetSubscriptionGroupConfigRequestHeader } from './get-subscription-group-config-request-header';
import { DeleteTopicFromNamesrvRequestHeader } from './delete-topic-from-namesrv-request-header';
import { DeleteTopicRequestHeader } from './delete-topic-request-header';
import { EndTransactionRequestHeader } from './end-transaction-request-header';
import { GetConsumeStatsInBrokerHeader } from './get-consume-stats-in-broker-header';
import { GetConsumeStatsRequestHeader } from './get-consume-stats-request-header';
import { GetConsumerConnectionListRequestHeader } from './get-consumer-connection-list-request-header';
import { GetConsumerListByGroupRequestHeader } from './get-consumer-list-by-group-request-header';
import { GetConsumerRunningInfoRequestHeader } from './get-consumer-running-info-request-header';
import { GetConsumerStatusRequestHeader } from './get-consumer-status-request-header';
import { GetEarliestMsgStoretimeRequestHeader } from './get-earliest-msg-storetime-request-header';
import { GetKVConfigRequestHeader } from './get-kv-config-request-header';
import { GetKVListByNamespaceRequestHeader } from './get-kv-list-by-namespace-request-header';
import { GetMaxOffsetRequestHeader } from './get-max-offset-request-header';
import { GetMinOffsetRequestHeader } from './get-min-offset-request-header';
import { GetProducerConnectionListRequestHeader } from './get-producer-connection-list-request-header';
import { GetRouteInfoRequestHeader } from './get-route-info-request-header';
import { GetTopicStatsInfoRequestHeader } from './get-topic-stats-info-request-header';
import { GetTopicsByClusterRequestHeader } from './get-topics-by-cluster-request-header';
import { NotifyConsumerIdsChangedRequestHeader } from './notify-consumer-ids-changed-request-header';
import { PullMessageRequestHeader } from './pull-message-request-header';
import { PutKVConfigRequestHeader } from './put-kv-config-request-header';
import { QueryConsumeQueueRequestHeader } from './query-consume-queue-request-header';
import { QueryConsumeTimeSpanRequestHeader } from './query-consume-time-span-request-header';
import { QueryConsumerOffsetRequestHeader } from './query-consumer-offset-request-header';
import { QueryCorrectionOffsetHeader } from './query-correction-offset-header';
import { QueryDataVersionRequestHeader } from './query-data-version-request-header';
import { QueryMessageRequestHeader } from './query-message-request-header';
import { QueryTopicConsumeByWhoRequestHeader } from './query-topic-consume-by-who-request-header';
import { RegisterBrokerRequestHeader } from './register-broker-request-header';
import { RegisterFilterServerRequestHeader } from './register-filter-server-request-header';
import { RegisterMessageFilterClassRequestHeader } from './register-message-filter-class-request-header';
import { ReplyMessageRequestHeader } from './reply-message-request-header';
import { ResetOffsetRequestHeader } from './reset-offset-request-header';
import { ResumeCheckHalfMessageRequestHeader } from './resume-check-half-message-request-header';
import { SearchOffsetRequestHeader } from './search-offset-request-header';
import { SendMessageRequestHeader } from './send-message-request-header';
import { SendMessageRequestHeaderV2 } from './send-message-request-header-v2';
import { UnRegisterBrokerRequestHeader } from './unregister-broker-request-header';
import { UnregisterClientRequestHeader } from './unregister-client-request-header';
import { UpdateConsumerOffsetRequestHeader } from './update-consumer-offset-request-header';
import { UpdateGlobalWhiteAddrsConfigRequestHeader } from './update-global-white-addrs-config-request-header';
import { ViewBrokerStatsDataRequestHeader } from './view-broker-stats-data-request-header';
import { ViewMessageRequestHeader } from './view-message-request-header';
import { WipeWritePermOfBrokerRequestHeader } from './wipe-write-perm-of-broker-request-header';
import { AddWritePermOfBrokerRequestHeader } from './add-write-perm-of-broker-request-header';
import { PopMessageRequestHeader } from './pop-message-request-header';
import { AckMessageRequestHeader } from './ack-message-request-header';
import { ChangeInvisibleTimeRequestHeader } from './change-invisible-time-request-header';
import { NotificationRequestHeader } from './notification-request-header';

const C = RequestCode;
const ENTRIES: ReadonlyArray<readonly [number, AnyHeaderCodec]> = [
  // producer and consumer traffic (broker)
  [C.SEND_MESSAGE, SendMessageRequestHeader],
  [C.SEND_MESSAGE_V2, SendMessageRequestHeaderV2],
  [C.SEND_BATCH_MESSAGE, SendMessageRequestHeaderV2],
  [C.SEND_REPLY_MESSAGE, SendMessageRequestHeader],
  [C.SEND_REPLY_MESSAGE_V2, SendMessageRequestHeaderV2],
  [C.PULL_MESSAGE, PullMessageRequestHeader],
  [C.QUERY_MESSAGE, QueryMessageRequestHeader],
  [C.VIEW_MESSAGE_BY_ID, ViewMessageRequestHeader],
  [C.QUERY_CONSUMER_OFFSET, QueryConsumerOffsetRequestHeader],
  [C.UPDATE_CONSUMER_OFFSET, UpdateConsumerOffsetRequestHeader],
  [C.GET_MAX_OFFSET, GetMaxOffsetRequestHeader],
  [C.GET_MIN_OFFSET, GetMinOffsetRequestHeader],
  [C.SEARCH_OFFSET_BY_TIMESTAMP, SearchOffsetRequestHeader],
  [C.GET_EARLIEST_MSG_STORETIME, GetEarliestMsgStoretimeRequestHeader],
  [C.UNREGISTER_CLIENT, UnregisterClientRequestHeader],
  [C.GET_CONSUMER_LIST_BY_GROUP, GetConsumerListByGroupRequestHeader],
  [C.CONSUMER_SEND_MSG_BACK, ConsumerSendMsgBackRequestHeader],
  [C.END_TRANSACTION, EndTransactionRequestHeader],
  // 5.x POP consumption (broker)
  [C.POP_MESSAGE, PopMessageRequestHeader],
  [C.ACK_MESSAGE, AckMessageRequestHeader],
  [C.CHANGE_MESSAGE_INVISIBLETIME, ChangeInvisibleTimeRequestHeader],
  [C.NOTIFICATION, NotificationRequestHeader],
  // broker to client
  [C.CHECK_TRANSACTION_STATE, CheckTransactionStateRequestHeader],
  [C.NOTIFY_CONSUMER_IDS_CHANGED, NotifyConsumerIdsChangedRequestHeader],
  [C.RESET_CONSUMER_CLIENT_OFFSET, ResetOffsetRequestHeader],
  [C.GET_CONSUMER_STATUS_FROM_CLIENT, GetConsumerStatusRequestHeader],
  [C.GET_CONSUMER_RUNNING_INFO, GetConsumerRunningInfoRequestHeader],
  [C.CONSUME_MESSAGE_DIRECTLY, ConsumeMessageDirectlyResultRequestHeader],
  [C.PUSH_REPLY_MESSAGE_TO_CLIENT, ReplyMessageRequestHeader],
  // admin (broker)
  [C.UPDATE_AND_CREATE_TOPIC, CreateTopicRequestHeader],
  [C.DELETE_TOPIC_IN_BROKER, DeleteTopicRequestHeader],
  [C.DELETE_SUBSCRIPTIONGROUP, DeleteSubscriptionGroupRequestHeader],
  [C.GET_SUBSCRIPTIONGROUP_CONFIG, GetSubscriptionGroupConfigRequestHeader],
  [C.GET_TOPIC_STATS_INFO, GetTopicStatsInfoRequestHeader],
  [C.GET_CONSUMER_CONNECTION_LIST, GetConsumerConnectionListRequestHeader],
  [C.GET_PRODUCER_CONNECTION_LIST, GetProducerConnectionListRequestHeader],
  [C.GET_CONSUME_STATS, GetConsumeStatsRequestHeader],
  [C.INVOKE_BROKER_TO_RESET_OFFSET, ResetOffsetRequestHeader],
  [C.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, GetConsumerStatusRequestHeader],
  [C.QUERY_TOPIC_CONSUME_BY_WHO, QueryTopicConsumeByWhoRequestHeader],
  [C.QUERY_CONSUME_TIME_SPAN, QueryConsumeTimeSpanRequestHeader],
  [C.QUERY_CORRECTION_OFFSET, QueryCorrectionOffsetHeader],
  [C.CLONE_GROUP_OFFSET, CloneGroupOffsetRequestHeader],
  [C.VIEW_BROKER_STATS_DATA, ViewBrokerStatsDataRequestHeader],
  [C.GET_BROKER_CONSUME_STATS, GetConsumeStatsInBrokerHeader],
  [C.QUERY_CONSUME_QUEUE, QueryConsumeQueueRequestHeader],
  [C.RESUME_CHECK_HALF_MESSAGE, ResumeCheckHalfMessageRequestHeader],
  [C.REGISTER_FILTER_SERVER, RegisterFilterServerRequestHeader],
  [C.REGISTER_MESSAGE_FILTER_CLASS, RegisterMessageFilterClassRequestHeader],
  [C.UPDATE_AND_CREATE_ACL_CONFIG, CreateAccessConfigRequestHeader],
  [C.DELETE_ACL_CONFIG, DeleteAccessConfigRequestHeader],
  [C.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, UpdateGlobalWhiteAddrsConfigRequestHeader],
  // name server
  [C.PUT_KV_CONFIG, PutKVConfigRequestHeader],
  [C.GET_KV_CONFIG, GetKVConfigRequestHeader],
  [C.DELETE_KV_CONFIG, DeleteKVConfigRequestHeader],
  [C.GET_KVLIST_BY_NAMESPACE, GetKVListByNamespaceRequestHeader],
  [C.REGISTER_BROKER, RegisterBrokerRequestHeader],
  [C.UNREGISTER_BROKER, UnRegisterBrokerRequestHeader],
  [C.QUERY_DATA_VERSION, QueryDataVersionRequestHeader],
  [C.GET_ROUTEINFO_BY_TOPIC, GetRouteInfoRequestHeader],
  [C.WIPE_WRITE_PERM_OF_BROKER, WipeWritePermOfBrokerRequestHeader],
  [C.ADD_WRITE_PERM_OF_BROKER, AddWritePermOfBrokerRequestHeader],
  [C.DELETE_TOPIC_IN_NAMESRV, DeleteTopicFromNamesrvRequestHeader],
  [C.GET_TOPICS_BY_CLUSTER, GetTopicsByClusterRequestHeader],
];

/** Request code → the codec of its request's custom header. */
export const REQUEST_HEADER_BY_CODE: ReadonlyMap<number, AnyHeaderCodec> = new Map(ENTRIES);

/** The codec of `code`'s request header, or undefined when that request carries none. */
export function requestHeaderCodec(code: number): AnyHeaderCodec | undefined {
  return REQUEST_HEADER_BY_CODE.get(code);
}
