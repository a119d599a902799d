/**
 * What the dashboard shows, as plain JSON objects, read from any cluster (ours or Java's) through the admin client.
 * Every function takes a started DefaultMQAdminExt; nothing here knows of HTTP (dashboard-server.ts serves these).
 *
 * The shapes follow what rocketmq-dashboard (the Java console) shows: cluster → brokers with role, version and TPS;
 * topics with their queues and offsets; consumer groups with members and lag per queue; messages with properties,
 * body and what each consumer group did with them (DefaultMQAdminExtImpl.messageTrackDetail, as mqadmin queryMsgById).
 */
import { ResponseCode } from '../../protocol/code/response-code';
import { MessageConst } from '../../protocol/message/message-const';
import type { MessageExt } from '../../protocol/message/message';
import type { MessageQueue } from '../../protocol/message/message-queue';
import { newTopicConfig } from '../../protocol/body/topic-config';
import { MASTER_ID } from '../../protocol/body/topic-route-data';
import { MixAll, isSysConsumerGroup, isSystemTopic } from '../client/mix-all';
import { getVersionDesc } from '../client/mq-version';
import { PullStatus } from '../client/mq-client-api-consumer';
import type { DefaultMQAdminExt } from '../admin/default-mq-admin-ext';
import { DashboardInputError, MQBrokerError, MQClientError } from '../errors';

export { DashboardInputError };

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export interface BrokerView {
  cluster: string;
  brokerName: string;
  brokerId: number;
  addr: string;
  /** ASYNC_MASTER / SYNC_MASTER / SLAVE from the broker's config; MASTER or SLAVE by id when the config is not readable. */
  role: string;
  version: string;
  inTps: number;
  outTps: number;
  msgPutTotalTodayNow: number;
  msgGetTotalTodayNow: number;
  error?: string;
}

const firstNumber = (v: string | undefined): number => Number((v ?? '0').split(' ')[0]) || 0;

/** Every broker of every cluster, with its role, version and TPS (GET_BROKER_RUNTIME_INFO, GET_BROKER_CONFIG). */
export async function clusterView(admin: DefaultMQAdminExt): Promise<{ namesrvAddr: string[]; brokers: BrokerView[] }> {
  const info = await admin.examineBrokerClusterInfo();
  const rows: Array<Promise<BrokerView>> = [];
  for (const [cluster, names] of [...info.clusterAddrTable].sort((a, b) => a[0].localeCompare(b[0]))) {
    for (const brokerName of [...names].sort()) {
      const bd = info.brokerAddrTable.get(brokerName);
      if (!bd) continue;
      for (const [brokerId, addr] of [...bd.brokerAddrs].sort((a, b) => a[0] - b[0])) {
        rows.push((async (): Promise<BrokerView> => {
          const view: BrokerView = {
            cluster, brokerName, brokerId, addr, role: brokerId === MASTER_ID ? 'MASTER' : 'SLAVE', version: '',
            inTps: 0, outTps: 0, msgPutTotalTodayNow: 0, msgGetTotalTodayNow: 0,
          };
          try {
            const t = (await admin.fetchBrokerRuntimeStats(addr)).table;
            view.version = t.get('brokerVersionDesc') ?? '';
            view.inTps = firstNumber(t.get('putTps'));
            view.outTps = firstNumber(t.get('getTransferedTps'));
            view.msgPutTotalTodayNow = firstNumber(t.get('msgPutTotalTodayNow'));
            view.msgGetTotalTodayNow = firstNumber(t.get('msgGetTotalTodayNow'));
            const role = (await admin.getBrokerConfig(addr)).get('brokerRole');
            if (role) view.role = role;
          } catch (err) {
            view.error = errorText(err);
          }
          return view;
        })());
      }
    }
  }
  return { namesrvAddr: admin.getNameServerAddressList(), brokers: await Promise.all(rows) };
}

export type TopicKind = 'NORMAL' | 'RETRY' | 'DLQ' | 'SYSTEM';

function topicKind(topic: string): TopicKind {
  if (topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) return 'RETRY';
  if (topic.startsWith(MixAll.DLQ_GROUP_TOPIC_PREFIX)) return 'DLQ';
  return isSystemTopic(topic) ? 'SYSTEM' : 'NORMAL';
}

