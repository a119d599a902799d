/**
 * The consumer side of request-reply: the reply to a request message, to be sent with any producer. Its topic is
 * `<cluster>_REPLY_TOPIC` of the cluster that stored the request (the CLUSTER property the broker adds), and it
 * carries MSG_TYPE=reply, which makes the producer send it with SEND_REPLY_MESSAGE_V2; the broker then pushes it to
 * the client named by REPLY_TO_CLIENT.
 *
 * @see org.apache.rocketmq.client.utils.MessageUtil
 */
import { MessageConst } from '../../protocol/message/message-const';
import type { Message } from '../../protocol/message/message';
import { MQClientError } from '../errors';
import { MixAll, getReplyTopic } from './mix-all';
import { ClientErrorCode } from './send-result';

/** Java MessageUtil.createReplyMessage(requestMessage, body). A string body is encoded as UTF-8. */
export function createReplyMessage(requestMessage: Message, body: Buffer | string): Message {
  if (!requestMessage) {
    throw new MQClientError(ClientErrorCode.CREATE_REPLY_MESSAGE_EXCEPTION, 'create reply message fail, requestMessage cannot be null.');
  }
  const p = requestMessage.properties ?? {};
  const cluster = p[MessageConst.PROPERTY_CLUSTER];
  if (cluster === undefined) {
    throw new MQClientError(ClientErrorCode.CREATE_REPLY_MESSAGE_EXCEPTION,
      `create reply message fail, requestMessage error, property[${MessageConst.PROPERTY_CLUSTER}] is null.`);
  }
  const properties: Record<string, string> = { [MessageConst.PROPERTY_MESSAGE_TYPE]: MixAll.REPLY_MESSAGE_FLAG };
  // Java's putProperty drops null values.
  const copy = [MessageConst.PROPERTY_CORRELATION_ID, MessageConst.PROPERTY_MESSAGE_REPLY_TO_CLIENT, MessageConst.PROPERTY_MESSAGE_TTL];
  for (const k of copy) if (p[k] !== undefined) properties[k] = p[k];
  return {
    topic: getReplyTopic(cluster),
    flag: 0,
    properties,
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
  };
}

/** Java MessageUtil.getReplyToClient(msg): the client id a reply is pushed to. */
export function getReplyToClient(msg: Message): string | undefined {
  return msg.properties?.[MessageConst.PROPERTY_MESSAGE_REPLY_TO_CLIENT];
}
