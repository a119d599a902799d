/**
 * Broker configuration: Java's option names and defaults, and the broker.conf loader.
 *
 * @see org.apache.rocketmq.common.BrokerConfig
 * @see org.apache.rocketmq.broker.BrokerStartup
 */
import os from 'node:os';
import path from 'node:path';
import { readPropertiesFile, applyProperties } from '../util/properties-file';
import { DEFAULT_MESSAGE_STORE_CONFIG, type MessageStoreConfig } from '../store/message-store-config';
import { DEFAULT_REMOTING_SERVER_OPTIONS, type RemotingServerOptions } from '../transport/remoting-server';
import { TLS_KEYS, partialTlsConfigFromProperties } from '../transport/tls-system-config';
import { PermName } from '../../protocol/body/perm-name';

export interface BrokerConfig {
  /**
   * Java's rocketmqHome.
   * @default env ROCKETMQ_HOME, else ""
   */
  rocketmqHome: string;
  /**
   * Name servers to register with, `;`-separated `host:port`.
   * @default env NAMESRV_ADDR, else ""
   */
  namesrvAddr: string;
  /**
   * The address the broker announces to name servers and clients. Empty: the first non-loopback IPv4 address.
   */
  brokerIP1: string;
  /** The address announced for HA (slaves connect to it); empty: brokerIP1. */
  brokerIP2: string;
  /**
   * Name of the broker set (master and its slaves share it).
   * @default the host name
   */
  brokerName: string;
  /** Cluster the broker registers in. */
  brokerClusterName: string;
  /** 0 for a master, above 0 for a slave. */
  brokerId: number;
  /** Remoting port for clients (the HA port is listenPort + 1 in Java). */
  listenPort: number;
  /**
   * Permission of the whole broker: 6 read+write, 4 read only, 2 write only (what wipeWritePerm lowers).
   */
  brokerPermission: number;
  /** Queues of a topic the broker auto-creates (capped by the producer's defaultTopicQueueNums). */
  defaultTopicQueueNums: number;
  /** Create an unknown topic on its first send (through TBW102). Java advises false in production. */
  autoCreateTopicEnable: boolean;
  /** Create the topic named after the cluster (read/write). */
  clusterTopicEnable: boolean;
  /** Create the topic named after the broker (read/write). */
  brokerTopicEnable: boolean;
  /** Create a consumer group's subscription config on its first heartbeat or pull. */
  autoCreateSubscriptionGroup: boolean;
  /**
   * Java store plug-in class names. No effect in this broker.
   */
  messageStorePlugIn: string;
  /** The trace topic created when traceTopicEnable is set. */
  msgTraceTopicName: string;
  /** Create msgTraceTopicName at start. */
  traceTopicEnable: boolean;
  /** Refuse transactional (half) messages with NO_PERMISSION. */
  rejectTransactionMessage: boolean;
  /**
   * Look the name servers up over HTTP. No effect in this broker.
   */
  fetchNamesrvAddrByAddressServer: boolean;
  /** How often consumer offsets are written to config/consumerOffset.json, ms. */
  flushConsumerOffsetInterval: number;
  /** ms. No effect in this broker. */
  flushConsumerOffsetHistoryInterval: number;
  /** No effect in this broker. */
  flushConsumerOffsetHistory: boolean;
  /**
   * Hold a pull that finds nothing until a message arrives or the consumer's suspend time ends (else answer after shortPollingTimeMills).
   */
  longPollingEnable: boolean;
  /** How long a pull that finds nothing is held without long polling, ms. */
  shortPollingTimeMills: number;
  /**
   * Tell a group's consumers when one joins or leaves, so they rebalance at once (the group's own setting also applies).
   */
  notifyConsumerIdsChangedEnable: boolean;
  /** No effect in this broker. */
  highSpeedMode: boolean;
  /**
   * Java: copy pull results through the heap instead of zero-copy. No effect in this broker.
   */
  transferMsgByHeap: boolean;
  /** Hours. No effect in this broker. */
  maxDelayTime: number;
  /** Written into each stored message as MSG_REGION. */
  regionId: string;
  /** Timeout of each registration with a name server, ms. */
  registerBrokerTimeoutMills: number;
  /**
   * Pulls suggest where to pull next: a pull whose messages are no longer in memory the group's
   * whichBrokerWhenConsumeSlowly (a slave), the others the group's brokerId; off, every pull suggests the master.
   */
  slaveReadEnable: boolean;
  /** No effect in this broker. */
  disableConsumeIfConsumerReadSlowly: boolean;
  /** Bytes. No effect in this broker. */
  consumerFallbehindThreshold: number;
  /**
   * Answer waiting sends SYSTEM_BUSY ([PCBUSY_CLEAN_QUEUE] while the page cache is busy, [TIMEOUT_CLEAN_QUEUE]
   * after waitTimeMillsInSendQueue), checked every 10 ms (Java's BrokerFastFailure).
   */
  brokerFastFailureEnable: boolean;
  /** A send waiting this long for the store is answered SYSTEM_BUSY [TIMEOUT_CLEAN_QUEUE], ms. */
  waitTimeMillsInSendQueue: number;
  /** Epoch ms before which sends are refused with SYSTEM_ERROR. */
  startAcceptSendRequestTimeStamp: number;
  /** Written into each stored message as TRACE_ON. */
  traceOn: boolean;
  /**
   * Java's bloom-filter bitmap for SQL92 filters. No effect in this broker.
   */
  enableCalcFilterBitMap: boolean;
  /** No effect in this broker. */
  expectConsumerNumUseFilter: number;
  /** No effect in this broker. */
  maxErrorRateOfBloomFilter: number;
  /** ms. No effect in this broker. */
  filterDataCleanTimeSpan: number;
  /**
   * Java: apply SQL92 filters to %RETRY% topics too. No effect in this broker.
   */
  filterSupportRetry: boolean;
  /** Accept SQL92 (property) subscriptions; without it a bySql subscription is refused. */
  enablePropertyFilter: boolean;
  /**
   * Wake the held pops of a FIFO group when one of its queues' orderly batch stops blocking (its invisible time
   * passed, or changed), not only on a new message or an ack (ConsumerOrderInfoLockManager).
   */
  enableNotifyAfterPopOrderLockRelease: boolean;
  /** Send the register-broker body zlib-compressed. */
  compressedRegister: boolean;
  /** Register on every period even when the topic config did not change. */
  forceRegister: boolean;
  /** How often the broker registers with the name servers, ms (bounded to 10 s .. 60 s, as Java). */
  registerNameServerPeriod: number;
  /** A half message younger than this is not checked back yet, ms. */
  transactionTimeOut: number;
  /** Check-backs of one half message before it is dropped. */
  transactionCheckMax: number;
  /** How often half messages are checked back with their producer, ms. */
  transactionCheckInterval: number;
  /**
   * Check every request against `$ROCKETMQ_HOME/conf/plain_acl.yml` (Java 4.9.8's PlainAccessValidator; see docs/servers.md).
   */
  aclEnable: boolean;
  /** Request-reply: a reply is stored in its reply topic too, besides being pushed to the requester. */
  storeReplyMessageEnable: boolean;
  /** No effect in this broker. */
  autoDeleteUnusedStats: boolean;
  /**
   * Where config/*.json lives; mirrors MessageStoreConfig.storePathRootDir (Java keeps it there).
   * @default ~/store
   */
  storePathRootDir: string;
  /** Channel expiry without heartbeat (ms); Java's ClientHousekeepingService uses 120 s. */
  channelExpiredTimeout: number;
  /** Metrics exporter (Java 5.x): DISABLE (default) or PROM, a Prometheus endpoint at /metrics. */
  metricsExporterType: string;
  /** Address the Prometheus endpoint binds ('' = every address), Java 5.x metricsPromExporterHost. */
  metricsPromExporterHost: string;
  /** Port of the Prometheus endpoint, Java 5.x metricsPromExporterPort (5557). */
  metricsPromExporterPort: number;
  /** Shorthand of ours: a port here turns the Prometheus endpoint on at that port (-1: not set). */
  metricsPort: number;
  /** Port of the RocketMQ 5.x gRPC endpoint for 5.x clients, no proxy needed (docs/grpc.md): -1 off (@grpc/grpc-js never loaded), 0 any free port. */
  grpcServerPort: number;
  /** Sends (SEND_MESSAGE, V2, batch, CONSUMER_SEND_MSG_BACK) admitted and not answered, over every connection; the excess gets SYSTEM_BUSY [OVERLOAD]. */
  sendThreadPoolQueueCapacity: number;
  /** Pulls being processed over every connection (a held pull no longer counts); the excess gets SYSTEM_BUSY [OVERLOAD]. */
  pullThreadPoolQueueCapacity: number;
  /**
   * Controller mode (RocketMQ 5.x): the controllers at `controllerAddr` give this broker its id and role and fail the
   * set over; brokerId and brokerRole are then ignored. Refused together with enableDLegerCommitLog.
   */
  enableControllerMode: boolean;
  /** Controller mode: the controllers' addresses (their DLedger peer ports), `;`-separated `host:port`. */
  controllerAddr: string;
  /** Controller mode: controllerAddr is one `host:port`; the host resolves to every A record it has, each a controller (again every 2 minutes). */
  fetchControllerAddrByDnsLookup: boolean;
  /** Controller mode: how often the broker asks the controller for its set's master and SyncStateSet (GET_REPLICA_INFO), ms. */
  syncBrokerMetadataPeriod: number;
  /** Controller mode: how often a master checks its SyncStateSet and reports a change (ALTER_SYNC_STATE_SET), ms. */
  checkSyncStateSetPeriod: number;
  /** Controller mode: how often the broker asks the controllers which of them leads (GET_METADATA_INFO), ms. */
  syncControllerMetadataPeriod: number;
  /** Controller mode: the controller takes the broker for dead after this long without a heartbeat, ms. */
  controllerHeartBeatTimeoutMills: number;
  /** Controller mode: how often BROKER_HEARTBEAT is sent (oneway) to every controller, ms. */
  brokerHeartbeatInterval: number;
  /** Timeout of a heartbeat, ms (Java's sendHeartbeatTimeoutMillis). */
  sendHeartbeatTimeoutMillis: number;
  /** Controller mode: the lower, the more the controller prefers this replica as master. */
  brokerElectionPriority: number;
}

