/**
 * mqadmin's export commands: exportConfigs (the cluster's scale and the main broker settings, as a JSON file) and
 * exportMetadata (the user topics and subscription groups of a broker or a cluster), exportMetrics (each master's
 * environment, TPS, day counts, sizes and client versions).
 *
 * @see org.apache.rocketmq.tools.command.export.ExportConfigsCommand
 * @see org.apache.rocketmq.tools.command.export.ExportMetadataCommand
 * @see org.apache.rocketmq.tools.command.export.ExportMetricsCommand
 */
import fs from 'node:fs';
import path from 'node:path';
import { javaDouble, toFastjson } from '../../../protocol/body/fastjson';
import { getVersionDesc, versionOrdinal } from '../../client/mq-version';
import { compute24HourSum } from './broker';
import { javaHashOrderKeys, javaPropertiesOrderKeys } from '../../../protocol/message/java-hash';
import { javaFormat, prettyFastjson } from '../java-format';
import { type Command, masterAddrsOfCluster, masterAndSlaveOfCluster, opt, printJson, req, wantsJson } from './command';
import { dataVersionToJson } from '../../../protocol/body/data-version';
import { type TopicConfig, topicConfigToJson } from '../../../protocol/body/topic-config';
import { type SubscriptionGroupConfig, subscriptionGroupConfigToJson } from '../../../protocol/body/subscription-group-wrapper';
import { ConfigError } from '../../errors';

/** The broker settings exportConfigs keeps (ExportConfigsCommand.needBrokerProprties), in its order. */
const EXPORTED_BROKER_KEYS = [
  'brokerClusterName', 'brokerId', 'brokerName', 'brokerRole', 'fileReservedTime', 'filterServerNums', 'flushDiskType', 'maxMessageSize',
  'messageDelayLevel', 'msgTraceTopicName', 'slaveReadEnable', 'traceOn', 'traceTopicEnable', 'useTLS', 'autoCreateTopicEnable',
  'autoCreateSubscriptionGroup',
];

/** MixAll.string2FileNotSafe: creates the parent folders, then writes. */
function string2File(text: string, file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, 'utf8');
}

/** A Java HashMap of these entries (insertion order given), as a Map in Java's iteration order. */
const hashMap = <V>(entries: Array<[string, V]>, initialCapacity = 16): Map<string, V> => {
  const m = new Map(entries);
  return new Map(javaHashOrderKeys(m.keys(), initialCapacity).map((k) => [k, m.get(k)!]));
};

