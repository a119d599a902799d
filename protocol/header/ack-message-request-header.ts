/**
 * AckMessageRequestHeader: acknowledges one popped message, so that it is not redelivered.
 *
 * Used by: ACK_MESSAGE (200051) request. The answer is SUCCESS, or NO_MESSAGE (offset outside the queue),
 * MESSAGE_ILLEGAL (bad queue), TOPIC_NOT_EXIST.
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   consumerGroup  string  required  consumer group
 *   topic          string  required  the topic the message was popped from (the pop retry topic for a retry)
 *   queueId        int     required  queue
 *   extraInfo      string  required  the message's POP_CK property (ExtraInfoUtil format)
 *   offset         long    required  the message's queue offset
 *   bname, ns, nsd, oway, lo         RpcRequestHeader / TopicRequestHeader fields
 *
 * @see org.apache.rocketmq.remoting.protocol.header.AckMessageRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const AckMessageRequestHeader = defineHeader('AckMessageRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  topic: { type: 'string', required: true },
  queueId: { type: 'int', required: true },
  extraInfo: { type: 'string', required: true },
  offset: { type: 'long', required: true },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type AckMessageRequestHeader = HeaderValues<typeof AckMessageRequestHeader.schema>;
