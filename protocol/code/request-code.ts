/**
 * Request codes, Java names verbatim (4.9.8 and the 5.3.3 additions).
 *
 * @see org.apache.rocketmq.common.protocol.RequestCode (4.9.8)
 * @see org.apache.rocketmq.remoting.protocol.RequestCode (5.3.3)
 */
export const RequestCode = {
  SEND_MESSAGE: 10,
  PULL_MESSAGE: 11,
  HEART_BEAT: 34,
  REGISTER_BROKER: 103,
  GET_ROUTEINFO_BY_TOPIC: 105,
  SEND_MESSAGE_V2: 310,
  SEND_BATCH_MESSAGE: 320,
} as const;
export type RequestCode = (typeof RequestCode)[keyof typeof RequestCode];

const NAMES = new Map<number, string>(Object.entries(RequestCode).map(([k, v]) => [v, k]));
export function requestCodeName(code: number): string {
  return NAMES.get(code) ?? `UNKNOWN_REQUEST_CODE_${code}`;
}
