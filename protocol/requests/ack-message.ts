/**
 * ACK_MESSAGE (200051, 5.x): acknowledge a popped message. `parse` gives the answer as it came (Java's client takes
 * any code but SUCCESS as NO_EXIST; lib/client/mq-client-api-pop.ts does the same).
 *
 * @see org.apache.rocketmq.broker.processor.AckMessageProcessor (5.3.3)
 */
import { RequestCode } from '../code/request-code';
import { AckMessageRequestHeader } from '../header/ack-message-request-header';
import { defineRequest } from './request';

export const AckMessage = defineRequest({
  code: RequestCode.ACK_MESSAGE,
  name: 'ACK_MESSAGE',
  requestHeader: AckMessageRequestHeader,
  parse: (response) => response,
});
