/**
 * `rocketmq-ts admin <command> -n namesrv [options]`: mqadmin's commands, names, options and output formats.
 *
 * Every command takes `-n, --namesrvAddr` (default: env ROCKETMQ_NAMESRV_ADDR / NAMESRV_ADDR) and prints what
 * mqadmin prints. A failure prints `<Command> command failed` and the cause, and exits 1.
 *
 * @see org.apache.rocketmq.tools.command.MQAdminStartup
 */
import { DefaultMQAdminExt } from '../admin/default-mq-admin-ext';
import { AclClientRPCHook } from '../client/acl/acl-client-rpc-hook';
import { newSubscriptionGroupConfig, type SubscriptionGroupConfig } from '../../protocol/body/subscription-group-wrapper';
import { newTopicConfig } from '../../protocol/body/topic-config';
import { topicRouteDataToJson } from '../../protocol/body/topic-route-data';
import { buildTopicSysFlag } from '../../protocol/body/topic-sys-flag';
import { parseAttributes } from '../../protocol/body/topic-attributes';
import { debugEnabled, describeError, errorReport } from './cli-errors';
import { toFastjson } from '../../protocol/body/fastjson';
import { compareMessageQueue } from '../../protocol/message/message-queue';
import { ResponseCode } from '../../protocol/code/response-code';
import { javaPropertiesOrderKeys } from '../../protocol/message/java-hash';
import { MixAll } from '../client/mix-all';
import { getVersionDesc } from '../client/mq-version';
import { ConfigError, MQClientError } from '../errors';
import {
  formatDateTime, frontStringAtLeast, javaFormat, parseDateYMDHMSS, prettyFastjson, timeMillisToHumanString2,
} from './java-format';
import {
  type Command, type OptionSpec, type Out, JSON_OPTION, bool, int, masterAddrsOfCluster, masterAndSlaveOfCluster, opt, printJson, targets, wantsJson,
} from './admin/command';
import { NAMESRV_COMMANDS } from './admin/namesrv';
import { TOPIC_COMMANDS, topicConfigToString } from './admin/topic';
import { MESSAGE_COMMANDS, printMessageDetail } from './admin/message';
import { CONSUMER_COMMANDS } from './admin/consumer';
import { BROKER_COMMANDS } from './admin/broker';
import { EXPORT_COMMANDS } from './admin/export';
import { TRACE_COMMANDS } from './admin/trace';
import { ACL_COMMANDS } from './admin/acl';
import { STORE_COMMANDS } from './admin/store';
import { CONSUMER_STATUS_COMMANDS } from './admin/consumer-status';
import { CLUSTER_RT_COMMANDS } from './admin/cluster-rt';
import { MONITOR_COMMANDS } from './admin/monitor';

export { topicConfigToString };

/** SubscriptionGroupConfig.toString. */
export function subscriptionGroupConfigToString(c: SubscriptionGroupConfig): string {
  return `SubscriptionGroupConfig [groupName=${c.groupName}, consumeEnable=${c.consumeEnable}, consumeFromMinEnable=${c.consumeFromMinEnable}, `
    + `consumeBroadcastEnable=${c.consumeBroadcastEnable}, retryQueueNums=${c.retryQueueNums}, retryMaxTimes=${c.retryMaxTimes}, `
    + `brokerId=${c.brokerId}, whichBrokerWhenConsumeSlowly=${c.whichBrokerWhenConsumeSlowly}, `
    + `notifyConsumerIdsChangedEnable=${c.notifyConsumerIdsChangedEnable}]`;
}

// ---------------------------------------------------------------- commands

