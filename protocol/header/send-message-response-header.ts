/**
 * SendMessageResponseHeader: The broker's answer to a send. The broker also adds MSG_REGION and TRACE_ON to these extFields (SendMessageProcessor).
 *
 * Used by: SEND_MESSAGE, SEND_MESSAGE_V2, SEND_BATCH_MESSAGE (and SEND_REPLY_MESSAGE) responses.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   msgId          string   required  offset message id(s) (store host + commit-log offset, hex); comma-separated for a batch
 *   queueId        int      required  queue the message went to
 *   queueOffset    long     required  offset in that queue
 *   transactionId  string   optional  transaction id (half messages)
 *   batchUniqId    string   5.x opt.  unique ids of a batch (5.x)
 *   recallHandle   string   5.x opt.  handle to recall a delayed message (5.x)
 *   MSG_REGION     string   optional  broker's regionId (MessageConst.PROPERTY_MSG_REGION), not a Java field
 *   TRACE_ON       string   optional  broker's traceOn switch ("true"/"false", MessageConst.PROPERTY_TRACE_SWITCH), not a Java field
 *
 * @see org.apache.rocketmq.common.protocol.header.SendMessageResponseHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.SendMessageResponseHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const SendMessageResponseHeader = defineHeader('SendMessageResponseHeader', {
  msgId: { type: 'string', required: true },
  queueId: { type: 'int', required: true },
  queueOffset: { type: 'long', required: true },
  transactionId: { type: 'string' },
  batchUniqId: { type: 'string' },
  recallHandle: { type: 'string' },
  msgRegion: { type: 'string', key: 'MSG_REGION' },
  traceOn: { type: 'string', key: 'TRACE_ON' },
} as const);
export type SendMessageResponseHeader = HeaderValues<typeof SendMessageResponseHeader.schema>;
