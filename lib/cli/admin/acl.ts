/**
 * mqadmin's ACL 1.0 commands (a 4.9.8 broker with aclEnable=true): updateAclConfig, deleteAclConfig,
 * clusterAclConfigVersion, updateGlobalWhiteAddr. Each takes `-b brokerAddr` or `-c clusterName` (one is required);
 * with -c the write commands go to every master and slave of the cluster, clusterAclConfigVersion to the masters.
 *
 * @see org.apache.rocketmq.tools.command.acl
 */
import type { DefaultMQAdminExt } from '../../admin/default-mq-admin-ext';
import type { ClusterAclVersionInfo, PlainAccessConfigInput } from '../../client/mq-client-api-admin';
import { javaHashOrderKeys } from '../../../protocol/message/java-hash';
import { ConfigError } from '../../errors';
import { formatDateTime, javaFormat } from '../java-format';
import { type Command, type Out, bool, masterAddrsOfCluster, opt, printJson, req, wantsJson } from './command';

/** The -b / -c option group (OptionGroup.setRequired(true)). */
function brokerOrCluster(what: string) {
  return { b: opt('brokerAddr', `${what} which broker`), c: opt('clusterName', `${what} which cluster`) };
}

/** The brokers of `-b`, or every master (and slave) of `-c` in Java HashSet order. */
async function brokersOf(admin: DefaultMQAdminExt, opts: Map<string, string>, withSlaves: boolean): Promise<string[]> {
  if (opts.has('b')) return [req(opts, 'b')];
  if (!opts.has('c')) throw new ConfigError('Missing required option: [-b brokerAddr, -c clusterName]');
  const addrs = masterAddrsOfCluster(await admin.examineBrokerClusterInfo(), req(opts, 'c'), withSlaves);
  return javaHashOrderKeys(new Set(addrs));
}

/**
 * What Java prints for `"%s", accessConfig`: PlainAccessConfig has no toString in 4.9.8, so Object.toString, the class
 * name and an identity hash (which differs run to run).
 */
function plainAccessConfigObjectString(): string {
  return `org.apache.rocketmq.common.PlainAccessConfig@${Math.floor(Math.random() * 0x7fffffff).toString(16)}`;
}

export const ACL_COMMANDS: Command[] = [
  {
    name: 'updateAclConfig', desc: 'Update acl config yaml file in broker',
    options: {
      ...brokerOrCluster('update acl config file to'),
      a: opt('accessKey', 'set accessKey in acl config file', true),
      s: opt('secretKey', 'set secretKey in acl config file', true),
      w: opt('whiteRemoteAddress', 'set white ip Address for account in acl config file'),
      i: opt('defaultTopicPerm', 'set default topicPerm in acl config file'),
      u: opt('defaultGroupPerm', 'set default GroupPerm in acl config file'),
      t: opt('topicPerms', 'set topicPerms list,eg: topicA=DENY,topicD=SUB'),
      g: opt('groupPerms', 'set groupPerms list,eg: groupD=DENY,groupD=SUB'),
      m: opt('admin', 'set admin flag in acl config file'),
    },
    async run(admin, opts, out) {
      const config: PlainAccessConfigInput = { accessKey: req(opts, 'a'), secretKey: req(opts, 's') };
      if (opts.has('m')) config.admin = bool(opts.get('m'), false);
      if (opts.has('i')) config.defaultTopicPerm = req(opts, 'i');
      if (opts.has('u')) config.defaultGroupPerm = req(opts, 'u');
      if (opts.has('w')) config.whiteRemoteAddress = req(opts, 'w');
      if (opts.has('t')) config.topicPerms = req(opts, 't').split(',');
      if (opts.has('g')) config.groupPerms = req(opts, 'g').split(',');
      const brokers = await brokersOf(admin, opts, true);
      for (const addr of brokers) {
        await admin.createAndUpdatePlainAccessConfig(addr, config);
        if (!wantsJson(opts)) out(javaFormat('create or update plain access config to %s success.%n', addr));
      }
      if (wantsJson(opts)) return printJson(out, { brokers, accessConfig: { ...config, secretKey: undefined } });
      out(plainAccessConfigObjectString());
    },
  },
  {
    name: 'deleteAclConfig', desc: 'Delete Acl Config Account in broker',
    options: { ...brokerOrCluster('delete acl config account from'), a: opt('accessKey', 'set accessKey in acl config file for deleting which account', true) },
    async run(admin, opts, out) {
      const accessKey = req(opts, 'a');
      const brokers = await brokersOf(admin, opts, true);
      for (const addr of brokers) {
        await admin.deletePlainAccessConfig(addr, accessKey);
        if (!wantsJson(opts)) out(javaFormat('delete plain access config account from %s success.%n', addr));
      }
      if (wantsJson(opts)) return printJson(out, { brokers, accessKey });
      out(javaFormat("account's accesskey is:%s", accessKey));
    },
  },
  {
    name: 'clusterAclConfigVersion', desc: 'List all of acl config version information in cluster',
    options: brokerOrCluster('query acl config version for'),
    async run(admin, opts, out) {
      const fmt = '%-16s  %-22s  %-22s  %-20s  %-22s  %-22s%n';
      const brokers = await brokersOf(admin, opts, false);
      const infos: ClusterAclVersionInfo[] = [];
      for (const addr of brokers) infos.push(await admin.examineBrokerClusterAclVersionInfo(addr));
      if (wantsJson(opts)) return printJson(out, infos);
      const print = (o: Out, info: ClusterAclVersionInfo) => {
        for (const [file, v] of info.allAclConfigDataVersion) {
          o(javaFormat(fmt, info.clusterName, info.brokerName, info.brokerAddr, file, String(v.counter), formatDateTime(v.timestamp)));
        }
      };
      if (opts.has('b')) {
        print(out, infos[0]);
        out("get broker's plain access config version success.\n");
        return;
      }
      out(javaFormat(fmt, '#Cluster Name', '#Broker Name', '#Broker Addr', '#AclFilePath', '#AclConfigVersionNum', '#AclLastUpdateTime'));
      for (const info of infos) print(out, info);
      out("get cluster's plain access config version success.\n");
    },
  },
  {
    name: 'updateGlobalWhiteAddr', desc: 'Update global white address for acl Config File in broker',
    options: {
      ...brokerOrCluster('update global white address to'),
      g: opt('globalWhiteRemoteAddresses', 'set globalWhiteRemoteAddress list,eg: 10.10.103.*,192.168.0.*', true),
      p: opt('aclFileFullPath', 'update global white address of specified acl file,eg: /xxx/plain_test.yml'),
    },
    async run(admin, opts, out) {
      const addrs = req(opts, 'g');
      const file = opts.has('p') ? req(opts, 'p') : '';
      const brokers = await brokersOf(admin, opts, true);
      for (const addr of brokers) {
        await admin.updateGlobalWhiteAddrConfig(addr, addrs, file);
        if (!wantsJson(opts)) out(javaFormat('update global white remote addresses to %s success.%n', addr));
      }
      if (wantsJson(opts)) printJson(out, { brokers, globalWhiteRemoteAddresses: addrs, aclFileFullPath: file || null });
    },
  },
];
