/**
 * Every request the name server answers (Java's DefaultRequestProcessor, 4.9.8, with 5.x header fields):
 * REGISTER_BROKER, UNREGISTER_BROKER, QUERY_DATA_VERSION, GET_ROUTEINFO_BY_TOPIC, GET_BROKER_CLUSTER_INFO,
 * WIPE/ADD_WRITE_PERM_OF_BROKER, the topic lists, DELETE_TOPIC_IN_NAMESRV, the KV config codes and
 * UPDATE/GET_NAMESRV_CONFIG. Response codes and remarks are Java's.
 *
 * A header missing a required field, or a body that does not parse, throws a ProtocolError; the transport
 * answers SYSTEM_ERROR with the error as remark (Java: RemotingCommandException) and the channel stays open.
 *
 * @see org.apache.rocketmq.namesrv.processor.DefaultRequestProcessor
 * @see org.apache.rocketmq.namesrv.processor.ClientRequestProcessor (5.x GET_ROUTEINFO_BY_TOPIC)
 */
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { decodeDataVersion, encodeDataVersion, newDataVersion } from '../../../protocol/body/data-version';
import { decodeRegisterBrokerBody, type RegisterBrokerBody } from '../../../protocol/body/register-broker-body';
import { decodeTopicConfigSerializeWrapper } from '../../../protocol/body/topic-config-serialize-wrapper';
import { encodeTopicList } from '../../../protocol/body/topic-list';
import { AddWritePermOfBrokerRequestHeader } from '../../../protocol/header/add-write-perm-of-broker-request-header';
import { AddWritePermOfBrokerResponseHeader } from '../../../protocol/header/add-write-perm-of-broker-response-header';
import { DeleteKVConfigRequestHeader } from '../../../protocol/header/delete-kv-config-request-header';
import { DeleteTopicFromNamesrvRequestHeader } from '../../../protocol/header/delete-topic-from-namesrv-request-header';
import { GetKVConfigRequestHeader } from '../../../protocol/header/get-kv-config-request-header';
import { GetKVConfigResponseHeader } from '../../../protocol/header/get-kv-config-response-header';
import { GetKVListByNamespaceRequestHeader } from '../../../protocol/header/get-kv-list-by-namespace-request-header';
import { GetTopicsByClusterRequestHeader } from '../../../protocol/header/get-topics-by-cluster-request-header';
import { PutKVConfigRequestHeader } from '../../../protocol/header/put-kv-config-request-header';
import { QueryDataVersionRequestHeader } from '../../../protocol/header/query-data-version-request-header';
import { QueryDataVersionResponseHeader } from '../../../protocol/header/query-data-version-response-header';
import { RegisterBrokerRequestHeader } from '../../../protocol/header/register-broker-request-header';
import { RegisterBrokerResponseHeader } from '../../../protocol/header/register-broker-response-header';
import { UnRegisterBrokerRequestHeader } from '../../../protocol/header/unregister-broker-request-header';
import { WipeWritePermOfBrokerRequestHeader } from '../../../protocol/header/wipe-write-perm-of-broker-request-header';
import { WipeWritePermOfBrokerResponseHeader } from '../../../protocol/header/wipe-write-perm-of-broker-response-header';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { ProtocolError } from '../../errors';
import { type Logger, componentLogger } from '../../logger';
import type { RemotingContext } from '../../transport/processor';
import { parseProperties } from '../../util/properties-file';
import { bodyCrc32 as javaCrc32 } from '../../../protocol/message/compression';
import { GetRouteInfoByTopic } from '../../../protocol/requests/get-route-info';
import { type KVConfigManager, NAMESPACE_ORDER_TOPIC_CONFIG } from '../kv-config-manager';
import { ALWAYS_BLACKLISTED, type NamesrvConfig, namesrvConfigToProperties } from '../namesrv-config';
import type { RouteInfoManager } from '../route-info-manager';

/** MQVersion ordinals the name server switches on. */
export const MQ_VERSION_V3_0_11 = 37;
export const MQ_VERSION_V4_9_4 = 401;

/** Java FAQUrl.APPLY_TOPIC_URL and suggestTodo (4.9.8). */
const APPLY_TOPIC_TIP = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';

