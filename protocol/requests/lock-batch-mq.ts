/** LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42): LockBatchRequestBody, no header. @see org.apache.rocketmq.broker.processor.AdminBrokerProcessor#lockBatchMQ */
import { RequestCode } from '../code/request-code';
import { decodeLockBatchResponseBody } from '../body/lock-batch';
import type { MessageQueue } from '../message/message-queue';
import { defineRequest, expectCode } from './request';

export const LockBatchMQ = defineRequest({
  code: RequestCode.LOCK_BATCH_MQ,
  name: 'LOCK_BATCH_MQ',
  parse: (response, addr): MessageQueue[] => {
    expectCode(response, addr);
    return response.body ? decodeLockBatchResponseBody(response.body).lockOKMQSet : [];
  },
});

export const UnlockBatchMQ = defineRequest({ code: RequestCode.UNLOCK_BATCH_MQ, name: 'UNLOCK_BATCH_MQ' });
