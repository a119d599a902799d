/**
 * MQClientInstance: everything the producers and consumers of one client id share: one MQClientAPI (one
 * connection per broker and name server), the topic route cache, the broker address tables, the group registry
 * and the background loops.
 *
 * Loops (each a ServiceLoop, stopped on shutdown):
 * - name server list from HTTP every 2 min (first after 10 s), only when no namesrvAddr is configured;
 * - routes of every topic in use every pollNameServerInterval (30 s, first after 10 ms);
 * - offline broker cleanup + heartbeats to every broker every heartbeatBrokerInterval (30 s, first after 1 s);
 * - consumer offsets persisted every persistConsumerOffsetInterval (5 s, first after 10 s);
 * - rebalance of every consumer every 20 s, or at once on NOTIFY_CONSUMER_IDS_CHANGED.
 *
 * A group registers once per instance: a second producer (or consumer) of the same group is refused.
 *
 * @see org.apache.rocketmq.client.impl.factory.MQClientInstance
 */
import type { HeartbeatData, ProducerData, ConsumerData } from '../../protocol/body/heartbeat-data';
import type { TopicRouteData as RouteBody } from '../../protocol/body/topic-route-data';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { configureUniqIdGenerator } from '../../protocol/message/message-id';
import {
  MQClientError, OperationFailedError, RemotingConnectError, RemotingSendRequestError, RemotingTimeoutError, TopicNotExistError,
} from '../errors';
import { type Logger, componentLogger } from '../logger';
import { Lifecycle } from '../util/lifecycle';
import { ServiceLoop } from '../util/service-loop';
import type { ClientConfig } from './client-config';
import { registerClientProcessors } from './client-remoting-processor';
import type { ClientEvents } from './events';
import type { RequestObserver } from '../transport';
import type { MQConsumerInner, MQProducerInner } from './inner';
import { MixAll, TopicValidator } from './mix-all';
import { MQClientAPI, type MQClientAPIOptions } from './mq-client-api';
import { GetConsumerListByGroup, UnregisterClient } from '../../protocol/requests/index';
import { call } from './request-invoker';
import { topicRouteData2TopicPublishInfo, topicRouteData2TopicSubscribeInfo } from './route-convert';

/** Anything events can be emitted to (a producer's or consumer's InstrumentationEmitter). */
export interface EventSink {
  hasListeners(type: string): boolean;
  emit(type: string, payload: unknown): void;
}

/** What the default-route lookup for a new topic needs of its producer. */
export interface DefaultRouteOptions {
  createTopicKey: string;
  defaultTopicQueueNums: number;
}

export interface FindBrokerResult {
  brokerAddr: string;
  slave: boolean;
  brokerVersion: number;
}

export interface MQClientInstanceOptions extends MQClientAPIOptions {
  /** Interval of the rebalance loop (Java rocketmq.client.rebalance.waitInterval), ms. */
  rebalanceIntervalMillis?: number;
}

function routeSignature(route: RouteBody): string {
  const qds = [...route.queueDatas].sort((a, b) => (a.brokerName < b.brokerName ? -1 : a.brokerName > b.brokerName ? 1 : 0))
    .map((q) => `${q.brokerName}:${q.readQueueNums}:${q.writeQueueNums}:${q.perm}:${q.topicSysFlag}`);
  const bds = [...route.brokerDatas].sort((a, b) => (a.brokerName < b.brokerName ? -1 : a.brokerName > b.brokerName ? 1 : 0))
    .map((b) => `${b.cluster}:${b.brokerName}:${[...b.brokerAddrs].sort((x, y) => x[0] - y[0]).map(([id, a]) => `${id}=${a}`).join(',')}`);
  return `${route.orderTopicConf ?? ''}|${qds.join(';')}|${bds.join(';')}`;
}

function cloneRoute(route: RouteBody): RouteBody {
  return {
    ...route,
    queueDatas: route.queueDatas.map((q) => ({ ...q })),
    brokerDatas: route.brokerDatas.map((b) => ({ ...b, brokerAddrs: new Map(b.brokerAddrs) })),
    filterServerTable: new Map(route.filterServerTable),
  };
}