/** Every topic the name servers know, with its kind. */
export async function topicsView(admin: DefaultMQAdminExt): Promise<Array<{ topic: string; kind: TopicKind }>> {
  const topics = (await admin.fetchAllTopicList()).topicList;
  // the topics a broker registers under its cluster's and its own name, and the cluster's reply topic
  const info = await admin.examineBrokerClusterInfo();
  const own = new Set([...info.clusterAddrTable.keys(), ...info.brokerAddrTable.keys()]);
  for (const c of info.clusterAddrTable.keys()) own.add(`${c}_REPLY_TOPIC`);
  return [...topics].sort().map((topic) => ({ topic, kind: own.has(topic) ? 'SYSTEM' : topicKind(topic) }));
}

/** One topic: its route (brokers, queue counts, permissions), the offsets of each queue, the groups that consume it. */
export async function topicView(admin: DefaultMQAdminExt, topic: string): Promise<unknown> {
  const route = await admin.examineTopicRouteInfo(topic);
  let queues: Array<MessageQueue & { minOffset: number; maxOffset: number; messages: number; lastUpdateTimestamp: number }> = [];
  let statsError: string | undefined;
  try {
    queues = (await admin.examineTopicStats(topic)).offsetTable.map(([mq, o]) => ({
      ...mq, minOffset: o.minOffset, maxOffset: o.maxOffset, messages: o.maxOffset - o.minOffset, lastUpdateTimestamp: o.lastUpdateTimestamp,
    }));
    queues.sort((a, b) => a.brokerName.localeCompare(b.brokerName) || a.queueId - b.queueId);
  } catch (err) {
    statsError = errorText(err);
  }
  let groups: string[] = [];
  try {
    groups = (await admin.queryTopicConsumeByWho(topic)).groupList.sort();
  } catch {
    // a topic nobody consumes, or a broker that does not answer: no groups
  }
  return {
    topic, kind: topicKind(topic),
    brokers: route.brokerDatas.map((b) => ({ cluster: b.cluster, brokerName: b.brokerName, addrs: Object.fromEntries(b.brokerAddrs) })),
    queueDatas: route.queueDatas.map((q) => ({ brokerName: q.brokerName, readQueueNums: q.readQueueNums, writeQueueNums: q.writeQueueNums, perm: q.perm })),
    queues, statsError, groups,
  };
}

/** The master addresses of a cluster (every cluster when `clusterName` is empty). */
async function masters(admin: DefaultMQAdminExt, clusterName?: string): Promise<string[]> {
  const info = await admin.examineBrokerClusterInfo();
  const out: string[] = [];
  for (const [cluster, names] of info.clusterAddrTable) {
    if (clusterName && cluster !== clusterName) continue;
    for (const name of names) {
      const addr = info.brokerAddrTable.get(name)?.brokerAddrs.get(MASTER_ID);
      if (addr) out.push(addr);
    }
  }
  if (out.length === 0) throw new DashboardInputError(clusterName ? `no master broker in cluster ${clusterName}` : 'no master broker');
  return out.sort();
}

const TOPIC_NAME = /^[%|a-zA-Z0-9_-]{1,127}$/;

/** Creates or updates a topic on every master of the cluster (as mqadmin updateTopic -c). */
export async function createTopic(admin: DefaultMQAdminExt, input: Record<string, unknown>): Promise<{ brokers: string[] }> {
  const topic = String(input.topic ?? '');
  if (!TOPIC_NAME.test(topic)) throw new DashboardInputError('topic: 1 to 127 of letters, digits, %, |, _ or -');
  const readQueueNums = Number(input.readQueueNums ?? 8);
  const writeQueueNums = Number(input.writeQueueNums ?? readQueueNums);
  const perm = Number(input.perm ?? 6);
  for (const [k, v] of [['readQueueNums', readQueueNums], ['writeQueueNums', writeQueueNums]] as const) {
    if (!Number.isInteger(v) || v < 1 || v > 1024) throw new DashboardInputError(`${k}: an integer from 1 to 1024`);
  }
  if (![2, 4, 6].includes(perm)) throw new DashboardInputError('perm: 2 (write), 4 (read) or 6 (read and write)');
  const brokers = await masters(admin, input.clusterName ? String(input.clusterName) : undefined);
  for (const addr of brokers) await admin.createAndUpdateTopicConfig(addr, newTopicConfig(topic, { readQueueNums, writeQueueNums, perm }));
  return { brokers };
}

/** Deletes a topic on every master of the cluster, then on every name server (as mqadmin deleteTopic). */
export async function deleteTopic(admin: DefaultMQAdminExt, topic: string, clusterName?: string): Promise<{ brokers: string[] }> {
  if (!topic) throw new DashboardInputError('topic is required');
  const brokers = await masters(admin, clusterName);
  await admin.deleteTopicInBroker(brokers, topic);
  await admin.deleteTopicInNameServer(null, topic);
  return { brokers };
}

