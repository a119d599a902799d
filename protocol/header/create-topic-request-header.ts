/**
 * CreateTopicRequestHeader: Creates or updates a topic on a broker.
 *
 * Used by: UPDATE_AND_CREATE_TOPIC (17) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   topic            string   required  topic
 *   defaultTopic     string   required  template topic
 *   readQueueNums    int      required  read queue count
 *   writeQueueNums   int      required  write queue count
 *   perm             int      required  PermName bits: READ 4, WRITE 2, INHERIT 1
 *   topicFilterType  string   required  SINGLE_TAG or MULTI_TAG
 *   topicSysFlag     int      optional  topic sys flag
 *   order            boolean  required  ordered topic
 *   attributes       string   5.x opt.  topic attributes, "+key=value,..." (5.x)
 *   force            boolean  5.x opt.  force the attribute change (5.x)
 *   bname            string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns               string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd              boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway             boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo               boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.CreateTopicRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.CreateTopicRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const CreateTopicRequestHeader = defineHeader('CreateTopicRequestHeader', {
  topic: { type: 'string', required: true },
  defaultTopic: { type: 'string', required: true },
  readQueueNums: { type: 'int', required: true },
  writeQueueNums: { type: 'int', required: true },
  perm: { type: 'int', required: true },
  topicFilterType: { type: 'string', required: true },
  topicSysFlag: { type: 'int' },
  order: { type: 'boolean', required: true },
  attributes: { type: 'string' },
  force: { type: 'boolean' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type CreateTopicRequestHeader = HeaderValues<typeof CreateTopicRequestHeader.schema>;