export const DEFAULT_BROKER_CONFIG: Readonly<BrokerConfig> = Object.freeze({
  rocketmqHome: process.env.ROCKETMQ_HOME ?? '',
  namesrvAddr: process.env.NAMESRV_ADDR ?? '',
  brokerIP1: '',
  brokerIP2: '',
  brokerName: os.hostname(),
  brokerClusterName: 'DefaultCluster',
  brokerId: 0,
  listenPort: 10911,
  brokerPermission: PermName.PERM_READ | PermName.PERM_WRITE,
  defaultTopicQueueNums: 8,
  autoCreateTopicEnable: true,
  clusterTopicEnable: true,
  brokerTopicEnable: true,
  autoCreateSubscriptionGroup: true,
  messageStorePlugIn: '',
  msgTraceTopicName: 'RMQ_SYS_TRACE_TOPIC',
  traceTopicEnable: false,
  rejectTransactionMessage: false,
  fetchNamesrvAddrByAddressServer: false,
  flushConsumerOffsetInterval: 5000,
  flushConsumerOffsetHistoryInterval: 60000,
  flushConsumerOffsetHistory: false,
  longPollingEnable: true,
  shortPollingTimeMills: 1000,
  notifyConsumerIdsChangedEnable: true,
  highSpeedMode: false,
  transferMsgByHeap: true,
  maxDelayTime: 40,
  regionId: 'DefaultRegion',
  registerBrokerTimeoutMills: 6000,
  slaveReadEnable: false,
  disableConsumeIfConsumerReadSlowly: false,
  consumerFallbehindThreshold: 1024 * 1024 * 1024 * 16,
  brokerFastFailureEnable: true,
  waitTimeMillsInSendQueue: 200,
  startAcceptSendRequestTimeStamp: 0,
  traceOn: true,
  enableCalcFilterBitMap: false,
  expectConsumerNumUseFilter: 32,
  maxErrorRateOfBloomFilter: 20,
  filterDataCleanTimeSpan: 24 * 3600 * 1000,
  filterSupportRetry: false,
  enablePropertyFilter: false,
  enableNotifyAfterPopOrderLockRelease: true,
  compressedRegister: false,
  forceRegister: true,
  registerNameServerPeriod: 30000,
  transactionTimeOut: 6000,
  transactionCheckMax: 15,
  transactionCheckInterval: 60000,
  aclEnable: false,
  storeReplyMessageEnable: true,
  autoDeleteUnusedStats: false,
  storePathRootDir: path.join(os.homedir(), 'store'),
  channelExpiredTimeout: 120000,
  metricsExporterType: 'DISABLE',
  metricsPromExporterHost: '',
  metricsPromExporterPort: 5557,
  metricsPort: -1,
  grpcServerPort: -1,
  sendThreadPoolQueueCapacity: 10000,
  pullThreadPoolQueueCapacity: 100000,
  enableControllerMode: false,
  controllerAddr: '',
  fetchControllerAddrByDnsLookup: false,
  syncBrokerMetadataPeriod: 5 * 1000,
  checkSyncStateSetPeriod: 5 * 1000,
  syncControllerMetadataPeriod: 10 * 1000,
  controllerHeartBeatTimeoutMills: 10 * 1000,
  brokerHeartbeatInterval: 1000,
  sendHeartbeatTimeoutMillis: 1000,
  brokerElectionPriority: 2147483647,
});