const COMMANDS: Command[] = [
  {
    name: 'clusterList', desc: 'List all of clusters', options: {},
    async run(admin, opts, out) {
      const info = await admin.examineBrokerClusterInfo();
      if (wantsJson(opts)) return printJson(out, info);
      const fmt = '%-16s  %-22s  %-4s  %-22s %-16s %19s %19s %10s %5s %6s%n';
      out(javaFormat(fmt, '#Cluster Name', '#Broker Name', '#BID', '#Addr', '#Version', '#InTPS(LOAD)', '#OutTPS(LOAD)', '#PCWait(ms)', '#Hour', '#SPACE'));
      for (const [clusterName, brokerNames] of info.clusterAddrTable) {
        for (const brokerName of [...brokerNames].sort()) {
          const bd = info.brokerAddrTable.get(brokerName);
          if (!bd) continue;
          for (const [id, addr] of bd.brokerAddrs) {
            let inTps = 0;
            let outTps = 0;
            let t = new Map<string, string>();
            try {
              t = (await admin.fetchBrokerRuntimeStats(addr)).table;
              inTps = Number((t.get('putTps') ?? '0').split(' ')[0]) || 0;
              outTps = Number((t.get('getTransferedTps') ?? '0').split(' ')[0]) || 0;
            } catch (err) {
              process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
            }
            const earliest = t.get('earliestMessageTimeStamp');
            const hour = earliest ? (Date.now() - Number(earliest)) / 1000 / 60 / 60 : 0;
            const ratio = t.get('commitLogDiskRatio');
            const space = ratio ? Number(ratio) : 0;
            out(javaFormat(fmt, clusterName, brokerName, id, addr, t.get('brokerVersionDesc') ?? '',
              javaFormat('%9.2f(%s,%sms)', inTps, t.get('sendThreadPoolQueueSize') ?? 'null', t.get('sendThreadPoolQueueHeadWaitTimeMills') ?? 'null'),
              javaFormat('%9.2f(%s,%sms)', outTps, t.get('pullThreadPoolQueueSize') ?? 'null', t.get('pullThreadPoolQueueHeadWaitTimeMills') ?? 'null'),
              t.get('pageCacheLockTimeMills') ?? 'null', javaFormat('%2.2f', hour), javaFormat('%.4f', space)));
          }
        }
      }
    },
  },
  {
    name: 'topicList', desc: 'Fetch all topic list from name server', options: { c: opt('clusterModel', 'clusterModel', false, false) },
    async run(admin, opts, out) {
      const topics = (await admin.fetchAllTopicList()).topicList;
      if (wantsJson(opts) && !opts.has('c')) return printJson(out, topics);
      if (!opts.has('c')) {
        for (const t of topics) out(javaFormat('%s%n', t));
        return;
      }
      const info = await admin.examineBrokerClusterInfo();
      out(javaFormat('%-20s  %-48s  %-48s%n', '#Cluster Name', '#Topic', '#Consumer Group'));
      for (const topic of topics) {
        if (topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) || topic.startsWith(MixAll.DLQ_GROUP_TOPIC_PREFIX)) continue;
        let clusterName: string | null = '';
        let groups: string[] = [];
        try {
          const route = await admin.examineTopicRouteInfo(topic);
          const brokerName = route.brokerDatas[0]?.brokerName;
          clusterName = null;
          for (const [c, names] of info.clusterAddrTable) if (brokerName !== undefined && names.includes(brokerName)) { clusterName = c; break; }
          groups = (await admin.queryTopicConsumeByWho(topic)).groupList;
        } catch {
          // as mqadmin: the topic is listed without cluster or groups
        }
        if (groups.length === 0) groups = [''];
        for (const g of groups) {
          out(javaFormat('%-20s  %-64s  %-64s%n', frontStringAtLeast(clusterName, 20), frontStringAtLeast(topic, 64), frontStringAtLeast(g, 64)));
        }
      }
    },
  },
  {
    name: 'topicRoute', desc: 'Examine topic route info',
    options: { t: opt('topic', 'topic name', true), l: opt('list', 'Use list format to print data', false, false) },
    async run(admin, opts, out) {
      const route = await admin.examineTopicRouteInfo(opts.get('t')!.trim());
      if (wantsJson(opts)) return printJson(out, route);
      if (!opts.has('l')) {
        out(javaFormat('%s%n', prettyFastjson(toFastjson(topicRouteDataToJson(route)))));
        return;
      }
      const FORMAT = '%-45s %-32s %-50s %-10s %-11s %-5s%n';
      const byName = new Map(route.queueDatas.map((q) => [q.brokerName, q]));
      let totalRead = 0;
      let totalWrite = 0;
      out(javaFormat(FORMAT, '#ClusterName', '#BrokerName', '#BrokerAddrs', '#ReadQueue', '#WriteQueue', '#Perm'));
      for (const bd of [...route.brokerDatas].sort((a, b) => (a.brokerName < b.brokerName ? -1 : 1))) {
        const q = byName.get(bd.brokerName);
        if (!q) continue;
        totalRead += q.readQueueNums;
        totalWrite += q.writeQueueNums;
        out(javaFormat(FORMAT, bd.cluster, bd.brokerName, bd.brokerAddrs, q.readQueueNums, q.writeQueueNums, q.perm));
      }
      out('-'.repeat(158));
      out('\n');
      out(javaFormat(FORMAT, 'Total:', byName.size, '', totalRead, totalWrite, ''));
    },
  },
  {
    name: 'topicStatus', desc: 'Examine topic Status info', options: { t: opt('topic', 'topic name', true) },
    async run(admin, opts, out) {
      const stats = await admin.examineTopicStats(opts.get('t')!.trim());
      if (wantsJson(opts)) return printJson(out, stats.offsetTable.map(([q, o]) => ({ ...q, ...o })));
      out(javaFormat('%-32s  %-4s  %-20s  %-20s    %s%n', '#Broker Name', '#QID', '#Min Offset', '#Max Offset', '#Last Updated'));
      for (const [q, o] of [...stats.offsetTable].sort((a, b) => compareMessageQueue(a[0], b[0]))) {
        out(javaFormat('%-32s  %-4d  %-20d  %-20d    %s%n', frontStringAtLeast(q.brokerName, 32), q.queueId, o.minOffset, o.maxOffset,
          o.lastUpdateTimestamp > 0 ? timeMillisToHumanString2(o.lastUpdateTimestamp) : ''));
      }
    },
  },
  {
    name: 'updateTopic', desc: 'Update or create topic',
    options: {
      b: opt('brokerAddr', 'create topic to which broker'), c: opt('clusterName', 'create topic to which cluster'),
      t: opt('topic', 'topic name', true), r: opt('readQueueNums', 'set read queue nums'), w: opt('writeQueueNums', 'set write queue nums'),
      p: opt('perm', 'set topic\'s permission(2|4|6), intro[2:W 4:R; 6:RW]'), o: opt('order', 'set topic\'s order(true|false)'),
      u: opt('unit', 'is unit topic (true|false)'), s: opt('hasUnitSub', 'has unit sub (true|false)'),
      a: opt('attributes', 'attribute(+a=b,+c=d,-e)'),
    },
    async run(admin, opts, out) {
      const config = newTopicConfig(opts.get('t')!.trim(), { readQueueNums: 8, writeQueueNums: 8 });
      // 5.x: the modification as given (AttributeParser.parseToMap), sent as the header's attributes.
      if (opts.has('a')) config.attributes = parseAttributes(opts.get('a')!.trim());
      if (opts.has('r')) config.readQueueNums = int(opts.get('r')!, 'readQueueNums');
      if (opts.has('w')) config.writeQueueNums = int(opts.get('w')!, 'writeQueueNums');
      if (opts.has('p')) config.perm = int(opts.get('p')!, 'perm');
      config.topicSysFlag = buildTopicSysFlag(bool(opts.get('u'), false), bool(opts.get('s'), false));
      config.order = bool(opts.get('o'), false);
      if (opts.has('b')) {
        const addr = opts.get('b')!.trim();
        await admin.createAndUpdateTopicConfig(addr, config);
        if (config.order) {
          const info = await admin.examineBrokerClusterInfo();
          const bd = [...info.brokerAddrTable.values()].find((b) => [...b.brokerAddrs.values()].includes(addr));
          const orderConf = `${bd?.brokerName ?? ''}:${config.writeQueueNums}`;
          await admin.putKVConfig('ORDER_TOPIC_CONFIG', config.topicName, orderConf);
          out(`set broker orderConf. isOrder=${config.order}, orderConf=[${orderConf}]`);
        }
        out(javaFormat('create topic to %s success.%n', addr));
        out(topicConfigToString(config));
        return;
      }
      if (!opts.has('c')) throw new ConfigError('updateTopic needs -b brokerAddr or -c clusterName');
      const clusterName = opts.get('c')!.trim();
      const info = await admin.examineBrokerClusterInfo();
      for (const addr of masterAddrsOfCluster(info, clusterName)) {
        await admin.createAndUpdateTopicConfig(addr, config);
        out(javaFormat('create topic to %s success.%n', addr));
      }
      if (config.order) {
        const orderConf = (info.clusterAddrTable.get(clusterName) ?? []).map((n) => `${n}:${config.writeQueueNums}`).join(';');
        await admin.putKVConfig('ORDER_TOPIC_CONFIG', config.topicName, orderConf);
        out(`set cluster orderConf. isOrder=${config.order}, orderConf=[${orderConf}]`);
      }
      out(topicConfigToString(config));
    },
  },
  {
    name: 'deleteTopic', desc: 'Delete topic from broker and NameServer.',
    options: { t: opt('topic', 'topic name', true), c: opt('clusterName', 'delete topic from which cluster', true) },
    async run(admin, opts, out) {
      const topic = opts.get('t')!.trim();
      const clusterName = opts.get('c')!.trim();
      await admin.deleteTopicInBroker(masterAddrsOfCluster(await admin.examineBrokerClusterInfo(), clusterName), topic);
      out(javaFormat('delete topic [%s] from cluster [%s] success.%n', topic, clusterName));
      await admin.deleteTopicInNameServer(null, topic);
      out(javaFormat('delete topic [%s] from NameServer success.%n', topic));
    },
  },
  {
    name: 'consumerProgress', desc: 'Query consumers\'s progress, speed',
    options: { g: opt('groupName', 'consumer group name') },
    async run(admin, opts, out) {
      if (opts.has('g')) {
        const stats = await admin.examineConsumeStats(opts.get('g')!.trim());
        if (wantsJson(opts)) return printJson(out, { consumeTps: stats.consumeTps, offsetTable: stats.offsetTable.map(([q, w]) => ({ ...q, ...w })) });
        out(javaFormat('%-64s  %-32s  %-4s  %-20s  %-20s  %-20s  %s%n', '#Topic', '#Broker Name', '#QID', '#Broker Offset', '#Consumer Offset', '#Diff', '#LastTime'));
        let diffTotal = 0;
        for (const [q, w] of [...stats.offsetTable].sort((a, b) => compareMessageQueue(a[0], b[0]))) {
          const diff = w.brokerOffset - w.consumerOffset;
          diffTotal += diff;
          out(javaFormat('%-64s  %-32s  %-4d  %-20d  %-20d  %-20d  %s%n', frontStringAtLeast(q.topic, 64), frontStringAtLeast(q.brokerName, 32),
            q.queueId, w.brokerOffset, w.consumerOffset, diff, w.lastTimestamp === 0 ? 'N/A' : formatDateTime(w.lastTimestamp)));
        }
        out('\n');
        out(javaFormat('Consume TPS: %.2f%n', stats.consumeTps));
        out(javaFormat('Diff Total: %d%n', diffTotal));
        return;
      }
      out(javaFormat('%-64s  %-6s  %-24s %-5s  %-14s  %-7s  %s%n', '#Group', '#Count', '#Version', '#Type', '#Model', '#TPS', '#Diff Total'));
      const rows: Array<{ group: string; count: number; version: string; type: string; model: string; tps: number; diff: number }> = [];
      for (const topic of (await admin.fetchAllTopicList()).topicList) {
        if (!topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) continue;
        const group = topic.slice(MixAll.RETRY_GROUP_TOPIC_PREFIX.length);
        const row = { group, count: 0, version: 'OFFLINE', type: '', model: '', tps: 0, diff: 0 };
        try {
          const s = await admin.examineConsumeStats(group);
          row.tps = Math.trunc(s.consumeTps);
          row.diff = s.offsetTable.reduce((sum, [, w]) => sum + w.brokerOffset - w.consumerOffset, 0);
        } catch { /* as mqadmin: logged, the group shown without stats */ }
        try {
          const cc = await admin.examineConsumerConnectionInfo(group);
          row.count = cc.connectionSet.length;
          row.model = cc.messageModel ?? '';
          row.type = cc.consumeType === 'CONSUME_ACTIVELY' ? 'PULL' : cc.consumeType === 'CONSUME_PASSIVELY' ? 'PUSH' : '';
          row.version = getVersionDesc(Math.min(...cc.connectionSet.map((c) => c.version)));
        } catch { /* offline */ }
        rows.push(row);
      }
      // 4.9.8 prints the groups in the order of the name server's topic list (GroupConsumeInfo.compareTo is never used)
      for (const r of rows) {
        out(javaFormat('%-64s  %-6d  %-24s %-5s  %-14s  %-7d  %d%n', frontStringAtLeast(r.group, 64), r.count, r.count > 0 ? r.version : 'OFFLINE',
          r.type, r.model, r.tps, r.diff));
      }
    },
  },
  {
    name: 'consumerConnection', desc: 'Query consumer\'s socket connection, client version and subscription',
    options: { g: opt('consumerGroup', 'consumer group name', true), b: opt('brokerAddr', 'broker address') },
    async run(admin, opts, out) {
      const cc = await admin.examineConsumerConnectionInfo(opts.get('g')!.trim(), opts.get('b')?.trim());
      out(javaFormat('%-36s %-22s %-10s %s%n', '#ClientId', '#ClientAddr', '#Language', '#Version'));
      for (const c of cc.connectionSet) out(javaFormat('%-36s %-22s %-10s %s%n', c.clientId, c.clientAddr, c.language, getVersionDesc(c.version)));
      out(javaFormat('%nBelow is subscription:\n'));
      out(javaFormat('%-20s %s%n', '#Topic', '#SubExpression'));
      for (const sd of cc.subscriptionTable.values()) out(javaFormat('%-20s %s%n', sd.topic, sd.subString));
      out('\n');
      out(javaFormat('ConsumeType: %s%n', cc.consumeType));
      out(javaFormat('MessageModel: %s%n', cc.messageModel));
      out(javaFormat('ConsumeFromWhere: %s%n', cc.consumeFromWhere));
    },
  },
  {
    name: 'producerConnection', desc: 'Query producer\'s socket connection and client version',
    options: { g: opt('producerGroup', 'producer group name', true), t: opt('topic', 'topic name', true) },
    async run(admin, opts, out) {
      const pc = await admin.examineProducerConnectionInfo(opts.get('g')!.trim(), opts.get('t')!.trim());
      let i = 1;
      for (const c of pc.connectionSet) out(javaFormat('%04d  %-32s %-22s %-8s %s%n', i++, c.clientId, c.clientAddr, c.language, getVersionDesc(c.version)));
    },
  },
  {
    name: 'updateSubGroup', desc: 'Update or create subscription group',
    options: {
      b: opt('brokerAddr', 'create subscription group to which broker'), c: opt('clusterName', 'create subscription group to which cluster'),
      g: opt('groupName', 'consumer group name', true), s: opt('consumeEnable', 'consume enable'), m: opt('consumeFromMinEnable', 'from min offset'),
      d: opt('consumeBroadcastEnable', 'broadcast'), q: opt('retryQueueNums', 'retry queue nums'), r: opt('retryMaxTimes', 'retry max times'),
      i: opt('brokerId', 'consumer from which broker id'), w: opt('whichBrokerWhenConsumeSlowly', 'which broker id when consume slowly'),
      a: opt('notifyConsumerIdsChanged', 'notify consumerId changed'),
    },
    async run(admin, opts, out) {
      const c = newSubscriptionGroupConfig(opts.get('g')!.trim());
      if (opts.has('s')) c.consumeEnable = bool(opts.get('s'), true);
      if (opts.has('m')) c.consumeFromMinEnable = bool(opts.get('m'), false);
      if (opts.has('d')) c.consumeBroadcastEnable = bool(opts.get('d'), false);
      if (opts.has('q')) c.retryQueueNums = int(opts.get('q')!, 'retryQueueNums');
      if (opts.has('r')) c.retryMaxTimes = int(opts.get('r')!, 'retryMaxTimes');
      if (opts.has('i')) c.brokerId = int(opts.get('i')!, 'brokerId');
      if (opts.has('w')) c.whichBrokerWhenConsumeSlowly = int(opts.get('w')!, 'whichBrokerWhenConsumeSlowly');
      if (opts.has('a')) c.notifyConsumerIdsChangedEnable = bool(opts.get('a'), true);
      const addrs = await targets(admin, opts);
      if (!addrs) throw new ConfigError('updateSubGroup needs -b brokerAddr or -c clusterName');
      for (const addr of addrs) {
        await admin.createAndUpdateSubscriptionGroupConfig(addr, c);
        out(javaFormat('create subscription group to %s success.%n', addr));
      }
      out(subscriptionGroupConfigToString(c));
    },
  },
  {
    name: 'deleteSubGroup', desc: 'Delete subscription group from broker.',
    options: {
      b: opt('brokerAddr', 'delete subscription group from which broker'), c: opt('clusterName', 'delete subscription group from which cluster'),
      g: opt('groupName', 'subscription group name', true), r: opt('removeOffset', 'remove offset'),
    },
    async run(admin, opts, out) {
      const group = opts.get('g')!.trim();
      const removeOffset = bool(opts.get('r'), false);
      if (opts.has('b')) {
        const addr = opts.get('b')!.trim();
        await admin.deleteSubscriptionGroup(addr, group, removeOffset);
        out(javaFormat('delete subscription group [%s] from broker [%s] success.%n', group, addr));
        return;
      }
      if (!opts.has('c')) throw new ConfigError('deleteSubGroup needs -b brokerAddr or -c clusterName');
      const clusterName = opts.get('c')!.trim();
      for (const addr of masterAddrsOfCluster(await admin.examineBrokerClusterInfo(), clusterName)) {
        await admin.deleteSubscriptionGroup(addr, group, removeOffset);
        out(javaFormat('delete subscription group [%s] from broker [%s] in cluster [%s] success.%n', group, addr, clusterName));
      }
      // Java also deletes the group's %RETRY% and %DLQ% topics from the cluster and the name servers.
      for (const topic of [MixAll.RETRY_GROUP_TOPIC_PREFIX + group, MixAll.DLQ_GROUP_TOPIC_PREFIX + group]) {
        await admin.deleteTopicInBroker(masterAddrsOfCluster(await admin.examineBrokerClusterInfo(), clusterName), topic);
        out(javaFormat('delete topic [%s] from cluster [%s] success.%n', topic, clusterName));
        await admin.deleteTopicInNameServer(null, topic);
        out(javaFormat('delete topic [%s] from NameServer success.%n', topic));
      }
    },
  },
  {
    name: 'brokerStatus', desc: 'Fetch broker runtime status data',
    options: { b: opt('brokerAddr', 'Broker address'), c: opt('clusterName', 'which cluster') },
    async run(admin, opts, out) {
      const print = async (addr: string, withAddr: boolean) => {
        const table = (await admin.fetchBrokerRuntimeStats(addr)).table;
        for (const k of [...table.keys()].sort()) {
          out(withAddr ? javaFormat('%-24s %-32s: %s%n', addr, k, table.get(k)) : javaFormat('%-32s: %s%n', k, table.get(k)));
        }
      };
      if (opts.has('b') && wantsJson(opts)) return printJson(out, (await admin.fetchBrokerRuntimeStats(opts.get('b')!.trim())).table);
      if (opts.has('b')) return print(opts.get('b')!.trim(), false);
      if (!opts.has('c')) throw new ConfigError('brokerStatus needs -b brokerAddr or -c clusterName');
      for (const addr of (await targets(admin, opts, true))!) {
        try {
          await print(addr, true);
        } catch (err) {
          process.stderr.write(errorReport(err, 'error'));
        }
      }
    },
  },
  {
    name: 'getBrokerConfig', desc: 'Get broker config by cluster or special broker!',
    options: { b: opt('brokerAddr', 'get which broker'), c: opt('clusterName', 'get which cluster') },
    async run(admin, opts, out) {
      const getAndPrint = async (prefix: string, addr: string) => {
        out(prefix);
        const props = await admin.getBrokerConfig(addr);
        for (const k of javaPropertiesOrderKeys(props.keys())) out(javaFormat('%-50s=  %s\n', k, props.get(k)));
        out('\n');
      };
      if (opts.has('b') && wantsJson(opts)) return printJson(out, await admin.getBrokerConfig(opts.get('b')!.trim()));
      if (opts.has('b')) {
        const addr = opts.get('b')!.trim();
        return getAndPrint(javaFormat('============%s============\n', addr), addr);
      }
      if (!opts.has('c')) throw new ConfigError('getBrokerConfig needs -b brokerAddr or -c clusterName');
      const masters = await masterAndSlaveOfCluster(admin, opts.get('c')!.trim());
      for (const master of masters.keys()) {
        await getAndPrint(javaFormat('============Master: %s============\n', master), master);
        for (const slave of masters.get(master)!) {
          await getAndPrint(javaFormat('============My Master: %s=====Slave: %s============\n', master, slave), slave);
        }
      }
    },
  },
  {
    name: 'updateBrokerConfig', desc: 'Update broker\'s config',
    options: {
      b: opt('brokerAddr', 'update which broker'), c: opt('clusterName', 'update which cluster'),
      k: opt('key', 'config key', true), v: opt('value', 'config value', true),
    },
    async run(admin, opts, out) {
      const props = { [opts.get('k')!.trim()]: opts.get('v')!.trim() };
      const addrs = await targets(admin, opts, true);
      if (!addrs) throw new ConfigError('updateBrokerConfig needs -b brokerAddr or -c clusterName');
      for (const addr of addrs) {
        await admin.updateBrokerConfig(addr, props);
        out(javaFormat('update broker config success, %s\n', addr));
      }
    },
  },
  {
    name: 'queryMsgByKey', desc: 'Query Message by Key',
    options: { t: opt('topic', 'topic name', true), k: opt('msgKey', 'Message Key', true) },
    async run(admin, opts, out) {
      const result = await admin.queryMessage(opts.get('t')!.trim(), opts.get('k')!.trim(), 64, 0, Number.MAX_SAFE_INTEGER);
      if (wantsJson(opts)) return printJson(out, result.messageList.map((m) => ({ msgId: m.msgId, queueId: m.queueId, queueOffset: m.queueOffset })));
      out(javaFormat('%-50s %4s %40s%n', '#Message ID', '#QID', '#Offset'));
      for (const m of result.messageList) out(javaFormat('%-50s %4d %40d%n', m.msgId, m.queueId, m.queueOffset));
    },
  },
  {
    name: 'queryMsgById', desc: 'Query Message by Id',
    options: { i: opt('msgId', 'Message Id', true) },
    async run(admin, opts, out) {
      for (const id of opts.get('i')!.split(',').map((s) => s.trim()).filter((s) => s.length > 0)) {
        await printMessageDetail(admin, await admin.viewMessage(id), out, { json: wantsJson(opts) });
      }
    },
  },
  {
    name: 'resetOffsetByTime', desc: 'Reset consumer offset by timestamp(without client restart).',
    options: {
      g: opt('group', 'set the consumer group', true), t: opt('topic', 'set the topic', true),
      s: opt('timestamp', 'set the timestamp[now|currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]', true),
      f: opt('force', 'set the force rollback by timestamp switch[true|false]'), c: opt('cplus', 'reset c++ client offset', false, false),
    },
    async run(admin, opts, out) {
      const group = opts.get('g')!.trim();
      const topic = opts.get('t')!.trim();
      const ts = opts.get('s')!.trim();
      let timestamp = ts === 'now' ? -1 : Number(ts);
      if (!Number.isInteger(timestamp)) timestamp = parseDateYMDHMSS(ts);
      if (Number.isNaN(timestamp)) throw new ConfigError(`bad timestamp: ${ts}`);
      const force = bool(opts.get('f'), true);
      const table = await admin.resetOffsetByTimestamp(topic, group, timestamp, force);
      out(javaFormat('rollback consumer offset by specified group[%s], topic[%s], force[%s], timestamp(string)[%s], timestamp(long)[%s]%n',
        group, topic, force, ts, timestamp));
      out(javaFormat('%-40s  %-40s  %-40s%n', '#brokerName', '#queueId', '#offset'));
      for (const [q, offset] of table) out(javaFormat('%-40s  %-40d  %-40d%n', frontStringAtLeast(q.brokerName, 32), q.queueId, offset));
    },
  },
  {
    name: 'updateKvConfig', desc: 'Create or update KV config.',
    options: { s: opt('namespace', 'set the namespace', true), k: opt('key', 'set the key name', true), v: opt('value', 'set the key value', true) },
    async run(admin, opts, out) {
      await admin.putKVConfig(opts.get('s')!.trim(), opts.get('k')!.trim(), opts.get('v')!.trim());
      out(javaFormat('create or update kv config to namespace success.%n'));
    },
  },
  {
    name: 'deleteKvConfig', desc: 'Delete KV config.',
    options: { s: opt('namespace', 'set the namespace', true), k: opt('key', 'set the key name', true) },
    async run(admin, opts, out) {
      await admin.deleteKVConfig(opts.get('s')!.trim(), opts.get('k')!.trim());
      out(javaFormat('delete kv config from namespace success.%n'));
    },
  },
  {
    name: 'wipeWritePerm', desc: 'Wipe write perm of broker in all name server',
    options: { b: opt('brokerName', 'broker name', true) },
    async run(admin, opts, out) {
      const brokerName = opts.get('b')!.trim();
      for (const ns of admin.getNameServerAddressList()) {
        try {
          const count = await admin.wipeWritePermOfBroker(ns, brokerName);
          out(javaFormat('wipe write perm of broker[%s] in name server[%s] OK, %d%n', brokerName, ns, count));
        } catch (err) {
          out(javaFormat('wipe write perm of broker[%s] in name server[%s] Failed%n', brokerName, ns));
          process.stderr.write(errorReport(err, 'error'));
        }
      }
    },
  },
  ...TOPIC_COMMANDS,
  ...MESSAGE_COMMANDS,
  ...TRACE_COMMANDS,
  ...CONSUMER_COMMANDS,
  ...BROKER_COMMANDS,
  ...NAMESRV_COMMANDS,
  ...EXPORT_COMMANDS,
  ...ACL_COMMANDS,
  ...STORE_COMMANDS,
  ...CONSUMER_STATUS_COMMANDS,
  ...CLUSTER_RT_COMMANDS,
  ...MONITOR_COMMANDS,
];

