/**
 * The admin requests mqadmin and the admin clients send a broker: topics, subscription groups, broker config,
 * runtime info, topic and consume stats, connections, who consumes a topic, consumer running info (forwarded to the
 * client over its own channel) and the delay offsets. Bodies are encoded as Java's so mqadmin parses them.
 *
 * @see org.apache.rocketmq.broker.processor.AdminBrokerProcessor (4.9.8)
 */
import { encodeTimerCheckpoint, type TimerMessageStore } from '../../store/timer/timer-message-store';
import type { RequestExecutor } from '../../transport/request-executor';
import fs from 'node:fs';
import { encodeBrokerStatsData } from '../../../protocol/body/broker-stats-data';
import { ViewBrokerStatsDataRequestHeader } from '../../../protocol/header/view-broker-stats-data-request-header';
import { RequestCode } from '../../../protocol/code/request-code';
import { ResponseCode } from '../../../protocol/code/response-code';
import { CreateTopicRequestHeader } from '../../../protocol/header/create-topic-request-header';
import { DeleteTopicRequestHeader } from '../../../protocol/header/delete-topic-request-header';
import { DeleteSubscriptionGroupRequestHeader } from '../../../protocol/header/delete-subscription-group-request-header';
import { GetTopicStatsInfoRequestHeader } from '../../../protocol/header/get-topic-stats-info-request-header';
import { GetConsumeStatsRequestHeader } from '../../../protocol/header/get-consume-stats-request-header';
import { GetConsumerConnectionListRequestHeader } from '../../../protocol/header/get-consumer-connection-list-request-header';
import { GetProducerConnectionListRequestHeader } from '../../../protocol/header/get-producer-connection-list-request-header';
import { QueryTopicConsumeByWhoRequestHeader } from '../../../protocol/header/query-topic-consume-by-who-request-header';
import { GetConsumerRunningInfoRequestHeader } from '../../../protocol/header/get-consumer-running-info-request-header';
import { ResetOffsetRequestHeader } from '../../../protocol/header/reset-offset-request-header';
import { GetConsumerStatusRequestHeader } from '../../../protocol/header/get-consumer-status-request-header';
import { GetBrokerConfigResponseHeader } from '../../../protocol/header/get-broker-config-response-header';
import { encodeKVTable } from '../../../protocol/body/kv-table';
import { encodeTopicStatsTable, type TopicOffset } from '../../../protocol/body/topic-stats-table';
import {
  type ConsumeStats, type OffsetWrapper, computeTotalDiff, encodeConsumeStats, encodeConsumeStatsList,
} from '../../../protocol/body/consume-stats';
import { GetConsumeStatsInBrokerHeader } from '../../../protocol/header/get-consume-stats-in-broker-header';
import { javaHashOrderKeys } from '../../../protocol/message/java-hash';
import { encodeConsumerConnection, encodeProducerConnection, type Connection } from '../../../protocol/body/consumer-connection';
import { encodeGroupList } from '../../../protocol/body/group-list';
import { decodeSubscriptionGroupConfig, subscriptionGroupConfigToJson } from '../../../protocol/body/subscription-group-wrapper';
import { GetSubscriptionGroupConfigRequestHeader } from '../../../protocol/header/get-subscription-group-config-request-header';
import { newTopicConfig } from '../../../protocol/body/topic-config';
import { newDataVersion, nextVersion, dataVersionToJson, type DataVersion } from '../../../protocol/body/data-version';
import { encodeFastjson, javaDoubleString } from '../../../protocol/body/fastjson';
import type { MessageQueue } from '../../../protocol/message/message-queue';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { ConsumeMessageDirectlyResultRequestHeader } from '../../../protocol/header/consume-message-directly-result-request-header';
import { decodeOffsetMessageId } from '../../../protocol/message/message-id';
import { type ProducerInfo, encodeProducerTableInfo } from '../../../protocol/body/producer-table-info';
import { type QueryConsumeQueueResponseBody, encodeQueryConsumeQueueResponseBody } from '../../../protocol/body/query-consume-queue-response-body';
import { QueryConsumeQueueRequestHeader } from '../../../protocol/header/query-consume-queue-request-header';
import { encodeTopicList } from '../../../protocol/body/topic-list';
import { systemTopics } from '../../../protocol/mix-all';
import { RemotingTimeoutError } from '../../errors';
import type { RemotingContext } from '../../transport/processor';
import { parseProperties, applyProperties } from '../../util/properties-file';
import { validateTopic, isSystemTopic } from '../topic/topic-validator';
import { alterCurrentAttributes, parseAttributes } from '../../../protocol/body/topic-attributes';
import type { BrokerConfig } from '../broker-config';
import type { MessageStoreConfig } from '../../store/message-store-config';
import type { Logger } from '../../logger';
import type { TopicConfigManager } from '../topic/topic-config-manager';
import type { SubscriptionGroupManager } from '../subscription/subscription-group-manager';
import type { ConsumerOffsetManager } from '../offset/consumer-offset-manager';
import type { ConsumerManager } from '../client-manager/consumer-manager';
import type { ProducerManager } from '../client-manager/producer-manager';
import type { DefaultMessageStore } from '../../store/message-store';
import type { ScheduleMessageService } from '../schedule/schedule-message-service';
import type { BrokerStatsManager } from '../stats/broker-stats-manager';
import type { Broker2Client } from '../client-manager/broker2-client';

