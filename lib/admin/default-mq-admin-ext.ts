/**
 * DefaultMQAdminExt: the admin client (what `mqadmin` is built on), over one shared MQClientInstance.
 *
 * Options are ClientConfig's plus `adminExtGroup` ("admin_ext_group") and `timeoutMillis` (5000), as Java.
 * Name-server calls go to the chosen name server (failing over as MQClientAPI does); KV writes and
 * deleteTopicInNameServer go to every name server of the list, as Java. Broker calls that concern a topic
 * find its brokers in the route from the name server (fetched each call, never cached: an admin wants the truth).
 *
 * Errors: failure codes of broker calls are MQBrokerError {responseCode, remark, brokerAddr}; "not found"
 * outcomes are MQClientError with Java's codes (CONSUMER_NOT_ONLINE, NO_MESSAGE, TOPIC_NOT_EXIST, or -1).
 *
 * @see org.apache.rocketmq.tools.admin.DefaultMQAdminExt
 * @see org.apache.rocketmq.tools.admin.DefaultMQAdminExtImpl
 */
import { ResponseCode } from '../../protocol/code/response-code';
import type { ClusterInfo } from '../../protocol/body/cluster-info';
import type { ConsumeStats, ConsumeStatsList } from '../../protocol/body/consume-stats';
import type { ConsumerConnection, ProducerConnection } from '../../protocol/body/consumer-connection';
import type { ConsumerRunningInfo } from '../../protocol/body/consumer-running-info';
import type { GroupList } from '../../protocol/body/group-list';
import type { KVTable } from '../../protocol/body/kv-table';
import type { SubscriptionGroupConfig, SubscriptionGroupWrapper } from '../../protocol/body/subscription-group-wrapper';
import type { BrokerStatsData } from '../../protocol/body/broker-stats-data';
import type { ConsumeMessageDirectlyResult } from '../../protocol/body/consume-message-directly-result';
import type { ProducerTableInfo } from '../../protocol/body/producer-table-info';
import type { QueryConsumeQueueResponseBody } from '../../protocol/body/query-consume-queue-response-body';
import type { TopicConfigSerializeWrapper } from '../../protocol/body/topic-config-serialize-wrapper';
import { PullStatus, pullMessage } from '../client/mq-client-api-consumer';
import { GetMaxOffset, GetMinOffset, SearchOffset, UpdateConsumerOffset } from '../../protocol/requests/index';
import { call } from '../client/request-invoker';
import { decodeMessages } from '../../protocol/message/message-decoder';
import { type TopicConfig, newTopicConfig } from '../../protocol/body/topic-config';
import type { TopicList } from '../../protocol/body/topic-list';
import { MASTER_ID, type BrokerData, type TopicRouteData, selectBrokerAddr } from '../../protocol/body/topic-route-data';
import type { TopicStatsTable } from '../../protocol/body/topic-stats-table';
import { MessageConst } from '../../protocol/message/message-const';
import { decodeOffsetMessageId } from '../../protocol/message/message-id';
import type { MessageExt } from '../../protocol/message/message';
import { type MessageQueue, messageQueueKey } from '../../protocol/message/message-queue';
import { ClientConfig, type ClientConfigOptions } from '../client/client-config';
import { MixAll, TopicValidator, getRetryTopic, isSysConsumerGroup } from '../client/mix-all';
import type { MQClientAPI, MQClientAPIOptions } from '../client/mq-client-api';
import * as adminApi from '../client/mq-client-api-admin';
import type { MQClientInstance } from '../client/mq-client-instance';
import { MQClientManager } from '../client/mq-client-manager';
import { BrokerNotFoundError, MQBrokerError, MQClientError, OperationFailedError, ResourceNotFoundError, ServiceStateError } from '../errors';
import { type Logger, componentLogger } from '../logger';

export interface DefaultMQAdminExtOptions extends ClientConfigOptions {
  /** Producer group the admin client registers under. */
  adminExtGroup: string;
  /** Timeout of each admin request, ms. */
  timeoutMillis: number;
}

export const DEFAULT_MQ_ADMIN_EXT_OPTIONS: Readonly<Pick<DefaultMQAdminExtOptions, 'adminExtGroup' | 'timeoutMillis'>> = Object.freeze({
  adminExtGroup: 'admin_ext_group',
  timeoutMillis: 5_000,
});

export interface DefaultMQAdminExtExtras {
  rpcHook?: MQClientAPIOptions['rpcHook'];
  logger?: Logger;
  /** The manager sharing instances (default: the process-wide one). */
  clientManager?: MQClientManager;
}

/** The result of queryMessage. @see org.apache.rocketmq.client.QueryResult */
export interface QueryResult {
  indexLastUpdateTimestamp: number;
  messageList: MessageExt[];
}

/** What a consumer group did with one message. @see org.apache.rocketmq.tools.admin.api.MessageTrack */
export interface MessageTrack {
  consumerGroup: string;
  /** TrackType: CONSUMED, CONSUMED_BUT_FILTERED, PULL, NOT_CONSUME_YET, NOT_ONLINE, UNKNOWN. */
  trackType: string;
  exceptionDesc: string | null;
}

/** MessageTrack.toString. */
export function messageTrackToString(t: MessageTrack): string {
  return `MessageTrack [consumerGroup=${t.consumerGroup}, trackType=${t.trackType}, exceptionDesc=${t.exceptionDesc ?? 'null'}]`;
}

