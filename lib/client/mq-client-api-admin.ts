/**
 * The admin requests of MQClientAPI (what DefaultMQAdminExt needs), one function per request code.
 * Broker calls take the broker address; name-server calls go through the API's name-server selection, or to
 * every name server in the list where Java does so (PUT_KV_CONFIG, DELETE_KV_CONFIG, DELETE_TOPIC_IN_NAMESRV).
 * A failure code is an MQBrokerError {responseCode, remark, brokerAddr} for broker calls and an MQClientError
 * {responseCode} for name-server calls, as Java's MQBrokerException / MQClientException.
 *
 * @see org.apache.rocketmq.client.impl.MQClientAPIImpl
 */
import { RequestCode } from '../../protocol/code/request-code';
import { ResponseCode } from '../../protocol/code/response-code';
import { type ClusterInfo, decodeClusterInfo } from '../../protocol/body/cluster-info';
import { type ConsumeStats, type ConsumeStatsList, decodeConsumeStats, decodeConsumeStatsList } from '../../protocol/body/consume-stats';
import { GetConsumeStatsInBrokerHeader } from '../../protocol/header/get-consume-stats-in-broker-header';
import {
  type ConsumerConnection, type ProducerConnection, decodeConsumerConnection, decodeProducerConnection,
} from '../../protocol/body/consumer-connection';
import { type ConsumerRunningInfo, decodeConsumerRunningInfo } from '../../protocol/body/consumer-running-info';
import { type GroupList, decodeGroupList } from '../../protocol/body/group-list';
import { type KVTable, decodeKVTable } from '../../protocol/body/kv-table';
import { decodeResetOffsetBody } from '../../protocol/body/reset-offset-body';
import {
  type SubscriptionGroupConfig, type SubscriptionGroupWrapper, decodeSubscriptionGroupWrapper, encodeSubscriptionGroupConfig,
} from '../../protocol/body/subscription-group-wrapper';
import { type BrokerStatsData, decodeBrokerStatsData } from '../../protocol/body/broker-stats-data';
import { AddWritePermOfBrokerRequestHeader } from '../../protocol/header/add-write-perm-of-broker-request-header';
import { AddWritePermOfBrokerResponseHeader } from '../../protocol/header/add-write-perm-of-broker-response-header';
import { ViewBrokerStatsDataRequestHeader } from '../../protocol/header/view-broker-stats-data-request-header';
import type { TopicConfig } from '../../protocol/body/topic-config';
import { type TopicList, decodeTopicList } from '../../protocol/body/topic-list';
import { type TopicStatsTable, decodeTopicStatsTable } from '../../protocol/body/topic-stats-table';
import { type DataVersion, dataVersionFromJson } from '../../protocol/body/data-version';
import { CreateTopicRequestHeader } from '../../protocol/header/create-topic-request-header';
import { CreateAccessConfigRequestHeader } from '../../protocol/header/create-access-config-request-header';
import { DeleteAccessConfigRequestHeader } from '../../protocol/header/delete-access-config-request-header';
import { UpdateGlobalWhiteAddrsConfigRequestHeader } from '../../protocol/header/update-global-white-addrs-config-request-header';
import { GetBrokerAclConfigResponseHeader } from '../../protocol/header/get-broker-acl-config-response-header';
import { DeleteKVConfigRequestHeader } from '../../protocol/header/delete-kv-config-request-header';
import { DeleteSubscriptionGroupRequestHeader } from '../../protocol/header/delete-subscription-group-request-header';
import { DeleteTopicFromNamesrvRequestHeader } from '../../protocol/header/delete-topic-from-namesrv-request-header';
import { DeleteTopicRequestHeader } from '../../protocol/header/delete-topic-request-header';
import { GetConsumeStatsRequestHeader } from '../../protocol/header/get-consume-stats-request-header';
import { GetConsumerConnectionListRequestHeader } from '../../protocol/header/get-consumer-connection-list-request-header';
import { GetConsumerRunningInfoRequestHeader } from '../../protocol/header/get-consumer-running-info-request-header';
import { GetKVConfigRequestHeader } from '../../protocol/header/get-kv-config-request-header';
import { GetKVConfigResponseHeader } from '../../protocol/header/get-kv-config-response-header';
import { GetProducerConnectionListRequestHeader } from '../../protocol/header/get-producer-connection-list-request-header';
import { GetTopicStatsInfoRequestHeader } from '../../protocol/header/get-topic-stats-info-request-header';
import { PutKVConfigRequestHeader } from '../../protocol/header/put-kv-config-request-header';
import { QueryTopicConsumeByWhoRequestHeader } from '../../protocol/header/query-topic-consume-by-who-request-header';
import { ResetOffsetRequestHeader } from '../../protocol/header/reset-offset-request-header';
import { QueryMessage, ViewMessage } from '../../protocol/requests/index';
import { WipeWritePermOfBrokerRequestHeader } from '../../protocol/header/wipe-write-perm-of-broker-request-header';
import { WipeWritePermOfBrokerResponseHeader } from '../../protocol/header/wipe-write-perm-of-broker-response-header';
import { decodeMessage, decodeMessages } from '../../protocol/message/message-decoder';
import type { MessageExt } from '../../protocol/message/message';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { RemotingCommand } from '../../protocol/remoting-command';
import { type ProducerTableInfo, decodeProducerTableInfo } from '../../protocol/body/producer-table-info';
import { type QueryConsumeQueueResponseBody, decodeQueryConsumeQueueResponseBody } from '../../protocol/body/query-consume-queue-response-body';
import { QueryConsumeQueueRequestHeader } from '../../protocol/header/query-consume-queue-request-header';
import { type TopicConfigSerializeWrapper, decodeTopicConfigSerializeWrapper } from '../../protocol/body/topic-config-serialize-wrapper';
import { ConsumeMessageDirectlyResultRequestHeader } from '../../protocol/header/consume-message-directly-result-request-header';
import { type ConsumeMessageDirectlyResult, decodeConsumeMessageDirectlyResult } from '../../protocol/body/consume-message-directly-result';
import { InvalidArgumentError, MQBrokerError, MQClientError } from '../errors';
import { parseProperties } from '../util/properties-file';
import { type RequestInvoker, call } from './request-invoker';

