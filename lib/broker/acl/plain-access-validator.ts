/**
 * The broker's ACL check, run as a server RPC hook before every request is dispatched (Java's
 * BrokerController.initialAcl): parse what the request needs, then validate it against the accounts. A refusal
 * throws AclException; the transport answers SYSTEM_ERROR (1) with Java's remark
 * "org.apache.rocketmq.acl.common.AclException: <message>, <java frame>".
 *
 * What each code needs (PlainAccessValidator.parse, 4.9.8):
 *   SEND_MESSAGE / SEND_MESSAGE_V2   topic PUB; a %RETRY% topic: the producer group's retry topic SUB
 *   CONSUMER_SEND_MSG_BACK           the group's retry topic SUB
 *   PULL_MESSAGE                     topic SUB and the group's retry topic SUB
 *   QUERY_MESSAGE                    topic SUB
 *   HEART_BEAT                       every consumer group's retry topic SUB and every subscribed topic SUB
 *   UNREGISTER_CLIENT, GET_CONSUMER_LIST_BY_GROUP   the consumer group's retry topic SUB
 *   UPDATE_CONSUMER_OFFSET           the group's retry topic SUB and the topic SUB
 *   any other code                   the signature only (admin codes: an admin account)
 * Codes 4.9.8's validator does not know, checked as Java 5.3.3's authorization checks them (its
 * DefaultAuthorizationContextBuilder, with a group's permission written as its retry topic's, as 4.9.8 writes it):
 *   SEND_BATCH_MESSAGE               as SEND_MESSAGE_V2 (4.9.8 checked only the signature: any signed account could
 *                                    send a batch to any topic)
 *   POP_MESSAGE, PEEK_MESSAGE, ACK_MESSAGE, CHANGE_MESSAGE_INVISIBLETIME, NOTIFICATION, POLLING_INFO
 *                                    the group's retry topic SUB and the topic SUB (a retry topic: the group's only)
 * The signed content is every extField but Signature and _UNIQUE_KEY_QUERY, in key order, then the body.
 *
 * @see org.apache.rocketmq.acl.plain.PlainAccessValidator
 */
import { RequestCode } from '../../../protocol/code/request-code';
import { ACCESS_KEY, SECURITY_TOKEN, SIGNATURE } from '../../../protocol/acl/acl-signature';
import { decodeHeartbeatData } from '../../../protocol/body/heartbeat-data';
import type { RemotingCommand } from '../../../protocol/remoting-command';
import { AclException } from '../../errors';
import type { RPCHook } from '../../transport/processor';
import { Permission } from './permission';
import { PlainAccessResource, getRetryTopic, isRetryTopic } from './plain-access-resource';
import { PlainPermissionManager, type PlainPermissionManagerOptions } from './plain-permission-manager';

const PARSE_FRAME = 'org.apache.rocketmq.acl.plain.PlainAccessValidator.parse(PlainAccessValidator.java:134)';

/** RemotingCommand.decodeCommandCustomHeader's check of a @CFNotNull field. */
function required(ext: Record<string, string>, field: string): string {
  const v = ext[field];
  if (v === undefined || v === null) throw new Error(`the custom field <${field}> is null`);
  return v;
}

function javaNumber(v: string, long: boolean): void {
  const ok = /^[+-]?\d+$/.test(v) && (long ? BigInt(v) >= -(2n ** 63n) && BigInt(v) < 2n ** 63n : Math.abs(Number(v)) <= 2 ** 31);
  if (!ok) throw new Error(`For input string: "${v}"`);
}

