/**
 * MQClientAPI: one typed method per request the SDK makes, over one RemotingClient.
 *
 * - Name servers: a `;`-separated list (updateNameServerAddressList), or fetched over HTTP (fetchNameServerAddr).
 *   Requests to "the name server" go to the chosen one while it stays usable; otherwise the next in the
 *   (shuffled) list, starting at a random index, as Java's NettyRemotingClient.getAndCreateNameserverChannel:
 *   a name server that refuses the connection is skipped for the next one within the same call; one that times
 *   out or drops the request is dropped as the chosen one, so the next call moves on.
 * - Every request carries `language` from ClientConfig ("JAVA" by default: a 4.9.x broker knows JAVA..RUST and
 *   would fail on NODE_JS) and version 409 (MQVersion V4_9_8).
 * - Sends use SEND_MESSAGE_V2 (310, short keys a..n) and SEND_BATCH_MESSAGE (320), as Java's default sendSmartMsg.
 * - Requests with no work of their own beyond their module (protocol/requests/) have no method here: callers use
 *   `call(api, addr, TheRequest, values, timeoutMillis)` (request-invoker.ts); the consumer, offset and transaction
 *   family (mq-client-api-consumer.ts), the POP family (mq-client-api-pop.ts) and the admin family
 *   (mq-client-api-admin.ts) are functions over any RequestInvoker, this class among them.
 *
 * @see org.apache.rocketmq.client.impl.MQClientAPIImpl
 */
import { ResponseCode } from '../../protocol/code/response-code';
import { type HeartbeatData, encodeHeartbeatData } from '../../protocol/body/heartbeat-data';
import { type TopicRouteData as RouteBody, decodeTopicRouteData } from '../../protocol/body/topic-route-data';
import { type CheckClientRequestBody, encodeCheckClientRequestBody } from '../../protocol/body/check-client-request-body';
import type { SubscriptionData } from '../../protocol/body/heartbeat-data';
import { RemotingCommand, SerializeType } from '../../protocol/remoting-command';
import {
  CheckClientConfig, GetRouteInfoByTopic, HeartBeat, SendBatchMessage, SendMessageV2, SendReplyMessageV2,
} from '../../protocol/requests/index';
import { SendMessageRequestHeaderV2 } from '../../protocol/header/send-message-request-header-v2';
import {
  MQClientError, RemotingConnectError, RemotingSendRequestError, RemotingTimeoutError, TopicNotExistError,
} from '../errors';
import { type Logger, componentLogger } from '../logger';
import { type InvokeOptions, RemotingClient, type RemotingClientOptions, type RPCHook, type RemotingProcessor } from '../transport';
export type { RPCHook };
import type { ClientConfig } from './client-config';
import { type RequestInvoker, call } from './request-invoker';
import { retry } from '../util/retry';
export type { RequestInvoker };
import { MixAll } from './mix-all';
import { withoutNamespace } from './namespace';
import { ClientErrorCode, type SendResult, SendStatus } from './send-result';
import { TopAddressing, getWSAddr } from './top-addressing';

/**
 * The fields of a SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE request: SendMessageRequestHeaderV2's values (Java names),
 * without the broker name (the target's) and with the fields a send always sets made required.
 */
export type SendMessageHeader = Omit<SendMessageRequestHeaderV2, 'brokerName' | 'properties' | 'reconsumeTimes' | 'unitMode' | 'batch'> & {
  /** Already encoded (name \u0001 value \u0002 ...). */
  properties: string;
  reconsumeTimes: number;
  unitMode: boolean;
  batch: boolean;
  /** A reply message (MSG_TYPE=reply): sent with SEND_REPLY_MESSAGE_V2 (325) instead of SEND_MESSAGE_V2. */
  reply?: boolean;
};

/** The extFields key of SendMessageRequestHeaderV2.brokerName ("n"). */
const BROKER_NAME_KEY = SendMessageRequestHeaderV2.schema.brokerName.key;

/** What a send needs besides its header. */
export interface SendMessageTarget {
  brokerAddr: string;
  brokerName: string;
  body: Buffer;
  /** UNIQ_KEY of the message, or the ids of a batch joined by ",". */
  uniqMsgId: string;
  /** Topic as the user names it (without namespace), for the SendResult's queue. */
  userTopic: string;
}