/** Java's RemotingCommand.createResponseCommand default remark, kept when a handler only sets the code. */
export const NOT_SET_REMARK = 'not set any response code';
/** MQVersion.CURRENT_VERSION of 4.9.8 and its name. */
export const BROKER_VERSION = 409;
export const BROKER_VERSION_DESC = 'V4_9_8';

const ADMIN_CODES = [
  RequestCode.UPDATE_AND_CREATE_TOPIC, RequestCode.DELETE_TOPIC_IN_BROKER, RequestCode.GET_ALL_TOPIC_CONFIG,
  RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, RequestCode.DELETE_SUBSCRIPTIONGROUP, RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
  RequestCode.GET_BROKER_RUNTIME_INFO, RequestCode.GET_TOPIC_STATS_INFO, RequestCode.GET_CONSUME_STATS,
  RequestCode.GET_CONSUMER_CONNECTION_LIST, RequestCode.GET_PRODUCER_CONNECTION_LIST, RequestCode.QUERY_TOPIC_CONSUME_BY_WHO,
  RequestCode.GET_BROKER_CONFIG, RequestCode.UPDATE_BROKER_CONFIG, RequestCode.GET_CONSUMER_RUNNING_INFO,
  RequestCode.GET_ALL_DELAY_OFFSET, RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
  RequestCode.VIEW_BROKER_STATS_DATA, RequestCode.GET_BROKER_CONSUME_STATS,
  RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE, RequestCode.DELETE_EXPIRED_COMMITLOG, RequestCode.CLEAN_UNUSED_TOPIC,
  RequestCode.CONSUME_MESSAGE_DIRECTLY, RequestCode.GET_ALL_PRODUCER_INFO, RequestCode.QUERY_CONSUME_QUEUE,
  RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_BROKER, RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG, RequestCode.GET_TIMER_CHECK_POINT, RequestCode.GET_TIMER_METRICS,
] as const;

function humanRuntime(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `[ ${Math.floor(s / 86400)} days, ${Math.floor((s % 86400) / 3600)} hours, ${Math.floor((s % 3600) / 60)} minutes, ${s % 60} seconds ]`;
}

/** What the admin processor uses of the broker: configuration, the managers, the store, a registration at the name servers. */
export interface AdminBrokerController {
  readonly brokerConfig: BrokerConfig;
  readonly messageStoreConfig: MessageStoreConfig;
  readonly logger: Logger;
  readonly brokerAddr: string;
  readonly topicConfigManager: TopicConfigManager;
  readonly subscriptionGroupManager: SubscriptionGroupManager;
  readonly consumerOffsetManager: ConsumerOffsetManager;
  readonly consumerManager: ConsumerManager;
  readonly producerManager: Pick<ProducerManager, 'groupChannelTable'>;
  readonly messageStore: DefaultMessageStore;
  readonly scheduleMessageService: Pick<ScheduleMessageService, 'encode' | 'getMaxOffsetTable' | 'offsetTable'>;
  readonly brokerStatsManager: Pick<BrokerStatsManager, 'statsData'>;
  readonly broker2Client: Pick<Broker2Client, 'resetOffset' | 'getConsumeStatus' | 'callClient'>;
  /** The send and pull request executors (their queue sizes in the runtime info). */
  readonly sendExecutor: Pick<RequestExecutor, 'queueSize' | 'headWaitTimeMills'>;
  readonly pullExecutor: Pick<RequestExecutor, 'queueSize'>;
  /** The timer wheel (GET_TIMER_CHECK_POINT answers its checkpoint, GET_TIMER_METRICS its metrics). */
  readonly timerMessageStore: Pick<TimerMessageStore, 'getCheckpoint' | 'timerMetrics'>;
  registerIncrementBrokerData(topics: Iterable<string>): Promise<void>;
  registerBrokerAll(checkOrderConfig: boolean, oneway: boolean, forceRegister: boolean): Promise<void>;
}

export class AdminBrokerProcessor {
  readonly requestCodes: readonly number[] = ADMIN_CODES;
  /** Java's Configuration data version (GET_BROKER_CONFIG header, bumped by UPDATE_BROKER_CONFIG). */
  configDataVersion: DataVersion = newDataVersion();
  readonly bootTimestamp = Date.now();

  constructor(private readonly controller: AdminBrokerController) {}