/** Every request code this processor answers. */
export const NAMESRV_REQUEST_CODES: readonly number[] = Object.freeze([
  RequestCode.PUT_KV_CONFIG,
  RequestCode.GET_KV_CONFIG,
  RequestCode.DELETE_KV_CONFIG,
  RequestCode.QUERY_DATA_VERSION,
  RequestCode.REGISTER_BROKER,
  RequestCode.UNREGISTER_BROKER,
  RequestCode.GET_ROUTEINFO_BY_TOPIC,
  RequestCode.GET_BROKER_CLUSTER_INFO,
  RequestCode.WIPE_WRITE_PERM_OF_BROKER,
  RequestCode.ADD_WRITE_PERM_OF_BROKER,
  RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER,
  RequestCode.DELETE_TOPIC_IN_NAMESRV,
  RequestCode.GET_KVLIST_BY_NAMESPACE,
  RequestCode.GET_TOPICS_BY_CLUSTER,
  RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_NS,
  RequestCode.GET_UNIT_TOPIC_LIST,
  RequestCode.GET_HAS_UNIT_SUB_TOPIC_LIST,
  RequestCode.GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST,
  RequestCode.UPDATE_NAMESRV_CONFIG,
  RequestCode.GET_NAMESRV_CONFIG,
]);

export interface DefaultRequestProcessorDeps {
  config: NamesrvConfig;
  routeInfoManager: RouteInfoManager;
  kvConfigManager: KVConfigManager;
  /** Persists the configuration after UPDATE_NAMESRV_CONFIG (Java Configuration.persist). */
  persistConfig?: () => Promise<void>;
  logger?: Logger;
}

export class DefaultRequestProcessor {
  readonly #deps: DefaultRequestProcessorDeps;
  readonly #logger: Logger;
  readonly #blackList: Set<string>;

  constructor(deps: DefaultRequestProcessorDeps) {
    this.#deps = deps;
    this.#logger = componentLogger('namesrv-processor', deps.logger);
    this.#blackList = new Set([...ALWAYS_BLACKLISTED, ...deps.config.configBlackList.split(';').filter((s) => s)]);
  }

  /** The RemotingProcessor to register for every code of NAMESRV_REQUEST_CODES. */
  readonly processRequest = (request: RemotingCommand, ctx: RemotingContext | null): Promise<RemotingCommand> | RemotingCommand => {
    switch (request.code) {
      case RequestCode.PUT_KV_CONFIG: return this.putKVConfig(request);
      case RequestCode.GET_KV_CONFIG: return this.getKVConfig(request);
      case RequestCode.DELETE_KV_CONFIG: return this.deleteKVConfig(request);
      case RequestCode.QUERY_DATA_VERSION: return this.queryBrokerTopicConfig(request);
      case RequestCode.REGISTER_BROKER: return this.registerBroker(request, ctx);
      case RequestCode.UNREGISTER_BROKER: return this.unregisterBroker(request);
      case RequestCode.GET_ROUTEINFO_BY_TOPIC: return this.getRouteInfoByTopic(request);
      case RequestCode.GET_BROKER_CLUSTER_INFO: return this.getBrokerClusterInfo(request);
      case RequestCode.WIPE_WRITE_PERM_OF_BROKER: return this.wipeWritePermOfBroker(request, ctx);
      case RequestCode.ADD_WRITE_PERM_OF_BROKER: return this.addWritePermOfBroker(request, ctx);
      case RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: return this.getAllTopicListFromNameserver(request);
      case RequestCode.DELETE_TOPIC_IN_NAMESRV: return this.deleteTopicInNamesrv(request);
      case RequestCode.GET_KVLIST_BY_NAMESPACE: return this.getKVListByNamespace(request);
      case RequestCode.GET_TOPICS_BY_CLUSTER: return this.getTopicsByCluster(request);
      case RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_NS: return this.#topicListResponse(request, () => this.#deps.routeInfoManager.encodedSystemTopicList());
      case RequestCode.GET_UNIT_TOPIC_LIST: return this.#topicListResponse(request, () => encodeTopicList({ topicList: this.#deps.routeInfoManager.getUnitTopics() }));
      case RequestCode.GET_HAS_UNIT_SUB_TOPIC_LIST: return this.#topicListResponse(request, () => encodeTopicList({ topicList: this.#deps.routeInfoManager.getHasUnitSubTopicList() }));
      case RequestCode.GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST: return this.#topicListResponse(request, () => encodeTopicList({ topicList: this.#deps.routeInfoManager.getHasUnitSubUnUnitTopicList() }));
      case RequestCode.UPDATE_NAMESRV_CONFIG: return this.updateConfig(request, ctx);
      case RequestCode.GET_NAMESRV_CONFIG: return this.getConfig(request);
      default:
        return RemotingCommand.createResponse(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, ` request type ${request.code} not supported`);
    }
  };

