/**
 * ACL on the gRPC endpoint: the broker's plain_acl.yml accounts (its PlainAccessValidator, aclEnable=true) applied to
 * every gRPC request, with the same accounts, white lists and permissions as remoting requests.
 *
 * What a 5.x client sends with each call (rocketmq-client-nodejs BaseClient.getRequestMetadata, the Java client's
 * Signature.sign):
 *   x-mq-date-time      the time it signed, e.g. `20261204T082300Z`
 *   authorization       `MQv2-HMAC-SHA1 Credential=<accessKey>, SignedHeaders=x-mq-date-time, Signature=<hex>`,
 *                       Signature = hex(HmacSHA1(x-mq-date-time, secretKey)) (only with credentials)
 *   x-mq-session-token  the security token, if any
 * No authorization header: no access key (refused unless the client's address is white-listed, as a remoting
 * request without AccessKey). An authorization header without x-mq-date-time: "datetime is null." (5.3.3).
 *
 * What each RPC needs, as ACL 1.0 on gRPC (5.1.x PlainAccessResource.parse(GeneratedMessageV3,
 * AuthenticationHeader); 5.3.3's DefaultAuthorizationContextBuilder builds the same for ACL 2.0); a group is its
 * retry topic `%RETRY%<group>`, as plain_acl.yml's groupPerms:
 *   QueryRoute                      topic PUB or SUB (ANY)
 *   Heartbeat                       a consumer's group SUB (a producer's: the signature only)
 *   SendMessage                     topic PUB (every message of one topic)
 *   QueryAssignment, ReceiveMessage, AckMessage, ChangeInvisibleDuration, ForwardMessageToDeadLetterQueue
 *                                   group SUB and topic SUB
 *   EndTransaction, RecallMessage   topic PUB
 *   NotifyClientTermination         group SUB, when it names one (5.3.3; 5.1.x checked the empty group of a producer)
 *   Telemetry                       each command; a Settings: every publishing topic PUB, the subscription's group
 *                                   and topics SUB; other commands: the signature only
 * A refusal is answered as 5.3.3's proxy answers an AuthenticationException or AuthorizationException: in band, code
 * UNAUTHORIZED (40100) with the reason (ResponseBuilder.buildStatus(Throwable)); the reasons are the ACL 1.0 ones of
 * the remoting side ("No acl config for <ak>", "Check signature failed for accessKey=<ak>", "No default permission
 * for topic:<t>"...). Topics and groups are checked by the names the endpoint uses (it does not apply the
 * resource namespace).
 *
 * @see org.apache.rocketmq.acl.plain.PlainAccessResource#parse(GeneratedMessageV3, AuthenticationHeader) (5.1.4)
 * @see org.apache.rocketmq.acl.common.AuthorizationHeader (5.1.4)
 * @see org.apache.rocketmq.auth.authentication.builder.DefaultAuthenticationContextBuilder (5.3.3)
 * @see org.apache.rocketmq.proxy.grpc.v2.common.ResponseBuilder#buildStatus(Throwable) (5.3.3)
 */
import { RequestCode } from '../../protocol/code/request-code';
import { AclException, GrpcProxyError } from '../errors';
import { Permission } from '../broker/acl/permission';
import { PlainAccessResource, getRetryTopic } from '../broker/acl/plain-access-resource';
import type { PlainAccessValidator } from '../broker/acl/plain-access-validator';
import type {
  AckMessageRequest, ChangeInvisibleDurationRequest, EndTransactionRequest, ForwardMessageToDeadLetterQueueRequest,
  HeartbeatRequest, NotifyClientTerminationRequest, PbResource, QueryAssignmentRequest, QueryRouteRequest,
  ReceiveMessageRequest, SendMessageRequest, TelemetryCommand,
} from './pb';

/** The RPCs of apache.rocketmq.v2.MessagingService the endpoint checks, by their method names. */
export type GrpcRpcName =
  | 'QueryRoute' | 'Heartbeat' | 'SendMessage' | 'QueryAssignment' | 'ReceiveMessage' | 'AckMessage'
  | 'ForwardMessageToDeadLetterQueue' | 'EndTransaction' | 'NotifyClientTermination' | 'ChangeInvisibleDuration'
  | 'RecallMessage' | 'Telemetry';

