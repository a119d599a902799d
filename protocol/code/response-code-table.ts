/**
 * The response-code table: every code of ResponseCode with its Java name and whether a client may retry a
 * request answered with it. `retriable` is exactly Java 4.9.8's DefaultMQProducer.retryResponseCodes
 * (TOPIC_NOT_EXIST, SERVICE_NOT_AVAILABLE, SYSTEM_ERROR, NO_PERMISSION, NO_BUYER_ID, NOT_IN_CURRENT_UNIT; 5.x adds
 * SYSTEM_BUSY, which 4.9.8 does not retry): the producer's default retry set is read from it, and the
 * MQBrokerError a failure code becomes carries the flag. Answers that are not failures (SUCCESS, the pull and
 * flush statuses) are listed with retriable false.
 *
 * Modelled on KafkaJS src/protocol/error.js (`{ type, code, retriable, message }` + `createErrorFromCode`).
 *
 * @see org.apache.rocketmq.client.producer.DefaultMQProducer#retryResponseCodes (4.9.8)
 */
import { MQBrokerError, type RocketMQErrorOptions } from '../errors';
import { ResponseCode, responseCodeName } from './response-code';

export interface ResponseCodeInfo {
  readonly code: number;
  /** The Java name (the 4.9.8 one where 5.x reused the value). */
  readonly name: string;
  readonly retriable: boolean;
}

const RETRIABLE: ReadonlySet<number> = new Set<number>([
  ResponseCode.TOPIC_NOT_EXIST,
  ResponseCode.SERVICE_NOT_AVAILABLE,
  ResponseCode.SYSTEM_ERROR,
  ResponseCode.NO_PERMISSION,
  ResponseCode.NO_BUYER_ID,
  ResponseCode.NOT_IN_CURRENT_UNIT,
]);

const TABLE = new Map<number, ResponseCodeInfo>();
for (const code of Object.values(ResponseCode)) {
  if (!TABLE.has(code)) TABLE.set(code, Object.freeze({ code, name: responseCodeName(code), retriable: RETRIABLE.has(code) }));
}

/** Every known response code, in code order. */
export const RESPONSE_CODE_TABLE: readonly ResponseCodeInfo[] = Object.freeze([...TABLE.values()].sort((a, b) => a.code - b.code));

/** The table entry of `code`; an unknown code is `UNKNOWN_RESPONSE_CODE_<n>`, not retriable. */
export function responseCodeInfo(code: number): ResponseCodeInfo {
  return TABLE.get(code) ?? { code, name: responseCodeName(code), retriable: false };
}

/** The codes whose `retriable` is true, in code order. */
export function retriableResponseCodes(): number[] {
  return RESPONSE_CODE_TABLE.filter((e) => e.retriable).map((e) => e.code);
}

/** The MQBrokerError of a failure answer; `retriable` comes from the table. */
export function createBrokerError(code: number, remark: string | null, addr?: string, options: RocketMQErrorOptions = {}): MQBrokerError {
  return new MQBrokerError(code, remark, addr, { retriable: responseCodeInfo(code).retriable, ...options });
}
