/**
 * mqadmin's export commands: exportConfigs (the cluster's scale and the main broker settings, as a JSON file) and
 * exportMetadata (the user topics and subscription groups of a broker or a cluster).
 *
 * @see org.apache.rocketmq.tools.command.export.ExportConfigsCommand
 * @see org.apache.rocketmq.tools.command.export.ExportMetadataCommand
 */
import fs from 'node:fs';
import path from 'node:path';
import { toFastjson } from '../../../protocol/body/fastjson';
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
];
