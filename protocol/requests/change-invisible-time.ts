/**
 * CHANGE_MESSAGE_INVISIBLETIME (200053, 5.x): a popped message stays invisible for a new while. `parse` gives the
 * answer as it came (any code but SUCCESS is NO_EXIST for the client, as Java's).
 *
 * @see org.apache.rocketmq.broker.processor.ChangeInvisibleTimeProcessor (5.3.3)
 */
import { RequestCode } from '../code/request-code';
import { ChangeInvisibleTimeRequestHeader } from '../header/change-invisible-time-request-header';
import { ChangeInvisibleTimeResponseHeader } from '../header/change-invisible-time-response-header';
import { defineRequest } from './request';

export const ChangeInvisibleTime = defineRequest({
  code: RequestCode.CHANGE_MESSAGE_INVISIBLETIME,
  name: 'CHANGE_MESSAGE_INVISIBLETIME',
  requestHeader: ChangeInvisibleTimeRequestHeader,
  responseHeader: ChangeInvisibleTimeResponseHeader,
  parse: (response) => response,
});