/** What the name-server admin calls need of MQClientAPI besides plain invocation. */
export interface NameServerInvoker extends RequestInvoker {
  invokeNameServer(request: RemotingCommand, timeoutMillis: number): Promise<RemotingCommand>;
  getNameServerAddressList(): string[];
}

/** The raw answer of one QUERY_MESSAGE to one broker. */
export interface QueryMessageRawResult {
  indexLastUpdateTimestamp: number;
  indexLastUpdatePhyoffset: number;
  /** The stored records, decoded (bodies decompressed). */
  messages: MessageExt[];
}

function brokerFail(response: RemotingCommand, addr: string): never {
  throw new MQBrokerError(response.code, response.remark, addr);
}

function namesrvFail(response: RemotingCommand, what: string): never {
  throw new MQClientError(response.code, response.remark ?? `${what} failed`);
}

async function brokerCall(api: RequestInvoker, addr: string, request: RemotingCommand, timeoutMillis: number): Promise<RemotingCommand> {
  const response = await api.invoke(addr, request, timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) brokerFail(response, addr);
  return response;
}

function bodyOf(response: RemotingCommand, addr: string): Buffer {
  if (!response.body || response.body.length === 0) throw new MQBrokerError(response.code, 'response without body', addr);
  return response.body;
}

/** Java's MixAll.properties2String: `key=value\n` per entry with a value. */
export function properties2String(props: ReadonlyMap<string, string> | Readonly<Record<string, string>>): string {
  const entries = props instanceof Map ? [...props.entries()] : Object.entries(props);
  let out = '';
  for (const [k, v] of entries) {
    if (v !== undefined && v !== null) out += `${k}=${v}\n`;
  }
  return out;
}

// ---------------------------------------------------------------- name server

/** GET_BROKER_CLUSTER_INFO (106). */
export async function getBrokerClusterInfo(api: NameServerInvoker, timeoutMillis: number): Promise<ClusterInfo> {
  const response = await api.invokeNameServer(RemotingCommand.createRequest(RequestCode.GET_BROKER_CLUSTER_INFO), timeoutMillis);
  if (response.code === ResponseCode.SUCCESS && response.body) return decodeClusterInfo(response.body);
  namesrvFail(response, 'GET_BROKER_CLUSTER_INFO');
}

/** GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206). */
export async function getTopicListFromNameServer(api: NameServerInvoker, timeoutMillis: number): Promise<TopicList> {
  const response = await api.invokeNameServer(RemotingCommand.createRequest(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER), timeoutMillis);
  if (response.code === ResponseCode.SUCCESS) return response.body ? decodeTopicList(response.body) : { topicList: [] };
  namesrvFail(response, 'GET_ALL_TOPIC_LIST_FROM_NAMESERVER');
}

/** DELETE_TOPIC_IN_NAMESRV (216) to one name server. */
export async function deleteTopicInNameServer(api: RequestInvoker, addr: string, topic: string, timeoutMillis: number): Promise<void> {
  const request = RemotingCommand.createRequest(RequestCode.DELETE_TOPIC_IN_NAMESRV, DeleteTopicFromNamesrvRequestHeader.encode({ topic }));
  const response = await api.invoke(addr, request, timeoutMillis);
  if (response.code !== ResponseCode.SUCCESS) namesrvFail(response, 'DELETE_TOPIC_IN_NAMESRV');
}

/** PUT_KV_CONFIG (100) to every name server of the list (as Java). */
export async function putKVConfigValue(api: NameServerInvoker, namespace: string, key: string, value: string, timeoutMillis: number): Promise<void> {
  const ext = PutKVConfigRequestHeader.encode({ namespace, key, value });
  const addrs = api.getNameServerAddressList();
  if (addrs.length === 0) throw new InvalidArgumentError('No name server address, please set it');
  let error: MQClientError | null = null;
  for (const addr of addrs) {
    const response = await api.invoke(addr, RemotingCommand.createRequest(RequestCode.PUT_KV_CONFIG, ext), timeoutMillis);
    if (response.code !== ResponseCode.SUCCESS) error = new MQClientError(response.code, response.remark ?? 'PUT_KV_CONFIG failed');
  }
  if (error) throw error;
}

/** GET_KV_CONFIG (101); QUERY_NOT_FOUND is an MQClientError with that code (as Java). */
export async function getKVConfigValue(api: NameServerInvoker, namespace: string, key: string, timeoutMillis: number): Promise<string> {
  const request = RemotingCommand.createRequest(RequestCode.GET_KV_CONFIG, GetKVConfigRequestHeader.encode({ namespace, key }));
  const response = await api.invokeNameServer(request, timeoutMillis);
  if (response.code === ResponseCode.SUCCESS) return GetKVConfigResponseHeader.decode(response.extFields).value ?? '';
  namesrvFail(response, 'GET_KV_CONFIG');
}

/** DELETE_KV_CONFIG (102) on every name server of the list (as Java). */
export async function deleteKVConfigValue(api: NameServerInvoker, namespace: string, key: string, timeoutMillis: number): Promise<void> {
  const ext = DeleteKVConfigRequestHeader.encode({ namespace, key });
  const addrs = api.getNameServerAddressList();
  if (addrs.length === 0) throw new InvalidArgumentError('No name server address, please set it');
  let error: MQClientError | null = null;
  for (const addr of addrs) {
    const response = await api.invoke(addr, RemotingCommand.createRequest(RequestCode.DELETE_KV_CONFIG, ext), timeoutMillis);
    if (response.code !== ResponseCode.SUCCESS) error = new MQClientError(response.code, response.remark ?? 'DELETE_KV_CONFIG failed');
  }
  if (error) throw error;
}

/** WIPE_WRITE_PERM_OF_BROKER (205) on one name server: how many topics lost write permission. */
export async function wipeWritePermOfBroker(api: RequestInvoker, namesrvAddr: string, brokerName: string, timeoutMillis: number): Promise<number> {
  const request = RemotingCommand.createRequest(RequestCode.WIPE_WRITE_PERM_OF_BROKER, WipeWritePermOfBrokerRequestHeader.encode({ brokerName }));
  const response = await api.invoke(namesrvAddr, request, timeoutMillis);
  if (response.code === ResponseCode.SUCCESS) return WipeWritePermOfBrokerResponseHeader.decode(response.extFields).wipeTopicCount;
  namesrvFail(response, 'WIPE_WRITE_PERM_OF_BROKER');
}

