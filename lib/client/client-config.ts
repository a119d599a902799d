/**
 * Options shared by every producer, consumer and admin client, with Java's names and defaults.
 *
 * @see org.apache.rocketmq.client.ClientConfig
 */
import os from 'node:os';
import type { MessageQueue } from '../../protocol/message/message-queue';
import type { LanguageName } from '../../protocol/remoting-command';
import { MixAll } from './mix-all';
import { NamespaceUtil, withoutNamespace } from './namespace';

export interface ClientConfigOptions {
  /**
   * `;`-separated `host:port` list (Java's `-Drocketmq.namesrv.addr` is env `ROCKETMQ_NAMESRV_ADDR` here); without
   * one, Java's HTTP lookup.
   * @default env ROCKETMQ_NAMESRV_ADDR, else env NAMESRV_ADDR
   */
  namesrvAddr?: string;
  /**
   * The address in the client id. Default: the first non-loopback IPv4 address not in 127.0/192.168, like RemotingUtil.getLocalAddress().
   * @default the first non-loopback IPv4 address
   */
  clientIP?: string;
  /** Default "DEFAULT" (or env `ROCKETMQ_CLIENT_NAME`, Java's `-Drocketmq.client.name`); see changeInstanceNameToPID. */
  instanceName: string;
  /**
   * Kept for Java parity; bounds how many callbacks may run at once.
   * @default the number of CPUs
   */
  clientCallbackExecutorThreads: number;
  /** Prefix added to topics and groups (`ns%topic`), stripped from what you read back. */
  namespace?: string;
  /** Interval of topic route refreshes from the name server, ms. */
  pollNameServerInterval: number;
  /** Interval of heartbeats to every broker, ms. */
  heartbeatBrokerInterval: number;
  /** Interval of consumer offset persistence, ms. */
  persistConsumerOffsetInterval: number;
  /** Pause before a pull is retried after an error, ms. */
  pullTimeDelayMillsWhenException: number;
  /** Java's unit mode (unit topics and groups of Alibaba's unitized deployments). */
  unitMode: boolean;
  /** Added to the client id in unit mode. */
  unitName?: string;
  /** Java's `-Dcom.rocketmq.sendMessageWithVIPChannel`, default false. */
  vipChannelEnabled: boolean;
  /** Java's `-Dtls.enable`, default false. */
  useTLS: boolean;
  /** Timeout of client API calls (route, heartbeat, offsets...), ms. */
  mqClientApiTimeout: number;
  /** The LanguageCode sent in every request header. JAVA as Java: a 4.9 peer does not know NODE_JS. */
  language: LanguageName;
  /** Adds "@STREAM" to the client id (4.9.8's enableStreamRequestType). */
  enableStreamRequestType: boolean;
  /**
   * At most this many requests of the client instance wait for an answer at once; more queue (FIFO), report
   * `network.request_queue_size`, and fail with RemotingTooMuchRequestError when their timeout passes in the queue.
   * 0 means no cap (as Java's synchronous calls).
   * @default 0
   */
  maxInflightRequests: number;
  /**
   * On shutdown, wait up to this long (ms) for the requests in flight to be answered before closing the
   * connections; 0 rejects them at once.
   * @default 0
   */
  shutdownDrainMillis: number;
}

export const DEFAULT_CLIENT_CONFIG: Readonly<ClientConfigOptions> = Object.freeze({
  namesrvAddr: undefined,
  clientIP: undefined,
  instanceName: 'DEFAULT',
  clientCallbackExecutorThreads: typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length,
  namespace: undefined,
  pollNameServerInterval: 30_000,
  heartbeatBrokerInterval: 30_000,
  persistConsumerOffsetInterval: 5_000,
  pullTimeDelayMillsWhenException: 1_000,
  unitMode: false,
  unitName: undefined,
  vipChannelEnabled: false,
  useTLS: false,
  mqClientApiTimeout: 3_000,
  language: 'JAVA',
  enableStreamRequestType: false,
  maxInflightRequests: 0,
  shutdownDrainMillis: 0,
});