  async putKVConfig(request: RemotingCommand): Promise<RemotingCommand> {
    const h = PutKVConfigRequestHeader.decode(request.extFields);
    await this.#deps.kvConfigManager.putKVConfig(h.namespace, h.key, h.value);
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS);
  }

  getKVConfig(request: RemotingCommand): RemotingCommand {
    const h = GetKVConfigRequestHeader.decode(request.extFields);
    const value = this.#deps.kvConfigManager.getKVConfig(h.namespace, h.key);
    if (value !== undefined) {
      return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, GetKVConfigResponseHeader.encode({ value }));
    }
    return RemotingCommand.createResponse(request, ResponseCode.QUERY_NOT_FOUND,
      `No config item, Namespace: ${h.namespace} Key: ${h.key}`, {});
  }

  async deleteKVConfig(request: RemotingCommand): Promise<RemotingCommand> {
    const h = DeleteKVConfigRequestHeader.decode(request.extFields);
    await this.#deps.kvConfigManager.deleteKVConfig(h.namespace, h.key);
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS);
  }

  registerBroker(request: RemotingCommand, ctx: RemotingContext | null): RemotingCommand {
    const h = RegisterBrokerRequestHeader.decode(request.extFields);
    if (h.bodyCrc32 !== undefined && h.bodyCrc32 !== 0) {
      if (javaCrc32(request.body ?? Buffer.alloc(0)) !== h.bodyCrc32) {
        this.#logger.warn({ remoteAddr: ctx?.remoteAddress }, 'receive registerBroker request,crc32 not match');
        return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'crc32 not match', {});
      }
    }
    let body: RegisterBrokerBody;
    if (request.body && request.body.length > 0) {
      try {
        body = request.version >= MQ_VERSION_V3_0_11
          ? decodeRegisterBrokerBody(request.body, h.compressed === true)
          : { topicConfigSerializeWrapper: decodeTopicConfigSerializeWrapper(request.body), filterServerList: [] };
      } catch (err) {
        throw new ProtocolError('Failed to decode RegisterBrokerBody', { cause: err });
      }
    } else {
      body = { topicConfigSerializeWrapper: { topicConfigTable: new Map(), dataVersion: { ...newDataVersion(0) } }, filterServerList: [] };
    }
    const result = this.#deps.routeInfoManager.registerBroker({
      clusterName: h.clusterName,
      brokerAddr: h.brokerAddr,
      brokerName: h.brokerName,
      brokerId: h.brokerId,
      haServerAddr: h.haServerAddr,
      topicConfigWrapper: body.topicConfigSerializeWrapper,
      filterServerList: request.version >= MQ_VERSION_V3_0_11 ? body.filterServerList : null,
      channel: ctx?.channel ?? null,
      enableActingMaster: h.enableActingMaster,
      heartbeatTimeoutMillis: h.heartbeatTimeoutMillis,
    });
    const orderTopicConfig = this.#deps.kvConfigManager.getKVListByNamespace(NAMESPACE_ORDER_TOPIC_CONFIG);
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null,
      RegisterBrokerResponseHeader.encode({ haServerAddr: result.haServerAddr, masterAddr: result.masterAddr }),
      orderTopicConfig);
  }

  queryBrokerTopicConfig(request: RemotingCommand): RemotingCommand {
    const h = QueryDataVersionRequestHeader.decode(request.extFields);
    if (!request.body || request.body.length === 0) throw new ProtocolError('QUERY_DATA_VERSION without a DataVersion body');
    const dataVersion = decodeDataVersion(request.body);
    const rim = this.#deps.routeInfoManager;
    const changed = rim.isBrokerTopicConfigChanged(h.brokerAddr, dataVersion);
    if (!changed) rim.updateBrokerInfoUpdateTimestamp(h.brokerAddr);
    const nameServerDataVersion = rim.queryBrokerTopicConfig(h.brokerAddr);
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null,
      QueryDataVersionResponseHeader.encode({ changed }),
      nameServerDataVersion ? encodeDataVersion(nameServerDataVersion) : null);
  }

  unregisterBroker(request: RemotingCommand): RemotingCommand {
    const h = UnRegisterBrokerRequestHeader.decode(request.extFields);
    this.#deps.routeInfoManager.unregisterBroker(h.clusterName, h.brokerAddr, h.brokerName, h.brokerId);
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS);
  }

  getRouteInfoByTopic(request: RemotingCommand): RemotingCommand {
    const h = GetRouteInfoByTopic.requestHeader.decode(request.extFields);
    const orderTopicConf = this.#deps.config.orderMessageEnable
      ? this.#deps.kvConfigManager.getKVConfig(NAMESPACE_ORDER_TOPIC_CONFIG, h.topic)
      : undefined;
    const standardJson = request.version >= MQ_VERSION_V4_9_4 || h.acceptStandardJsonOnly === true;
    const body = this.#deps.routeInfoManager.encodedRouteData(h.topic, standardJson, orderTopicConf);
    if (body) return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, body);
    return RemotingCommand.createResponse(request, ResponseCode.TOPIC_NOT_EXIST,
      `No topic route info in name server for the topic: ${h.topic}${APPLY_TOPIC_TIP}`);
  }

  getBrokerClusterInfo(request: RemotingCommand): RemotingCommand {
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, this.#deps.routeInfoManager.encodedClusterInfo());
  }

  wipeWritePermOfBroker(request: RemotingCommand, ctx: RemotingContext | null): RemotingCommand {
    const h = WipeWritePermOfBrokerRequestHeader.decode(request.extFields);
    const wipeTopicCount = this.#deps.routeInfoManager.wipeWritePermOfBroker(h.brokerName);
    this.#logger.info({ brokerName: h.brokerName, remoteAddr: ctx?.remoteAddress, wipeTopicCount }, 'wipe write perm of broker');
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, WipeWritePermOfBrokerResponseHeader.encode({ wipeTopicCount }));
  }

  addWritePermOfBroker(request: RemotingCommand, ctx: RemotingContext | null): RemotingCommand {
    const h = AddWritePermOfBrokerRequestHeader.decode(request.extFields);
    const addTopicCount = this.#deps.routeInfoManager.addWritePermOfBroker(h.brokerName);
    this.#logger.info({ brokerName: h.brokerName, remoteAddr: ctx?.remoteAddress, addTopicCount }, 'add write perm of broker');
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, AddWritePermOfBrokerResponseHeader.encode({ addTopicCount }));
  }

  getAllTopicListFromNameserver(request: RemotingCommand): RemotingCommand {
    if (!this.#deps.config.enableAllTopicList) {
      return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'disable');
    }
    const body = encodeTopicList({ topicList: this.#deps.routeInfoManager.getAllTopicList() });
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, body);
  }

  deleteTopicInNamesrv(request: RemotingCommand): RemotingCommand {
    const h = DeleteTopicFromNamesrvRequestHeader.decode(request.extFields);
    this.#deps.routeInfoManager.deleteTopic(h.topic, h.clusterName || undefined);
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS);
  }

  getKVListByNamespace(request: RemotingCommand): RemotingCommand {
    const h = GetKVListByNamespaceRequestHeader.decode(request.extFields);
    const body = this.#deps.kvConfigManager.getKVListByNamespace(h.namespace);
    if (body) return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, body);
    return RemotingCommand.createResponse(request, ResponseCode.QUERY_NOT_FOUND, `No config item, Namespace: ${h.namespace}`);
  }

  getTopicsByCluster(request: RemotingCommand): RemotingCommand {
    if (!this.#deps.config.enableTopicList) return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'disable');
    const h = GetTopicsByClusterRequestHeader.decode(request.extFields);
    const body = encodeTopicList({ topicList: this.#deps.routeInfoManager.getTopicsByCluster(h.cluster) });
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, body);
  }

  async updateConfig(request: RemotingCommand, ctx: RemotingContext | null): Promise<RemotingCommand> {
    this.#logger.info({ remoteAddr: ctx?.remoteAddress }, 'updateConfig called');
    if (request.body && request.body.length > 0) {
      const props = parseProperties(request.body.toString('utf8'));
      for (const key of props.keys()) {
        if (this.#blackList.has(key)) {
          return RemotingCommand.createResponse(request, ResponseCode.NO_PERMISSION, 'Can not update config in black list.');
        }
      }
      const config = this.#deps.config as unknown as Record<string, unknown>;
      for (const [key, raw] of props) {
        if (!(key in config)) continue;
        const current = config[key];
        const value = raw.trim();
        if (typeof current === 'number') {
          const n = Number(value);
          if (!Number.isFinite(n)) return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, `string2Properties error: ${key}`);
          config[key] = n;
        } else if (typeof current === 'boolean') {
          config[key] = value.toLowerCase() === 'true';
        } else {
          config[key] = value;
        }
      }
      this.#deps.routeInfoManager.brokerChannelExpiredTime = this.#deps.config.brokerChannelExpiredTime;
      if (this.#deps.persistConfig) await this.#deps.persistConfig();
    }
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS);
  }

  getConfig(request: RemotingCommand): RemotingCommand {
    const content = namesrvConfigToProperties(this.#deps.config);
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, Buffer.from(content, 'utf8'));
  }

  #topicListResponse(request: RemotingCommand, encode: () => Buffer): RemotingCommand {
    if (!this.#deps.config.enableTopicList) return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'disable');
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, null, encode());
  }
}
