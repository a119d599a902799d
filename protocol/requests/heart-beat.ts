/** HEART_BEAT (34): HeartbeatData body, no header; the answer's version is the broker's. @see org.apache.rocketmq.broker.processor.ClientManageProcessor#heartBeat */
import { RequestCode } from '../code/request-code';
import { defineRequest, expectCode } from './request';

export const HeartBeat = defineRequest({
  code: RequestCode.HEART_BEAT,
  name: 'HEART_BEAT',
  parse: (response, addr): number => {
    expectCode(response, addr);
    return response.version;
  },
});