/** The gRPC headers the check reads (GrpcConstants / InterceptorConstants keys). */
export const AUTHORIZATION = 'authorization';
export const DATE_TIME = 'x-mq-date-time';
export const SESSION_TOKEN = 'x-mq-session-token';

/** 5.1.4 RequestMapping: the remoting code each RPC stands for (the admin-code check of checkPerm; none is one). */
const REQUEST_CODE: Readonly<Partial<Record<GrpcRpcName, number>>> = Object.freeze({
  QueryRoute: RequestCode.GET_ROUTEINFO_BY_TOPIC,
  Heartbeat: RequestCode.HEART_BEAT,
  SendMessage: RequestCode.SEND_MESSAGE_V2,
  QueryAssignment: RequestCode.GET_ROUTEINFO_BY_TOPIC,
  ReceiveMessage: RequestCode.PULL_MESSAGE,
  AckMessage: RequestCode.UPDATE_CONSUMER_OFFSET,
  ForwardMessageToDeadLetterQueue: RequestCode.CONSUMER_SEND_MSG_BACK,
  EndTransaction: RequestCode.END_TRANSACTION,
  NotifyClientTermination: RequestCode.UNREGISTER_CLIENT,
  ChangeInvisibleDuration: RequestCode.CONSUMER_SEND_MSG_BACK,
});

/** What the check takes of a call: its headers and the client's address. */
export interface AuthenticationHeader {
  /** "ip:port" (or "[v6]:port"). */
  remoteAddress: string | null;
  authorization: string | null;
  datetime: string | null;
  sessionToken: string | null;
}