/** The result of one pull (DefaultMQPullConsumer.pull). */
export interface AdminPullResult {
  pullStatus: PullStatus;
  nextBeginOffset: number;
  minOffset: number;
  maxOffset: number;
  msgFoundList: MessageExt[];
}

/** DefaultMQAdminExtImpl.SYSTEM_GROUP_SET: the groups getUserSubscriptionGroup leaves out (besides CID_RMQ_SYS_*). */
const SYSTEM_GROUPS: ReadonlySet<string> = new Set([
  MixAll.DEFAULT_CONSUMER_GROUP, MixAll.DEFAULT_PRODUCER_GROUP, MixAll.TOOLS_CONSUMER_GROUP, MixAll.FILTERSRV_CONSUMER_GROUP,
  MixAll.MONITOR_CONSUMER_GROUP, MixAll.CLIENT_INNER_PRODUCER_GROUP, MixAll.SELF_TEST_PRODUCER_GROUP, MixAll.SELF_TEST_CONSUMER_GROUP,
  MixAll.ONS_HTTP_PROXY_GROUP, MixAll.CID_ONSAPI_PERMISSION_GROUP, MixAll.CID_ONSAPI_OWNER_GROUP, MixAll.CID_ONSAPI_PULL_GROUP,
  MixAll.CID_SYS_RMQ_TRANS,
]);

/** MixAll.TOOLS_CONSUMER_GROUP: the group mqadmin pulls as. */
export const TOOLS_CONSUMER_GROUP = 'TOOLS_CONSUMER';

/** Merges [queue, value] entries by queue (a Java HashMap<MessageQueue, V>.putAll). */
function putAll<V>(target: Map<string, [MessageQueue, V]>, entries: Array<[MessageQueue, V]>): void {
  for (const e of entries) target.set(messageQueueKey(e[0]), e);
}

export class DefaultMQAdminExt extends ClientConfig {
  adminExtGroup: string;
  timeoutMillis: number;
  readonly #extras: DefaultMQAdminExtExtras;
  readonly #logger: Logger;
  #instance: MQClientInstance | null = null;
  #starting: Promise<void> | null = null;