export class MQClientInstance {
  readonly clientId: string;
  readonly clientConfig: ClientConfig;
  readonly api: MQClientAPI;
  readonly #logger: Logger;
  readonly #producerTable = new Map<string, MQProducerInner>();
  readonly #consumerTable = new Map<string, MQConsumerInner>();
  readonly #topicRouteTable = new Map<string, RouteBody>();
  readonly #brokerAddrTable = new Map<string, Map<number, string>>();
  readonly #brokerVersionTable = new Map<string, Map<string, number>>();
  readonly #routeInflight = new Map<string, Promise<boolean>>();
  readonly #sinks = new Set<EventSink>();
  readonly #loops: ServiceLoop[] = [];
  readonly #rebalanceLoop: ServiceLoop;
  readonly #lifecycle: Lifecycle;
  #heartbeat: Promise<void> | null = null;
  /** The round queued behind #heartbeat (its data is prepared when it starts). */
  #heartbeatNext: Promise<void> | null = null;
  /** Called once the instance is shut down (the manager drops it). */
  onShutdown: (() => void) | null = null;

  constructor(clientConfig: ClientConfig, clientId: string, options: MQClientInstanceOptions = {}) {
    this.clientConfig = clientConfig;
    this.clientId = clientId;
    this.#logger = componentLogger('mq-client-instance', options.logger).child({ clientId });
    const observer: RequestObserver = {
      hasListeners: (type) => this.#listening(type),
      emit: (type: 'network.request' | 'network.request_queue_size', payload: object) => {
        this.emit(type, () => ({ clientId, ...payload }) as ClientEvents[typeof type]);
      },
    };
    this.api = new MQClientAPI(clientConfig, {
      ...options,
      remotingOptions: { observer, ...options.remotingOptions },
      onRequestTimeout: (addr, code, timeoutMillis) => {
        options.onRequestTimeout?.(addr, code, timeoutMillis);
        this.emit('network.request_timeout', () => ({ clientId, addr, code, timeoutMillis }));
      },
      onNamesrvChanged: (namesrvAddr) => {
        options.onNamesrvChanged?.(namesrvAddr);
        this.emit('client.namesrv_changed', () => ({ clientId, namesrvAddr }));
      },
    });
    registerClientProcessors((code, p) => this.api.registerProcessor(code, p), {
      clientId,
      selectProducer: (g) => this.selectProducer(g),
      selectConsumer: (g) => this.selectConsumer(g),
      rebalanceImmediately: () => this.rebalanceImmediately(),
      namesrvAddr: () => this.api.getNameServerAddressList().join(';'),
    }, this.#logger);
    if (clientConfig.namesrvAddr) this.api.updateNameServerAddressList(clientConfig.getNamesrvAddr() ?? clientConfig.namesrvAddr);
    try {
      configureUniqIdGenerator(clientConfig.clientIP.replace(/^\[|\]$/g, ''));
    } catch (err) {
      this.#logger.warn({ err, clientIP: clientConfig.clientIP }, 'clientIP is not an IP address; message ids keep the fake IP');
    }

    const loop = (name: string, initialDelayMillis: number, intervalMillis: number, task: () => Promise<void> | void) =>
      new ServiceLoop({ name, initialDelayMillis, intervalMillis, logger: this.#logger }, task);
    if (!clientConfig.namesrvAddr) {
      this.#loops.push(loop('fetchNameServerAddr', 10_000, 120_000, async () => { await this.api.fetchNameServerAddr(); }));
    }
    this.#loops.push(loop('updateTopicRouteInfoFromNameServer', 10, clientConfig.pollNameServerInterval, () => this.updateAllTopicRoutes()));
    this.#loops.push(loop('sendHeartbeatToAllBroker', 1000, clientConfig.heartbeatBrokerInterval, async () => {
      this.cleanOfflineBroker();
      await this.sendHeartbeatToAllBrokerWithLock();
    }));
    this.#loops.push(loop('persistAllConsumerOffset', 10_000, clientConfig.persistConsumerOffsetInterval, () => this.persistAllConsumerOffset()));
    this.#rebalanceLoop = loop('rebalanceService', options.rebalanceIntervalMillis ?? 20_000, options.rebalanceIntervalMillis ?? 20_000, () => this.doRebalance());
    this.#loops.push(this.#rebalanceLoop);
    this.#lifecycle = new Lifecycle(() => this.#doStart(), () => this.#doShutdown());
  }

