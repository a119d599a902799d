/**
 * NOTIFICATION (200054, 5.x): whether a pop would find messages, held by the broker up to pollTime. `parse` gives
 * the answer as it came; lib/client/mq-client-api-pop.ts reads hasMsg through the response header.
 *
 * @see org.apache.rocketmq.broker.processor.NotificationProcessor (5.3.3)
 */
import { RequestCode } from '../code/request-code';
import { NotificationRequestHeader } from '../header/notification-request-header';
import { NotificationResponseHeader } from '../header/notification-response-header';
import { defineRequest } from './request';

export const Notification = defineRequest({
  code: RequestCode.NOTIFICATION,
  name: 'NOTIFICATION',
  requestHeader: NotificationRequestHeader,
  responseHeader: NotificationResponseHeader,
  parse: (response) => response,
});