export interface GroupSummary {
  group: string;
  system: boolean;
  members: number | null;
  consumeTps: number | null;
  diffTotal: number | null;
  consumeType?: string;
  messageModel?: string;
}

/** How many GET_CONSUMER_CONNECTION_LIST requests the group list keeps in flight. */
const GROUP_MEMBERS_CONCURRENCY = 16;

/**
 * Every subscription group of every master, with its online members, TPS and total lag. Per master two requests
 * (its groups, GET_BROKER_CONSUME_STATS for every group's offsets and TPS at once), then one member count per group
 * asked of a master that has the group, at most GROUP_MEMBERS_CONCURRENCY in flight: thousands of groups cost no
 * route lookups and no burst of thousands of requests.
 */
export async function groupsView(admin: DefaultMQAdminExt): Promise<GroupSummary[]> {
  /** Each group and a master that has it (its consumers heartbeat to every broker of their topics). */
  const names = new Map<string, string>();
  const stats = new Map<string, { consumeTps: number; diffTotal: number }>();
  await Promise.all((await masters(admin)).map(async (addr) => {
    try {
      for (const g of (await admin.getAllSubscriptionGroup(addr)).keys()) if (!names.has(g)) names.set(g, addr);
    } catch {
      // a broker that does not answer: its groups are missing from the list
    }
    try {
      for (const byGroup of (await admin.fetchConsumeStatsInBroker(addr, false)).consumeStatsList) {
        for (const [group, list] of byGroup) {
          const row = stats.get(group) ?? { consumeTps: 0, diffTotal: 0 };
          for (const s of list) {
            row.consumeTps += s.consumeTps;
            for (const [, o] of s.offsetTable) row.diffTotal += Math.max(0, o.brokerOffset - o.consumerOffset);
          }
          stats.set(group, row);
        }
      }
    } catch {
      // no stats from that broker: its groups show none
    }
  }));
  const rows: GroupSummary[] = [...names.keys()].sort().map((group) => ({
    group, system: isSysConsumerGroup(group) || SYSTEM_GROUPS.has(group), members: null,
    // a group that never committed an offset has no stats
    consumeTps: stats.get(group)?.consumeTps ?? null, diffTotal: stats.get(group)?.diffTotal ?? null,
  }));
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++];
      try {
        const cc = await admin.examineConsumerConnectionInfo(row.group, names.get(row.group));
        row.members = cc.connectionSet.length;
        row.consumeType = cc.consumeType;
        row.messageModel = cc.messageModel;
      } catch {
        row.members = 0;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(GROUP_MEMBERS_CONCURRENCY, rows.length) }, worker));
  return rows;
}

/** The groups a broker creates for itself (MixAll's *_GROUP constants, which isSysConsumerGroup does not cover). */
const SYSTEM_GROUPS = new Set([
  'TOOLS_CONSUMER', 'FILTERSRV_CONSUMER', 'SELF_TEST_C_GROUP', 'CID_ONSAPI_PERMISSION', 'CID_ONSAPI_OWNER', 'CID_ONSAPI_PULL',
  'CID_RMQ_SYS_TRANS', 'CID_SYS_RMQ_TRANS', 'CID_ONS-HTTP-PROXY',
]);

/** One group: members, subscriptions, and per queue the broker offset, the group's offset and the lag. */
export async function groupView(admin: DefaultMQAdminExt, group: string): Promise<unknown> {
  if (!group) throw new DashboardInputError('group is required');
  let members: unknown[] = [];
  let subscriptions: unknown[] = [];
  let consumeType: string | undefined;
  let messageModel: string | undefined;
  let connectionError: string | undefined;
  try {
    const cc = await admin.examineConsumerConnectionInfo(group);
    members = cc.connectionSet.map((c) => ({ clientId: c.clientId, clientAddr: c.clientAddr, language: c.language, version: getVersionDesc(c.version) }))
      .sort((a, b) => a.clientId.localeCompare(b.clientId));
    subscriptions = [...cc.subscriptionTable.values()].map((s) => ({ topic: s.topic, subString: s.subString, expressionType: s.expressionType }));
    consumeType = cc.consumeType;
    messageModel = cc.messageModel;
  } catch (err) {
    connectionError = errorText(err);
  }
  let queues: unknown[] = [];
  let consumeTps = 0;
  let statsError: string | undefined;
  try {
    const stats = await admin.examineConsumeStats(group);
    consumeTps = stats.consumeTps;
    queues = stats.offsetTable.map(([mq, o]) => ({
      ...mq, brokerOffset: o.brokerOffset, consumerOffset: o.consumerOffset, lag: Math.max(0, o.brokerOffset - o.consumerOffset), lastTimestamp: o.lastTimestamp,
    })).sort((a, b) => a.topic.localeCompare(b.topic) || a.brokerName.localeCompare(b.brokerName) || a.queueId - b.queueId);
  } catch (err) {
    statsError = errorText(err);
  }
  return { group, members, subscriptions, consumeType, messageModel, connectionError, consumeTps, queues, statsError };
}

