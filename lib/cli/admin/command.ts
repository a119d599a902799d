/**
 * What every `rocketmq-ts admin` command shares: the Command shape, option specs and parsing helpers, CommandUtil's
 * broker lookups, and the `--json` output.
 *
 * A command's `run` prints Java mqadmin's layout through `out`; with the global `--json` flag (opts has `json`)
 * a read command prints one JSON document of what it found instead (printJson).
 *
 * @see org.apache.rocketmq.tools.command.SubCommand
 * @see org.apache.rocketmq.tools.command.CommandUtil
 */
import type { DefaultMQAdminExt } from '../../admin/default-mq-admin-ext';
import type { ClusterInfo } from '../../../protocol/body/cluster-info';
import { javaHashOrderKeys } from '../../../protocol/message/java-hash';
import { ConfigError } from '../../errors';

export type Out = (s: string) => void;

export interface OptionSpec {
  long: string;
  hasArg: boolean;
  required?: boolean;
  desc: string;
}

export interface Command {
  name: string;
  desc: string;
  options: Record<string, OptionSpec>;
  run(admin: DefaultMQAdminExt, opts: Map<string, string>, out: Out): Promise<void>;
}

/** The option key of the global `--json` flag (reachable by its long name only). */
export const JSON_OPTION = 'json';

export const opt = (long: string, desc: string, required = false, hasArg = true): OptionSpec => ({ long, hasArg, required, desc });

/** Boolean.parseBoolean of an option value, `def` when absent. */
export const bool = (v: string | undefined, def: boolean): boolean => (v === undefined ? def : v.trim().toLowerCase() === 'true');

export const int = (v: string, what: string): number => {
  const n = Number(v.trim());
  if (!Number.isInteger(n)) throw new ConfigError(`${what} is not an integer: ${v}`);
  return n;
};

/** The trimmed value of a required option. */
export const req = (opts: Map<string, string>, key: string): string => (opts.get(key) ?? '').trim();

export function wantsJson(opts: Map<string, string>): boolean {
  return opts.has(JSON_OPTION);
}

/** JSON.stringify that writes Maps as objects, Sets as arrays and Buffers as UTF-8 text. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [typeof k === 'string' ? k : JSON.stringify(k), x]));
    if (v instanceof Set) return [...v];
    if (v && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data)) {
      return Buffer.from((v as { data: number[] }).data).toString('utf8');
    }
    return v;
  }, 2);
}

export function printJson(out: Out, value: unknown): void {
  out(`${toJsonText(value)}\n`);
}

/** CommandUtil.fetchMasterAddrByClusterName (withSlaves: fetchMasterAndSlaveAddrByClusterName). */
export function masterAddrsOfCluster(info: ClusterInfo, clusterName: string, withSlaves = false): string[] {
  const names = info.clusterAddrTable.get(clusterName);
  if (!names) throw new ConfigError('[error] Make sure the specified clusterName exists or the name server connected to is correct.');
  const out: string[] = [];
  for (const name of names) {
    const bd = info.brokerAddrTable.get(name);
    if (!bd) continue;
    if (withSlaves) out.push(...bd.brokerAddrs.values());
    else {
      const master = bd.brokerAddrs.get(0);
      if (master) out.push(master);
    }
  }
  return out;
}

/** CommandUtil.fetchBrokerNameByClusterName. */
export function brokerNamesOfCluster(info: ClusterInfo, clusterName: string): string[] {
  const names = info.clusterAddrTable.get(clusterName);
  if (!names || names.length === 0) throw new ConfigError('Make sure the specified clusterName exists or the nameserver which connected is correct.');
  return [...names];
}

/** `-b brokerAddr` alone, or the masters (and slaves) of `-c clusterName`; null when neither is given. */
export async function targets(admin: DefaultMQAdminExt, opts: Map<string, string>, withSlaves = false): Promise<string[] | null> {
  if (opts.has('b')) return [opts.get('b')!.trim()];
  if (opts.has('c')) return masterAddrsOfCluster(await admin.examineBrokerClusterInfo(), opts.get('c')!.trim(), withSlaves);
  return null;
}

/** The cluster a broker name belongs to (null when none). */
export function clusterOfBroker(info: ClusterInfo, brokerName: string): string | null {
  for (const [cluster, names] of info.clusterAddrTable) if (names.includes(brokerName)) return cluster;
  return null;
}

/**
 * CommandUtil.fetchMasterAndSlaveDistinguish: master address -> its slaves' addresses, in the order of Java's
 * `new HashMap<>(4)`.
 */
export async function masterAndSlaveOfCluster(admin: DefaultMQAdminExt, clusterName: string): Promise<Map<string, string[]>> {
  const info = await admin.examineBrokerClusterInfo();
  const names = info.clusterAddrTable.get(clusterName);
  if (!names) throw new ConfigError('[error] Make sure the specified clusterName exists or the name server connected to is correct.');
  const map = new Map<string, string[]>();
  for (const name of names) {
    const bd = info.brokerAddrTable.get(name);
    const master = bd?.brokerAddrs.get(0);
    if (!bd || master === undefined) continue;
    map.set(master, [...bd.brokerAddrs].filter(([id]) => id !== 0).map(([, a]) => a));
  }
  return new Map(javaHashOrderKeys(map.keys(), 4).map((m) => [m, map.get(m)!]));
}
