/**
 * The name server's route tables and their semantics (Java RouteInfoManager, 4.9.8, with the 5.x header
 * additions enableActingMaster and heartbeatTimeoutMillis):
 *
 *   topicQueueTable    topic      -> brokerName -> QueueData
 *   brokerAddrTable    brokerName -> BrokerData (cluster, brokerId -> address)
 *   clusterAddrTable   cluster    -> broker names
 *   brokerLiveTable    brokerAddr -> BrokerLiveInfo (last update, data version, channel, HA address)
 *   filterServerTable  brokerAddr -> filter server addresses
 *
 * Node runs one request at a time, so the tables need no lock: every operation is synchronous. Route reads
 * are a map lookup plus, on a cache miss, one encode: the encoded route body of each topic is cached (both
 * forms, standard and fastjson) and dropped whenever anything it depends on changes. A re-registration whose
 * data version did not change touches only the live table and keeps the cache.
 *
 * Bodies list map entries in the Java HashMap iteration order (see protocol/message/java-hash.ts) so that they match
 * the Java name server's answers.
 *
 * @see org.apache.rocketmq.namesrv.routeinfo.RouteInfoManager
 */
import { RequestCode } from '../../protocol/code/request-code';
import { encodeClusterInfo } from '../../protocol/body/cluster-info';
import { type DataVersion, dataVersionEquals } from '../../protocol/body/data-version';
import { PermName } from '../../protocol/body/perm-name';
import type { TopicConfigSerializeWrapper } from '../../protocol/body/topic-config-serialize-wrapper';
import { encodeTopicList } from '../../protocol/body/topic-list';
import {
  type BrokerData, MASTER_ID, type QueueData, type TopicRouteData, encodeTopicRouteData,
} from '../../protocol/body/topic-route-data';
import { hasUnitFlag, hasUnitSubFlag } from '../../protocol/body/topic-sys-flag';
import { type Logger, componentLogger } from '../logger';
import type { Channel } from '../transport/connection';
import { javaHashOrderKeys } from '../../protocol/message/java-hash';

export interface BrokerLiveInfo {
  lastUpdateTimestamp: number;
  dataVersion: DataVersion;
  channel: Channel | null;
  haServerAddr: string;
  /** 5.x heartbeatTimeoutMillis; undefined: the configured brokerChannelExpiredTime. */
  heartbeatTimeoutMillis?: number;
}

export interface RegisterBrokerResult {
  haServerAddr?: string;
  masterAddr?: string;
}

export interface RegisterBrokerArgs {
  clusterName: string;
  brokerAddr: string;
  brokerName: string;
  brokerId: number;
  haServerAddr: string;
  topicConfigWrapper: TopicConfigSerializeWrapper;
  /** null: leave the filter server table alone (Java's old-broker path). */
  filterServerList: string[] | null;
  channel: Channel | null;
  /** 5.x header: kept on BrokerData and written in routes when a broker sent it. */
  enableActingMaster?: boolean;
  /** 5.x header. */
  heartbeatTimeoutMillis?: number;
}

export interface RouteInfoManagerOptions {
  /** Java BROKER_CHANNEL_EXPIRED_TIME. */
  brokerChannelExpiredTime: number;
  logger?: Logger;
  /** Clock, for tests. */
  now?: () => number;
}

interface StoredBrokerData {
  cluster: string;
  brokerName: string;
  brokerAddrs: Map<number, string>;
  enableActingMaster?: boolean;
}

interface CachedRoute {
  standard?: Buffer;
  fastjson?: Buffer;
  orderTopicConf: string | undefined;
}

export class RouteInfoManager {
  readonly topicQueueTable = new Map<string, Map<string, QueueData>>();
  readonly brokerAddrTable = new Map<string, StoredBrokerData>();
  readonly clusterAddrTable = new Map<string, Set<string>>();
  readonly brokerLiveTable = new Map<string, BrokerLiveInfo>();
  readonly filterServerTable = new Map<string, string[]>();
  readonly #routeCache = new Map<string, CachedRoute>();
  readonly #logger: Logger;
  readonly #now: () => number;
  brokerChannelExpiredTime: number;

  constructor(options: RouteInfoManagerOptions) {
    this.brokerChannelExpiredTime = options.brokerChannelExpiredTime;
    this.#logger = componentLogger('namesrv-route', options.logger);
    this.#now = options.now ?? Date.now;
  }

  // ---------------------------------------------------------------------------------------------- writes