/** What `rocketmq-ts admin help` prints (docs/admin.md shows it). */
export function usage(): string {
  let s = 'usage: rocketmq-ts admin <command> -n <namesrvAddr> [options] [--json]\n\ncommands:\n';
  for (const c of COMMANDS) s += `  ${c.name.padEnd(23)} ${c.desc}\n`;
  return s;
}

/** What `rocketmq-ts admin <command> --help` prints, for each command in the table order (docs/admin.md shows them). */
export function commandUsages(): { name: string; usage: string }[] {
  return COMMANDS.map((c) => ({ name: c.name, usage: commandUsage(c) }));
}

function commandUsage(c: Command): string {
  let s = `usage: rocketmq-ts admin ${c.name} [-n namesrvAddr] ${Object.entries(c.options).map(([k, o]) => (o.required ? `-${k} <${o.long}>` : `[-${k}${o.hasArg ? ` <${o.long}>` : ''}]`)).join(' ')}\n`;
  s += `  -n,--namesrvAddr <arg>  Name server address list, eg: 192.168.0.1:9876;192.168.0.2:9876\n`;
  s += `  --access-key <arg> --secret-key <arg>  sign requests for a broker with ACL; --tls  connect with TLS\n`;
  s += `  --json                  print a JSON document of what was found instead of mqadmin's layout\n`;
  for (const [k, o] of Object.entries(c.options)) s += `  -${k},--${o.long}${o.hasArg ? ' <arg>' : ''}  ${o.desc}\n`;
  return s;
}