/**
 * Resets the group's offsets of the topic to the first message stored at or after `timestamp`: through the online
 * consumers (INVOKE_BROKER_TO_RESET_OFFSET), or, when none is online, by writing the offsets on the brokers (as
 * mqadmin resetOffsetByTime falls back to its old command).
 */
export async function resetOffset(admin: DefaultMQAdminExt, input: Record<string, unknown>): Promise<{ mode: string; queues: unknown[] }> {
  const group = String(input.group ?? '');
  const topic = String(input.topic ?? '');
  const timestamp = Number(input.timestamp);
  if (!group || !topic) throw new DashboardInputError('group and topic are required');
  if (!Number.isFinite(timestamp) || timestamp < 0) throw new DashboardInputError('timestamp: milliseconds since the epoch');
  try {
    const table = await admin.resetOffsetByTimestamp(topic, group, timestamp, input.force !== false);
    return { mode: 'online', queues: table.map(([mq, offset]) => ({ ...mq, offset })) };
  } catch (err) {
    const code = err instanceof MQBrokerError || err instanceof MQClientError ? err.responseCode : undefined;
    if (code !== ResponseCode.CONSUMER_NOT_ONLINE) throw err;
  }
  const route = await admin.examineTopicRouteInfo(topic);
  const queues: unknown[] = [];
  for (const mq of await admin.fetchSubscribeMessageQueues(topic)) {
    const bd = route.brokerDatas.find((b) => b.brokerName === mq.brokerName);
    const addr = bd?.brokerAddrs.get(MASTER_ID);
    if (!addr) continue;
    const offset = await admin.searchOffset(mq, timestamp);
    await admin.updateConsumeOffset(addr, group, mq, offset);
    queues.push({ ...mq, offset });
  }
  return { mode: 'offline', queues };
}

/** A message as the page shows it (body as UTF-8 text, and base64 when it is not text). */
export function messageJson(m: MessageExt): Record<string, unknown> {
  const text = m.body.toString('utf8');
  const isText = !text.includes('\uFFFD');
  return {
    msgId: m.msgId, offsetMsgId: m.offsetMsgId, topic: m.topic, tags: m.properties[MessageConst.PROPERTY_TAGS] ?? null,
    keys: m.properties[MessageConst.PROPERTY_KEYS] ?? null, brokerName: m.brokerName ?? null, queueId: m.queueId, queueOffset: m.queueOffset,
    commitLogOffset: m.commitLogOffset, reconsumeTimes: m.reconsumeTimes, bornTimestamp: m.bornTimestamp, storeTimestamp: m.storeTimestamp,
    bornHost: `${m.bornHost.address}:${m.bornHost.port}`, storeHost: `${m.storeHost.address}:${m.storeHost.port}`, storeSize: m.storeSize,
    sysFlag: m.sysFlag, flag: m.flag, properties: m.properties, bodySize: m.body.length,
    body: isText ? text : null, bodyBase64: isText ? null : m.body.toString('base64'),
  };
}

/** Pulls per queue are this many messages at most (what the broker returns in one pull by default). */
const PULL_BATCH = 32;

/**
 * Messages of `topic` stored in [begin, end], newest first, at most `max` (rocketmq-dashboard's queryMessageByTopic:
 * each queue from the offset of `begin`, pulled as TOOLS_CONSUMER without committing).
 */
export async function messagesByTime(admin: DefaultMQAdminExt, topic: string, begin: number, end: number, max = 64): Promise<Array<Record<string, unknown>>> {
  if (!topic) throw new DashboardInputError('topic is required');
  if (!(begin <= end)) throw new DashboardInputError('begin must not be after end');
  const found: MessageExt[] = [];
  for (const mq of await admin.fetchSubscribeMessageQueues(topic)) {
    let offset = await admin.searchOffset(mq, begin);
    const maxOffset = await admin.maxOffset(mq);
    let inQueue = 0;
    while (offset < maxOffset && inQueue < max) {
      const r = await admin.pullMessage(mq, '*', offset, Math.min(PULL_BATCH, maxOffset - offset));
      if (r.pullStatus !== PullStatus.FOUND) break;
      let past = false;
      for (const m of r.msgFoundList) {
        if (m.storeTimestamp > end) { past = true; break; }
        if (m.storeTimestamp >= begin) { found.push(m); inQueue++; }
      }
      if (past || r.nextBeginOffset <= offset) break;
      offset = r.nextBeginOffset;
    }
  }
  found.sort((a, b) => b.storeTimestamp - a.storeTimestamp);
  return found.slice(0, max).map(messageJson);
}