  registerBroker(args: RegisterBrokerArgs): RegisterBrokerResult {
    const { clusterName, brokerAddr, brokerName, brokerId, topicConfigWrapper } = args;
    const result: RegisterBrokerResult = {};

    let brokerNames = this.clusterAddrTable.get(clusterName);
    if (!brokerNames) {
      brokerNames = new Set();
      this.clusterAddrTable.set(clusterName, brokerNames);
    }
    brokerNames.add(brokerName);

    let registerFirst = false;
    let brokerData = this.brokerAddrTable.get(brokerName);
    if (!brokerData) {
      registerFirst = true;
      brokerData = { cluster: clusterName, brokerName, brokerAddrs: new Map() };
      this.brokerAddrTable.set(brokerName, brokerData);
      this.#invalidateAll();
    }
    if (args.enableActingMaster !== undefined && brokerData.enableActingMaster !== args.enableActingMaster) {
      brokerData.enableActingMaster = args.enableActingMaster;
      this.#invalidateAll();
    }
    // Slave switched to master: one address has one brokerId only.
    for (const [id, addr] of brokerData.brokerAddrs) {
      if (addr === brokerAddr && id !== brokerId) {
        brokerData.brokerAddrs.delete(id);
        this.#invalidateAll();
      }
    }
    const oldAddr = brokerData.brokerAddrs.get(brokerId);
    // Java 5.x: a registration for an id held by another address whose state version (the master epoch or term it
    // was elected in) is newer is stale, e.g. an old master resumed after a pause that still thinks it leads: ignored,
    // and the address dropped from the live table.
    if (oldAddr !== undefined && oldAddr !== brokerAddr) {
      const oldStateVersion = this.brokerLiveTable.get(oldAddr)?.dataVersion.stateVersion ?? 0;
      const newStateVersion = topicConfigWrapper.dataVersion.stateVersion ?? 0;
      if (oldStateVersion > newStateVersion) {
        this.#logger.warn({ cluster: clusterName, brokerName, brokerId, oldAddr, oldStateVersion, brokerAddr, newStateVersion },
          'Registering Broker conflicts with the existed one, just ignore');
        if (this.brokerLiveTable.delete(brokerAddr)) this.#invalidateAll();
        return result;
      }
    }
    if (oldAddr !== brokerAddr) {
      brokerData.brokerAddrs.set(brokerId, brokerAddr);
      sortNumericKeys(brokerData.brokerAddrs);
      this.#invalidateAll();
      if (brokerId === MASTER_ID && oldAddr !== undefined) {
        this.#logger.info({ cluster: clusterName, brokerName, oldAddr, brokerAddr }, 'master broker address changed');
      }
    }
    registerFirst = registerFirst || oldAddr === undefined;