  constructor(options: Partial<DefaultMQAdminExtOptions> = {}, extras: DefaultMQAdminExtExtras = {}) {
    super(options);
    const o = { ...DEFAULT_MQ_ADMIN_EXT_OPTIONS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
    this.adminExtGroup = o.adminExtGroup;
    this.timeoutMillis = o.timeoutMillis;
    this.#extras = extras;
    this.#logger = componentLogger('admin', extras.logger);
  }

  /** Starts (idempotent; concurrent calls merge): joins or creates the MQClientInstance of this client id. */
  start(): Promise<void> {
    if (this.#instance) return Promise.resolve();
    if (!this.#starting) {
      this.#starting = (async () => {
        this.changeInstanceNameToPID();
        const manager = this.#extras.clientManager ?? MQClientManager.getInstance();
        const instance = manager.acquire(this, { rpcHook: this.#extras.rpcHook, logger: this.#extras.logger });
        try {
          await instance.start();
        } catch (err) {
          await manager.release(instance);
          throw err;
        }
        this.#instance = instance;
        this.#logger.info({ group: this.adminExtGroup, clientId: instance.clientId }, 'admin started');
      })().finally(() => { this.#starting = null; });
    }
    return this.#starting;
  }

  /** Shuts down (idempotent): releases the shared instance (the last user closes it). */
  async shutdown(): Promise<void> {
    if (this.#starting) await this.#starting.catch(() => undefined);
    const instance = this.#instance;
    if (!instance) return;
    this.#instance = null;
    await (this.#extras.clientManager ?? MQClientManager.getInstance()).release(instance);
  }

  /**
   * The resource with this client's namespace (NamespaceUtil.wrapNamespace): unchanged without a namespace, for
   * system topics and groups and for names that already carry it. Java's DefaultMQAdminExt takes full names only
   * (it never applies its ClientConfig namespace); ours wraps the topic and group arguments when `namespace` is set,
   * and returns what the servers hold (full names) as Java does.
   */
  #ns(resource: string): string {
    return this.withNamespace(resource);
  }

  get #api(): MQClientAPI {
    if (!this.#instance) throw new ServiceStateError('The admin client is not started; call start() first', { retriable: false });
    return this.#instance.api;
  }

  // ---------------------------------------------------------------- name server

  getNameServerAddressList(): string[] {
    return this.#instance ? this.#api.getNameServerAddressList() : (this.getNamesrvAddr() ?? '').split(';').filter((s) => s.length > 0);
  }

  examineBrokerClusterInfo(): Promise<ClusterInfo> {
    return adminApi.getBrokerClusterInfo(this.#api, this.timeoutMillis);
  }

  examineTopicRouteInfo(topic: string): Promise<TopicRouteData> {
    return this.#api.getTopicRouteInfoFromNameServer(this.#ns(topic), this.timeoutMillis);
  }

  fetchAllTopicList(): Promise<TopicList> {
    return adminApi.getTopicListFromNameServer(this.#api, this.timeoutMillis);
  }

  /** Deletes the topic's route on the given name servers (default: every one in the list). */
  async deleteTopicInNameServer(addrs: Iterable<string> | null, topic: string): Promise<void> {
    const targets = addrs ? [...addrs] : this.getNameServerAddressList();
    for (const addr of targets) await adminApi.deleteTopicInNameServer(this.#api, addr, this.#ns(topic), this.timeoutMillis);
  }

  putKVConfig(namespace: string, key: string, value: string): Promise<void> {
    return adminApi.putKVConfigValue(this.#api, namespace, key, value, this.timeoutMillis);
  }

  getKVConfig(namespace: string, key: string): Promise<string> {
    return adminApi.getKVConfigValue(this.#api, namespace, key, this.timeoutMillis);
  }

  deleteKVConfig(namespace: string, key: string): Promise<void> {
    return adminApi.deleteKVConfigValue(this.#api, namespace, key, this.timeoutMillis);
  }

  /** Takes write permission away from every topic of `brokerName` on one name server; resolves with how many. */
  wipeWritePermOfBroker(namesrvAddr: string, brokerName: string): Promise<number> {
    return adminApi.wipeWritePermOfBroker(this.#api, namesrvAddr, brokerName, this.timeoutMillis);
  }

  /** Gives write permission back to every topic of `brokerName` on one name server; resolves with how many. */
  addWritePermOfBroker(namesrvAddr: string, brokerName: string): Promise<number> {
    return adminApi.addWritePermOfBroker(this.#api, namesrvAddr, brokerName, this.timeoutMillis);
  }

  /** The configuration of each name server (`nameServers` null or empty: every one of the list), keyed by address. */
  getNameServerConfig(nameServers: readonly string[] | null = null): Promise<Map<string, Map<string, string>>> {
    return adminApi.getNameServerConfig(this.#api, nameServers, this.timeoutMillis);
  }

  /** Changes configuration keys of the name servers (`nameServers` null or empty: every one of the list). */
  updateNameServerConfig(properties: ReadonlyMap<string, string> | Readonly<Record<string, string>>, nameServers: readonly string[] | null = null): Promise<void> {
    return adminApi.updateNameServerConfig(this.#api, properties, nameServers, this.timeoutMillis);
  }

  /** Sets the ORDER_TOPIC_CONFIG of `key` (the cluster-wide form: a KV put on every name server, as Java with isCluster). */
  createOrUpdateOrderConf(key: string, value: string): Promise<void> {
    return this.putKVConfig('ORDER_TOPIC_CONFIG', key, value);
  }

  /** The clusters whose brokers serve the topic (by its first broker, as Java). */
  async getTopicClusterList(topic: string): Promise<Set<string>> {
    const info = await this.examineBrokerClusterInfo();
    const route = await this.examineTopicRouteInfo(topic);
    const brokerName = route.brokerDatas[0]?.brokerName;
    const out = new Set<string>();
    for (const [cluster, names] of info.clusterAddrTable) if (brokerName !== undefined && names.includes(brokerName)) out.add(cluster);
    return out;
  }

  // ---------------------------------------------------------------- topics

  /** Creates or updates a topic on one broker. */
  createAndUpdateTopicConfig(addr: string, config: TopicConfig): Promise<void> {
    const wrapped = this.#ns(config.topicName);
    return adminApi.createTopic(this.#api, addr, TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, wrapped === config.topicName ? config : { ...config, topicName: wrapped }, this.timeoutMillis);
  }

  /**
   * Creates `newTopic` with `queueNum` read and write queues on the master of every broker that serves `key`
   * (TBW102 normally), five tries per broker; fails only when no broker took it (MQAdminImpl.createTopic).
   */
  async createTopic(key: string, newTopic: string, queueNum: number, topicSysFlag = 0): Promise<void> {
    const route = await this.#api.getTopicRouteInfoFromNameServer(key, this.timeoutMillis);
    const brokers = [...route.brokerDatas].sort((a, b) => (a.brokerName < b.brokerName ? -1 : a.brokerName > b.brokerName ? 1 : 0));
    if (brokers.length === 0) throw new ResourceNotFoundError('Not found broker, maybe key is wrong');
    let okOnce = false;
    let lastError: unknown = null;
    for (const bd of brokers) {
      const addr = bd.brokerAddrs.get(MASTER_ID);
      if (!addr) continue;
      const config = newTopicConfig(this.#ns(newTopic), { readQueueNums: queueNum, writeQueueNums: queueNum, topicSysFlag });
      for (let i = 0; i < 5; i++) {
        try {
          await adminApi.createTopic(this.#api, addr, key, config, this.timeoutMillis);
          okOnce = true;
          break;
        } catch (err) {
          if (i === 4) lastError = err;
        }
      }
    }
    if (lastError && !okOnce) throw new OperationFailedError('create topic to broker exception', { cause: lastError });
  }

  /** Deletes the topic on the given brokers. */
  async deleteTopicInBroker(addrs: Iterable<string>, topic: string): Promise<void> {
    for (const addr of addrs) await adminApi.deleteTopicInBroker(this.#api, addr, this.#ns(topic), this.timeoutMillis);
  }

  /** Min/max offsets and last update time of every queue of the topic, from each of its brokers. */
  async examineTopicStats(topic: string): Promise<TopicStatsTable> {
    const route = await this.examineTopicRouteInfo(topic);
    const merged = new Map<string, [MessageQueue, TopicStatsTable['offsetTable'][number][1]]>();
    for (const bd of route.brokerDatas) {
      const addr = selectBrokerAddr(bd);
      if (addr) putAll(merged, (await adminApi.getTopicStatsInfo(this.#api, addr, this.#ns(topic), this.timeoutMillis)).offsetTable);
    }
    if (merged.size === 0) throw new ResourceNotFoundError('Not found the topic stats info');
    return { offsetTable: [...merged.values()] };
  }

  /** The consumer groups that consume the topic (asked of its first broker, as Java). */
  async queryTopicConsumeByWho(topic: string): Promise<GroupList> {
    const route = await this.examineTopicRouteInfo(topic);
    const bd = route.brokerDatas[0];
    const addr = bd ? selectBrokerAddr(bd) : undefined;
    if (!addr) return { groupList: [] };
    return adminApi.queryTopicConsumeByWho(this.#api, addr, this.#ns(topic), this.timeoutMillis);
  }

  // ---------------------------------------------------------------- consumer and producer groups

  /** Broker and consumer offsets of the group (for one topic or all), summed over the brokers of its retry topic. */
  async examineConsumeStats(consumerGroup: string, topic?: string): Promise<ConsumeStats> {
    consumerGroup = this.#ns(consumerGroup);
    if (topic !== undefined) topic = this.#ns(topic);
    const route = await this.examineTopicRouteInfo(getRetryTopic(consumerGroup));
    const merged = new Map<string, [MessageQueue, ConsumeStats['offsetTable'][number][1]]>();
    let consumeTps = 0;
    for (const bd of route.brokerDatas) {
      const addr = selectBrokerAddr(bd);
      if (!addr) continue;
      const stats = await adminApi.getConsumeStats(this.#api, addr, consumerGroup, topic, this.timeoutMillis * 3);
      putAll(merged, stats.offsetTable);
      consumeTps += stats.consumeTps;
    }
    if (merged.size === 0) {
      throw new MQClientError(ResponseCode.CONSUMER_NOT_ONLINE,
        'Not found the consumer group consume stats, because return offset table is empty, maybe the consumer not consume any message');
    }
    return { offsetTable: [...merged.values()], consumeTps };
  }

  /** The group's consumer connections, asked of one broker of its retry topic (or of `brokerAddr`). */
  async examineConsumerConnectionInfo(consumerGroup: string, brokerAddr?: string): Promise<ConsumerConnection> {
    consumerGroup = this.#ns(consumerGroup);
    let addr = brokerAddr;
    if (!addr) {
      const route = await this.examineTopicRouteInfo(getRetryTopic(consumerGroup));
      const bd = randomOf(route.brokerDatas);
      addr = bd ? selectBrokerAddr(bd) : undefined;
    }
    const result = addr ? await adminApi.getConsumerConnectionList(this.#api, addr, consumerGroup, this.timeoutMillis) : null;
    if (!result || result.connectionSet.length === 0) {
      throw new MQClientError(ResponseCode.CONSUMER_NOT_ONLINE, 'Not found the consumer group connection');
    }
    return result;
  }

  /** The group's producer connections, asked of one broker of `topic`. */
  async examineProducerConnectionInfo(producerGroup: string, topic: string): Promise<ProducerConnection> {
    const route = await this.examineTopicRouteInfo(topic);
    const bd = randomOf(route.brokerDatas);
    const addr = bd ? selectBrokerAddr(bd) : undefined;
    const result = addr ? await adminApi.getProducerConnectionList(this.#api, addr, this.#ns(producerGroup), this.timeoutMillis) : null;
    if (!result || result.connectionSet.length === 0) throw new ResourceNotFoundError('Not found the producer group connection');
    return result;
  }

  createAndUpdateSubscriptionGroupConfig(addr: string, config: SubscriptionGroupConfig): Promise<void> {
    const wrapped = this.#ns(config.groupName);
    return adminApi.createSubscriptionGroup(this.#api, addr, wrapped === config.groupName ? config : { ...config, groupName: wrapped }, this.timeoutMillis);
  }

  /** Sets the group's consumer offset of one queue on one broker (UPDATE_CONSUMER_OFFSET, sync). */
  async updateConsumeOffset(brokerAddr: string, consumeGroup: string, mq: MessageQueue, offset: number): Promise<void> {
    await call(this.#api, brokerAddr, UpdateConsumerOffset, { consumerGroup: this.#ns(consumeGroup), topic: this.#ns(mq.topic), queueId: mq.queueId, commitOffset: offset }, this.timeoutMillis);
  }

  /** The group's subscription config on one broker (undefined when the broker has none). */
  async examineSubscriptionGroupConfig(addr: string, group: string): Promise<SubscriptionGroupConfig | undefined> {
    return (await adminApi.getAllSubscriptionGroup(this.#api, addr, this.timeoutMillis)).subscriptionGroupTable.get(this.#ns(group));
  }

  /** Every subscription group config of one broker (GET_ALL_SUBSCRIPTIONGROUP_CONFIG). */
  async getAllSubscriptionGroup(addr: string): Promise<Map<string, SubscriptionGroupConfig>> {
    return (await adminApi.getAllSubscriptionGroup(this.#api, addr, this.timeoutMillis)).subscriptionGroupTable;
  }

  deleteSubscriptionGroup(addr: string, groupName: string, removeOffset = false): Promise<void> {
    return adminApi.deleteSubscriptionGroup(this.#api, addr, this.#ns(groupName), removeOffset, this.timeoutMillis);
  }

  /** What a consumer client reports of itself (the broker forwards the request to it). */
  async getConsumerRunningInfo(consumerGroup: string, clientId: string, jstack = false): Promise<ConsumerRunningInfo> {
    consumerGroup = this.#ns(consumerGroup);
    const route = await this.examineTopicRouteInfo(getRetryTopic(consumerGroup));
    for (const bd of route.brokerDatas) {
      const addr = selectBrokerAddr(bd);
      if (addr) return adminApi.getConsumerRunningInfo(this.#api, addr, consumerGroup, clientId, jstack, this.timeoutMillis);
    }
    throw new MQClientError(ResponseCode.CONSUMER_NOT_ONLINE, `Not found the consumer group ${consumerGroup}'s broker`);
  }

  /**
   * Resets the group's offsets of `topic` to the first message stored at or after `timestamp` on every broker of
   * the topic (INVOKE_BROKER_TO_RESET_OFFSET); resolves with the new offset per queue.
   */
  async resetOffsetByTimestamp(topic: string, group: string, timestamp: number, isForce = true): Promise<Array<[MessageQueue, number]>> {
    topic = this.#ns(topic);
    group = this.#ns(group);
    const route = await this.examineTopicRouteInfo(topic);
    const merged = new Map<string, [MessageQueue, number]>();
    for (const bd of route.brokerDatas) {
      const addr = selectBrokerAddr(bd);
      if (addr) putAll(merged, await adminApi.invokeBrokerToResetOffset(this.#api, addr, topic, group, timestamp, isForce, this.timeoutMillis));
    }
    return [...merged.values()];
  }

  // ---------------------------------------------------------------- brokers

  fetchBrokerRuntimeStats(brokerAddr: string): Promise<KVTable> {
    return adminApi.getBrokerRuntimeInfo(this.#api, brokerAddr, this.timeoutMillis);
  }

  getBrokerConfig(brokerAddr: string): Promise<Map<string, string>> {
    return adminApi.getBrokerConfig(this.#api, brokerAddr, this.timeoutMillis);
  }

  updateBrokerConfig(brokerAddr: string, properties: ReadonlyMap<string, string> | Readonly<Record<string, string>>): Promise<void> {
    return adminApi.updateBrokerConfig(this.#api, brokerAddr, properties, this.timeoutMillis);
  }

  // ---------------------------------------------------------------- ACL 1.0 (a 4.9.8 broker with aclEnable=true)

  /** UPDATE_AND_CREATE_ACL_CONFIG: creates or updates an account in the broker's plain_acl.yml. */
  createAndUpdatePlainAccessConfig(brokerAddr: string, config: adminApi.PlainAccessConfigInput): Promise<void> {
    return adminApi.createAndUpdatePlainAccessConfig(this.#api, brokerAddr, config, this.timeoutMillis);
  }

  /** DELETE_ACL_CONFIG. */
  deletePlainAccessConfig(brokerAddr: string, accessKey: string): Promise<void> {
    return adminApi.deletePlainAccessConfig(this.#api, brokerAddr, accessKey, this.timeoutMillis);
  }

  /** UPDATE_GLOBAL_WHITE_ADDRS_CONFIG: `globalWhiteAddrs` comma-separated; no path: the broker's default ACL file. */
  updateGlobalWhiteAddrConfig(brokerAddr: string, globalWhiteAddrs: string, aclFileFullPath = ''): Promise<void> {
    return adminApi.updateGlobalWhiteAddrsConfig(this.#api, brokerAddr, globalWhiteAddrs, aclFileFullPath, this.timeoutMillis);
  }

  /** GET_BROKER_CLUSTER_ACL_INFO: the data versions of the broker's ACL files. */
  examineBrokerClusterAclVersionInfo(brokerAddr: string): Promise<adminApi.ClusterAclVersionInfo> {
    return adminApi.getBrokerClusterAclInfo(this.#api, brokerAddr, this.timeoutMillis);
  }

  /** The consume stats of every subscription group of one broker (GET_BROKER_CONSUME_STATS). */
  fetchConsumeStatsInBroker(brokerAddr: string, isOrder: boolean, timeoutMillis: number = this.timeoutMillis): Promise<ConsumeStatsList> {
    return adminApi.fetchConsumeStatsInBroker(this.#api, brokerAddr, isOrder, timeoutMillis);
  }

  /** One BrokerStatsManager counter of a broker (VIEW_BROKER_STATS_DATA), e.g. TOPIC_PUT_NUMS / topic. */
  viewBrokerStatsData(brokerAddr: string, statsName: string, statsKey: string): Promise<BrokerStatsData> {
    return adminApi.viewBrokerStatsData(this.#api, brokerAddr, statsName, statsKey, this.timeoutMillis);
  }

  /** Every producer group of one broker with its instances (GET_ALL_PRODUCER_INFO). */
  getAllProducerInfo(brokerAddr: string): Promise<ProducerTableInfo> {
    return adminApi.getAllProducerInfo(this.#api, brokerAddr, this.timeoutMillis);
  }

  /** `count` entries of one consume queue of a broker from `index`, with the group's subscription when given (QUERY_CONSUME_QUEUE). */
  queryConsumeQueue(brokerAddr: string, topic: string, queueId: number, index: number, count: number, consumerGroup: string | null = null): Promise<QueryConsumeQueueResponseBody> {
    return adminApi.queryConsumeQueue(this.#api, brokerAddr, topic, queueId, index, count, consumerGroup, this.timeoutMillis);
  }

  /** Every topic config of one broker (GET_ALL_TOPIC_CONFIG). */
  getAllTopicConfig(brokerAddr: string): Promise<TopicConfigSerializeWrapper> {
    return adminApi.getAllTopicConfig(this.#api, brokerAddr, this.timeoutMillis);
  }

  /** The broker's topic configs without its system topics (and without retry and DLQ topics unless `specialTopic`). */
  async getUserTopicConfig(brokerAddr: string, specialTopic: boolean): Promise<TopicConfigSerializeWrapper> {
    const wrapper = await this.getAllTopicConfig(brokerAddr);
    const system = new Set((await adminApi.getSystemTopicListFromBroker(this.#api, brokerAddr, this.timeoutMillis)).topicList);
    for (const topic of [...wrapper.topicConfigTable.keys()]) {
      if (system.has(topic) || (!specialTopic && (topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) || topic.startsWith(MixAll.DLQ_GROUP_TOPIC_PREFIX)))) {
        wrapper.topicConfigTable.delete(topic);
      }
    }
    return wrapper;
  }

  /** The broker's subscription groups without the system ones (DefaultMQAdminExtImpl.getUserSubscriptionGroup). */
  async getUserSubscriptionGroup(brokerAddr: string): Promise<SubscriptionGroupWrapper> {
    const wrapper = await adminApi.getAllSubscriptionGroup(this.#api, brokerAddr, this.timeoutMillis);
    for (const group of [...wrapper.subscriptionGroupTable.keys()]) {
      if (isSysConsumerGroup(group) || SYSTEM_GROUPS.has(group)) wrapper.subscriptionGroupTable.delete(group);
    }
    return wrapper;
  }

  // ---------------------------------------------------------------- store maintenance

  /** CLEAN_EXPIRED_CONSUMEQUEUE on one broker. */
  cleanExpiredConsumerQueueByAddr(addr: string): Promise<boolean> {
    return adminApi.cleanExpiredConsumeQueue(this.#api, addr, this.timeoutMillis);
  }

  /** CLEAN_EXPIRED_CONSUMEQUEUE on every broker (masters and slaves) of `cluster`, or of every cluster; the last answer. */
  cleanExpiredConsumerQueue(cluster?: string | null): Promise<boolean> {
    return this.#everyBroker(cluster, (addr) => this.cleanExpiredConsumerQueueByAddr(addr));
  }

  /** DELETE_EXPIRED_COMMITLOG on one broker. */
  deleteExpiredCommitLogByAddr(addr: string): Promise<boolean> {
    return adminApi.deleteExpiredCommitLog(this.#api, addr, this.timeoutMillis);
  }

  deleteExpiredCommitLog(cluster?: string | null): Promise<boolean> {
    return this.#everyBroker(cluster, (addr) => this.deleteExpiredCommitLogByAddr(addr));
  }

  /** CLEAN_UNUSED_TOPIC on one broker. */
  cleanUnusedTopicByAddr(addr: string): Promise<boolean> {
    return adminApi.cleanUnusedTopicByAddr(this.#api, addr, this.timeoutMillis);
  }

  cleanUnusedTopic(cluster?: string | null): Promise<boolean> {
    return this.#everyBroker(cluster, (addr) => this.cleanUnusedTopicByAddr(addr));
  }

  /** ClusterInfo.retrieveAllAddrByCluster over the cluster (or every cluster when empty), as DefaultMQAdminExtImpl. */
  async #everyBroker(cluster: string | null | undefined, call: (addr: string) => Promise<boolean>): Promise<boolean> {
    const info = await this.examineBrokerClusterInfo();
    let result = false;
    for (const [name, brokerNames] of info.clusterAddrTable) {
      if (cluster && name !== cluster) continue;
      for (const brokerName of brokerNames) {
        for (const addr of info.brokerAddrTable.get(brokerName)?.brokerAddrs.values() ?? []) result = await call(addr);
      }
    }
    return result;
  }

  /**
   * Has one consumer of the group consume the message now (CONSUME_MESSAGE_DIRECTLY through the broker that stored
   * it). `msgId` is an offset msgId or, with `topic`, a unique key (DefaultMQAdminExtImpl.consumeMessageDirectly).
   */
  async consumeMessageDirectly(consumerGroup: string, clientId: string, topic: string | null, msgId: string): Promise<ConsumeMessageDirectlyResult> {
    let msg: MessageExt;
    try {
      msg = await this.viewMessage(msgId);
    } catch (err) {
      if (!topic) throw err;
      msg = await this.queryMessageByUniqKey(topic, msgId);
    }
    const host = msg.storeHost.address.includes(':') ? `[${msg.storeHost.address}]` : msg.storeHost.address;
    return adminApi.consumeMessageDirectly(this.#api, `${host}:${msg.storeHost.port}`, consumerGroup, clientId, msg.offsetMsgId, this.timeoutMillis * 3);
  }

  // ---------------------------------------------------------------- queues (what mqadmin does with a DefaultMQPullConsumer)

  /** The readable queues of the topic (MQClientInstance.topicRouteData2TopicSubscribeInfo). */
  async fetchSubscribeMessageQueues(topic: string): Promise<MessageQueue[]> {
    topic = this.#ns(topic);
    const route = await this.examineTopicRouteInfo(topic);
    const out: MessageQueue[] = [];
    for (const q of route.queueDatas) {
      if ((q.perm & 4) === 0) continue; // PermName.PERM_READ
      for (let i = 0; i < q.readQueueNums; i++) out.push({ topic, brokerName: q.brokerName, queueId: i });
    }
    return out;
  }

  async #masterOf(mq: MessageQueue): Promise<string> {
    const route = await this.examineTopicRouteInfo(mq.topic);
    const addr = route.brokerDatas.find((b) => b.brokerName === mq.brokerName)?.brokerAddrs.get(MASTER_ID);
    if (!addr) throw new BrokerNotFoundError(mq.brokerName);
    return addr;
  }

  async minOffset(mq: MessageQueue): Promise<number> {
    return call(this.#api, await this.#masterOf(mq), GetMinOffset, { topic: this.#ns(mq.topic), queueId: mq.queueId }, this.timeoutMillis);
  }

  async maxOffset(mq: MessageQueue): Promise<number> {
    return call(this.#api, await this.#masterOf(mq), GetMaxOffset, { topic: this.#ns(mq.topic), queueId: mq.queueId }, this.timeoutMillis);
  }

  async searchOffset(mq: MessageQueue, timestamp: number): Promise<number> {
    return call(this.#api, await this.#masterOf(mq), SearchOffset, { topic: this.#ns(mq.topic), queueId: mq.queueId, timestamp }, this.timeoutMillis);
  }

  /**
   * Pulls up to `maxNums` messages of `mq` from `offset` as `consumerGroup` (TOOLS_CONSUMER), without committing an offset;
   * like DefaultMQPullConsumer.pull: messages whose tag is not in `subExpression` are dropped, MIN_OFFSET and
   * MAX_OFFSET are set as properties.
   */
  async pullMessage(mq: MessageQueue, subExpression: string, offset: number, maxNums: number, consumerGroup = TOOLS_CONSUMER_GROUP): Promise<AdminPullResult> {
    const raw = await pullMessage(this.#api, await this.#masterOf(mq), {
      consumerGroup: this.#ns(consumerGroup), topic: this.#ns(mq.topic), queueId: mq.queueId, queueOffset: offset, maxMsgNums: maxNums,
      sysFlag: 0x4, // PullSysFlag.FLAG_SUBSCRIPTION
      commitOffset: 0, suspendTimeoutMillis: 0, subscription: subExpression, subVersion: 0, expressionType: 'TAG',
    }, this.timeoutMillis);
    const result: AdminPullResult = {
      pullStatus: raw.pullStatus, nextBeginOffset: raw.nextBeginOffset, minOffset: raw.minOffset, maxOffset: raw.maxOffset, msgFoundList: [],
    };
    if (raw.pullStatus !== PullStatus.FOUND || !raw.messageBinary || raw.messageBinary.length === 0) return result;
    const tags = subExpression.trim() === '' || subExpression.trim() === '*'
      ? null : new Set(subExpression.split('||').map((t) => t.trim()).filter((t) => t.length > 0));
    for (const msg of decodeMessages(raw.messageBinary)) {
      if (tags && !tags.has(msg.properties[MessageConst.PROPERTY_TAGS] ?? '')) continue;
      if ((msg.properties[MessageConst.PROPERTY_TRANSACTION_PREPARED] ?? '').toLowerCase() === 'true') {
        msg.transactionId = msg.properties[MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX];
      }
      msg.properties[MessageConst.PROPERTY_MIN_OFFSET] = String(raw.minOffset);
      msg.properties[MessageConst.PROPERTY_MAX_OFFSET] = String(raw.maxOffset);
      msg.brokerName = mq.brokerName;
      result.msgFoundList.push(msg);
    }
    return result;
  }

  // ---------------------------------------------------------------- messages

  /** What each consumer group of the message's topic did with it (DefaultMQAdminExtImpl.messageTrackDetail). */
  async messageTrackDetail(msg: MessageExt): Promise<MessageTrack[]> {
    const result: MessageTrack[] = [];
    const failDesc = (err: unknown) => (err instanceof MQBrokerError ? `CODE:${err.responseCode} DESC:${err.remark ?? ''}`
      : err instanceof MQClientError ? `CODE:${err.responseCode} DESC:${err.message}` : String(err instanceof Error ? err.message : err));
    for (const group of (await this.queryTopicConsumeByWho(msg.topic)).groupList) {
      const mt: MessageTrack = { consumerGroup: group, trackType: 'UNKNOWN', exceptionDesc: null };
      result.push(mt);
      let cc: ConsumerConnection;
      try {
        cc = await this.examineConsumerConnectionInfo(group);
      } catch (err) {
        if (err instanceof MQBrokerError && err.responseCode === ResponseCode.CONSUMER_NOT_ONLINE) mt.trackType = 'NOT_ONLINE';
        mt.exceptionDesc = failDesc(err);
        continue;
      }
      if (cc.consumeType === 'CONSUME_ACTIVELY') {
        mt.trackType = 'PULL';
      } else if (cc.consumeType === 'CONSUME_PASSIVELY') {
        let ifConsumed: boolean;
        try {
          ifConsumed = await this.consumed(msg, group);
        } catch (err) {
          if ((err instanceof MQClientError || err instanceof MQBrokerError) && err.responseCode === ResponseCode.CONSUMER_NOT_ONLINE) mt.trackType = 'NOT_ONLINE';
          mt.exceptionDesc = failDesc(err);
          continue;
        }
        if (!ifConsumed) {
          mt.trackType = 'NOT_CONSUME_YET';
          continue;
        }
        mt.trackType = 'CONSUMED';
        const sd = cc.subscriptionTable.get(msg.topic);
        const tag = msg.properties[MessageConst.PROPERTY_TAGS];
        if (sd && !(sd.tagsSet.length === 0 || sd.tagsSet.includes('*') || (tag !== undefined && sd.tagsSet.includes(tag)))) {
          mt.trackType = 'CONSUMED_BUT_FILTERED';
        }
      }
    }
    return result;
  }

  /** Whether the group's consumer offset of the message's queue (on the broker that stored it) is past it. */
  async consumed(msg: MessageExt, group: string): Promise<boolean> {
    const stats = await this.examineConsumeStats(group);
    const info = await this.examineBrokerClusterInfo();
    const storeHost = `${msg.storeHost.address}:${msg.storeHost.port}`;
    for (const [mq, w] of stats.offsetTable) {
      if (mq.topic !== msg.topic || mq.queueId !== msg.queueId) continue;
      const master = info.brokerAddrTable.get(mq.brokerName)?.brokerAddrs.get(MASTER_ID);
      if (master === storeHost && w.consumerOffset > msg.queueOffset) return true;
    }
    return false;
  }

  /**
   * Messages of `topic` whose keys include `key`, stored in [begin, end], from every broker of the topic
   * (at most maxNum per broker). None at all is an MQClientError NO_MESSAGE, as Java.
   */
  async queryMessage(topic: string, key: string, maxNum: number, begin: number, end: number): Promise<QueryResult> {
    return this.#queryMessage(topic, key, maxNum, begin, end, false);
  }

  /** The message whose UNIQ_KEY (client msgId) is `uniqKey`; the earliest stored if several. */
  async queryMessageByUniqKey(topic: string, uniqKey: string, begin = 0, end = Number.MAX_SAFE_INTEGER): Promise<MessageExt> {
    return (await this.#queryMessage(topic, uniqKey, 32, begin, end, true)).messageList[0];
  }

  async #queryMessage(topic: string, key: string, maxNum: number, begin: number, end: number, uniqueKeyQuery: boolean): Promise<QueryResult> {
    topic = this.#ns(topic);
    let route: TopicRouteData;
    try {
      route = await this.examineTopicRouteInfo(topic);
    } catch (err) {
      throw new MQClientError(ResponseCode.TOPIC_NOT_EXIST, `The topic[${topic}] not matched route info`, { cause: err });
    }
    const addrs = route.brokerDatas.map(selectBrokerAddr).filter((a): a is string => a !== undefined);
    if (addrs.length === 0) throw new MQClientError(ResponseCode.TOPIC_NOT_EXIST, `The topic[${topic}] not matched route info`);
    const results = await Promise.allSettled(addrs.map((addr) => adminApi.queryMessage(this.#api, addr, {
      topic, key, maxNum, beginTimestamp: begin, endTimestamp: end, uniqueKeyQuery, // always sent, "false" included, as MQClientAPIImpl.queryMessage
    }, this.timeoutMillis * 3)));
    let indexLastUpdateTimestamp = 0;
    let messageList: MessageExt[] = [];
    for (const r of results) {
      if (r.status === 'rejected') {
        this.#logger.warn({ err: r.reason, topic }, 'queryMessage exception');
        continue;
      }
      indexLastUpdateTimestamp = Math.max(indexLastUpdateTimestamp, r.value.indexLastUpdateTimestamp);
      for (const msg of r.value.messages) {
        if (uniqueKeyQuery) {
          if (msg.msgId !== key) continue;
          if (messageList.length === 0) messageList.push(msg);
          else if (messageList[0].storeTimestamp > msg.storeTimestamp) messageList = [msg];
        } else {
          const keys = msg.properties[MessageConst.PROPERTY_KEYS];
          if (keys !== undefined && msg.topic === topic && keys.split(MessageConst.KEY_SEPARATOR).includes(key)) messageList.push(msg);
        }
      }
    }
    if (messageList.length === 0) throw new MQClientError(ResponseCode.NO_MESSAGE, 'query message by key finished, but no message.');
    return { indexLastUpdateTimestamp, messageList };
  }

  /** The message of an offset msgId (broker address + commit-log offset). */
  viewMessage(offsetMsgId: string): Promise<MessageExt> {
    const id = decodeOffsetMessageId(offsetMsgId);
    const host = id.address.includes(':') ? `[${id.address}]` : id.address;
    return adminApi.viewMessage(this.#api, `${host}:${id.port}`, id.offset, this.timeoutMillis);
  }
}

function randomOf(list: BrokerData[]): BrokerData | undefined {
  return list.length === 0 ? undefined : list[Math.floor(Math.random() * list.length)];
}
