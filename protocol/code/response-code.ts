/**
 * Response codes, Java names verbatim (RemotingSysResponseCode + ResponseCode, 4.9.8 and 5.3.3).
 *
 * @see org.apache.rocketmq.remoting.protocol.RemotingSysResponseCode
 * @see org.apache.rocketmq.common.protocol.ResponseCode (4.9.8)
 */
export const ResponseCode = {
  SUCCESS: 0,
  SYSTEM_ERROR: 1,
  SYSTEM_BUSY: 2,
  REQUEST_CODE_NOT_SUPPORTED: 3,
  TRANSACTION_FAILED: 4,
} as const;
export type ResponseCode = (typeof ResponseCode)[keyof typeof ResponseCode];

const NAMES = new Map<number, string>(Object.entries(ResponseCode).map(([k, v]) => [v, k]));
export function responseCodeName(code: number): string {
  return NAMES.get(code) ?? `UNKNOWN_RESPONSE_CODE_${code}`;
}