  get isRunning(): boolean {
    return this.#lifecycle.isRunning;
  }

  start(): Promise<void> {
    return this.#lifecycle.start();
  }

  shutdown(): Promise<void> {
    return this.#lifecycle.shutdown();
  }

  async #doStart(): Promise<void> {
    if (!this.clientConfig.namesrvAddr) await this.api.fetchNameServerAddr();
    for (const l of this.#loops) l.start();
    this.#logger.info('the client factory started');
  }

  async #doShutdown(): Promise<void> {
    await Promise.all(this.#loops.map((l) => l.stop()));
    if (this.#heartbeatNext) await this.#heartbeatNext.catch(() => undefined);
    if (this.#heartbeat) await this.#heartbeat.catch(() => undefined);
    await Promise.allSettled([...this.#routeInflight.values()]);
    await this.api.shutdown();
    this.#sinks.clear();
    this.onShutdown?.();
    this.#logger.info('the client factory shut down');
  }

  // ---------------------------------------------------------------- events

  attachEmitter(sink: EventSink): void {
    this.#sinks.add(sink);
  }

  detachEmitter(sink: EventSink): void {
    this.#sinks.delete(sink);
  }

  #listening(type: string): boolean {
    for (const s of this.#sinks) if (s.hasListeners(type)) return true;
    return false;
  }

  emit<K extends keyof ClientEvents & string>(type: K, payload: () => ClientEvents[K]): void {
    for (const s of this.#sinks) if (s.hasListeners(type)) s.emit(type, payload);
  }

  // ---------------------------------------------------------------- registry

  /** False when the group already has a producer in this instance (Java registerProducer). */
  registerProducer(group: string, producer: MQProducerInner): boolean {
    if (this.#producerTable.has(group)) {
      this.#logger.warn({ group }, 'the producer group has been created before');
      return false;
    }
    this.#producerTable.set(group, producer);
    return true;
  }

  async unregisterProducer(group: string): Promise<void> {
    if (!this.#producerTable.delete(group)) return;
    await this.#unregisterClient(group, undefined);
  }

  registerConsumer(group: string, consumer: MQConsumerInner): boolean {
    if (this.#consumerTable.has(group)) {
      this.#logger.warn({ group }, 'the consumer group has been created before');
      return false;
    }
    this.#consumerTable.set(group, consumer);
    return true;
  }

  async unregisterConsumer(group: string): Promise<void> {
    if (!this.#consumerTable.delete(group)) return;
    await this.#unregisterClient(undefined, group);
  }

  selectProducer(group: string): MQProducerInner | undefined {
    return this.#producerTable.get(group);
  }

  selectConsumer(group: string): MQConsumerInner | undefined {
    return this.#consumerTable.get(group);
  }

  get producerGroups(): string[] {
    return [...this.#producerTable.keys()];
  }

  get consumerGroups(): string[] {
    return [...this.#consumerTable.keys()];
  }

  async #unregisterClient(producerGroup: string | undefined, consumerGroup: string | undefined): Promise<void> {
    const calls: Promise<void>[] = [];
    for (const [brokerName, addrs] of this.#brokerAddrTable) {
      for (const [id, addr] of addrs) {
        const values = { clientID: this.clientId, producerGroup, consumerGroup };
        calls.push(call(this.api, addr, UnregisterClient, values, this.clientConfig.mqClientApiTimeout).then(
          () => this.#logger.info({ producerGroup, consumerGroup, brokerName, brokerId: id, brokerAddr: addr }, 'unregister client to broker OK'),
          (err: unknown) => this.#logger.warn({ err, producerGroup, consumerGroup, brokerAddr: addr }, 'unregister client to broker failed'),
        ));
      }
    }
    await Promise.all(calls);
  }

  // ---------------------------------------------------------------- routes

  /** The cached route of a topic. */
  getTopicRoute(topic: string): RouteBody | undefined {
    return this.#topicRouteTable.get(topic);
  }

  /** Every topic a registered producer or consumer uses. */
  topicsInUse(): Set<string> {
    const topics = new Set<string>();
    for (const c of this.#consumerTable.values()) for (const s of c.subscriptions()) topics.add(s.topic);
    for (const p of this.#producerTable.values()) for (const t of p.getPublishTopicList()) topics.add(t);
    return topics;
  }

  async updateAllTopicRoutes(): Promise<void> {
    await Promise.all([...this.topicsInUse()].map((topic) => this.updateTopicRouteInfoFromNameServer(topic).catch((err: unknown) => {
      this.#logger.error({ err, topic }, 'updateTopicRouteInfoFromNameServer exception');
    })));
  }

  /**
   * Fetches a topic's route (or, with `defaultRoute`, the route of the auto-create topic trimmed to the producer's
   * defaultTopicQueueNums) and, when it changed, updates the broker tables and every producer's and consumer's
   * view. Concurrent calls for one topic share one request. Resolves true when the route changed. A topic the name
   * server does not know resolves false; a network failure rejects.
   */
  updateTopicRouteInfoFromNameServer(topic: string, defaultRoute?: DefaultRouteOptions): Promise<boolean> {
    const key = defaultRoute ? `${topic}\u0000default` : topic;
    const inflight = this.#routeInflight.get(key);
    if (inflight) return inflight;
    const p = this.#updateRoute(topic, defaultRoute).finally(() => this.#routeInflight.delete(key));
    this.#routeInflight.set(key, p);
    return p;
  }

  async #updateRoute(topic: string, defaultRoute?: DefaultRouteOptions): Promise<boolean> {
    const timeout = this.clientConfig.mqClientApiTimeout;
    let route: RouteBody;
    try {
      if (defaultRoute) {
        route = await this.api.getDefaultTopicRouteInfoFromNameServer(defaultRoute.createTopicKey, timeout);
        for (const qd of route.queueDatas) {
          const n = Math.min(defaultRoute.defaultTopicQueueNums, qd.readQueueNums);
          qd.readQueueNums = n;
          qd.writeQueueNums = n;
        }
      } else {
        route = await this.api.getTopicRouteInfoFromNameServer(topic, timeout);
      }
    } catch (err) {
      if (err instanceof RemotingConnectError || err instanceof RemotingTimeoutError || err instanceof RemotingSendRequestError) throw err;
      if (err instanceof MQClientError && err.responseCode === 10004) throw err;
      if (!topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) && topic !== TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC) {
        // A topic the name server does not know yet is normal before a broker auto-creates it: the send that needs
        // the route reports the failure if it persists.
        if (err instanceof TopicNotExistError) this.#logger.debug({ topic }, 'no route for the topic yet');
        else this.#logger.warn({ err, topic }, 'updateTopicRouteInfoFromNameServer exception');
      }
      return false;
    }
    const old = this.#topicRouteTable.get(topic);
    let changed = !old || routeSignature(old) !== routeSignature(route);
    if (!changed) changed = this.#isNeedUpdateTopicRouteInfo(topic);
    if (!changed) return false;

    for (const bd of route.brokerDatas) this.#brokerAddrTable.set(bd.brokerName, new Map(bd.brokerAddrs));
    if (this.#producerTable.size > 0) {
      const info = topicRouteData2TopicPublishInfo(topic, route);
      info.haveTopicRouterInfo = true;
      for (const p of this.#producerTable.values()) p.updateTopicPublishInfo(topic, info);
    }
    if (this.#consumerTable.size > 0) {
      const subscribeInfo: MessageQueue[] = topicRouteData2TopicSubscribeInfo(topic, route);
      for (const c of this.#consumerTable.values()) c.updateTopicSubscribeInfo(topic, subscribeInfo);
    }
    this.#topicRouteTable.set(topic, cloneRoute(route));
    this.#logger.info({ topic }, 'topic route updated');
    this.emit('client.route_updated', () => ({
      clientId: this.clientId,
      topic,
      brokerNames: route.brokerDatas.map((b) => b.brokerName),
      queueCount: route.queueDatas.reduce((n, q) => n + q.writeQueueNums, 0),
    }));
    return true;
  }

  #isNeedUpdateTopicRouteInfo(topic: string): boolean {
    for (const p of this.#producerTable.values()) if (p.isPublishTopicNeedUpdate(topic)) return true;
    for (const c of this.#consumerTable.values()) if (c.isSubscribeTopicNeedUpdate(topic)) return true;
    return false;
  }

  // ---------------------------------------------------------------- brokers

  /** The master address of a broker group, if known. */
  findBrokerAddressInPublish(brokerName: string): string | undefined {
    return this.#brokerAddrTable.get(brokerName)?.get(MixAll.MASTER_ID);
  }

  /** An address of the broker group, preferring `brokerId` (Java findBrokerAddressInSubscribe). */
  findBrokerAddressInSubscribe(brokerName: string, brokerId: number, onlyThisBroker: boolean): FindBrokerResult | undefined {
    const map = this.#brokerAddrTable.get(brokerName);
    if (!map || map.size === 0) return undefined;
    let addr = map.get(brokerId);
    let slave = brokerId !== MixAll.MASTER_ID;
    if (addr === undefined && !onlyThisBroker) {
      const first = map.entries().next().value as [number, string];
      addr = first[1];
      slave = first[0] !== MixAll.MASTER_ID;
    }
    if (addr === undefined) return undefined;
    return { brokerAddr: addr, slave, brokerVersion: this.#brokerVersionTable.get(brokerName)?.get(addr) ?? 0 };
  }

  /**
   * CHECK_CLIENT_CONFIG for every non-tag (SQL92) subscription of every consumer: asks one broker holding the topic
   * whether it accepts the expression. A refusal rejects with the broker's code and remark (MQClientError); a
   * transport failure with Java's "Check client in broker error" message.
   *
   * @see org.apache.rocketmq.client.impl.factory.MQClientInstance#checkClientInBroker
   */
  async checkClientInBroker(): Promise<void> {
    for (const [group, consumer] of this.#consumerTable) {
      // Java returns here, which stops the checks of every consumer after one without subscriptions; the intent is
      // "nothing to check for this one", so we go on to the next consumer.
      for (const sd of consumer.subscriptions()) {
        if (!sd.expressionType || sd.expressionType === 'TAG') continue;
        const addr = this.findBrokerAddrByTopic(sd.topic);
        if (addr === undefined) continue;
        try {
          await this.api.checkClientInBroker(addr, group, this.clientId, sd, this.clientConfig.mqClientApiTimeout);
        } catch (err) {
          if (err instanceof MQClientError) throw err;
          throw new OperationFailedError(`Check client in broker error, maybe because you use ${sd.expressionType} to filter message, but server has not been upgraded to support!`
            + 'This error would not affect the launch of consumer, but may has impact on message receiving if you have use the new features which are not supported by server, please check the log!', { cause: err });
        }
      }
    }
  }

  /** Some broker holding `topic` (Java findBrokerAddrByTopic). */
  findBrokerAddrByTopic(topic: string): string | undefined {
    const route = this.#topicRouteTable.get(topic);
    if (!route || route.brokerDatas.length === 0) return undefined;
    const bd = route.brokerDatas[Math.floor(Math.random() * route.brokerDatas.length)];
    return bd.brokerAddrs.get(MixAll.MASTER_ID) ?? bd.brokerAddrs.values().next().value;
  }

  /** The client ids of a consumer group, asked of a broker holding the topic. */
  async findConsumerIdList(topic: string, group: string): Promise<string[]> {
    let addr = this.findBrokerAddrByTopic(topic);
    if (!addr) {
      await this.updateTopicRouteInfoFromNameServer(topic);
      addr = this.findBrokerAddrByTopic(topic);
    }
    if (!addr) return [];
    return call(this.api, addr, GetConsumerListByGroup, { consumerGroup: group }, this.clientConfig.mqClientApiTimeout);
  }

  get brokerAddrTable(): ReadonlyMap<string, ReadonlyMap<number, string>> {
    return this.#brokerAddrTable;
  }

  /** Drops broker addresses no cached route mentions any more. */
  cleanOfflineBroker(): void {
    for (const [brokerName, addrs] of this.#brokerAddrTable) {
      for (const [id, addr] of addrs) {
        if (!this.#isBrokerAddrInRoutes(addr)) {
          addrs.delete(id);
          this.#logger.info({ brokerName, brokerAddr: addr }, 'the broker addr is offline, removed');
        }
      }
      if (addrs.size === 0) {
        this.#brokerAddrTable.delete(brokerName);
        this.#brokerVersionTable.delete(brokerName);
        this.#logger.info({ brokerName }, 'the broker is offline, removed');
      }
    }
  }

  #isBrokerAddrInRoutes(addr: string): boolean {
    for (const route of this.#topicRouteTable.values()) {
      for (const bd of route.brokerDatas) for (const a of bd.brokerAddrs.values()) if (a === addr) return true;
    }
    return false;
  }

  // ---------------------------------------------------------------- heartbeats

  /**
   * Heartbeats to every known broker. The promise settles once a round that started after this call (so its data
   * holds every change the caller made before calling, e.g. a new subscription version) was answered: a call while a
   * round is in flight queues one more round after it, and every call meanwhile shares that queued round.
   */
  sendHeartbeatToAllBrokerWithLock(): Promise<void> {
    if (this.#heartbeatNext) return this.#heartbeatNext;
    if (!this.#heartbeat) return this.#startHeartbeat();
    const next = this.#heartbeat.catch(() => undefined).then(() => {
      this.#heartbeatNext = null;
      return this.#startHeartbeat();
    });
    this.#heartbeatNext = next;
    return next;
  }

  #startHeartbeat(): Promise<void> {
    const round: Promise<void> = this.#sendHeartbeatToAllBroker().finally(() => {
      if (this.#heartbeat === round) this.#heartbeat = null;
    });
    this.#heartbeat = round;
    return round;
  }

  prepareHeartbeatData(): HeartbeatData {
    const consumerDataSet: ConsumerData[] = [];
    for (const c of this.#consumerTable.values()) {
      consumerDataSet.push({
        groupName: c.groupName(),
        consumeType: c.consumeType(),
        messageModel: c.messageModel(),
        consumeFromWhere: c.consumeFromWhere(),
        subscriptionDataSet: c.subscriptions(),
        unitMode: c.isUnitMode(),
      });
    }
    const producerDataSet: ProducerData[] = [...this.#producerTable.keys()].map((groupName) => ({ groupName }));
    // Java's instance always holds its inner producer (CLIENT_INNER_PRODUCER) and lists it in every heartbeat.
    if ((producerDataSet.length > 0 || consumerDataSet.length > 0) && !this.#producerTable.has(MixAll.CLIENT_INNER_PRODUCER_GROUP)) {
      producerDataSet.push({ groupName: MixAll.CLIENT_INNER_PRODUCER_GROUP });
    }
    return { clientID: this.clientId, producerDataSet, consumerDataSet };
  }

  async #sendHeartbeatToAllBroker(): Promise<void> {
    const data = this.prepareHeartbeatData();
    if (data.producerDataSet.length === 0 && data.consumerDataSet.length === 0) return;
    const producerOnly = data.consumerDataSet.length === 0;
    const calls: Promise<void>[] = [];
    for (const [brokerName, addrs] of this.#brokerAddrTable) {
      for (const [id, addr] of addrs) {
        if (producerOnly && id !== MixAll.MASTER_ID) continue;
        calls.push(this.api.sendHeartbeat(addr, data, this.clientConfig.mqClientApiTimeout).then(
          (version) => {
            let versions = this.#brokerVersionTable.get(brokerName);
            if (!versions) this.#brokerVersionTable.set(brokerName, (versions = new Map()));
            versions.set(addr, version);
            this.emit('client.heartbeat', () => ({ clientId: this.clientId, brokerAddr: addr, ok: true }));
          },
          (err: unknown) => {
            this.#logger.warn({ err, brokerAddr: addr, brokerName }, 'send heart beat to broker failed');
            this.emit('client.heartbeat', () => ({ clientId: this.clientId, brokerAddr: addr, ok: false, error: err as Error }));
          },
        ));
      }
    }
    await Promise.all(calls);
  }

  // ---------------------------------------------------------------- consumers

  rebalanceImmediately(): void {
    this.#rebalanceLoop.wakeup();
  }

  async doRebalance(): Promise<void> {
    for (const [group, c] of this.#consumerTable) {
      try {
        await c.doRebalance();
      } catch (err) {
        this.#logger.error({ err, group }, 'doRebalance exception');
      }
    }
  }

  async persistAllConsumerOffset(): Promise<void> {
    for (const [group, c] of this.#consumerTable) {
      try {
        await c.persistConsumerOffset();
      } catch (err) {
        this.#logger.error({ err, group }, 'persistConsumerOffset exception');
      }
    }
  }
}
