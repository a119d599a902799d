/**
 * QueryDataVersionRequestHeader: A broker asking whether the name server holds its latest topic config version (the body is the DataVersion).
 *
 * Used by: QUERY_DATA_VERSION (322) request.
 *
 * Wire grammar (extFields key, value type, presence, meaning). "5.x opt." fields are sent by 5.x peers only;
 * a 4.9.8 peer ignores them.
 *   brokerName   string   required  broker name
 *   brokerAddr   string   required  broker address
 *   clusterName  string   required  cluster name
 *   brokerId     long     required  broker id
 *
 * @see org.apache.rocketmq.common.protocol.header.namesrv.QueryDataVersionRequestHeader (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.header.namesrv.QueryDataVersionRequestHeader (5.3.3)
 */
import { defineHeader, type HeaderValues } from './header-schema';

export const QueryDataVersionRequestHeader = defineHeader('QueryDataVersionRequestHeader', {
  brokerName: { type: 'string', required: true },
  brokerAddr: { type: 'string', required: true },
  clusterName: { type: 'string', required: true },
  brokerId: { type: 'long', required: true },
} as const);
export type QueryDataVersionRequestHeader = HeaderValues<typeof QueryDataVersionRequestHeader.schema>;
