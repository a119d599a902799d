/**
 * ChangeInvisibleTimeRequestHeader: makes one popped message invisible for invisibleTime ms from now (a new
 * checkpoint) and acknowledges the old one.
 *
 * Used by: CHANGE_MESSAGE_INVISIBLETIME (200053) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   consumerGroup  string  required  consumer group
 *   topic          string  required  the topic the message was popped from (the pop retry topic for a retry)
 *   queueId        int     required  queue
 *   extraInfo      string  required  the message's POP_CK property
 *   offset         long    required  the message's queue offset
 *   invisibleTime  long    required  ms from now
 *   bname, ns, nsd, oway, lo         RpcRequestHeader / TopicRequestHeader fields
 *
 * @see org.apache.rocketmq.remoting.protocol.header.ChangeInvisibleTimeRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const ChangeInvisibleTimeRequestHeader = defineHeader('ChangeInvisibleTimeRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  topic: { type: 'string', required: true },
  queueId: { type: 'int', required: true },
  extraInfo: { type: 'string', required: true },
  offset: { type: 'long', required: true },
  invisibleTime: { type: 'long', required: true },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type ChangeInvisibleTimeRequestHeader = HeaderValues<typeof ChangeInvisibleTimeRequestHeader.schema>;
