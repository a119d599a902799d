/**
 * NotificationRequestHeader: asks whether a pop would find messages, held up to pollTime ms until one arrives.
 *
 * Used by: NOTIFICATION (200054) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   consumerGroup  string   required  consumer group
 *   topic          string   required  topic
 *   queueId        int      required  queue, or -1 for every queue
 *   pollTime       long     required  ms the broker may hold the request
 *   bornTime       long     required  client time of the request
 *   order          boolean  optional  orderly consumer
 *   attemptId      string   optional  orderly attempt id
 *   bname, ns, nsd, oway, lo          RpcRequestHeader / TopicRequestHeader fields
 *
 * @see org.apache.rocketmq.remoting.protocol.header.NotificationRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const NotificationRequestHeader = defineHeader('NotificationRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  topic: { type: 'string', required: true },
  queueId: { type: 'int', required: true },
  pollTime: { type: 'long', required: true },
  bornTime: { type: 'long', required: true },
  order: { type: 'boolean' },
  attemptId: { type: 'string' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type NotificationRequestHeader = HeaderValues<typeof NotificationRequestHeader.schema>;