const NAMESRV_ENDPOINT_PATTERN = /^http:\/\/.*$/s;
const INST_ENDPOINT_PATTERN = /^(\w+:\/\/|)MQ_INST_\w+_\w+\..*$/s;

/** Java's System.getProperty / System.getenv for the defaults that come from the environment. */
export function defaultNamesrvAddr(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.ROCKETMQ_NAMESRV_ADDR ?? env[MixAll.NAMESRV_ADDR_ENV] ?? undefined;
}

/**
 * RemotingUtil.getLocalAddress: the first non-loopback IPv4 address not starting with 127.0 or 192.168, else the
 * last non-loopback IPv4 address, else the first non-loopback IPv6 address in brackets, else 127.0.0.1.
 * (Java also skips bridge interfaces, which Node cannot tell apart.)
 */
export function getLocalAddress(interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces()): string {
  const ipv4: string[] = [];
  const ipv6: string[] = [];
  for (const infos of Object.values(interfaces)) {
    for (const info of infos ?? []) {
      if (info.internal || isLoopback(info.address)) continue;
      if (info.family === 'IPv4') ipv4.push(info.address);
      else ipv6.push(`[${info.address}]`);
    }
  }
  if (ipv4.length > 0) return ipv4.find((ip) => !ip.startsWith('127.0') && !ip.startsWith('192.168')) ?? ipv4[ipv4.length - 1];
  if (ipv6.length > 0) return ipv6[0];
  return '127.0.0.1';
}

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1';
}

export class ClientConfig implements ClientConfigOptions {
  namesrvAddr: string | undefined;
  clientIP: string;
  instanceName: string;
  clientCallbackExecutorThreads: number;
  namespace: string | undefined;
  pollNameServerInterval: number;
  heartbeatBrokerInterval: number;
  persistConsumerOffsetInterval: number;
  pullTimeDelayMillsWhenException: number;
  unitMode: boolean;
  unitName: string | undefined;
  vipChannelEnabled: boolean;
  useTLS: boolean;
  mqClientApiTimeout: number;
  language: LanguageName;
  enableStreamRequestType: boolean;
  maxInflightRequests: number;
  shutdownDrainMillis: number;
  #namespaceInitialized: boolean;

  constructor(options: Partial<ClientConfigOptions> = {}, env: NodeJS.ProcessEnv = process.env) {
    const o = { ...DEFAULT_CLIENT_CONFIG, ...stripUndefined(options) };
    this.namesrvAddr = o.namesrvAddr ?? defaultNamesrvAddr(env);
    this.clientIP = o.clientIP ?? getLocalAddress();
    this.instanceName = options.instanceName ?? env.ROCKETMQ_CLIENT_NAME ?? o.instanceName;
    this.clientCallbackExecutorThreads = o.clientCallbackExecutorThreads;
    this.namespace = o.namespace;
    this.pollNameServerInterval = o.pollNameServerInterval;
    this.heartbeatBrokerInterval = o.heartbeatBrokerInterval;
    this.persistConsumerOffsetInterval = o.persistConsumerOffsetInterval;
    this.pullTimeDelayMillsWhenException = o.pullTimeDelayMillsWhenException;
    this.unitMode = o.unitMode;
    this.unitName = o.unitName;
    this.vipChannelEnabled = o.vipChannelEnabled;
    this.useTLS = o.useTLS;
    this.mqClientApiTimeout = o.mqClientApiTimeout;
    this.language = o.language;
    this.enableStreamRequestType = o.enableStreamRequestType;
    this.maxInflightRequests = o.maxInflightRequests;
    this.shutdownDrainMillis = o.shutdownDrainMillis;
    this.#namespaceInitialized = options.namespace !== undefined;
  }

  /** `clientIP@instanceName[@unitName][@STREAM]`: the key of the shared MQClientInstance. */
  buildMQClientId(): string {
    let id = `${this.clientIP}@${this.instanceName}`;
    if (this.unitName != null && this.unitName.trim().length > 0) id += `@${this.unitName}`;
    if (this.enableStreamRequestType) id += '@STREAM';
    return id;
  }