/** Messages of `topic` whose keys include `key` (the broker's index; mqadmin queryMsgByKey). */
export async function messagesByKey(admin: DefaultMQAdminExt, topic: string, key: string, max = 64): Promise<Array<Record<string, unknown>>> {
  if (!topic || !key) throw new DashboardInputError('topic and key are required');
  try {
    return (await admin.queryMessage(topic, key, max, 0, Number.MAX_SAFE_INTEGER)).messageList.map(messageJson);
  } catch (err) {
    if (err instanceof MQClientError && err.responseCode === ResponseCode.NO_MESSAGE) return [];
    throw err;
  }
}

/**
 * One message by id, with what each consumer group did with it. The id is tried as an offset msgId (store host +
 * commit-log offset) first, then as a unique key (client msgId) of `topic`, as DefaultMQAdminExtImpl.viewMessage(topic, msgId).
 */
export async function messageById(admin: DefaultMQAdminExt, id: string, topic?: string): Promise<Record<string, unknown>> {
  if (!/^[0-9A-Fa-f]{32,}$/.test(id)) throw new DashboardInputError('id: a message id (hex)');
  let msg: MessageExt | undefined;
  let viewError: unknown;
  try {
    msg = await admin.viewMessage(id.toUpperCase());
  } catch (err) {
    viewError = err;
  }
  if (msg && topic && msg.topic !== topic) msg = undefined;
  if (!msg && topic) {
    try {
      msg = await admin.queryMessageByUniqKey(topic, id.toUpperCase());
    } catch (err) {
      if (!(err instanceof MQClientError && err.responseCode === ResponseCode.NO_MESSAGE)) throw err;
    }
  }
  if (!msg) {
    throw new DashboardInputError(topic ? `no message ${id} in ${topic}` : `no message with offset id ${id} (${errorText(viewError)}); give the topic to look it up as a unique key`);
  }
  let tracks: unknown[] = [];
  let trackError: string | undefined;
  try {
    tracks = await admin.messageTrackDetail(msg);
  } catch (err) {
    trackError = errorText(err);
  }
  return { message: messageJson(msg), tracks, trackError };
}

/** One sample of the live charts: each broker's TPS and each group's total lag. */
export interface Sample {
  t: number;
  brokers: Record<string, { inTps: number; outTps: number }>;
  groups: Record<string, number>;
}

/** Takes one sample: GET_BROKER_RUNTIME_INFO of every broker and GET_BROKER_CONSUME_STATS of every master. */
export async function takeSample(admin: DefaultMQAdminExt, now = Date.now()): Promise<Sample> {
  const info = await admin.examineBrokerClusterInfo();
  const sample: Sample = { t: now, brokers: {}, groups: {} };
  const jobs: Array<Promise<void>> = [];
  for (const [brokerName, bd] of info.brokerAddrTable) {
    for (const [id, addr] of bd.brokerAddrs) {
      const label = `${brokerName}${id === MASTER_ID ? '' : `#${id}`}`;
      jobs.push(admin.fetchBrokerRuntimeStats(addr).then((kv) => {
        sample.brokers[label] = { inTps: firstNumber(kv.table.get('putTps')), outTps: firstNumber(kv.table.get('getTransferedTps')) };
      }, () => undefined));
      if (id !== MASTER_ID) continue;
      jobs.push(admin.fetchConsumeStatsInBroker(addr, false).then((list) => {
        for (const byGroup of list.consumeStatsList) {
          for (const [group, statsList] of byGroup) {
            if (isSysConsumerGroup(group) || SYSTEM_GROUPS.has(group)) continue;
            let lag = 0;
            for (const s of statsList) for (const [, o] of s.offsetTable) lag += Math.max(0, o.brokerOffset - o.consumerOffset);
            sample.groups[group] = (sample.groups[group] ?? 0) + lag;
          }
        }
      }, () => undefined));
    }
  }
  await Promise.all(jobs);
  return sample;
}