/** ADD_WRITE_PERM_OF_BROKER (327) on one name server: how many topics got write permission back. */
export async function addWritePermOfBroker(api: RequestInvoker, namesrvAddr: string, brokerName: string, timeoutMillis: number): Promise<number> {
  const request = RemotingCommand.createRequest(RequestCode.ADD_WRITE_PERM_OF_BROKER, AddWritePermOfBrokerRequestHeader.encode({ brokerName }));
  const response = await api.invoke(namesrvAddr, request, timeoutMillis);
  if (response.code === ResponseCode.SUCCESS) return AddWritePermOfBrokerResponseHeader.decode(response.extFields).addTopicCount;
  namesrvFail(response, 'ADD_WRITE_PERM_OF_BROKER');
}

/** The name servers to ask: `addrs` when given and not empty, else every one of the list (as Java). */
function nameServersOf(api: NameServerInvoker, addrs: readonly string[] | null): string[] {
  return addrs && addrs.length > 0 ? [...addrs] : api.getNameServerAddressList();
}

/** GET_NAMESRV_CONFIG (319) of each name server: its configuration, keyed by address. */
export async function getNameServerConfig(api: NameServerInvoker, addrs: readonly string[] | null, timeoutMillis: number): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  for (const addr of nameServersOf(api, addrs)) {
    const response = await api.invoke(addr, RemotingCommand.createRequest(RequestCode.GET_NAMESRV_CONFIG), timeoutMillis);
    if (response.code !== ResponseCode.SUCCESS) namesrvFail(response, 'GET_NAMESRV_CONFIG');
    out.set(addr, response.body ? parseProperties(response.body.toString('utf8')) : new Map());
  }
  return out;
}

/** UPDATE_NAMESRV_CONFIG (318): the changed keys as a properties text body, to each name server. */
export async function updateNameServerConfig(
  api: NameServerInvoker, properties: ReadonlyMap<string, string> | Readonly<Record<string, string>>, addrs: readonly string[] | null, timeoutMillis: number,
): Promise<void> {
  const text = properties2String(properties);
  if (text.length === 0) return;
  for (const addr of nameServersOf(api, addrs)) {
    const request = RemotingCommand.createRequest(RequestCode.UPDATE_NAMESRV_CONFIG, null, Buffer.from(text, 'utf8'));
    const response = await api.invoke(addr, request, timeoutMillis);
    if (response.code !== ResponseCode.SUCCESS) namesrvFail(response, 'UPDATE_NAMESRV_CONFIG');
  }
}

// ---------------------------------------------------------------- broker: topics and groups

/** GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201): every subscription group of the broker. */
export async function getAllSubscriptionGroup(api: RequestInvoker, addr: string, timeoutMillis: number): Promise<SubscriptionGroupWrapper> {
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG), timeoutMillis);
  return decodeSubscriptionGroupWrapper(bodyOf(response, addr));
}

/** VIEW_BROKER_STATS_DATA (315): one BrokerStatsManager counter (statsName, statsKey) by minute, hour and day. */
export async function viewBrokerStatsData(api: RequestInvoker, addr: string, statsName: string, statsKey: string, timeoutMillis: number): Promise<BrokerStatsData> {
  const request = RemotingCommand.createRequest(RequestCode.VIEW_BROKER_STATS_DATA, ViewBrokerStatsDataRequestHeader.encode({ statsName, statsKey }));
  const response = await brokerCall(api, addr, request, timeoutMillis);
  return decodeBrokerStatsData(bodyOf(response, addr));
}

