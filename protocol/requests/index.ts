/**
 * One module per request (see README.md in this folder): code, request header, response header, parse.
 * `REQUEST_BY_CODE` is the table a dispatcher or a test looks a code up in.
 */
import type { RequestType } from './request';
import { AckMessage } from './ack-message';
import { ChangeInvisibleTime } from './change-invisible-time';
import { CheckClientConfig } from './check-client-config';
import { ConsumerSendMsgBack } from './consumer-send-msg-back';
import { EndTransaction } from './end-transaction';
import { GetConsumerListByGroup } from './get-consumer-list-by-group';
import { GetEarliestMsgStoretime } from './get-earliest-msg-storetime';
import { GetMaxOffset } from './get-max-offset';
import { GetMinOffset } from './get-min-offset';
import { GetRouteInfoByTopic } from './get-route-info';
import { HeartBeat } from './heart-beat';
import { LockBatchMQ, UnlockBatchMQ } from './lock-batch-mq';
import { Notification } from './notification';
import { PopMessage } from './pop-message';
import { PullMessage } from './pull-message';
import { QueryConsumerOffset } from './query-consumer-offset';
import { QueryMessage } from './query-message';
import { SearchOffset } from './search-offset';
import { SendBatchMessage, SendMessage, SendMessageV2, SendReplyMessage, SendReplyMessageV2 } from './send-message';
import { UnregisterClient } from './unregister-client';
import { UpdateConsumerOffset } from './update-consumer-offset';
import { ViewMessage } from './view-message';

export * from './request';
export {
  CheckClientConfig, ConsumerSendMsgBack, EndTransaction, GetConsumerListByGroup, GetMaxOffset, GetMinOffset, GetRouteInfoByTopic,
  HeartBeat, LockBatchMQ, PullMessage, QueryConsumerOffset, SearchOffset, SendBatchMessage, SendMessageV2, UnlockBatchMQ,
  UnregisterClient, UpdateConsumerOffset,
};
export {
  AckMessage, ChangeInvisibleTime, GetEarliestMsgStoretime, Notification, PopMessage, QueryMessage, SendMessage, SendReplyMessage, SendReplyMessageV2,
  ViewMessage,
};
export { PULL_ANSWER_CODES } from './pull-message';
export { SEND_ANSWER_CODES } from './send-message';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRequest = RequestType<any, any, unknown>;

const ALL: readonly AnyRequest[] = [
  CheckClientConfig, ConsumerSendMsgBack, EndTransaction, GetConsumerListByGroup, GetMaxOffset, GetMinOffset, GetRouteInfoByTopic,
  HeartBeat, LockBatchMQ, PullMessage, QueryConsumerOffset, SearchOffset, SendBatchMessage, SendMessageV2, UnlockBatchMQ,
  UnregisterClient, UpdateConsumerOffset,
  AckMessage, ChangeInvisibleTime, GetEarliestMsgStoretime, Notification, PopMessage, QueryMessage, SendMessage, SendReplyMessage, SendReplyMessageV2,
  ViewMessage,
];

/** Every request module by its code. */
export const REQUEST_BY_CODE: ReadonlyMap<number, AnyRequest> = new Map(ALL.map((r) => [r.code, r]));