  async processRequest(request: RemotingCommand, ctx: RemotingContext): Promise<RemotingCommand | null> {
    switch (request.code) {
      case RequestCode.UPDATE_AND_CREATE_TOPIC: return this.updateAndCreateTopic(request);
      case RequestCode.DELETE_TOPIC_IN_BROKER: return this.deleteTopic(request);
      case RequestCode.GET_ALL_TOPIC_CONFIG: return this.ok(request, Buffer.from(this.controller.topicConfigManager.encode(), 'utf8'));
      case RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP: return this.updateAndCreateSubscriptionGroup(request);
      case RequestCode.DELETE_SUBSCRIPTIONGROUP: return this.deleteSubscriptionGroup(request);
      case RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG: return this.getSubscriptionGroup(request, ctx);
      case RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG:
        return this.ok(request, Buffer.from(this.controller.subscriptionGroupManager.encode(), 'utf8'));
      case RequestCode.GET_BROKER_RUNTIME_INFO: return this.ok(request, encodeKVTable({ table: this.runtimeInfo() }));
      case RequestCode.GET_TOPIC_STATS_INFO: return this.getTopicStatsInfo(request);
      case RequestCode.GET_CONSUME_STATS: return this.getConsumeStats(request);
      case RequestCode.GET_BROKER_CONSUME_STATS: return this.fetchAllConsumeStatsInBroker(request);
      case RequestCode.GET_CONSUMER_CONNECTION_LIST: return this.getConsumerConnectionList(request);
      case RequestCode.GET_PRODUCER_CONNECTION_LIST: return this.getProducerConnectionList(request);
      case RequestCode.QUERY_TOPIC_CONSUME_BY_WHO: return this.queryTopicConsumeByWho(request);
      case RequestCode.GET_BROKER_CONFIG: return this.getBrokerConfig(request);
      case RequestCode.GET_TIMER_CHECK_POINT: return this.getTimerCheckPoint(request);
      case RequestCode.GET_TIMER_METRICS: return this.getTimerMetrics(request);
      case RequestCode.UPDATE_BROKER_CONFIG: return this.updateBrokerConfig(request);
      case RequestCode.GET_CONSUMER_RUNNING_INFO: return this.getConsumerRunningInfo(request);
      case RequestCode.GET_ALL_DELAY_OFFSET:
        return this.ok(request, Buffer.from(this.controller.scheduleMessageService.encode(), 'utf8'));
      case RequestCode.INVOKE_BROKER_TO_RESET_OFFSET: {
        const h = ResetOffsetRequestHeader.decode(request.extFields);
        this.controller.logger.info({ topic: h.topic, group: h.group, timestamp: h.timestamp, isForce: h.isForce, remoteAddr: ctx.remoteAddress },
          '[reset-offset] reset offset started');
        return this.controller.broker2Client.resetOffset(request, h.topic, h.group, h.timestamp, h.isForce);
      }
      case RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS: {
        const h = GetConsumerStatusRequestHeader.decode(request.extFields);
        this.controller.logger.info({ topic: h.topic, group: h.group, clientAddr: h.clientAddr, remoteAddr: ctx.remoteAddress },
          '[get-consumer-status] get consumer status by other');
        return this.controller.broker2Client.getConsumeStatus(request, h.topic, h.group, h.clientAddr);
      }
      case RequestCode.VIEW_BROKER_STATS_DATA: {
        const h = ViewBrokerStatsDataRequestHeader.decode(request.extFields);
        const data = this.controller.brokerStatsManager.statsData(h.statsName, h.statsKey);
        if (!data) return this.error(request, ResponseCode.SYSTEM_ERROR, `The stats <${h.statsName}> <${h.statsKey}> not exist`);
        return this.ok(request, encodeBrokerStatsData(data));
      }
      case RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE:
        this.controller.logger.warn('invoke cleanExpiredConsumeQueue start.');
        await this.controller.messageStore.cleanExpiredConsumerQueue();
        this.controller.logger.warn('invoke cleanExpiredConsumeQueue end.');
        return this.ok(request);
      case RequestCode.DELETE_EXPIRED_COMMITLOG:
        this.controller.logger.warn('invoke deleteExpiredCommitLog start.');
        this.controller.messageStore.executeDeleteFilesManually();
        this.controller.logger.warn('invoke deleteExpiredCommitLog end.');
        return this.ok(request);
      case RequestCode.CLEAN_UNUSED_TOPIC:
        this.controller.logger.warn('invoke cleanUnusedTopic start.');
        await this.controller.messageStore.cleanUnusedTopic(new Set(this.controller.topicConfigManager.topicConfigTable.keys()));
        this.controller.logger.warn('invoke cleanUnusedTopic end.');
        return this.ok(request);
      case RequestCode.CONSUME_MESSAGE_DIRECTLY: return this.consumeMessageDirectly(request);
      case RequestCode.QUERY_CONSUME_QUEUE: return this.queryConsumeQueue(request);
      case RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_BROKER: {
        // TopicValidator's system topic set: the static ones plus what TopicConfigManager adds at start
        const bc = this.controller.brokerConfig;
        const topics = new Set([...systemTopics(), bc.brokerClusterName, bc.brokerName, `${bc.brokerClusterName}_REPLY_TOPIC`]);
        if (bc.traceTopicEnable) topics.add(bc.msgTraceTopicName);
        return this.ok(request, encodeTopicList({ topicList: javaHashOrderKeys(topics) }));
      }
      case RequestCode.GET_ALL_PRODUCER_INFO: {
        // ProducerManager.getProducerTable: every group with one ProducerInfo per connection
        const data = new Map<string, ProducerInfo[]>();
        for (const [group, m] of this.controller.producerManager.groupChannelTable) {
          if (m.size === 0) continue;
          data.set(group, [...m.values()].map((info) => ({
            clientId: info.clientId, remoteIP: `/${info.channel.remoteAddress}`, language: info.language, version: info.version,
            lastUpdateTimestamp: info.lastUpdateTimestamp,
          })));
        }
        return this.ok(request, encodeProducerTableInfo({ data }));
      }
      default:
        return RemotingCommand.createResponse(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, ` request type ${request.code} not supported`);
    }
  }