/** UPDATE_AND_CREATE_TOPIC (17): the topic config as the header (defaultTopic TBW102, as Java). */
export async function createTopic(api: RequestInvoker, addr: string, defaultTopic: string, topicConfig: TopicConfig, timeoutMillis: number): Promise<void> {
  const ext = CreateTopicRequestHeader.encode({
    topic: topicConfig.topicName,
    defaultTopic,
    readQueueNums: topicConfig.readQueueNums,
    writeQueueNums: topicConfig.writeQueueNums,
    perm: topicConfig.perm,
    topicFilterType: topicConfig.topicFilterType,
    topicSysFlag: topicConfig.topicSysFlag,
    order: topicConfig.order,
    // 5.x attributes as a modification ("+message.type=FIFO"): the config's keys carry their sign, as Java's admin.
    ...(topicConfig.attributes && topicConfig.attributes.size > 0
      ? { attributes: [...topicConfig.attributes].map(([k, v]) => (v ? `${k}=${v}` : k)).join(',') } : {}),
  });
  await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, ext), timeoutMillis);
}

/** DELETE_TOPIC_IN_BROKER (215). */
export async function deleteTopicInBroker(api: RequestInvoker, addr: string, topic: string, timeoutMillis: number): Promise<void> {
  const request = RemotingCommand.createRequest(RequestCode.DELETE_TOPIC_IN_BROKER, DeleteTopicRequestHeader.encode({ topic }));
  await brokerCall(api, addr, request, timeoutMillis);
}

/** UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200): the config as a JSON body. */
export async function createSubscriptionGroup(api: RequestInvoker, addr: string, config: SubscriptionGroupConfig, timeoutMillis: number): Promise<void> {
  const request = RemotingCommand.createRequest(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, null, encodeSubscriptionGroupConfig(config));
  await brokerCall(api, addr, request, timeoutMillis);
}

/** DELETE_SUBSCRIPTIONGROUP (207). */
export async function deleteSubscriptionGroup(api: RequestInvoker, addr: string, groupName: string, removeOffset: boolean, timeoutMillis: number): Promise<void> {
  const ext = DeleteSubscriptionGroupRequestHeader.encode({ groupName, removeOffset });
  await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.DELETE_SUBSCRIPTIONGROUP, ext), timeoutMillis);
}

/** GET_TOPIC_STATS_INFO (202). */
export async function getTopicStatsInfo(api: RequestInvoker, addr: string, topic: string, timeoutMillis: number): Promise<TopicStatsTable> {
  const request = RemotingCommand.createRequest(RequestCode.GET_TOPIC_STATS_INFO, GetTopicStatsInfoRequestHeader.encode({ topic }));
  const response = await brokerCall(api, addr, request, timeoutMillis);
  return decodeTopicStatsTable(bodyOf(response, addr));
}

/**
 * GET_CONSUME_STATS (208), for one topic or (topic undefined) every topic the group consumes there; without a
 * topic the field is left out, as Java's null header field.
 */
export async function getConsumeStats(api: RequestInvoker, addr: string, consumerGroup: string, topic: string | undefined, timeoutMillis: number): Promise<ConsumeStats> {
  const ext = GetConsumeStatsRequestHeader.encode(topic === undefined ? { consumerGroup } : { consumerGroup, topic });
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_CONSUME_STATS, ext), timeoutMillis);
  return decodeConsumeStats(bodyOf(response, addr));
}

/** GET_BROKER_CONSUME_STATS (317): the consume stats of every subscription group of the broker (only order topics with isOrder). */
export async function fetchConsumeStatsInBroker(api: RequestInvoker, addr: string, isOrder: boolean, timeoutMillis: number): Promise<ConsumeStatsList> {
  const ext = GetConsumeStatsInBrokerHeader.encode({ isOrder });
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_BROKER_CONSUME_STATS, ext), timeoutMillis);
  return decodeConsumeStatsList(bodyOf(response, addr));
}

/** GET_CONSUMER_CONNECTION_LIST (203). */
export async function getConsumerConnectionList(api: RequestInvoker, addr: string, consumerGroup: string, timeoutMillis: number): Promise<ConsumerConnection> {
  const ext = GetConsumerConnectionListRequestHeader.encode({ consumerGroup });
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_CONSUMER_CONNECTION_LIST, ext), timeoutMillis);
  return decodeConsumerConnection(bodyOf(response, addr));
}

/** GET_PRODUCER_CONNECTION_LIST (204). */
export async function getProducerConnectionList(api: RequestInvoker, addr: string, producerGroup: string, timeoutMillis: number): Promise<ProducerConnection> {
  const ext = GetProducerConnectionListRequestHeader.encode({ producerGroup });
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_PRODUCER_CONNECTION_LIST, ext), timeoutMillis);
  return decodeProducerConnection(bodyOf(response, addr));
}

