/**
 * SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320): SendMessageRequestHeaderV2 (short keys a..n) out,
 * SendMessageResponseHeader back. SUCCESS and the three stored-but-not-OK codes are answers; `parse` leaves the
 * SendResult to the client (it needs the message's ids).
 *
 * @see org.apache.rocketmq.client.impl.MQClientAPIImpl#sendMessage
 */
import { RequestCode } from '../code/request-code';
import { ResponseCode } from '../code/response-code';
import { SendMessageRequestHeaderV2 } from '../header/send-message-request-header-v2';
import { SendMessageResponseHeader } from '../header/send-message-response-header';
import type { RemotingCommand } from '../remoting-command';
import { decodeResponseHeader, defineRequest, expectCode } from './request';

export const SEND_ANSWER_CODES = [
  ResponseCode.SUCCESS, ResponseCode.FLUSH_DISK_TIMEOUT, ResponseCode.FLUSH_SLAVE_TIMEOUT, ResponseCode.SLAVE_NOT_AVAILABLE,
] as const;

function parseSend(response: RemotingCommand, addr: string | undefined): SendMessageResponseHeader {
  expectCode(response, addr, ...SEND_ANSWER_CODES);
  return decodeResponseHeader(SendMessageResponseHeader, response, addr);
}

export const SendMessageV2 = defineRequest({
  code: RequestCode.SEND_MESSAGE_V2,
  name: 'SEND_MESSAGE_V2',
  requestHeader: SendMessageRequestHeaderV2,
  responseHeader: SendMessageResponseHeader,
  parse: parseSend,
});

export const SendBatchMessage = defineRequest({
  code: RequestCode.SEND_BATCH_MESSAGE,
  name: 'SEND_BATCH_MESSAGE',
  requestHeader: SendMessageRequestHeaderV2,
  responseHeader: SendMessageResponseHeader,
  parse: parseSend,
});