  /**
   * GET_TIMER_CHECK_POINT (60): the timer wheel's checkpoint, 56 bytes (a Java 5.x slave asks its master every 3 s);
   * without timerWheelEnable SYSTEM_ERROR "The checkpoint is null", as Java.
   */
  private getTimerCheckPoint(request: RemotingCommand): RemotingCommand {
    if (!this.controller.messageStoreConfig.timerWheelEnable) {
      this.controller.logger.error('AdminBrokerProcessor#getTimerCheckPoint: checkpoint is null');
      return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'The checkpoint is null');
    }
    return this.ok(request, encodeTimerCheckpoint(this.controller.timerMessageStore.getCheckpoint()));
  }

  /**
   * GET_TIMER_METRICS (61): the timer messages waiting per real topic, Java's TimerMetrics JSON (a Java 5.x slave
   * copies it every 10 s); without timerWheelEnable SYSTEM_ERROR "The timer message store is null", as Java.
   */
  private getTimerMetrics(request: RemotingCommand): RemotingCommand {
    if (!this.controller.messageStoreConfig.timerWheelEnable) {
      this.controller.logger.error('The timer message store is null');
      return RemotingCommand.createResponse(request, ResponseCode.SYSTEM_ERROR, 'The timer message store is null');
    }
    return this.ok(request, this.controller.timerMessageStore.timerMetrics.encode());
  }

  private ok(request: RemotingCommand, body?: Buffer | null, remark: string | null = null): RemotingCommand {
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, remark, null, body ?? null);
  }

  private error(request: RemotingCommand, code: number, remark: string): RemotingCommand {
    return RemotingCommand.createResponse(request, code, remark);
  }

  private async updateAndCreateTopic(request: RemotingCommand): Promise<RemotingCommand> {
    const h = CreateTopicRequestHeader.decode(request.extFields);
    const bad = validateTopic(h.topic);
    if (bad) return this.error(request, ResponseCode.SYSTEM_ERROR, bad);
    if (h.topic === this.controller.brokerConfig.brokerClusterName) {
      return this.error(request, ResponseCode.SYSTEM_ERROR, `The specified topic[${h.topic}] is conflict with the the cluster name.`);
    }
    if (isSystemTopic(h.topic)) return this.error(request, ResponseCode.SYSTEM_ERROR, `The topic[${h.topic}] is conflict with system topic.`);
    const tc = newTopicConfig(h.topic, {
      readQueueNums: h.readQueueNums, writeQueueNums: h.writeQueueNums, perm: h.perm,
      topicFilterType: h.topicFilterType as 'SINGLE_TAG' | 'MULTI_TAG', topicSysFlag: h.topicSysFlag ?? 0, order: h.order,
    });
    // 5.x attributes ("+message.type=FIFO,-reserve.time"), applied to the topic's current ones (Java 5.3.3).
    try {
      const modification = parseAttributes(h.attributes);
      if (modification.get('+message.type') === 'MIXED') return this.error(request, ResponseCode.INVALID_PARAMETER, 'MIXED message type is not supported.');
      const current = this.controller.topicConfigManager.selectTopicConfig(h.topic);
      const attributes = alterCurrentAttributes(!current, current?.attributes ?? new Map(), modification);
      if (attributes.size > 0) tc.attributes = attributes;
    } catch (err) {
      this.controller.logger.error({ err, topic: h.topic }, 'Update / create topic failed');
      return this.error(request, ResponseCode.SYSTEM_ERROR, (err as Error).message);
    }
    const persisted = this.controller.topicConfigManager.updateTopicConfig(tc);
    // Java 4.9.8 registerIncrementBrokerData: the new topic alone, answered once the name servers have it. Asked in
    // the same turn as the data version moved (see broker-registration.ts).
    const registered = this.controller.registerIncrementBrokerData([tc.topicName]);
    await Promise.all([persisted, registered]);
    return this.ok(request, null, NOT_SET_REMARK);
  }

  private async deleteTopic(request: RemotingCommand): Promise<RemotingCommand> {
    const h = DeleteTopicRequestHeader.decode(request.extFields);
    // Java validates first: a name like "" or ".." must never reach the file system (it would name the
    // consume-queue root or the store root).
    const bad = validateTopic(h.topic);
    if (bad) return this.error(request, ResponseCode.SYSTEM_ERROR, bad);
    if (isSystemTopic(h.topic)) return this.error(request, ResponseCode.SYSTEM_ERROR, `The topic[${h.topic}] is conflict with system topic.`);
    this.controller.topicConfigManager.deleteTopicConfig(h.topic);
    await this.controller.messageStore.deleteTopics([h.topic]);
    return this.ok(request);
  }

  private async updateAndCreateSubscriptionGroup(request: RemotingCommand): Promise<RemotingCommand> {
    if (request.body && request.body.length > 0) {
      await this.controller.subscriptionGroupManager.updateSubscriptionGroupConfig(decodeSubscriptionGroupConfig(request.body));
    }
    return this.ok(request);
  }

  /**
   * GET_SUBSCRIPTIONGROUP_CONFIG (352, 5.x): the group's config as Java 5.3.3 writes it (found, or auto-created as
   * a consumer's first use creates it), with the 5.x fields' defaults where the group has none (CUSTOMIZED retry
   * policy, not orderly, 15 min consume timeout).
   */
  private getSubscriptionGroup(request: RemotingCommand, ctx: RemotingContext): RemotingCommand {
    const h = GetSubscriptionGroupConfigRequestHeader.decode(request.extFields);
    const c = this.controller.subscriptionGroupManager.findSubscriptionGroupConfig(h.group);
    if (!c) {
      this.controller.logger.error({ remoteAddr: ctx.remoteAddress, group: h.group }, 'No group in this broker');
      return this.error(request, ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, 'No group in this broker');
    }
    const json = {
      attributes: {}, consumeMessageOrderly: false, consumeTimeoutMinute: 15, groupRetryPolicy: { type: 'CUSTOMIZED' }, groupSysFlag: 0,
      ...subscriptionGroupConfigToJson(c),
    };
    return this.ok(request, encodeFastjson(json));
  }

  private deleteSubscriptionGroup(request: RemotingCommand): RemotingCommand {
    const h = DeleteSubscriptionGroupRequestHeader.decode(request.extFields);
    this.controller.subscriptionGroupManager.deleteSubscriptionGroupConfig(h.groupName);
    if (h.removeOffset || h.cleanOffset) this.controller.consumerOffsetManager.removeOffset(h.groupName);
    return this.ok(request);
  }

  private async storeTimestamp(topic: string, queueId: number, offset: number): Promise<number> {
    const s = this.controller.messageStore;
    return s.getMessageStoreTimeStamp ? s.getMessageStoreTimeStamp(topic, queueId, offset) : 0;
  }

  private async getTopicStatsInfo(request: RemotingCommand): Promise<RemotingCommand> {
    const h = GetTopicStatsInfoRequestHeader.decode(request.extFields);
    const tc = this.controller.topicConfigManager.selectTopicConfig(h.topic);
    if (!tc) return this.error(request, ResponseCode.TOPIC_NOT_EXIST, `topic[${h.topic}] not exist`);
    const store = this.controller.messageStore;
    const offsetTable: Array<[MessageQueue, TopicOffset]> = [];
    for (let i = 0; i < tc.writeQueueNums; i++) {
      const minOffset = Math.max(0, store.getMinOffsetInQueue(h.topic, i));
      const maxOffset = Math.max(0, store.getMaxOffsetInQueue(h.topic, i));
      const lastUpdateTimestamp = maxOffset > 0 ? await this.storeTimestamp(h.topic, i, maxOffset - 1) : 0;
      offsetTable.push([{ topic: h.topic, brokerName: this.controller.brokerConfig.brokerName, queueId: i }, { minOffset, maxOffset, lastUpdateTimestamp }]);
    }
    return this.ok(request, encodeTopicStatsTable({ offsetTable }));
  }

  private async getConsumeStats(request: RemotingCommand): Promise<RemotingCommand> {
    const h = GetConsumeStatsRequestHeader.decode(request.extFields);
    const topics = h.topic ? new Set([h.topic]) : this.controller.consumerOffsetManager.whichTopicByConsumer(h.consumerGroup);
    const offsetTable: Array<[MessageQueue, OffsetWrapper]> = [];
    for (const topic of topics) {
      const stats = await this.#topicConsumeStats(h.consumerGroup, topic, false);
      if (stats) offsetTable.push(...stats.offsetTable);
    }
    return this.ok(request, encodeConsumeStats({ offsetTable, consumeTps: 0 }));
  }

  /** The group's offsets of every write queue of the topic; null when the topic is unknown, not wanted or not subscribed. */
  async #topicConsumeStats(consumerGroup: string, topic: string, isOrder: boolean): Promise<ConsumeStats | null> {
    const c = this.controller;
    const tc = c.topicConfigManager.selectTopicConfig(topic);
    if (!tc || (isOrder && !tc.order)) return null;
    const group = c.consumerManager.getConsumerGroupInfo(consumerGroup);
    if (!c.consumerManager.findSubscriptionData(consumerGroup, topic) && group && group.getAllChannel().length > 0) return null;
    const offsetTable: Array<[MessageQueue, OffsetWrapper]> = [];
    for (let i = 0; i < tc.writeQueueNums; i++) {
      const brokerOffset = Math.max(0, c.messageStore.getMaxOffsetInQueue(topic, i));
      const consumerOffset = Math.max(0, c.consumerOffsetManager.queryOffset(consumerGroup, topic, i));
      const lastTimestamp = consumerOffset > 0 ? await this.storeTimestamp(topic, i, consumerOffset - 1) : 0;
      offsetTable.push([{ topic, brokerName: c.brokerConfig.brokerName, queueId: i }, { brokerOffset, consumerOffset, lastTimestamp }]);
    }
    return { offsetTable, consumeTps: 0 };
  }

  /** GET_BROKER_CONSUME_STATS: the consume stats of every subscription group (AdminBrokerProcessor.fetchAllConsumeStatsInBroker). */
  private async fetchAllConsumeStatsInBroker(request: RemotingCommand): Promise<RemotingCommand> {
    const h = GetConsumeStatsInBrokerHeader.decode(request.extFields);
    const c = this.controller;
    const consumeStatsList: Array<Map<string, ConsumeStats[]>> = [];
    let totalDiff = 0;
    // Java walks a ConcurrentHashMap created with capacity 1024 (2048 bins).
    for (const group of javaHashOrderKeys(c.subscriptionGroupManager.subscriptionGroupTable.keys(), 2048)) {
      const list: ConsumeStats[] = [];
      for (const topic of c.consumerOffsetManager.whichTopicByConsumer(group)) {
        const stats = await this.#topicConsumeStats(group, topic, h.isOrder);
        if (!stats) continue;
        totalDiff += computeTotalDiff(stats);
        list.push(stats);
      }
      consumeStatsList.push(new Map([[group, list]]));
    }
    return this.ok(request, encodeConsumeStatsList({ brokerAddr: c.brokerAddr, consumeStatsList, totalDiff }));
  }

  private getConsumerConnectionList(request: RemotingCommand): RemotingCommand {
    const h = GetConsumerConnectionListRequestHeader.decode(request.extFields);
    const g = this.controller.consumerManager.getConsumerGroupInfo(h.consumerGroup);
    if (!g) return this.error(request, ResponseCode.CONSUMER_NOT_ONLINE, `the consumer group[${h.consumerGroup}] not online`);
    const connectionSet: Connection[] = [...g.channelInfoTable.values()].map((info) => ({
      clientId: info.clientId, clientAddr: info.channel.remoteAddress, language: info.language, version: info.version,
    }));
    return this.ok(request, encodeConsumerConnection({
      connectionSet, subscriptionTable: new Map(g.subscriptionTable), consumeType: g.consumeType, messageModel: g.messageModel,
      consumeFromWhere: g.consumeFromWhere,
    }));
  }

  private getProducerConnectionList(request: RemotingCommand): RemotingCommand {
    const h = GetProducerConnectionListRequestHeader.decode(request.extFields);
    const m = this.controller.producerManager.groupChannelTable.get(h.producerGroup);
    if (!m || m.size === 0) return this.error(request, ResponseCode.SYSTEM_ERROR, `the producer group[${h.producerGroup}] not exist`);
    const connectionSet: Connection[] = [...m.values()].map((info) => ({
      clientId: info.clientId, clientAddr: info.channel.remoteAddress, language: info.language, version: info.version,
    }));
    return this.ok(request, encodeProducerConnection({ connectionSet }));
  }

  private queryTopicConsumeByWho(request: RemotingCommand): RemotingCommand {
    const h = QueryTopicConsumeByWhoRequestHeader.decode(request.extFields);
    const groups = new Set(this.controller.consumerManager.queryTopicConsumeByWho(h.topic));
    for (const g of this.controller.consumerOffsetManager.whichGroupByTopic(h.topic)) groups.add(g);
    return this.ok(request, encodeGroupList({ groupList: [...groups] }));
  }

  /**
   * Every config key as Java's Configuration.getAllConfigsFormatString: `key=value\n` lines, each key once (Java merges
   * its config objects into one Properties, a later object's value replacing an earlier one's: storePathRootDir is in
   * both BrokerConfig and MessageStoreConfig).
   */
  allConfigsText(): string {
    const values = new Map<string, string>();
    const add = (o: object) => {
      for (const [k, v] of Object.entries(o)) {
        if (v === undefined || v === null || typeof v === 'object' || typeof v === 'function') continue;
        // Java's haMasterAddress is null unless set, and null values are not printed.
        if (k === 'haMasterAddress' && v === '') continue;
        values.set(k, String(v));
      }
    };
    add(this.controller.brokerConfig);
    add(this.controller.messageStoreConfig);
    // Java keys we have no setting for, at Java's defaults: mqadmin exportConfigs copies them (a missing one is a
    // NullPointerException there). BrokerConfig.filterServerNums; NettyClientConfig.useTLS (false without -Dtls.enable).
    for (const [k, v] of [['filterServerNums', '0'], ['useTLS', 'false']]) if (!values.has(k)) values.set(k, v);
    let text = '';
    for (const [k, v] of values) text += `${k}=${v}\n`;
    return text;
  }

  private getBrokerConfig(request: RemotingCommand): RemotingCommand {
    const version = encodeFastjson(dataVersionToJson(this.configDataVersion)).toString('utf8');
    return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, null, GetBrokerConfigResponseHeader.encode({ version }),
      Buffer.from(this.allConfigsText(), 'utf8'));
  }

  private updateBrokerConfig(request: RemotingCommand): RemotingCommand | Promise<RemotingCommand> {
    if (!request.body || request.body.length === 0) return this.ok(request);
    let props: Map<string, string>;
    try {
      props = parseProperties(request.body.toString('utf8'));
    } catch {
      return this.error(request, ResponseCode.SYSTEM_ERROR, 'string2Properties error');
    }
    for (const blocked of ['brokerConfigPath', 'configBlackList']) {
      if (props.has(blocked)) return this.error(request, ResponseCode.NO_PERMISSION, `Can not update config in black list.`);
    }
    try {
      const rest = applyProperties(this.controller.brokerConfig, props);
      const restMap = new Map(rest.map((k) => [k, props.get(k) ?? '']));
      applyProperties(this.controller.messageStoreConfig, restMap);
    } catch (err) {
      return this.error(request, ResponseCode.SYSTEM_ERROR, String((err as Error).message));
    }
    this.configDataVersion = nextVersion(this.configDataVersion);
    if (props.has('brokerPermission')) {
      // Java: a new topic data version and a forced registration, so the name servers serve every topic with the
      // broker's permission now (an operator wiping a broker's write permission before maintenance), not never.
      const tcm = this.controller.topicConfigManager;
      tcm.dataVersion = nextVersion(tcm.dataVersion);
      // Answered once the name servers have it, as Java's (its registration runs in the request's thread).
      return this.controller.registerBrokerAll(false, false, true).then(() => this.ok(request));
    }
    return this.ok(request);
  }

  private async getConsumerRunningInfo(request: RemotingCommand): Promise<RemotingCommand> {
    const h = GetConsumerRunningInfoRequestHeader.decode(request.extFields);
    const info = this.controller.consumerManager.findChannel(h.consumerGroup, h.clientId);
    if (!info) return this.error(request, ResponseCode.SYSTEM_ERROR, `The Consumer <${h.clientId}> not online`);
    const forward = RemotingCommand.createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, { ...request.extFields }, request.body);
    try {
      const r = await this.controller.broker2Client.callClient(info.channel, forward);
      return RemotingCommand.createResponse(request, r.code, r.remark ?? null, r.extFields ?? null, r.body);
    } catch (err) {
      return this.error(request, ResponseCode.SYSTEM_ERROR,
        `invoke consumer <${h.consumerGroup}> <${h.clientId}> Exception: ${(err as Error).message ?? String(err)}`);
    }
  }

  /**
   * CONSUME_MESSAGE_DIRECTLY (309) from an admin: the stored record of the offset msgId goes as the body, with the
   * broker's name added to the header, to the consumer `clientId` of the group, whose answer is returned as it is
   * (AdminBrokerProcessor.consumeMessageDirectly and callConsumer).
   */
  private async consumeMessageDirectly(request: RemotingCommand): Promise<RemotingCommand> {
    const h = ConsumeMessageDirectlyResultRequestHeader.decode(request.extFields);
    const extFields: Record<string, string> = { ...request.extFields, brokerName: this.controller.brokerConfig.brokerName };
    let body: Buffer | null = request.body;
    try {
      body = await this.controller.messageStore.lookMessageByOffset(decodeOffsetMessageId(h.msgId ?? '').offset) ?? body;
    } catch {
      // not an offset msgId (Java catches the UnknownHostException): forwarded without the record
    }
    const clientId = h.clientId ?? '';
    const info = this.controller.consumerManager.findChannel(h.consumerGroup, clientId);
    if (!info) return this.error(request, ResponseCode.SYSTEM_ERROR, `The Consumer <${h.consumerGroup}> <${clientId}> not online`);
    try {
      const r = await this.controller.broker2Client.callClient(info.channel, RemotingCommand.createRequest(RequestCode.CONSUME_MESSAGE_DIRECTLY, extFields, body));
      return RemotingCommand.createResponse(request, r.code, r.remark ?? null, r.extFields ?? null, r.body);
    } catch (err) {
      if (err instanceof RemotingTimeoutError) {
        return this.error(request, ResponseCode.CONSUME_MSG_TIMEOUT, `consumer <${h.consumerGroup}> <${clientId}> Timeout: ${err.message}`);
      }
      return this.error(request, ResponseCode.SYSTEM_ERROR, `invoke consumer <${h.consumerGroup}> <${clientId}> Exception: ${(err as Error).message ?? String(err)}`);
    }
  }

  /**
   * QUERY_CONSUME_QUEUE (321), AdminBrokerProcessor.queryConsumeQueue: up to `count` entries of one consume queue from
   * `index` (to the end of the file that holds it), its min/max index, and the group's subscription when one is named.
   * Our consume queues have no extension file, so no entry carries ext data, a bit map or an evaluation.
   */
  private async queryConsumeQueue(request: RemotingCommand): Promise<RemotingCommand> {
    const h = QueryConsumeQueueRequestHeader.decode(request.extFields);
    const topic = h.topic ?? '';
    const queueId = h.queueId ?? 0;
    const cq = this.controller.messageStore.findConsumeQueue(topic, queueId);
    if (!cq) return this.error(request, ResponseCode.SYSTEM_ERROR, `${queueId}@${topic} is not exist!`);
    const body: QueryConsumeQueueResponseBody = {
      subscriptionData: null, filterData: null, queueData: null, maxQueueIndex: cq.getMaxOffsetInQueue(), minQueueIndex: cq.getMinOffsetInQueue(),
    };
    if (h.consumerGroup !== undefined) {
      const sd = this.controller.consumerManager.findSubscriptionData(h.consumerGroup, topic);
      body.subscriptionData = sd ?? null;
      // ConsumerFilterManager holds data for SQL92 subscriptions only: JSON.toJSONString(null, true) for a tag one
      body.filterData = sd ? 'null' : `${h.consumerGroup}@${topic} is not online!`;
    }
    const count = h.count ?? 0;
    const buf = await cq.getIndexBuffer(h.index ?? 0, Math.max(0, count) * 20);
    if (!buf) {
      return RemotingCommand.createResponse(request, ResponseCode.SUCCESS, `Index ${h.index ?? 0} of ${queueId}@${topic} is not exist!`);
    }
    body.queueData = [];
    for (let i = 0; i + 20 <= buf.length; i += 20) {
      body.queueData.push({
        physicOffset: Number(buf.readBigInt64BE(i)), physicSize: buf.readInt32BE(i + 8), tagsCode: Number(buf.readBigInt64BE(i + 12)),
        extendDataJson: null, bitMap: null, eval: false, msg: null,
      });
    }
    return this.ok(request, encodeQueryConsumeQueueResponseBody(body));
  }

  /** GET_BROKER_RUNTIME_INFO keys, as Java's prepareRuntimeInfo. */
  runtimeInfo(): Map<string, string> {
    const c = this.controller;
    const t = new Map<string, string>();
    const store = c.messageStore as { getRuntimeInfo?(): Record<string, string> };
    t.set('brokerVersionDesc', BROKER_VERSION_DESC);
    t.set('brokerVersion', String(BROKER_VERSION));
    t.set('bootTimestamp', String(this.bootTimestamp));
    t.set('runtime', humanRuntime(Date.now() - this.bootTimestamp));
    t.set('msgPutTotalYesterdayMorning', '0');
    t.set('msgPutTotalTodayMorning', '0');
    t.set('msgGetTotalYesterdayMorning', '0');
    t.set('msgGetTotalTodayMorning', '0');
    const rt = store.getRuntimeInfo ? store.getRuntimeInfo() : {};
    for (const [k, v] of Object.entries(rt)) t.set(k, v);
    t.set('msgPutTotalTodayNow', rt.putMessageTimesTotal ?? '0');
    t.set('msgGetTotalTodayNow', rt.getMessageTransferedMsgCount ?? '0');
    // Our store's own counters: Java's table has none of these names (mqadmin brokerStatus prints every key).
    for (const k of ['getMessageTimesTotalFound', 'getMessageTimesTotalMiss', 'getMessageTransferedMsgCount']) t.delete(k);
    // StoreStatsService keys for what our store does not measure: Java's values before its first sample
    // (no put-latency histogram or time maxima are kept here).
    t.set('putMessageEntireTimeMax', '0');
    t.set('getMessageEntireTimeMax', '0');
    t.set('putMessageFailedTimes', '0');
    t.set('putMessageDistributeTime', 'null');
    t.set('putLatency99', '0.00');
    t.set('putLatency999', '0.00');
    t.set('dispatchMaxBuffer', '0');
    const puts = Number(rt.putMessageTimesTotal ?? 0);
    t.set('putMessageAverageSize', javaDoubleString(puts > 0 ? Number(rt.putMessageSizeTotal ?? 0) / puts : 0));
    const commitLogDir = c.messageStoreConfig.storePathCommitLog;
    if (rt.commitLogDiskRatio !== undefined) t.set(`commitLogDiskRatio_${commitLogDir}`, rt.commitLogDiskRatio);
    t.set('commitLogDirCapacity', dirCapacity(commitLogDir));
    const sched = c.scheduleMessageService;
    for (const [level, max] of sched.getMaxOffsetTable()) {
      const delayOffset = sched.offsetTable.get(level);
      if (delayOffset === undefined && max <= 0) continue;
      t.set(`scheduleMessageOffset_${level}`, `${delayOffset ?? 0},${max}`);
    }
    t.set('sendThreadPoolQueueSize', String(c.sendExecutor.queueSize));
    t.set('sendThreadPoolQueueCapacity', String(c.brokerConfig.sendThreadPoolQueueCapacity));
    t.set('pullThreadPoolQueueSize', String(c.pullExecutor.queueSize));
    t.set('pullThreadPoolQueueCapacity', String(c.brokerConfig.pullThreadPoolQueueCapacity));
    t.set('queryThreadPoolQueueSize', '0');
    t.set('queryThreadPoolQueueCapacity', '20000');
    t.set('EndTransactionQueueSize', '0');
    t.set('EndTransactionThreadPoolQueueCapacity', '100000');
    t.set('sendThreadPoolQueueHeadWaitTimeMills', String(c.sendExecutor.headWaitTimeMills()));
    t.set('pullThreadPoolQueueHeadWaitTimeMills', '0');
    t.set('queryThreadPoolQueueHeadWaitTimeMills', '0');
    t.set('dispatchBehindBytes', rt.dispatchBehindBytes ?? '0');
    t.set('pageCacheLockTimeMills', rt.pageCacheLockTimeMills ?? '0');
    t.set('earliestMessageTimeStamp', rt.earliestMessageTimeStamp ?? '-1');
    t.set('startAcceptSendRequestTimeStamp', '0');
    t.set('remainTransientStoreBufferNumbs', '2147483647');
    t.set('remainHowManyDataToFlush', rt.remainHowManyDataToFlush ?? '0 B');
    if (!t.has('commitLogMinOffset')) t.set('commitLogMinOffset', '0');
    if (!t.has('commitLogMaxOffset')) t.set('commitLogMaxOffset', String(c.messageStore.getMaxPhyOffset()));
    return t;
  }
}

/** Java MixAll.humanReadableByteCount(bytes, false): `1023 B`, `1.5 KiB`, `252.0 GiB`. */
export function humanReadableByteCount(bytes: number): string {
  const unit = 1024;
  if (bytes < unit) return `${bytes} B`;
  const exp = Math.floor(Math.log(bytes) / Math.log(unit));
  return `${(bytes / unit ** exp).toFixed(1)} ${'KMGTPE'.charAt(exp - 1)}iB`;
}

/** Java's `commitLogDirCapacity` runtime value: `Total : 252.0 GiB, Free : 79.3 GiB.` (`Total : 0 B, Free : 0 B.` when unknown). */
function dirCapacity(dir: string): string {
  let total = 0;
  let free = 0;
  try {
    const s = fs.statfsSync(dir);
    total = s.blocks * s.bsize;
    free = s.bfree * s.bsize;
  } catch {
    // Java's File.getTotalSpace() is 0 for a missing directory
  }
  return `Total : ${humanReadableByteCount(total)}, Free : ${humanReadableByteCount(free)}.`;
}