export interface MQClientAPIOptions {
  remotingOptions?: Partial<RemotingClientOptions>;
  rpcHook?: RPCHook;
  logger?: Logger;
  /** Called for every request that timed out (instrumentation). */
  onRequestTimeout?: (addr: string, code: number, timeoutMillis: number) => void;
  /** Called when the name server list changes. */
  onNamesrvChanged?: (addrs: string) => void;
  /** The HTTP endpoint for name server addresses (default: getWSAddr()). */
  wsAddr?: string;
  /**
   * Header serialization of send requests (SEND_MESSAGE_V2, SEND_BATCH_MESSAGE): ROCKETMQ (binary, the default here)
   * or JSON (Java's default, `rocketmq.serialize.type`). Every 4.x and 5.x broker decodes both and answers in kind;
   * the binary header costs client and broker about half of the JSON one.
   */
  sendSerializeType?: SerializeType;
}

export class MQClientAPI implements RequestInvoker {
  readonly remotingClient: RemotingClient;
  readonly language: string;
  readonly #logger: Logger;
  readonly #clientConfig: ClientConfig;
  readonly #options: MQClientAPIOptions;
  readonly #topAddressing: TopAddressing;
  readonly #invokeOptions: InvokeOptions;
  #namesrvAddrList: string[] = [];
  #namesrvAddrChoosed: string | null = null;
  #namesrvIndex = Math.floor(Math.random() * 999);
  #nameSrvAddr: string | null = null;