/** The parsed authorization header. */
export interface AuthorizationHeader {
  method: string;
  accessKey: string | null;
  signedHeaders: string[] | null;
  /** The signature as base64 (the header carries it as hex). */
  signature: string | null;
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Commons Codec Hex.decodeHex, then base64: an odd length or a non-hex digit is refused as Java refuses it. */
function hexToBase64(hex: string): string {
  if (hex.length % 2 !== 0) throw new AclException('Odd number of characters.');
  if (!HEX.test(hex)) {
    const i = [...hex].findIndex((c) => !/[0-9a-fA-F]/.test(c));
    throw new AclException(`Illegal hexadecimal character ${hex[i]} at index ${i}`);
  }
  return Buffer.from(hex, 'hex').toString('base64');
}

/** AuthorizationHeader's constructor: `<method> Credential=<ak>[/...], SignedHeaders=<h>[;...], Signature=<hex>`. */
export function parseAuthorizationHeader(header: string): AuthorizationHeader {
  const sp = header.indexOf(' ');
  if (sp < 0) throw new AclException('authorization header is incorrect');
  const out: AuthorizationHeader = { method: header.slice(0, sp), accessKey: null, signedHeaders: null, signature: null };
  for (const keyValue of header.slice(sp + 1).split(',')) {
    const kv = keyValue.trim();
    const eq = kv.indexOf('=');
    if (eq < 0) throw new AclException('authorization keyValues length is incorrect, actual length=1');
    const key = kv.slice(0, eq);
    const value = kv.slice(eq + 1);
    if (key === 'Credential') {
      // Java's String.split drops trailing empty strings ("/" leaves none), but "" splits to [""].
      const credential = value.split('/');
      while (value !== '' && credential.length > 0 && credential[credential.length - 1] === '') credential.pop();
      if (credential.length === 0) throw new AclException('authorization credential length is incorrect, actual length=0');
      out.accessKey = credential[0];
    } else if (key === 'SignedHeaders') {
      out.signedHeaders = value.split(';');
    } else if (key === 'Signature') {
      out.signature = hexToBase64(value);
    }
  }
  return out;
}

/** NamespaceUtil-free resource name: the endpoint serves topics and groups by their names. */
function nameOf(resource: PbResource | null | undefined): string {
  return resource?.name ?? '';
}

/** PlainAccessResource.parse(GeneratedMessageV3, AuthenticationHeader): what the request needs and who signed it. */
export function parseGrpcAccessResource(rpc: GrpcRpcName, request: unknown, header: AuthenticationHeader): PlainAccessResource {
  const r = new PlainAccessResource();
  const remote = header.remoteAddress;
  if (remote !== null && remote.includes(':')) {
    // RemotingHelper.parseHostFromAddress; a bracketed IPv6 host as the remoting side sees it (no brackets).
    r.whiteRemoteAddress = remote.substring(0, remote.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1');
  } else {
    r.whiteRemoteAddress = remote;
  }
  r.requestCode = REQUEST_CODE[rpc] ?? 0;
  r.secretToken = header.sessionToken;
  if (header.authorization) {
    if (!header.datetime) throw new AclException('datetime is null.');
    const auth = parseAuthorizationHeader(header.authorization);
    r.accessKey = auth.accessKey;
    r.signature = auth.signature;
    r.content = Buffer.from(header.datetime, 'utf8');
  }
  const topic = (t: PbResource | null | undefined, perm: number) => r.addResourceAndPerm(nameOf(t), perm);
  const group = (g: PbResource | null | undefined, perm: number) => r.addResourceAndPerm(getRetryTopic(nameOf(g)), perm);
  switch (rpc) {
    case 'QueryRoute':
      topic((request as QueryRouteRequest).topic, Permission.ANY);
      break;
    case 'Heartbeat': {
      const req = request as HeartbeatRequest;
      if (req.clientType === 'PUSH_CONSUMER' || req.clientType === 'SIMPLE_CONSUMER') {
        if (!req.group) throw new AclException("Consumer heartbeat doesn't have group");
        group(req.group, Permission.SUB);
      }
      break;
    }
    case 'SendMessage': {
      const messages = (request as SendMessageRequest).messages ?? [];
      if (messages.length === 0) throw new AclException('SendMessageRequest, messageCount is zero');
      const first = nameOf(messages[0].topic);
      if (messages.some((m) => nameOf(m.topic) !== first)) throw new AclException("SendMessageRequest, messages' topic is not consistent");
      topic(messages[0].topic, Permission.PUB);
      break;
    }
    case 'ReceiveMessage': {
      const req = request as ReceiveMessageRequest;
      group(req.group, Permission.SUB);
      topic(req.messageQueue?.topic, Permission.SUB);
      break;
    }
    case 'QueryAssignment':
    case 'AckMessage':
    case 'ForwardMessageToDeadLetterQueue':
    case 'ChangeInvisibleDuration': {
      const req = request as QueryAssignmentRequest | AckMessageRequest | ForwardMessageToDeadLetterQueueRequest | ChangeInvisibleDurationRequest;
      group(req.group, Permission.SUB);
      topic(req.topic, Permission.SUB);
      break;
    }
    case 'EndTransaction':
    case 'RecallMessage':
      topic((request as EndTransactionRequest).topic, Permission.PUB);
      break;
    case 'NotifyClientTermination': {
      const req = request as NotifyClientTerminationRequest;
      if (nameOf(req.group).trim() !== '') group(req.group, Permission.SUB);
      break;
    }
    case 'Telemetry': {
      const cmd = request as TelemetryCommand;
      if (cmd.command !== 'settings' || !cmd.settings) break;
      const s = cmd.settings;
      const publishing = s.pubSub === 'publishing' ? s.publishing : null;
      const subscription = s.pubSub === 'subscription' ? s.subscription : null;
      if (!publishing && !subscription) throw new AclException("settings command doesn't have publishing or subscription");
      for (const t of publishing?.topics ?? []) topic(t, Permission.PUB);
      if (subscription) {
        group(subscription.group, Permission.SUB);
        for (const e of subscription.subscriptions ?? []) topic(e.topic, Permission.SUB);
      }
      break;
    }
  }
  return r;
}

/** The check the endpoint runs on every request when the broker has aclEnable=true. */
export class GrpcAccessValidator {
  constructor(private readonly validator: Pick<PlainAccessValidator, 'validate'>) {}

  /** Returns when the request may go on; throws GrpcProxyError UNAUTHORIZED (its reason as message) otherwise. */
  check(rpc: GrpcRpcName, header: AuthenticationHeader, request: unknown): void {
    try {
      this.validator.validate(parseGrpcAccessResource(rpc, request, header));
    } catch (err) {
      if (err instanceof AclException) throw new GrpcProxyError('UNAUTHORIZED', err.message, { cause: err });
      throw err;
    }
  }
}
