/**
 * In-band statuses of the gRPC answers, as Java's proxy builds them: a Code name and a message; a remoting response
 * code maps to a Code (SUCCESS → OK, SYSTEM_BUSY → TOO_MANY_REQUESTS, ...; anything else INTERNAL_SERVER_ERROR).
 *
 * @see org.apache.rocketmq.proxy.grpc.v2.common.ResponseBuilder
 */
import { ResponseCode } from '../../protocol/code/response-code';
import { GrpcProxyError, MQBrokerError, TopicNotExistError } from '../errors';
import type { Logger } from '../logger';
import type { PbStatus } from './pb';

/** Java ResponseBuilder.RESPONSE_CODE_MAPPING. */
const RESPONSE_CODE_MAPPING: ReadonlyMap<number, string> = new Map([
  [ResponseCode.SUCCESS, 'OK'],
  [ResponseCode.SYSTEM_BUSY, 'TOO_MANY_REQUESTS'],
  [ResponseCode.REQUEST_CODE_NOT_SUPPORTED, 'NOT_IMPLEMENTED'],
  [ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, 'CONSUMER_GROUP_NOT_FOUND'],
]);

export function buildCode(remotingResponseCode: number): string {
  return RESPONSE_CODE_MAPPING.get(remotingResponseCode) ?? 'INTERNAL_SERVER_ERROR';
}

export function buildStatus(code: string, message?: string | null): PbStatus {
  return { code, message: message ?? code };
}

/** The status of a remoting answer (its remark, or its code as text). */
export function buildStatusOfResponse(remotingResponseCode: number, remark: string | null): PbStatus {
  return { code: buildCode(remotingResponseCode), message: remark ?? String(remotingResponseCode) };
}

/**
 * The message of a TOPIC_NOT_FOUND status for `topic`, as the proxy's: the MQClientException (code 17) its route
 * service throws, with FAQUrl.attachDefaultURL's suffix.
 */
export function topicNotExistMessage(topic: string): string {
  return `CODE: 17  DESC: No topic route info in name server for the topic: ${topic}\nFor more information, please visit the url, https://rocketmq.apache.org/docs/bestPractice/06FAQ`;
}

/** The status of a failure: a GrpcProxyError's code, TOPIC_NOT_FOUND, a broker answer's mapped code, else INTERNAL_SERVER_ERROR (logged). */
export function buildStatusOfError(err: unknown, logger?: Logger): PbStatus {
  if (err instanceof GrpcProxyError) return buildStatus(err.code, err.message);
  if (err instanceof TopicNotExistError || (err instanceof MQBrokerError && err.responseCode === ResponseCode.TOPIC_NOT_EXIST)) {
    return buildStatus('TOPIC_NOT_FOUND', err.message);
  }
  if (err instanceof MQBrokerError) return buildStatusOfResponse(err.responseCode, err.remark);
  logger?.error({ err }, 'internal server error');
  return buildStatus('INTERNAL_SERVER_ERROR', err instanceof Error ? err.message : String(err));
}
