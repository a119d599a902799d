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
  rocketmqHome: string;
  namesrvAddr: string;
  brokerIP1: string;
  brokerIP2: string;
  brokerName: string;
  brokerClusterName: string;
  brokerId: number;
  listenPort: number;
  brokerPermission: number;
  defaultTopicQueueNums: number;
  autoCreateTopicEnable: boolean;
  clusterTopicEnable: boolean;
  brokerTopicEnable: boolean;
  autoCreateSubscriptionGroup: boolean;
  messageStorePlugIn: string;
  msgTraceTopicName: string;
  traceTopicEnable: boolean;
  rejectTransactionMessage: boolean;
  fetchNamesrvAddrByAddressServer: boolean;
  flushConsumerOffsetInterval: number;
  flushConsumerOffsetHistoryInterval: number;
  flushConsumerOffsetHistory: boolean;
  longPollingEnable: boolean;
  shortPollingTimeMills: number;
  notifyConsumerIdsChangedEnable: boolean;
  highSpeedMode: boolean;
  transferMsgByHeap: boolean;
  maxDelayTime: number;
  regionId: string;
  registerBrokerTimeoutMills: number;
  slaveReadEnable: boolean;
  disableConsumeIfConsumerReadSlowly: boolean;
  consumerFallbehindThreshold: number;
  brokerFastFailureEnable: boolean;
  waitTimeMillsInSendQueue: number;
  startAcceptSendRequestTimeStamp: number;
  traceOn: boolean;
  enableCalcFilterBitMap: boolean;
  expectConsumerNumUseFilter: number;
  maxErrorRateOfBloomFilter: number;
  filterDataCleanTimeSpan: number;
  filterSupportRetry: boolean;
  enablePropertyFilter: boolean;
  compressedRegister: boolean;
  forceRegister: boolean;
  registerNameServerPeriod: number;
  transactionTimeOut: number;
  transactionCheckMax: number;
  transactionCheckInterval: number;
  aclEnable: boolean;
  storeReplyMessageEnable: boolean;
  autoDeleteUnusedStats: boolean;
  /** Where config/*.json lives; mirrors MessageStoreConfig.storePathRootDir (Java keeps it there). */
  storePathRootDir: string;
  /** Channel expiry without heartbeat (ms); Java's ClientHousekeepingService uses 120 s. */
  channelExpiredTimeout: number;
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
});

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
const REMOTING_KEYS: Record<string, keyof RemotingServerOptions> = {
  listenPort: 'listenPort',
  bindAddress: 'bindAddress',
  serverChannelMaxIdleTimeSeconds: 'serverChannelMaxIdleTimeSeconds',
};

/** Java NettyServerConfig / NettyClientConfig keys we accept and ignore (thread pools, socket buffers). */
const IGNORED_NETTY_KEYS = new Set([
  'serverWorkerThreads', 'serverCallbackExecutorThreads', 'serverSelectorThreads', 'serverOnewaySemaphoreValue',
  'serverAsyncSemaphoreValue', 'serverSocketSndBufSize', 'serverSocketRcvBufSize', 'serverPooledByteBufAllocatorEnable',
  'useEpollNativeSelector', 'clientWorkerThreads', 'clientCallbackExecutorThreads', 'clientOnewaySemaphoreValue',
  'clientAsyncSemaphoreValue', 'connectTimeoutMillis', 'channelNotActiveInterval', 'clientChannelMaxIdleTimeSeconds',
  'clientSocketSndBufSize', 'clientSocketRcvBufSize', 'clientPooledByteBufAllocatorEnable', 'clientCloseSocketIfTimeout',
  'useTLS', 'sendMessageThreadPoolNums', 'pullMessageThreadPoolNums', 'queryMessageThreadPoolNums',
  'adminBrokerThreadPoolNums', 'clientManageThreadPoolNums', 'consumerManageThreadPoolNums', 'heartbeatThreadPoolNums',
  'endTransactionThreadPoolNums', 'processReplyMessageThreadPoolNums', 'sendThreadPoolQueueCapacity',
  'pullThreadPoolQueueCapacity', 'queryThreadPoolQueueCapacity', 'clientManagerThreadPoolQueueCapacity',
  'consumerManagerThreadPoolQueueCapacity', 'heartbeatThreadPoolQueueCapacity', 'endTransactionPoolQueueCapacity',
  'useReentrantLockWhenPutMessage', 'transientStorePoolEnable', 'isEnableDLegerCommitLog', 'enableDLegerCommitLog',
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
