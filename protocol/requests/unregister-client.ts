/** UNREGISTER_CLIENT (35). @see org.apache.rocketmq.broker.processor.ClientManageProcessor#unregisterClient */
import { RequestCode } from '../code/request-code';
import { UnregisterClientRequestHeader } from '../header/unregister-client-request-header';
import { defineRequest } from './request';

export const UnregisterClient = defineRequest({
  code: RequestCode.UNREGISTER_CLIENT,
  name: 'UNREGISTER_CLIENT',
  requestHeader: UnregisterClientRequestHeader,
});
