/** CHECK_CLIENT_CONFIG (46): CheckClientRequestBody, no header. @see org.apache.rocketmq.broker.processor.ClientManageProcessor#checkClientConfig */
import { RequestCode } from '../code/request-code';
import { defineRequest } from './request';

export const CheckClientConfig = defineRequest({ code: RequestCode.CHECK_CLIENT_CONFIG, name: 'CHECK_CLIENT_CONFIG' });