  constructor(clientConfig: ClientConfig, options: MQClientAPIOptions = {}) {
    this.#clientConfig = clientConfig;
    this.#options = options;
    this.#logger = componentLogger('mq-client-api', options.logger);
    this.language = clientConfig.language;
    this.#invokeOptions = { language: this.language };
    this.remotingClient = new RemotingClient({
      useTLS: clientConfig.useTLS,
      maxInflightRequests: clientConfig.maxInflightRequests,
      shutdownDrainMillis: clientConfig.shutdownDrainMillis,
      logger: options.logger,
      ...options.remotingOptions,
    });
    if (options.rpcHook) this.remotingClient.registerRPCHook(options.rpcHook);
    this.remotingClient.on('close', (addr) => {
      if (addr === this.#namesrvAddrChoosed) this.#namesrvAddrChoosed = null;
    });
    this.#topAddressing = new TopAddressing(options.wsAddr ?? getWSAddr(), clientConfig.unitName, this.#logger);
  }

  registerProcessor(code: number, processor: RemotingProcessor): void {
    this.remotingClient.registerProcessor(code, processor);
  }

  // ---------------------------------------------------------------- name servers

  getNameServerAddressList(): string[] {
    return [...this.#namesrvAddrList];
  }

  /** The chosen name server, if any. */
  get chosenNameServer(): string | null {
    return this.#namesrvAddrChoosed;
  }

  /** Replaces the name server list with a `;`-separated one (shuffled, as Java; the chosen one kept if still listed). */
  updateNameServerAddressList(addrs: string): void {
    const list = addrs.split(';').map((s) => s.trim()).filter((s) => s.length > 0);
    if (list.length === 0) return;
    const same = list.length === this.#namesrvAddrList.length && list.every((a) => this.#namesrvAddrList.includes(a));
    if (same) return;
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [list[i], list[j]] = [list[j], list[i]];
    }
    this.#namesrvAddrList = list;
    if (this.#namesrvAddrChoosed && !list.includes(this.#namesrvAddrChoosed)) this.#namesrvAddrChoosed = null;
    this.#logger.info({ namesrvAddr: addrs }, 'name server address list updated');
    this.#options.onNamesrvChanged?.(addrs);
  }

  /** Fetches the list over HTTP and applies it when it changed; returns the current list string. */
  async fetchNameServerAddr(): Promise<string | null> {
    try {
      const addrs = await this.#topAddressing.fetchNSAddr();
      if (addrs && addrs.trim().length > 0 && addrs !== this.#nameSrvAddr) {
        this.#logger.info({ old: this.#nameSrvAddr, new: addrs }, 'name server address changed');
        this.updateNameServerAddressList(addrs);
        this.#nameSrvAddr = addrs;
      }
    } catch (err) {
      this.#logger.error({ err }, 'fetchNameServerAddr exception');
    }
    return this.#nameSrvAddr;
  }

  /** The name servers in the order to try them: the chosen one first, else round-robin from the next index. */
  #nameServerCandidates(): string[] {
    const list = this.#namesrvAddrList;
    if (list.length === 0) {
      throw new MQClientError(ClientErrorCode.NO_NAME_SERVER_EXCEPTION, 'No name server address, please set it', { retriable: false });
    }
    const chosen = this.#namesrvAddrChoosed;
    if (chosen && list.includes(chosen)) return [chosen, ...list.filter((a) => a !== chosen)];
    this.#namesrvIndex = (this.#namesrvIndex + 1) & 0x7fffffff;
    const start = this.#namesrvIndex % list.length;
    return [...list.slice(start), ...list.slice(0, start)];
  }

  /** Sends a request to a name server (see the class comment for the selection). */
  async invokeNameServer(request: RemotingCommand, timeoutMillis: number): Promise<RemotingCommand> {
    const begin = Date.now();
    const candidates = this.#nameServerCandidates();
    let remaining = 0;
    const outcome = await retry(async (i) => {
      const addr = candidates[i];
      try {
        const response = await this.invoke(addr, request, remaining);
        if (this.#namesrvAddrChoosed !== addr) {
          this.#logger.info({ namesrvAddr: addr }, 'name server chosen');
          this.#namesrvAddrChoosed = addr;
        }
        return response;
      } catch (err) {
        if (this.#namesrvAddrChoosed === addr) this.#namesrvAddrChoosed = null;
        if (err instanceof RemotingConnectError) {
          this.#logger.warn({ namesrvAddr: addr }, 'name server unreachable, trying the next one');
        } else if (err instanceof RemotingSendRequestError) {
          this.remotingClient.closeChannel(addr);
        }
        throw err;
      }
    }, {
      attempts: candidates.length,
      beforeAttempt: () => (remaining = timeoutMillis - (Date.now() - begin)) > 0,
      // A name server that refused the connection is skipped for the next one; any other failure ends the call.
      onError: (err) => (err instanceof RemotingConnectError ? 'retry' : 'throw'),
    });
    if (outcome.end === 'accepted') return outcome.result!;
    throw outcome.lastError ?? new RemotingTimeoutError(this.#namesrvAddrList.join(';'), timeoutMillis);
  }

  // ---------------------------------------------------------------- raw invocation

  async invoke(addr: string, request: RemotingCommand, timeoutMillis: number): Promise<RemotingCommand> {
    try {
      return await this.remotingClient.invoke(addr, request, timeoutMillis, this.#invokeOptions);
    } catch (err) {
      if (err instanceof RemotingTimeoutError) this.#options.onRequestTimeout?.(addr, request.code, timeoutMillis);
      throw err;
    }
  }

  async invokeOneway(addr: string, request: RemotingCommand, timeoutMillis: number): Promise<void> {
    // the oneway flag is given to the encoder by the connection (Connection.oneway), not written into the command
    await this.remotingClient.invokeOneway(addr, request, timeoutMillis, this.#invokeOptions);
  }

  // ---------------------------------------------------------------- routes

  /**
   * The route of `topic`. TOPIC_NOT_EXIST becomes TopicNotExistError (logged as a warning when
   * `allowTopicNotExist`); any other failure code an MQClientError with that code.
   */
  async getTopicRouteInfoFromNameServer(topic: string, timeoutMillis: number, allowTopicNotExist = true): Promise<RouteBody> {
    const response = GetRouteInfoByTopic.parse(await this.invokeNameServer(GetRouteInfoByTopic.request({ topic }), timeoutMillis));
    if (response.code === ResponseCode.SUCCESS && response.body && response.body.length > 0) {
      return decodeTopicRouteData(response.body);
    }
    if (response.code === ResponseCode.TOPIC_NOT_EXIST) {
      if (allowTopicNotExist) this.#logger.debug({ topic }, 'the name server has no route for the topic (yet)');
      throw new TopicNotExistError(topic, response.remark);
    }
    throw new MQClientError(response.code, response.remark ?? `get route of ${topic} failed`);
  }

  /** The route of the auto-create topic (TBW102); its absence is expected and not logged. */
  getDefaultTopicRouteInfoFromNameServer(topic: string, timeoutMillis: number): Promise<RouteBody> {
    return this.getTopicRouteInfoFromNameServer(topic, timeoutMillis, false);
  }

  // ---------------------------------------------------------------- producer

  /** Builds the SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE / SEND_REPLY_MESSAGE_V2 request (SendMessageRequestHeaderV2's short keys a..n). */
  buildSendRequest(header: SendMessageHeader, brokerName: string, body: Buffer): RemotingCommand {
    const type = header.reply ? SendReplyMessageV2 : header.batch ? SendBatchMessage : SendMessageV2;
    // brokerName is the target's: added after encoding rather than spread into a copy of the header (a 14-field
    // object spread costs more than the whole encoding).
    const extFields = type.requestHeader.encode(header);
    extFields[BROKER_NAME_KEY] = brokerName;
    return new RemotingCommand({ code: type.code, extFields, body, serializeType: this.#options.sendSerializeType ?? SerializeType.ROCKETMQ });
  }

  /** A synchronous (or Promise-based asynchronous) send: resolves with the SendResult or rejects. */
  async sendMessage(target: SendMessageTarget, header: SendMessageHeader, timeoutMillis: number): Promise<SendResult> {
    const request = this.buildSendRequest(header, target.brokerName, target.body);
    const response = await this.invoke(target.brokerAddr, request, timeoutMillis);
    return this.processSendResponse(target, response);
  }

  /** A oneway send: resolves once written. */
  sendMessageOneway(target: SendMessageTarget, header: SendMessageHeader, timeoutMillis: number): Promise<void> {
    const request = this.buildSendRequest(header, target.brokerName, target.body);
    return this.invokeOneway(target.brokerAddr, request, timeoutMillis);
  }

  /** A send response to a SendResult; a failure code is an MQBrokerError. */
  processSendResponse(target: SendMessageTarget, response: RemotingCommand): SendResult {
    const h = SendMessageV2.parse(response, target.brokerAddr);
    let sendStatus: SendStatus;
    switch (response.code) {
      case ResponseCode.FLUSH_DISK_TIMEOUT: sendStatus = SendStatus.FLUSH_DISK_TIMEOUT; break;
      case ResponseCode.FLUSH_SLAVE_TIMEOUT: sendStatus = SendStatus.FLUSH_SLAVE_TIMEOUT; break;
      case ResponseCode.SLAVE_NOT_AVAILABLE: sendStatus = SendStatus.SLAVE_NOT_AVAILABLE; break;
      default: sendStatus = SendStatus.SEND_OK; break; // SUCCESS (parse let no other code through)
    }
    const regionId = h.msgRegion;
    const result: SendResult = {
      sendStatus,
      msgId: target.uniqMsgId,
      offsetMsgId: h.msgId,
      messageQueue: { topic: target.userTopic, brokerName: target.brokerName, queueId: h.queueId },
      queueOffset: h.queueOffset,
      regionId: regionId ? regionId : MixAll.DEFAULT_TRACE_REGION_ID,
      traceOn: h.traceOn !== 'false',
    };
    if (h.transactionId !== undefined) result.transactionId = h.transactionId;
    return result;
  }

  // ---------------------------------------------------------------- heartbeat and registration

  /** HEART_BEAT to one broker; resolves with the broker's version (the response header's version). */
  async sendHeartbeat(addr: string, heartbeatData: HeartbeatData, timeoutMillis: number): Promise<number> {
    return call(this, addr, HeartBeat, undefined, timeoutMillis, encodeHeartbeatData(heartbeatData));
  }

  /** CHECK_CLIENT_CONFIG: whether the broker accepts this subscription (SQL92 support...). */
  async checkClientInBroker(addr: string, group: string, clientId: string, subscriptionData: SubscriptionData, timeoutMillis: number): Promise<void> {
    const body: CheckClientRequestBody = { clientId, group, subscriptionData };
    const response = await this.invoke(addr, CheckClientConfig.request(undefined, encodeCheckClientRequestBody(body)), timeoutMillis);
    if (response.code !== ResponseCode.SUCCESS) throw new MQClientError(response.code, response.remark ?? 'check client in broker failed');
  }

  /** Closes every connection. */
  async shutdown(): Promise<void> {
    await this.remotingClient.shutdown();
  }
}

/** The topic of a send result: the user's, without namespace (Java processSendResponse). */
export function userTopic(topic: string, namespace: string | undefined): string {
  return namespace ? withoutNamespace(topic, namespace) : topic;
}
