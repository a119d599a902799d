/**
 * DeleteTopicFromNamesrvRequestHeader: Deletes a topic's route on a name server.
 *
 * Used by: DELETE_TOPIC_IN_NAMESRV (216) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   topic        string   required  topic
 *   clusterName  string   optional  only in this cluster
 *   bname        string   5.x opt.  broker name the request is meant for (5.x RpcRequestHeader)
 *   ns           string   5.x opt.  namespace (5.x RpcRequestHeader)
 *   nsd          boolean  5.x opt.  names already carry the namespace (5.x RpcRequestHeader)
 *   oway         boolean  5.x opt.  sent oneway (5.x RpcRequestHeader)
 *   lo           boolean  5.x opt.  logical queue (5.x TopicRequestHeader)
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.DeleteTopicFromNamesrvRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.DeleteTopicFromNamesrvRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const DeleteTopicFromNamesrvRequestHeader = defineHeader('DeleteTopicFromNamesrvRequestHeader', {
  topic: { type: 'string', required: true },
  clusterName: { type: 'string' },
  bname: { type: 'string' },
  ns: { type: 'string' },
  nsd: { type: 'boolean' },
  oway: { type: 'boolean' },
  lo: { type: 'boolean' },
} as const);
export type DeleteTopicFromNamesrvRequestHeader = HeaderValues<typeof DeleteTopicFromNamesrvRequestHeader.schema>;