    if (brokerId === MASTER_ID) {
      if (this.isBrokerTopicConfigChanged(brokerAddr, topicConfigWrapper.dataVersion) || registerFirst) {
        for (const topicConfig of topicConfigWrapper.topicConfigTable.values()) {
          this.#createAndUpdateQueueData(brokerName, {
            brokerName,
            readQueueNums: topicConfig.readQueueNums,
            writeQueueNums: topicConfig.writeQueueNums,
            perm: topicConfig.perm,
            topicSysFlag: topicConfig.topicSysFlag,
          }, topicConfig.topicName);
        }
      }
    }

    const prev = this.brokerLiveTable.get(brokerAddr);
    this.brokerLiveTable.set(brokerAddr, {
      lastUpdateTimestamp: this.#now(),
      dataVersion: topicConfigWrapper.dataVersion,
      channel: args.channel,
      haServerAddr: args.haServerAddr,
      heartbeatTimeoutMillis: args.heartbeatTimeoutMillis,
    });
    if (!prev) this.#logger.info({ brokerAddr, brokerName, cluster: clusterName }, 'new broker registered');

    if (args.filterServerList) {
      if (args.filterServerList.length === 0) {
        if (this.filterServerTable.delete(brokerAddr)) this.#invalidateAll();
      } else {
        this.filterServerTable.set(brokerAddr, args.filterServerList);
        this.#invalidateAll();
      }
    }

    if (brokerId !== MASTER_ID) {
      const masterAddr = brokerData.brokerAddrs.get(MASTER_ID);
      if (masterAddr !== undefined) {
        const masterLive = this.brokerLiveTable.get(masterAddr);
        if (masterLive) {
          result.haServerAddr = masterLive.haServerAddr;
          result.masterAddr = masterAddr;
        }
      }
    }
    return result;
  }

  unregisterBroker(clusterName: string, brokerAddr: string, brokerName: string, brokerId: number): void {
    const live = this.brokerLiveTable.delete(brokerAddr);
    this.#logger.info({ brokerAddr, ok: live }, 'unregisterBroker, remove from brokerLiveTable');
    if (this.filterServerTable.delete(brokerAddr)) this.#invalidateAll();

    let removeBrokerName = false;
    const brokerData = this.brokerAddrTable.get(brokerName);
    if (brokerData) {
      if (brokerData.brokerAddrs.delete(brokerId)) this.#invalidateAll();
      if (brokerData.brokerAddrs.size === 0) {
        this.brokerAddrTable.delete(brokerName);
        removeBrokerName = true;
      }
    }
    if (removeBrokerName) {
      const names = this.clusterAddrTable.get(clusterName);
      if (names) {
        names.delete(brokerName);
        if (names.size === 0) this.clusterAddrTable.delete(clusterName);
      }
      this.#removeTopicByBrokerName(brokerName);
    }
  }

  deleteTopic(topic: string, clusterName?: string): void {
    if (!clusterName) {
      this.topicQueueTable.delete(topic);
      this.#routeCache.delete(topic);
      return;
    }
    const brokerNames = this.clusterAddrTable.get(clusterName);
    const queueDataMap = this.topicQueueTable.get(topic);
    if (!brokerNames || !queueDataMap) return;
    for (const name of brokerNames) queueDataMap.delete(name);
    if (queueDataMap.size === 0) this.topicQueueTable.delete(topic);
    this.#routeCache.delete(topic);
  }

  wipeWritePermOfBroker(brokerName: string): number {
    return this.#operateWritePermOfBroker(brokerName, RequestCode.WIPE_WRITE_PERM_OF_BROKER);
  }

  addWritePermOfBroker(brokerName: string): number {
    return this.#operateWritePermOfBroker(brokerName, RequestCode.ADD_WRITE_PERM_OF_BROKER);
  }

  updateBrokerInfoUpdateTimestamp(brokerAddr: string, timestamp = this.#now()): void {
    const live = this.brokerLiveTable.get(brokerAddr);
    if (live) live.lastUpdateTimestamp = timestamp;
  }

  /** Removes brokers silent for longer than their timeout, closing their channels. Returns how many. */
  scanNotActiveBroker(): number {
    let removed = 0;
    const now = this.#now();
    for (const [brokerAddr, live] of [...this.brokerLiveTable]) {
      const timeout = live.heartbeatTimeoutMillis ?? this.brokerChannelExpiredTime;
      if (live.lastUpdateTimestamp + timeout < now) {
        live.channel?.close();
        this.brokerLiveTable.delete(brokerAddr);
        this.#logger.warn({ brokerAddr, timeoutMillis: timeout }, 'the broker channel expired');
        this.onChannelDestroy(brokerAddr, live.channel);
        removed++;
      }
    }
    return removed;
  }

  /**
   * A channel closed: the broker registered on it (or, when none was, the broker whose address is
   * `remoteAddr`) leaves every table.
   */
  onChannelDestroy(remoteAddr: string, channel: Channel | null): void {
    let brokerAddrFound: string | null = null;
    if (channel) {
      for (const [addr, live] of this.brokerLiveTable) {
        if (live.channel === channel) {
          brokerAddrFound = addr;
          break;
        }
      }
    }
    if (brokerAddrFound === null) brokerAddrFound = remoteAddr;
    if (!brokerAddrFound) return;
    this.#removeBrokerAddr(brokerAddrFound);
  }

  // ----------------------------------------------------------------------------------------------- reads

  isBrokerTopicConfigChanged(brokerAddr: string, dataVersion: DataVersion): boolean {
    const prev = this.queryBrokerTopicConfig(brokerAddr);
    return !prev || !dataVersionEquals(prev, dataVersion);
  }

  queryBrokerTopicConfig(brokerAddr: string): DataVersion | null {
    return this.brokerLiveTable.get(brokerAddr)?.dataVersion ?? null;
  }

  /** The route of `topic`, or null when no broker serves it (Java pickupTopicRouteData). */
  pickupTopicRouteData(topic: string): TopicRouteData | null {
    const queueDataMap = this.topicQueueTable.get(topic);
    if (!queueDataMap) return null;
    const queueNames = javaHashOrderKeys(queueDataMap.keys());
    const queueDatas = queueNames.map((name) => ({ ...(queueDataMap.get(name) as QueueData) }));
    const brokerDatas: BrokerData[] = [];
    const filterServerTable = new Map<string, string[]>();
    for (const brokerName of queueNames) {
      const bd = this.brokerAddrTable.get(brokerName);
      if (!bd) continue;
      const clone: BrokerData = { cluster: bd.cluster, brokerName: bd.brokerName, brokerAddrs: new Map(bd.brokerAddrs) };
      if (bd.enableActingMaster !== undefined) clone.enableActingMaster = bd.enableActingMaster;
      brokerDatas.push(clone);
      if (this.filterServerTable.size > 0) {
        for (const addr of clone.brokerAddrs.values()) {
          const list = this.filterServerTable.get(addr);
          if (list) filterServerTable.set(addr, list);
        }
      }
    }
    if (brokerDatas.length === 0) return null;
    return { queueDatas, brokerDatas, filterServerTable };
  }

  /**
   * The encoded GET_ROUTEINFO_BY_TOPIC body of `topic` (cached), or null when unknown. `standardJson`: quoted
   * keys, sorted maps, browser-compatible escapes (clients of 4.9.4 and later, or acceptStandardJsonOnly).
   */
  encodedRouteData(topic: string, standardJson: boolean, orderTopicConf?: string): Buffer | null {
    let cached = this.#routeCache.get(topic);
    if (cached && cached.orderTopicConf !== orderTopicConf) {
      this.#routeCache.delete(topic);
      cached = undefined;
    }
    const hit = cached && (standardJson ? cached.standard : cached.fastjson);
    if (hit) return hit;
    const route = this.pickupTopicRouteData(topic);
    if (!route) return null;
    if (orderTopicConf !== undefined) route.orderTopicConf = orderTopicConf;
    const body = encodeTopicRouteData(route, { standardJson });
    if (!cached) {
      cached = { orderTopicConf };
      this.#routeCache.set(topic, cached);
    }
    if (standardJson) cached.standard = body;
    else cached.fastjson = body;
    return body;
  }

  /** GET_BROKER_CLUSTER_INFO body: brokerAddrTable and clusterAddrTable, in Java's HashMap order. */
  encodedClusterInfo(): Buffer {
    const brokerAddrTable = new Map<string, BrokerData>();
    for (const name of javaHashOrderKeys(this.brokerAddrTable.keys(), 128)) {
      const bd = this.brokerAddrTable.get(name) as StoredBrokerData;
      const out: BrokerData = { cluster: bd.cluster, brokerName: bd.brokerName, brokerAddrs: bd.brokerAddrs };
      if (bd.enableActingMaster !== undefined) out.enableActingMaster = bd.enableActingMaster;
      brokerAddrTable.set(name, out);
    }
    const clusterAddrTable = new Map<string, string[]>();
    for (const cluster of javaHashOrderKeys(this.clusterAddrTable.keys(), 32)) {
      clusterAddrTable.set(cluster, javaHashOrderKeys(this.clusterAddrTable.get(cluster) as Set<string>));
    }
    return encodeClusterInfo({ brokerAddrTable, clusterAddrTable });
  }

  getAllTopicList(): string[] {
    return javaHashOrderKeys(this.topicQueueTable.keys());
  }

  /** Java getSystemTopicList: cluster names and broker names, plus one broker address. */
  encodedSystemTopicList(): Buffer {
    const topics = new Set<string>();
    for (const cluster of javaHashOrderKeys(this.clusterAddrTable.keys(), 32)) {
      topics.add(cluster);
      for (const name of this.clusterAddrTable.get(cluster) as Set<string>) topics.add(name);
    }
    let brokerAddr: string | undefined;
    for (const name of javaHashOrderKeys(this.brokerAddrTable.keys(), 128)) {
      const addrs = (this.brokerAddrTable.get(name) as StoredBrokerData).brokerAddrs;
      if (addrs.size > 0) {
        brokerAddr = addrs.values().next().value;
        break;
      }
    }
    return encodeTopicList({ topicList: javaHashOrderKeys(topics), brokerAddr });
  }

  getTopicsByCluster(cluster: string): string[] {
    const names = this.clusterAddrTable.get(cluster);
    const out = new Set<string>();
    if (!names) return [];
    for (const name of names) {
      for (const [topic, qdm] of this.topicQueueTable) if (qdm.has(name)) out.add(topic);
    }
    return javaHashOrderKeys(out);
  }

  getUnitTopics(): string[] {
    return this.#topicsWhere((qd) => hasUnitFlag(qd.topicSysFlag));
  }

  getHasUnitSubTopicList(): string[] {
    return this.#topicsWhere((qd) => hasUnitSubFlag(qd.topicSysFlag));
  }

  getHasUnitSubUnUnitTopicList(): string[] {
    return this.#topicsWhere((qd) => !hasUnitFlag(qd.topicSysFlag) && hasUnitSubFlag(qd.topicSysFlag));
  }

  // ----------------------------------------------------------------------------------------------- inner

  #topicsWhere(pick: (qd: QueueData) => boolean): string[] {
    const out: string[] = [];
    for (const [topic, qdm] of this.topicQueueTable) {
      // Java looks at the first queue data only.
      const first = qdm.values().next();
      if (!first.done && pick(first.value)) out.push(topic);
    }
    return javaHashOrderKeys(out);
  }

  #createAndUpdateQueueData(brokerName: string, queueData: QueueData, topic: string): void {
    let map = this.topicQueueTable.get(topic);
    if (!map) {
      map = new Map();
      this.topicQueueTable.set(topic, map);
    }
    const old = map.get(brokerName);
    if (old && queueDataEquals(old, queueData)) return;
    if (old) this.#logger.info({ topic, old, new: queueData }, 'topic changed');
    map.set(brokerName, queueData);
    this.#routeCache.delete(topic);
  }

  #operateWritePermOfBroker(brokerName: string, requestCode: number): number {
    let count = 0;
    for (const [topic, qdm] of this.topicQueueTable) {
      const qd = qdm.get(brokerName);
      if (!qd) continue;
      const perm = requestCode === RequestCode.WIPE_WRITE_PERM_OF_BROKER
        ? qd.perm & ~PermName.PERM_WRITE
        : PermName.PERM_READ | PermName.PERM_WRITE;
      qdm.set(brokerName, { ...qd, perm });
      this.#routeCache.delete(topic);
      count++;
    }
    return count;
  }

  #removeBrokerAddr(brokerAddr: string): void {
    this.brokerLiveTable.delete(brokerAddr);
    this.filterServerTable.delete(brokerAddr);
    let brokerNameFound: string | null = null;
    let removeBrokerName = false;
    for (const [name, bd] of this.brokerAddrTable) {
      for (const [id, addr] of bd.brokerAddrs) {
        if (addr === brokerAddr) {
          brokerNameFound = name;
          bd.brokerAddrs.delete(id);
          this.#invalidateAll();
          this.#logger.info({ brokerId: id, brokerAddr }, 'remove brokerAddr from brokerAddrTable, because channel destroyed');
          break;
        }
      }
      if (bd.brokerAddrs.size === 0) {
        removeBrokerName = true;
        this.brokerAddrTable.delete(name);
      }
      if (brokerNameFound !== null) break;
    }
    if (brokerNameFound !== null && removeBrokerName) {
      for (const [cluster, names] of this.clusterAddrTable) {
        if (names.delete(brokerNameFound)) {
          if (names.size === 0) this.clusterAddrTable.delete(cluster);
          break;
        }
      }
      this.#removeTopicByBrokerName(brokerNameFound);
    }
  }

  #removeTopicByBrokerName(brokerName: string): void {
    for (const [topic, qdm] of [...this.topicQueueTable]) {
      if (qdm.delete(brokerName)) this.#routeCache.delete(topic);
      if (qdm.size === 0) this.topicQueueTable.delete(topic);
    }
  }

  #invalidateAll(): void {
    this.#routeCache.clear();
  }
}

function queueDataEquals(a: QueueData, b: QueueData): boolean {
  return a.brokerName === b.brokerName && a.readQueueNums === b.readQueueNums && a.writeQueueNums === b.writeQueueNums
    && a.perm === b.perm && a.topicSysFlag === b.topicSysFlag;
}

/** Keeps a brokerId map in ascending id order (a Java HashMap<Long, String>'s order for small ids). */
function sortNumericKeys(m: Map<number, string>): void {
  const sorted = [...m].sort((x, y) => x[0] - y[0]);
  m.clear();
  for (const [k, v] of sorted) m.set(k, v);
}