/** QUERY_TOPIC_CONSUME_BY_WHO (300). */
export async function queryTopicConsumeByWho(api: RequestInvoker, addr: string, topic: string, timeoutMillis: number): Promise<GroupList> {
  const ext = QueryTopicConsumeByWhoRequestHeader.encode({ topic });
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.QUERY_TOPIC_CONSUME_BY_WHO, ext), timeoutMillis);
  return response.body && response.body.length > 0 ? decodeGroupList(response.body) : { groupList: [] };
}

/** GET_CONSUMER_RUNNING_INFO (307), forwarded by the broker to the client. */
export async function getConsumerRunningInfo(
  api: RequestInvoker, addr: string, consumerGroup: string, clientId: string, jstackEnable: boolean, timeoutMillis: number,
): Promise<ConsumerRunningInfo> {
  const ext = GetConsumerRunningInfoRequestHeader.encode({ consumerGroup, clientId, jstackEnable });
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, ext), timeoutMillis);
  return decodeConsumerRunningInfo(bodyOf(response, addr));
}

/**
 * INVOKE_BROKER_TO_RESET_OFFSET (222): the broker resets the group's offsets of the topic to the first message
 * stored at or after `timestamp` and tells the online consumers; the answer is the new offset per queue.
 * CONSUMER_NOT_ONLINE is an MQClientError with that code (mqadmin then falls back to the old way).
 */
export async function invokeBrokerToResetOffset(
  api: RequestInvoker, addr: string, topic: string, group: string, timestamp: number, isForce: boolean, timeoutMillis: number,
): Promise<Array<[MessageQueue, number]>> {
  const ext = ResetOffsetRequestHeader.encode({ topic, group, timestamp, isForce });
  const response = await api.invoke(addr, RemotingCommand.createRequest(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, ext), timeoutMillis);
  if (response.code === ResponseCode.SUCCESS) {
    return response.body && response.body.length > 0 ? decodeResetOffsetBody(response.body).offsetTable : [];
  }
  throw new MQClientError(response.code, response.remark ?? 'INVOKE_BROKER_TO_RESET_OFFSET failed');
}

// ---------------------------------------------------------------- broker: runtime and config

/** GET_BROKER_RUNTIME_INFO (28). */
export async function getBrokerRuntimeInfo(api: RequestInvoker, addr: string, timeoutMillis: number): Promise<KVTable> {
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_BROKER_RUNTIME_INFO), timeoutMillis);
  return decodeKVTable(bodyOf(response, addr));
}

/** GET_BROKER_CONFIG (26): the body is the broker's configuration as a Java properties text. */
export async function getBrokerConfig(api: RequestInvoker, addr: string, timeoutMillis: number): Promise<Map<string, string>> {
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_BROKER_CONFIG), timeoutMillis);
  return response.body ? parseProperties(response.body.toString('utf8')) : new Map();
}

/** UPDATE_BROKER_CONFIG (25): the changed keys as a properties text body (MixAll.properties2String). */
export async function updateBrokerConfig(
  api: RequestInvoker, addr: string, properties: ReadonlyMap<string, string> | Readonly<Record<string, string>>, timeoutMillis: number,
): Promise<void> {
  const text = properties2String(properties);
  if (text.length === 0) return;
  const request = RemotingCommand.createRequest(RequestCode.UPDATE_BROKER_CONFIG, null, Buffer.from(text, 'utf8'));
  await brokerCall(api, addr, request, timeoutMillis);
}

// ---------------------------------------------------------------- broker: messages

/**
 * QUERY_MESSAGE (12) to one broker: messages of `topic` indexed under `key` (or, with uniqueKeyQuery, whose
 * UNIQ_KEY is `key`) stored in [begin, end]. QUERY_NOT_FOUND resolves with no messages.
 */
