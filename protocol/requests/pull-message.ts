/**
 * PULL_MESSAGE (11): SUCCESS (FOUND), PULL_NOT_FOUND, PULL_RETRY_IMMEDIATELY and PULL_OFFSET_MOVED are answers;
 * `parse` returns the response header, what the client maps to a PullStatus.
 *
 * @see org.apache.rocketmq.broker.processor.PullMessageProcessor
 */
import { RequestCode } from '../code/request-code';
import { ResponseCode } from '../code/response-code';
import { PullMessageRequestHeader } from '../header/pull-message-request-header';
import { PullMessageResponseHeader } from '../header/pull-message-response-header';
import { defineRequest, expectCode } from './request';

export const PULL_ANSWER_CODES = [
  ResponseCode.SUCCESS, ResponseCode.PULL_NOT_FOUND, ResponseCode.PULL_RETRY_IMMEDIATELY, ResponseCode.PULL_OFFSET_MOVED,
] as const;

export const PullMessage = defineRequest({
  code: RequestCode.PULL_MESSAGE,
  name: 'PULL_MESSAGE',
  requestHeader: PullMessageRequestHeader,
  responseHeader: PullMessageResponseHeader,
  parse: (response, addr, self) => {
    expectCode(response, addr, ...PULL_ANSWER_CODES);
    return self.responseHeader.decode(response.extFields);
  },
});