/** Options of every command: ACL credentials (signed requests, AclClientRPCHook) and TLS. */
const SECURITY_OPTIONS: Record<string, OptionSpec> = {
  accessKey: opt('access-key', 'ACL access key (signs every request)'),
  secretKey: opt('secret-key', 'ACL secret key'),
  tls: opt('tls', 'connect with TLS', false, false),
};

/** Parses `-x value` / `--long value` / `--long=value` by the command's option table (plus -n, -h, --access-key, --secret-key, --tls). */
export function parseAdminOptions(c: Command | { options: Record<string, OptionSpec> }, argv: string[]): Map<string, string> {
  const specs: Record<string, OptionSpec> = {
    n: opt('namesrvAddr', 'name server'), h: opt('help', 'help', false, false), [JSON_OPTION]: opt('json', 'print JSON', false, false),
    ...SECURITY_OPTIONS, ...c.options,
  };
  const byLong = new Map(Object.entries(specs).map(([k, o]) => [o.long, k]));
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    let key: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      if (eq >= 0) inline = arg.slice(eq + 1);
      key = byLong.get(name);
    } else if (arg.startsWith('-') && arg.length >= 2) {
      key = arg.slice(1, 2);
      if (arg.length > 2) inline = arg.slice(2);
      if (!specs[key]) key = undefined;
    }
    if (key === undefined) throw new ConfigError(`Unrecognized option: ${arg}`);
    if (!specs[key].hasArg) {
      out.set(key, 'true');
      continue;
    }
    const v = inline ?? argv[++i];
    if (v === undefined) throw new ConfigError(`Missing argument for option: ${key}`);
    out.set(key, v);
  }
  for (const [k, o] of Object.entries(c.options)) {
    if (o.required && !out.has(k)) throw new ConfigError(`Missing required option: ${k}`);
  }
  return out;
}