export async function queryMessage(
  api: RequestInvoker, addr: string,
  header: { topic: string; key: string; maxNum: number; beginTimestamp: number; endTimestamp: number; uniqueKeyQuery?: boolean },
  timeoutMillis: number,
): Promise<QueryMessageRawResult> {
  const response = await call(api, addr, QueryMessage, header, timeoutMillis);
  if (response.code === ResponseCode.QUERY_NOT_FOUND) return { indexLastUpdateTimestamp: 0, indexLastUpdatePhyoffset: 0, messages: [] };
  if (response.code !== ResponseCode.SUCCESS) brokerFail(response, addr);
  const h = QueryMessage.responseHeader.decode(response.extFields);
  return {
    indexLastUpdateTimestamp: h.indexLastUpdateTimestamp,
    indexLastUpdatePhyoffset: h.indexLastUpdatePhyoffset,
    messages: response.body && response.body.length > 0 ? decodeMessages(response.body) : [],
  };
}

/** VIEW_MESSAGE_BY_ID (33): the one message stored at commit-log `offset`. */
export async function viewMessage(api: RequestInvoker, addr: string, offset: number, timeoutMillis: number): Promise<MessageExt> {
  const request = ViewMessage.request({ offset });
  const response = await brokerCall(api, addr, request, timeoutMillis);
  return decodeMessage(bodyOf(response, addr));
}

// ---------------------------------------------------------------- broker: ACL 1.0 (4.9.8)

/** An account as UPDATE_AND_CREATE_ACL_CONFIG carries it (Java's PlainAccessConfig). */
export interface PlainAccessConfigInput {
  accessKey: string;
  secretKey?: string;
  whiteRemoteAddress?: string;
  admin?: boolean;
  defaultTopicPerm?: string;
  defaultGroupPerm?: string;
  topicPerms?: readonly string[];
  groupPerms?: readonly string[];
}

/** GET_BROKER_CLUSTER_ACL_INFO's answer (Java's ClusterAclVersionInfo). */
export interface ClusterAclVersionInfo {
  brokerName: string;
  brokerAddr: string;
  clusterName: string;
  aclConfigDataVersion: DataVersion;
  allAclConfigDataVersion: Map<string, DataVersion>;
}

/** UPDATE_AND_CREATE_ACL_CONFIG (50): creates or updates an account in the broker's ACL file. */
export async function createAndUpdatePlainAccessConfig(api: RequestInvoker, addr: string, config: PlainAccessConfigInput, timeoutMillis: number): Promise<void> {
  const ext = CreateAccessConfigRequestHeader.encode({
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    whiteRemoteAddress: config.whiteRemoteAddress,
    admin: config.admin ?? false,
    defaultTopicPerm: config.defaultTopicPerm,
    defaultGroupPerm: config.defaultGroupPerm,
    topicPerms: config.topicPerms ? config.topicPerms.join(',') : undefined,
    groupPerms: config.groupPerms ? config.groupPerms.join(',') : undefined,
  });
  await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.UPDATE_AND_CREATE_ACL_CONFIG, ext), timeoutMillis);
}

/** DELETE_ACL_CONFIG (51). */
export async function deletePlainAccessConfig(api: RequestInvoker, addr: string, accessKey: string, timeoutMillis: number): Promise<void> {
  const ext = DeleteAccessConfigRequestHeader.encode({ accessKey });
  await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.DELETE_ACL_CONFIG, ext), timeoutMillis);
}

/** UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53): replaces the file's globalWhiteRemoteAddresses (comma-separated); an empty path is the broker's default file. */
export async function updateGlobalWhiteAddrsConfig(
  api: RequestInvoker, addr: string, globalWhiteAddrs: string, aclFileFullPath: string, timeoutMillis: number,
): Promise<void> {
  const ext = UpdateGlobalWhiteAddrsConfigRequestHeader.encode({ globalWhiteAddrs, aclFileFullPath });
  await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, ext), timeoutMillis);
}

/** GET_BROKER_CLUSTER_ACL_INFO (52): the data versions of the broker's ACL files. */
export async function getBrokerClusterAclInfo(api: RequestInvoker, addr: string, timeoutMillis: number): Promise<ClusterAclVersionInfo> {
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_BROKER_CLUSTER_ACL_INFO), timeoutMillis);
  const h = GetBrokerAclConfigResponseHeader.decode(response.extFields);
  const all = new Map<string, DataVersion>();
  for (const [file, v] of Object.entries(h.allAclFileVersion ? JSON.parse(h.allAclFileVersion) as Record<string, unknown> : {})) {
    all.set(file, dataVersionFromJson(v));
  }
  return {
    brokerName: h.brokerName, brokerAddr: h.brokerAddr, clusterName: h.clusterName,
    aclConfigDataVersion: dataVersionFromJson(JSON.parse(h.version)), allAclConfigDataVersion: all,
  };
}

