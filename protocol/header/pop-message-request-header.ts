/**
 * PopMessageRequestHeader: a 5.x POP of messages from one queue (queueId ≥ 0) or every queue of the topic on that
 * broker (queueId -1); the popped messages stay invisible to other pops for invisibleTime ms unless acknowledged.
 *
 * Used by: POP_MESSAGE (200050) request. 5.x only: a 4.9.8 broker answers REQUEST_CODE_NOT_SUPPORTED.
 *
 * Wire grammar (extFields key, value type, presence, meaning):
 *   consumerGroup   string   required  consumer group
 *   topic           string   required  topic
 *   queueId         int      required  queue, or -1 for every queue of the topic on that broker
 *   maxMsgNums      int      required  most messages to return (the broker refuses more than 32)
 *   invisibleTime   long     required  ms the popped messages stay invisible
 *   pollTime        long     required  ms the broker may hold the pop when nothing is there (long polling)
 *   bornTime        long     required  client time of the request (the broker refuses it when now - bornTime - pollTime > 500)
 *   initMode        int      required  where a group without an offset starts: ConsumeInitMode MIN 0, MAX 1
 *   expType         string   optional  TAG or SQL92
 *   exp             string   optional  subscription expression
 *   order           boolean  optional  orderly pop (default false)
 *   attemptId       string   optional  orderly pop attempt id
 *   bname, ns, nsd, oway, lo           RpcRequestHeader / TopicRequestHeader fields
 *
 * @see org.apache.rocketmq.remoting.protocol.header.PopMessageRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

/** @see org.apache.rocketmq.common.constant.ConsumeInitMode */
export const ConsumeInitMode = { MIN: 0, MAX: 1 } as const;
export type ConsumeInitMode = (typeof ConsumeInitMode)[keyof typeof ConsumeInitMode];

export const PopMessageRequestHeader = defineHeader('PopMessageRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  topic: { type: 'string', required: true },
  queueId: { type: 'int', required: true },
  maxMsgNums: { type: 'int', required: true },
  invisibleTime: { type: 'long', required: true },
  pollTime: { type: 'long', required: true },
  bornTime: { type: 'long', required: true },
  initMode: { type: 'int', required: true },
  expType: { type: 'string' },
  exp: { type: 'string' },
  order: { type: 'boolean' },
  attemptId: { type: 'string' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type PopMessageRequestHeader = HeaderValues<typeof PopMessageRequestHeader.schema>;
