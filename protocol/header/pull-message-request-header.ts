/**
 * PullMessageRequestHeader: A pull of messages from one queue.
 *
 * Used by: PULL_MESSAGE (11) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   consumerGroup         string   required  consumer group
 *   topic                 string   required  topic
 *   queueId               int      required  queue
 *   queueOffset           long     required  first queue offset to read
 *   maxMsgNums            int      required  most messages to return
 *   sysFlag               int      required  PullSysFlag: COMMIT_OFFSET 0x1, SUSPEND 0x2, SUBSCRIPTION 0x4, CLASS_FILTER 0x8, LITE_PULL 0x10
 *   commitOffset          long     required  consumer offset to commit along with the pull
 *   suspendTimeoutMillis  long     required  how long the broker may hold the pull (long polling)
 *   subscription          string   optional  subscription expression (with SUBSCRIPTION flag)
 *   subVersion            long     required  subscription version
 *   expressionType        string   optional  TAG or SQL92
 *   maxMsgBytes           int      5.x opt.  most bytes to return (5.x)
 *   requestSource         int      5.x opt.  request source (5.x proxy)
 *   proxyFrowardClientId  string   5.x opt.  client id forwarded by a 5.x proxy (Java's spelling)
 *   bname                 string   optional  broker name the request is meant for (RpcRequestHeader)
 *   ns                    string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd                   boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway                  boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo                    boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.PullMessageRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.PullMessageRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const PullMessageRequestHeader = defineHeader('PullMessageRequestHeader', {
  consumerGroup: { type: 'string', required: true },
  topic: { type: 'string', required: true },
  queueId: { type: 'int', required: true },
  queueOffset: { type: 'long', required: true },
  maxMsgNums: { type: 'int', required: true },
  sysFlag: { type: 'int', required: true },
  commitOffset: { type: 'long', required: true },
  suspendTimeoutMillis: { type: 'long', required: true },
  subscription: { type: 'string' },
  subVersion: { type: 'long', required: true },
  expressionType: { type: 'string' },
  maxMsgBytes: { type: 'int' },
  requestSource: { type: 'int' },
  proxyFrowardClientId: { type: 'string' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type PullMessageRequestHeader = HeaderValues<typeof PullMessageRequestHeader.schema>;