/** Where the Prometheus endpoint listens, or null when metrics are off (or an exporter we do not have is named). */
export function prometheusEndpoint(bc: Pick<BrokerConfig, 'metricsExporterType' | 'metricsPromExporterHost' | 'metricsPromExporterPort' | 'metricsPort'>): { host: string; port: number } | null {
  if (bc.metricsPort >= 0) return { host: bc.metricsPromExporterHost, port: bc.metricsPort };
  if (bc.metricsExporterType.toUpperCase() === 'PROM') return { host: bc.metricsPromExporterHost, port: bc.metricsPromExporterPort };
  return null;
}

/** Merges user options over the defaults once. */
export function resolveBrokerConfig(config: Partial<BrokerConfig> = {}): BrokerConfig {
  return { ...DEFAULT_BROKER_CONFIG, ...config };
}

/** Java's RemotingUtil.getLocalAddress: the first non-loopback IPv4 address, else 127.0.0.1. */
export function localAddress(): string {
  const ifaces = os.networkInterfaces();
  for (const list of Object.values(ifaces)) {
    for (const i of list ?? []) {
      if (i.family === 'IPv4' && !i.internal) return i.address;
    }
  }
  return '127.0.0.1';
}

export interface LoadedBrokerConf {
  brokerConfig: BrokerConfig;
  messageStoreConfig: MessageStoreConfig;
  remotingServerConfig: Partial<RemotingServerOptions>;
  /** `rocketmq.acl.plain.file` (Java's system property, relative to rocketmqHome), when given. */
  aclPlainFile?: string;
  /** Keys that matched no field of any config (reported, not fatal). */
  unknownKeys: string[];
}

