/**
 * mqadmin's export commands: exportConfigs (the cluster's scale and the main broker settings, as a JSON file).
 *
 * @see org.apache.rocketmq.tools.command.export.ExportConfigsCommand
 */
import fs from 'node:fs';
import path from 'node:path';
import { toFastjson } from '../../../protocol/body/fastjson';
import { javaHashOrderKeys, javaPropertiesOrderKeys } from '../../../protocol/message/java-hash';
import { javaFormat, prettyFastjson } from '../java-format';
import { type Command, masterAndSlaveOfCluster, opt, printJson, req, wantsJson } from './command';

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
];