export const EXPORT_COMMANDS: Command[] = [
  {
    name: 'exportConfigs', desc: 'export configs',
    options: {
      c: opt('clusterName', 'choose a cluster to export', true), f: opt('filePath', 'export configs.json path | default /tmp/rocketmq/export'),
    },
    async run(admin, opts, out) {
      const clusterName = req(opts, 'c');
      const filePath = opts.has('f') ? req(opts, 'f') : '/tmp/rocketmq/export';
      const nameServers = admin.getNameServerAddressList();
      let masterBrokerSize = 0;
      let slaveBrokerSize = 0;
      const brokerConfigs: Array<[string, Map<string, string>]> = [];
      for (const [master, slaves] of await masterAndSlaveOfCluster(admin, clusterName)) {
        const props = await admin.getBrokerConfig(master);
        masterBrokerSize++;
        slaveBrokerSize += slaves.length;
        // A key the broker does not report is left out (Java's Properties.setProperty fails the whole export on it).
        const present = EXPORTED_BROKER_KEYS.filter((k) => props.get(k) !== undefined);
        const kept = new Map(javaPropertiesOrderKeys(present).map((k) => [k, props.get(k)!]));
        brokerConfigs.push([props.get('brokerName') ?? '', kept]);
      }
      const result = hashMap<unknown>([
        ['brokerConfigs', hashMap(brokerConfigs)],
        ['clusterScale', hashMap([['namesrvSize', nameServers.length], ['masterBrokerSize', masterBrokerSize], ['slaveBrokerSize', slaveBrokerSize]])],
      ]);
      const file = `${filePath}/configs.json`;
      string2File(prettyFastjson(toFastjson(result), true), file);
      if (wantsJson(opts)) return printJson(out, { file, configs: result });
      out(javaFormat('export %s success', file));
    },
  },
  {
    name: 'exportMetadata', desc: 'export metadata',
    options: {
      c: opt('clusterName', 'choose a cluster to export'), b: opt('brokerAddr', 'choose a broker to export'),
      f: opt('filePath', 'export metadata.json path | default /tmp/rocketmq/export'),
      t: opt('topic', 'only export topic metadata', false, false), g: opt('subscriptionGroup', 'only export subscriptionGroup metadata', false, false),
      s: opt('specialTopic', 'need retryTopic and dlqTopic', false, false),
    },
    async run(admin, opts, out) {
      let filePath = opts.has('f') ? req(opts, 'f') : '/tmp/rocketmq/export';
      const specialTopic = opts.has('s');
      const topicsJson = (m: Map<string, TopicConfig>) => hashMap([...m].map(([k, v]) => [k, topicConfigToJson(v)]));
      const groupsJson = (m: Map<string, SubscriptionGroupConfig>) => hashMap([...m].map(([k, v]) => [k, subscriptionGroupConfigToJson(v)]));
      if (opts.has('b')) {
        const addr = req(opts, 'b');
        let doc: Record<string, unknown>;
        if (opts.has('t')) {
          filePath += '/topic.json';
          const w = await admin.getUserTopicConfig(addr, specialTopic);
          doc = { dataVersion: dataVersionToJson(w.dataVersion), topicConfigTable: topicsJson(w.topicConfigTable) };
        } else if (opts.has('g')) {
          filePath += '/subscriptionGroup.json';
          const w = await admin.getUserSubscriptionGroup(addr);
          doc = { dataVersion: dataVersionToJson(w.dataVersion), subscriptionGroupTable: groupsJson(w.subscriptionGroupTable) };
        } else {
          return; // Java does nothing for -b without -t or -g
        }
        string2File(prettyFastjson(toFastjson(doc)), filePath);
        if (wantsJson(opts)) return printJson(out, { file: filePath, metadata: doc });
        out(javaFormat('export %s success', filePath));
        return;
      }
      if (!opts.has('c')) throw new ConfigError('exportMetadata needs -c clusterName or -b brokerAddr');
      const masters = javaHashOrderKeys(new Set(masterAddrsOfCluster(await admin.examineBrokerClusterInfo(), req(opts, 'c'))));
      const topics = new Map<string, TopicConfig>();
      const groups = new Map<string, SubscriptionGroupConfig>();
      for (const addr of masters) {
        const tw = await admin.getUserTopicConfig(addr, specialTopic);
        const gw = await admin.getUserSubscriptionGroup(addr);
        for (const [name, tc] of tw.topicConfigTable) {
          const prev = topics.get(name);
          topics.set(name, prev ? { ...tc, writeQueueNums: prev.writeQueueNums + tc.writeQueueNums, readQueueNums: prev.readQueueNums + tc.readQueueNums } : tc);
        }
        for (const [name, gc] of gw.subscriptionGroupTable) {
          const prev = groups.get(name);
          groups.set(name, prev ? { ...gc, retryQueueNums: prev.retryQueueNums + gc.retryQueueNums } : gc);
        }
      }
      const entries: Array<[string, unknown]> = [];
      let exportPath: string;
      if (opts.has('t')) {
        entries.push(['topicConfigTable', topicsJson(topics)]);
        exportPath = `${filePath}/topic.json`;
      } else if (opts.has('g')) {
        entries.push(['subscriptionGroupTable', groupsJson(groups)]);
        exportPath = `${filePath}/subscriptionGroup.json`;
      } else {
        entries.push(['topicConfigTable', topicsJson(topics)], ['subscriptionGroupTable', groupsJson(groups)]);
        exportPath = `${filePath}/metadata.json`;
      }
      entries.push(['exportTime', Date.now()]);
      const result = hashMap(entries);
      string2File(prettyFastjson(toFastjson(result), true), exportPath);
      if (wantsJson(opts)) return printJson(out, { file: exportPath, metadata: result });
      out(javaFormat('export %s success%n', exportPath));
    },
  },
  {
    name: 'exportMetrics', desc: 'export metrics',
    options: { c: opt('clusterName', 'choose a cluster to export', true), f: opt('filePath', 'export metrics.json path | default /tmp/rocketmq/export') },
    async run(admin, opts, out) {
      const clusterName = req(opts, 'c');
      const filePath = opts.has('f') ? req(opts, 'f') : '/tmp/rocketmq/export';
      const totalTps = { totalNormalInTps: 0, totalNormalOutTps: 0, totalTransInTps: 0, totalScheduleInTps: 0 };
      const totalOneDay = { normalOneDayInNum: 0, normalOneDayOutNum: 0, transOneDayInNum: 0, scheduleOneDayInNum: 0 };
      const info = await admin.examineBrokerClusterInfo();
      const names = info.clusterAddrTable.get(clusterName);
      if (!names) throw new ConfigError(`no cluster ${clusterName}`);
      const report: Array<[string, unknown]> = [];
      const tpsOf = (v: string | undefined) => Number((v ?? '0').split(' ')[0]) || 0;
      const num = (v: string | undefined) => Number(v ?? 'NaN');
      for (const brokerName of javaHashOrderKeys(new Set(names))) {
        const addr = info.brokerAddrTable.get(brokerName)?.brokerAddrs.get(0);
        if (!addr) continue;
        const kv = (await admin.fetchBrokerRuntimeStats(addr)).table;
        const props = await admin.getBrokerConfig(addr);
        const groups = await admin.getUserSubscriptionGroup(addr);
        const topics = await admin.getUserTopicConfig(addr, false);
        const stats = async (topic: string) => admin.viewBrokerStatsData(addr, 'TOPIC_PUT_NUMS', topic).catch(() => null);
        const trans = await stats('RMQ_SYS_TRANS_HALF_TOPIC');
        const schedule = await stats('SCHEDULE_TOPIC_XXXX');
        const normalInTps = tpsOf(kv.get('putTps'));
        const normalOutTps = tpsOf(kv.get('getTransferedTps'));
        const transInTps = trans ? trans.statsMinute.tps : 0;
        const scheduleInTps = schedule ? schedule.statsMinute.tps : 0;
        const transOneDayInNum = trans ? compute24HourSum(trans) : 0;
        const scheduleOneDayInNum = schedule ? compute24HourSum(schedule) : 0;
        const normalOneDayInNum = num(kv.get('msgPutTotalTodayMorning')) - num(kv.get('msgPutTotalYesterdayMorning'));
        const normalOneDayOutNum = num(kv.get('msgGetTotalTodayMorning')) - num(kv.get('msgGetTotalYesterdayMorning'));
        totalTps.totalNormalInTps += normalInTps;
        totalTps.totalNormalOutTps += normalOutTps;
        totalTps.totalTransInTps += transInTps;
        totalTps.totalScheduleInTps += scheduleInTps;
        totalOneDay.normalOneDayInNum += normalOneDayInNum;
        totalOneDay.normalOneDayOutNum += normalOneDayOutNum;
        totalOneDay.transOneDayInNum += transOneDayInNum;
        totalOneDay.scheduleOneDayInNum += scheduleOneDayInNum;
        const clientInfo = new Set<string>();
        for (const group of groups.subscriptionGroupTable.keys()) {
          try {
            for (const c of (await admin.examineConsumerConnectionInfo(group)).connectionSet) clientInfo.add(`${c.language}%${getVersionDesc(c.version)}`);
          } catch {
            // a group with no consumer online
          }
        }
        report.push([brokerName, hashMap<unknown>([
          ['runtimeEnv', hashMap<unknown>([['cpuNum', props.get('clientCallbackExecutorThreads')], ['totalMemKBytes', kv.get('totalMemKBytes')]])],
          ['runtimeQuota', hashMap<unknown>([
            ['diskRatio', hashMap<unknown>([['commitLogDiskRatio', kv.get('commitLogDiskRatio')], ['consumeQueueDiskRatio', kv.get('consumeQueueDiskRatio')]])],
            ['tps', hashMap([['normalInTps', javaDouble(normalInTps)], ['normalOutTps', javaDouble(normalOutTps)], ['transInTps', javaDouble(transInTps)], ['scheduleInTps', javaDouble(scheduleInTps)]])],
            ['oneDayNum', hashMap([['normalOneDayInNum', normalOneDayInNum], ['normalOneDayOutNum', normalOneDayOutNum], ['transOneDayInNum', transOneDayInNum], ['scheduleOneDayInNum', scheduleOneDayInNum]])],
            ['messageAverageSize', kv.get('putMessageAverageSize')],
            ['topicSize', topics.topicConfigTable.size],
            ['groupSize', groups.subscriptionGroupTable.size],
          ])],
          // the tool's own version (this client speaks as V4_9_8)
          ['runtimeVersion', hashMap<unknown>([['rocketmqVersion', getVersionDesc(versionOrdinal('V4_9_8'))], ['clientInfo', javaHashOrderKeys(clientInfo)]])],
        ])]);
      }
      const result = hashMap<unknown>([
        ['evaluateReport', hashMap(report)],
        ['totalData', hashMap<unknown>([
          ['totalTps', hashMap(Object.entries(totalTps).map(([k, v]) => [k, javaDouble(v)]))],
          ['totalOneDayNum', hashMap(Object.entries(totalOneDay))],
        ])],
      ]);
      const file = `${filePath}/metrics.json`;
      string2File(prettyFastjson(toFastjson(result), true), file);
      if (wantsJson(opts)) return printJson(out, { file, metrics: result });
      out(javaFormat('export %s success', file));
    },
  },
];
