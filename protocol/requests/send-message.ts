/**
 * SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320): SendMessageRequestHeaderV2 (short keys a..n) out,
 * SendMessageResponseHeader back; SEND_MESSAGE (10) and the reply codes (324, 325) likewise, with their header forms. SUCCESS and the three stored-but-not-OK codes are answers; `parse` leaves the
 * SendResult to the client (it needs the message's ids).
 *
 * @see org.apache.rocketmq.client.impl.MQClientAPIImpl#sendMessage
 */
import { RequestCode } from '../code/request-code';
import { ResponseCode } from '../code/response-code';
import { SendMessageRequestHeader } from '../header/send-message-request-header';
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

/** SEND_MESSAGE (10): the long-named header (Java clients before 4.x sendSmartMsg, and tools); the broker takes it. */
export const SendMessage = defineRequest({
  code: RequestCode.SEND_MESSAGE,
  name: 'SEND_MESSAGE',
  requestHeader: SendMessageRequestHeader,
  responseHeader: SendMessageResponseHeader,
  parse: parseSend,
});

/** SEND_REPLY_MESSAGE (324): a reply message (MSG_TYPE=reply) to a request-reply call, long-named header. */
export const SendReplyMessage = defineRequest({
  code: RequestCode.SEND_REPLY_MESSAGE,
  name: 'SEND_REPLY_MESSAGE',
  requestHeader: SendMessageRequestHeader,
  responseHeader: SendMessageResponseHeader,
  parse: parseSend,
});

/** SEND_REPLY_MESSAGE_V2 (325): a reply message with the V2 short keys (what our client sends). */
export const SendReplyMessageV2 = defineRequest({
  code: RequestCode.SEND_REPLY_MESSAGE_V2,
  name: 'SEND_REPLY_MESSAGE_V2',
  requestHeader: SendMessageRequestHeaderV2,
  responseHeader: SendMessageResponseHeader,
  parse: parseSend,
});