/** Remoting (NettyServerConfig) keys we understand, mapped onto RemotingServerOptions. */
export const REMOTING_KEYS: Readonly<Record<string, keyof RemotingServerOptions>> = {
  listenPort: 'listenPort',
  bindAddress: 'bindAddress',
  serverChannelMaxIdleTimeSeconds: 'serverChannelMaxIdleTimeSeconds',
  writeBufferHighWaterMark: 'writeBufferHighWaterMark',
  writeBufferLowWaterMark: 'writeBufferLowWaterMark',
  serverMaxInflight: 'serverMaxInflight',
  serverChannelMaxInflightBytes: 'serverChannelMaxInflightBytes',
  serverMaxInflightBytes: 'serverMaxInflightBytes',
  serverChannelMaxWriteBacklogBytes: 'serverChannelMaxWriteBacklogBytes',
  serverRequestsPerTurn: 'serverRequestsPerTurn',
};

/** Java NettyServerConfig / NettyClientConfig keys we accept and ignore (thread pools, socket buffers). */
export const IGNORED_NETTY_KEYS: ReadonlySet<string> = new Set([
  'serverWorkerThreads', 'serverCallbackExecutorThreads', 'serverSelectorThreads', 'serverOnewaySemaphoreValue',
  'serverAsyncSemaphoreValue', 'serverSocketSndBufSize', 'serverSocketRcvBufSize', 'serverPooledByteBufAllocatorEnable',
  'useEpollNativeSelector', 'clientWorkerThreads', 'clientCallbackExecutorThreads', 'clientOnewaySemaphoreValue',
  'clientAsyncSemaphoreValue', 'connectTimeoutMillis', 'channelNotActiveInterval', 'clientChannelMaxIdleTimeSeconds',
  'clientSocketSndBufSize', 'clientSocketRcvBufSize', 'clientPooledByteBufAllocatorEnable', 'clientCloseSocketIfTimeout',
  'useTLS', 'sendMessageThreadPoolNums', 'pullMessageThreadPoolNums', 'queryMessageThreadPoolNums',
  'adminBrokerThreadPoolNums', 'clientManageThreadPoolNums', 'consumerManageThreadPoolNums', 'heartbeatThreadPoolNums',
  'endTransactionThreadPoolNums', 'processReplyMessageThreadPoolNums', 'queryThreadPoolQueueCapacity', 'clientManagerThreadPoolQueueCapacity',
  'consumerManagerThreadPoolQueueCapacity', 'heartbeatThreadPoolQueueCapacity', 'endTransactionPoolQueueCapacity',
  'useReentrantLockWhenPutMessage', 'isEnableDLegerCommitLog',
]);

