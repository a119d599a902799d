/**
 * mqadmin's name-server commands beyond the KV ones: getNamesrvConfig, updateNamesrvConfig, addWritePerm.
 *
 * @see org.apache.rocketmq.tools.command.namesrv
 */
import { javaPropertiesOrderKeys } from '../../../protocol/message/java-hash';
import { javaFormat } from '../java-format';
import { errorReport } from '../cli-errors';
import { type Command, opt, printJson, req, wantsJson } from './command';

/** `-n a;b` as Java's serverList: null when absent or empty. */
function serverList(opts: Map<string, string>): string[] | null {
  const servers = opts.get('n');
  if (servers === undefined || servers.length === 0) return null;
  const list = servers.trim().split(';');
  return list.length > 0 ? list : null;
}

export const NAMESRV_COMMANDS: Command[] = [
  {
    name: 'getNamesrvConfig', desc: 'Get configs of name server.', options: {},
    async run(admin, opts, out) {
      const configs = await admin.getNameServerConfig(serverList(opts));
      if (wantsJson(opts)) return printJson(out, configs);
      for (const [addr, props] of configs) {
        out(javaFormat('============%s============\n', addr));
        for (const k of javaPropertiesOrderKeys(props.keys())) out(javaFormat('%-50s=  %s\n', k, props.get(k)));
      }
    },
  },
  {
    name: 'updateNamesrvConfig', desc: 'Update configs of name server.',
    options: { k: opt('key', 'config key', true), v: opt('value', 'config value', true) },
    async run(admin, opts, out) {
      const key = req(opts, 'k');
      const value = req(opts, 'v');
      const list = serverList(opts);
      await admin.updateNameServerConfig({ [key]: value }, list);
      out(javaFormat('update name server config success!%s\n%s : %s\n', list ?? '', key, value));
    },
  },
  {
    name: 'addWritePerm', desc: 'Add write perm of broker in all name server you defined in the -n param',
    options: { b: opt('brokerName', 'broker name', true) },
    async run(admin, opts, out) {
      const brokerName = req(opts, 'b');
      for (const ns of admin.getNameServerAddressList()) {
        try {
          const count = await admin.addWritePermOfBroker(ns, brokerName);
          out(javaFormat('add write perm of broker[%s] in name server[%s] OK, %d%n', brokerName, ns, count));
        } catch (err) {
          out(javaFormat('add write perm of broker[%s] in name server[%s] Failed%n', brokerName, ns));
          process.stderr.write(errorReport(err, 'error'));
        }
      }
    },
  },
];
