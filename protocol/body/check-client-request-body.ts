/**
 * CHECK_CLIENT_CONFIG (46) request body.
 *
 * @see org.apache.rocketmq.common.protocol.body.CheckClientRequestBody
 */
import { parseBody, reqStr } from './body-util';
import { encodeFastjson } from './fastjson';
import { type SubscriptionData, subscriptionDataFromJson, subscriptionDataToJson } from './heartbeat-data';

export interface CheckClientRequestBody {
  clientId: string;
  group: string;
  subscriptionData?: SubscriptionData;
}

export function decodeCheckClientRequestBody(buf: Buffer): CheckClientRequestBody {
  const o = parseBody(buf, 'CheckClientRequestBody');
  const b: CheckClientRequestBody = { clientId: reqStr(o, 'clientId'), group: reqStr(o, 'group') };
  if (o.subscriptionData) b.subscriptionData = subscriptionDataFromJson(o.subscriptionData);
  return b;
}

export function encodeCheckClientRequestBody(b: CheckClientRequestBody): Buffer {
  return encodeFastjson({
    clientId: b.clientId,
    group: b.group,
    subscriptionData: b.subscriptionData && subscriptionDataToJson(b.subscriptionData),
  });
}