/**
 * Reads a Java broker.conf (properties) and applies each key to BrokerConfig, MessageStoreConfig or the remoting
 * server config by name, as BrokerStartup does with MixAll.properties2Object on each. A key may set several
 * (storePathRootDir, listenPort). Unknown keys are returned, not thrown.
 */
export async function loadBrokerConf(file: string): Promise<LoadedBrokerConf> {
  const props = await readPropertiesFile(file);
  return applyBrokerProperties(props);
}

export function applyBrokerProperties(props: Map<string, string>): LoadedBrokerConf {
  const brokerConfig = resolveBrokerConfig();
  const messageStoreConfig: MessageStoreConfig = { ...DEFAULT_MESSAGE_STORE_CONFIG };
  const remotingServerConfig: Partial<RemotingServerOptions> = {};
  const unknownKeys: string[] = [];
  let aclPlainFile: string | undefined;
  const tlsProps = new Map<string, string>();
  for (const [key, value] of props) {
    const one = new Map([[key, value]]);
    let known = false;
    if (applyProperties(brokerConfig, one).length === 0) known = true;
    if (applyProperties(messageStoreConfig, one).length === 0) known = true;
    const rk = REMOTING_KEYS[key];
    if (rk) {
      const probe = { [rk]: DEFAULT_REMOTING_SERVER_OPTIONS[rk] } as Record<string, unknown>;
      applyProperties(probe, one.size ? new Map([[rk, value]]) : one);
      (remotingServerConfig as Record<string, unknown>)[rk] = probe[rk];
      known = true;
    }
    if (IGNORED_NETTY_KEYS.has(key)) known = true;
    // Java system properties, accepted as broker.conf keys.
    if (key === 'rocketmq.home.dir') {
      brokerConfig.rocketmqHome = value;
      known = true;
    } else if (key === 'rocketmq.acl.plain.file') {
      aclPlainFile = value;
      known = true;
    } else if (TLS_KEYS[key]) {
      // Java's TlsSystemConfig keys (tls.server.mode, tls.server.certPath, ...).
      tlsProps.set(key, value);
      known = true;
    }
    if (!known) unknownKeys.push(key);
  }
  // The broker keeps config/*.json under the store root, as Java's BrokerPathConfigHelper does.
  if (tlsProps.size > 0) remotingServerConfig.tls = partialTlsConfigFromProperties(tlsProps);
  if (props.has('storePathRootDir')) brokerConfig.storePathRootDir = messageStoreConfig.storePathRootDir;
  else messageStoreConfig.storePathRootDir = brokerConfig.storePathRootDir;
  if (!messageStoreConfig.storePathCommitLog) {
    messageStoreConfig.storePathCommitLog = path.join(messageStoreConfig.storePathRootDir, 'commitlog');
  }
  return { brokerConfig, messageStoreConfig, remotingServerConfig, unknownKeys, ...(aclPlainFile !== undefined ? { aclPlainFile } : {}) };
}