/** PlainAccessValidator.parse: the client IP, the access key, the signature, the resources and the content. */
export function parseAccessResource(request: RemotingCommand, remoteAddr: string | null): PlainAccessResource {
  const r = new PlainAccessResource();
  if (remoteAddr !== null && remoteAddr.includes(':')) r.whiteRemoteAddress = remoteAddr.substring(0, remoteAddr.lastIndexOf(':'));
  else r.whiteRemoteAddress = remoteAddr;
  r.requestCode = request.code;
  const ext = request.extFields;
  if (!ext) return r;
  r.accessKey = ext[ACCESS_KEY] ?? null;
  r.signature = ext[SIGNATURE] ?? null;
  r.secretToken = ext[SECURITY_TOKEN] ?? null;
  try {
    switch (request.code) {
      case RequestCode.SEND_MESSAGE: {
        const topic = ext.topic;
        if (isRetryTopic(topic)) r.addResourceAndPerm(getRetryTopic(ext.group), Permission.SUB);
        else r.addResourceAndPerm(topic, Permission.PUB);
        break;
      }
      case RequestCode.SEND_MESSAGE_V2:
      case RequestCode.SEND_BATCH_MESSAGE: {
        const topic = ext.b;
        if (isRetryTopic(topic)) r.addResourceAndPerm(getRetryTopic(ext.a), Permission.SUB);
        else r.addResourceAndPerm(topic, Permission.PUB);
        break;
      }
      case RequestCode.CONSUMER_SEND_MSG_BACK:
        r.addResourceAndPerm(getRetryTopic(ext.group), Permission.SUB);
        break;
      case RequestCode.PULL_MESSAGE:
        r.addResourceAndPerm(ext.topic, Permission.SUB);
        r.addResourceAndPerm(getRetryTopic(ext.consumerGroup), Permission.SUB);
        break;
      case RequestCode.QUERY_MESSAGE:
        r.addResourceAndPerm(ext.topic, Permission.SUB);
        break;
      case RequestCode.HEART_BEAT: {
        if (!request.body) throw new Error('heartbeat body is null');
        const hb = decodeHeartbeatData(request.body);
        for (const data of hb.consumerDataSet) {
          r.addResourceAndPerm(getRetryTopic(data.groupName), Permission.SUB);
          for (const sub of data.subscriptionDataSet) r.addResourceAndPerm(sub.topic, Permission.SUB);
        }
        break;
      }
      case RequestCode.UNREGISTER_CLIENT:
        required(ext, 'clientID');
        r.addResourceAndPerm(getRetryTopic(ext.consumerGroup), Permission.SUB);
        break;
      case RequestCode.GET_CONSUMER_LIST_BY_GROUP:
        r.addResourceAndPerm(getRetryTopic(required(ext, 'consumerGroup')), Permission.SUB);
        break;
      case RequestCode.UPDATE_CONSUMER_OFFSET: {
        const group = required(ext, 'consumerGroup');
        const topic = required(ext, 'topic');
        javaNumber(required(ext, 'queueId'), false);
        javaNumber(required(ext, 'commitOffset'), true);
        r.addResourceAndPerm(getRetryTopic(group), Permission.SUB);
        r.addResourceAndPerm(topic, Permission.SUB);
        break;
      }
      case RequestCode.POP_MESSAGE:
      case RequestCode.PEEK_MESSAGE:
      case RequestCode.ACK_MESSAGE:
      case RequestCode.CHANGE_MESSAGE_INVISIBLETIME:
      case RequestCode.NOTIFICATION:
      case RequestCode.POLLING_INFO: {
        const group = required(ext, 'consumerGroup');
        const topic = required(ext, 'topic');
        r.addResourceAndPerm(getRetryTopic(group), Permission.SUB);
        if (!isRetryTopic(topic)) r.addResourceAndPerm(topic, Permission.SUB);
        break;
      }
      default:
        break;
    }
  } catch (err) {
    throw new AclException((err as Error).message, PARSE_FRAME, { cause: err });
  }
  r.extFields = ext;
  r.body = request.body;
  return r;
}

/** Java's PlainAccessValidator: parse + validate, and the aclConfig operations of its manager. */
export class PlainAccessValidator implements RPCHook {
  readonly aclPlugEngine: PlainPermissionManager;

  constructor(options: Partial<PlainPermissionManagerOptions> = {}) {
    this.aclPlugEngine = new PlainPermissionManager(options);
  }

  parse(request: RemotingCommand, remoteAddr: string | null): PlainAccessResource {
    return parseAccessResource(request, remoteAddr);
  }

  validate(resource: PlainAccessResource): void {
    this.aclPlugEngine.validate(resource);
  }

  /** Loads the files and starts watching them. Throws when a file is malformed. */
  async start(): Promise<void> {
    await this.aclPlugEngine.load();
    this.aclPlugEngine.startWatching();
  }

  shutdown(): Promise<void> {
    return this.aclPlugEngine.stopWatching();
  }

  doBeforeRequest(remoteAddr: string, request: RemotingCommand): void {
    this.validate(this.parse(request, remoteAddr));
  }

  doAfterResponse(): void {
    // nothing to check on responses
  }
}