  /** Java 4.9.8: "DEFAULT" becomes `<pid>#<nanoTime>`, so each client object gets its own instance. */
  changeInstanceNameToPID(): void {
    if (this.instanceName === 'DEFAULT') this.instanceName = `${process.pid}#${process.hrtime.bigint()}`;
  }

  /** The name server list; an `http://host/path/addr` endpoint yields what follows its last `/` (as Java). */
  getNamesrvAddr(): string | undefined {
    if (this.namesrvAddr && NAMESRV_ENDPOINT_PATTERN.test(this.namesrvAddr.trim())) {
      return this.namesrvAddr.substring(this.namesrvAddr.lastIndexOf('/') + 1);
    }
    return this.namesrvAddr;
  }

  setNamesrvAddr(namesrvAddr: string): void {
    this.namesrvAddr = namesrvAddr;
    this.#namespaceInitialized = false;
  }

  /** The namespace, or the instance id of an `MQ_INST_xxx_yyy.host` name server endpoint. */
  getNamespace(): string | undefined {
    if (this.#namespaceInitialized) return this.namespace;
    if (this.namespace) return this.namespace;
    if (this.namesrvAddr && INST_ENDPOINT_PATTERN.test(this.namesrvAddr)) {
      this.namespace = this.namesrvAddr.substring(this.namesrvAddr.lastIndexOf('/') + 1, this.namesrvAddr.indexOf('.'));
    }
    this.#namespaceInitialized = true;
    return this.namespace;
  }

  setNamespace(namespace: string | undefined): void {
    this.namespace = namespace;
    this.#namespaceInitialized = true;
  }

  withNamespace(resource: string): string {
    return NamespaceUtil.wrapNamespace(this.getNamespace(), resource);
  }

  withoutNamespace(resource: string): string {
    return withoutNamespace(resource, this.getNamespace());
  }

  queueWithNamespace(queue: MessageQueue): MessageQueue {
    if (!this.getNamespace()) return queue;
    return { topic: this.withNamespace(queue.topic), brokerName: queue.brokerName, queueId: queue.queueId };
  }

  queuesWithNamespace(queues: MessageQueue[]): MessageQueue[] {
    if (!this.getNamespace()) return queues;
    return queues.map((q) => this.queueWithNamespace(q));
  }

  /** A copy of every option (ClientConfig.cloneClientConfig). */
  cloneClientConfig(): ClientConfig {
    const copy = new ClientConfig(this.toOptions());
    copy.resetClientConfig(this);
    return copy;
  }

  /** Copies every option of `cc` into this one (ClientConfig.resetClientConfig). */
  resetClientConfig(cc: ClientConfig): void {
    Object.assign(this, cc.toOptions());
    this.#namespaceInitialized = cc.#namespaceInitialized;
  }

  toOptions(): ClientConfigOptions {
    return {
      namesrvAddr: this.namesrvAddr,
      clientIP: this.clientIP,
      instanceName: this.instanceName,
      clientCallbackExecutorThreads: this.clientCallbackExecutorThreads,
      namespace: this.namespace,
      pollNameServerInterval: this.pollNameServerInterval,
      heartbeatBrokerInterval: this.heartbeatBrokerInterval,
      persistConsumerOffsetInterval: this.persistConsumerOffsetInterval,
      pullTimeDelayMillsWhenException: this.pullTimeDelayMillsWhenException,
      unitMode: this.unitMode,
      unitName: this.unitName,
      vipChannelEnabled: this.vipChannelEnabled,
      useTLS: this.useTLS,
      mqClientApiTimeout: this.mqClientApiTimeout,
      language: this.language,
      enableStreamRequestType: this.enableStreamRequestType,
      maxInflightRequests: this.maxInflightRequests,
      shutdownDrainMillis: this.shutdownDrainMillis,
    };
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