export interface RunAdminOptions {
  out?: Out;
  err?: Out;
  env?: NodeJS.ProcessEnv;
}

/** Runs one admin command; resolves with the exit code. */
export async function runAdmin(argv: string[], options: RunAdminOptions = {}): Promise<number> {
  const out = options.out ?? ((s: string) => { process.stdout.write(s); });
  const err = options.err ?? ((s: string) => { process.stderr.write(s); });
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    out(usage());
    return name === undefined ? 1 : 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    err(`The sub command ${name} not exist (rocketmq-ts admin help lists the commands).\n`);
    return 2;
  }
  let opts: Map<string, string>;
  try {
    opts = parseAdminOptions(command, rest);
  } catch (e) {
    err(`${e instanceof Error ? e.message : String(e)}\n${commandUsage(command)}`);
    return 2;
  }
  if (opts.has('h')) {
    out(commandUsage(command));
    return 0;
  }
  const env = options.env ?? process.env;
  const namesrvAddr = opts.get('n')?.trim() ?? env.ROCKETMQ_NAMESRV_ADDR ?? env.NAMESRV_ADDR;
  if (!namesrvAddr) {
    err('No name server address: use -n host:port[;host:port] or set NAMESRV_ADDR\n');
    return 2;
  }
  const accessKey = opts.get('accessKey');
  const secretKey = opts.get('secretKey');
  if ((accessKey === undefined) !== (secretKey === undefined)) {
    err('--access-key and --secret-key go together\n');
    return 2;
  }
  const rpcHook = accessKey !== undefined ? new AclClientRPCHook({ accessKey, secretKey: secretKey as string }) : undefined;
  const admin = new DefaultMQAdminExt({ namesrvAddr, instanceName: String(Date.now()), useTLS: opts.has('tls') }, { rpcHook });
  try {
    await admin.start();
    await command.run(admin, opts, out);
    return 0;
  } catch (e) {
    const cmdClass = `${name[0].toUpperCase()}${name.slice(1)}SubCommand`;
    const code = e instanceof MQClientError ? ` (CODE: ${e.responseCode}${e.responseCode === ResponseCode.CONSUMER_NOT_ONLINE ? ' CONSUMER_NOT_ONLINE' : ''})` : '';
    err(`${cmdClass} command failed${code}: ${describeError(e)}\n${debugEnabled() && e instanceof Error && e.stack ? `${e.stack}\n` : ''}`);
    return 1;
  } finally {
    await admin.shutdown();
  }
}