// ---------------------------------------------------------------- broker: store maintenance, consume directly

/** CLEAN_EXPIRED_CONSUMEQUEUE (306): the broker destroys consume queues that point only into deleted commit log. */
export async function cleanExpiredConsumeQueue(api: RequestInvoker, addr: string, timeoutMillis: number): Promise<boolean> {
  await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE), timeoutMillis);
  return true;
}

/** DELETE_EXPIRED_COMMITLOG (329): the broker's next cleanup runs delete expired commit-log files whatever the hour. */
export async function deleteExpiredCommitLog(api: RequestInvoker, addr: string, timeoutMillis: number): Promise<boolean> {
  await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.DELETE_EXPIRED_COMMITLOG), timeoutMillis);
  return true;
}

/** CLEAN_UNUSED_TOPIC (316): the broker deletes the consume queues of topics it has no config for. */
export async function cleanUnusedTopicByAddr(api: RequestInvoker, addr: string, timeoutMillis: number): Promise<boolean> {
  await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.CLEAN_UNUSED_TOPIC), timeoutMillis);
  return true;
}

/** CONSUME_MESSAGE_DIRECTLY (309): the broker hands the message of offset msgId `msgId` to one consumer, whose answer comes back. */
export async function consumeMessageDirectly(
  api: RequestInvoker, addr: string, consumerGroup: string, clientId: string, msgId: string, timeoutMillis: number,
): Promise<ConsumeMessageDirectlyResult> {
  const ext = ConsumeMessageDirectlyResultRequestHeader.encode({ consumerGroup, clientId, msgId });
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.CONSUME_MESSAGE_DIRECTLY, ext), timeoutMillis);
  return decodeConsumeMessageDirectlyResult(bodyOf(response, addr));
}

/** GET_ALL_PRODUCER_INFO (328): every producer group of the broker with its instances. */
export async function getAllProducerInfo(api: RequestInvoker, addr: string, timeoutMillis: number): Promise<ProducerTableInfo> {
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_ALL_PRODUCER_INFO), timeoutMillis);
  return response.body && response.body.length > 0 ? decodeProducerTableInfo(response.body) : { data: new Map() };
}

/** QUERY_CONSUME_QUEUE (321): `count` entries of one consume queue from `index` (and the group's subscription when given). */
export async function queryConsumeQueue(
  api: RequestInvoker, addr: string, topic: string, queueId: number, index: number, count: number, consumerGroup: string | null, timeoutMillis: number,
): Promise<QueryConsumeQueueResponseBody> {
  const ext = QueryConsumeQueueRequestHeader.encode({ topic, queueId, index, count, consumerGroup: consumerGroup ?? undefined });
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.QUERY_CONSUME_QUEUE, ext), timeoutMillis);
  if (!response.body || response.body.length === 0) throw new MQBrokerError(response.code, response.remark ?? 'response without body', addr);
  return decodeQueryConsumeQueueResponseBody(response.body);
}

/** GET_ALL_TOPIC_CONFIG (21): every topic config of one broker. */
export async function getAllTopicConfig(api: RequestInvoker, addr: string, timeoutMillis: number): Promise<TopicConfigSerializeWrapper> {
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_ALL_TOPIC_CONFIG), timeoutMillis);
  return decodeTopicConfigSerializeWrapper(bodyOf(response, addr));
}

/** GET_SYSTEM_TOPIC_LIST_FROM_BROKER (305): the broker's system topics. */
export async function getSystemTopicListFromBroker(api: RequestInvoker, addr: string, timeoutMillis: number): Promise<TopicList> {
  const response = await brokerCall(api, addr, RemotingCommand.createRequest(RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_BROKER), timeoutMillis);
  return decodeTopicList(bodyOf(response, addr));
}
