/**
 * Hosts in network namespaces for the network chaos scenarios (chaos/net): each host is a namespace
 * `rmqnet<pid>-<host>` with one veth (`eth0`) on a bridge that lives in a namespace of its own (`rmqnet<pid>-sw`), so
 * nothing is created in the root namespace and deleting the namespaces removes every link. Addresses are 198.18.0.x/24
 * (198.18.0.0/15 is set aside for benchmarking networks), only inside these namespaces.
 *
 * Faults:
 * - partition(A, B): each host drops what arrives from the other side, with a policy rule `from <peer> blackhole`
 *   evaluated before the local table (the local table's rule is moved from priority 0 to 100 at creation). Packets
 *   leave the sender and vanish on the way, as on a real network: a connect hangs until its timeout, an established
 *   connection retransmits into the void. `oneWay` drops only A -> B (B's rules), B -> A still arrives.
 *   (A blackhole *route* at the sender would fail the sender's connect at once with EINVAL: not what a cut link does.)
 * - isolate(host): its eth0 down (every packet to or from it lost, local sockets see nothing until they time out).
 * - heal(): every rule removed, every link up, every loss rule and qdisc removed.
 * - signal(host, SIGKILL | SIGSTOP | SIGCONT): to every process in the host's namespace (`ip netns pids`).
 * - loss(host, percent, { direction }): random packet loss on the host's eth0, iptables' `statistic` match (mode
 *   random) in the host's INPUT and/or OUTPUT chain (`iptables-legacy` when there is one, else `iptables`).
 * - slowLink(host, rateKbit): the host's link capped both ways with a `tbf` qdisc (on its eth0 and on its bridge port
 *   in the switch namespace): throughput bounded, packets queue behind each other (up to `latencyMs`), then drop.
 * - delay(host, ms, jitterMs): `netem` on the host's eth0, only where the kernel has sch_netem; elsewhere it throws
 *   NetFaultUnavailableError with the reason. This kernel lacks it (`tc qdisc ... netem` is "Specified qdisc kind is
 *   unknown"), so delay, jitter, duplication and reordering are not injected here; see docs/chaos.md.
 * `netFaultsUnavailable()` says which of loss / slowLink / delay this machine cannot do, and why.
 *
 * Root only. `NetCluster.removeLeftovers()` deletes the namespaces of runs whose process is gone (a killed run), and
 * every cluster is destroyed on exit, SIGINT and SIGTERM.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const NS_PREFIX = 'rmqnet';
const SUBNET = '198.18.0';

function ip(args: string[], allowFail = false): string {
  try {
    return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    if (allowFail) return '';
    const e = err as { stderr?: string; message: string };
    throw new Error(`ip ${args.join(' ')}: ${(e.stderr ?? e.message).trim()}`);
  }
}

/** Why network namespaces cannot be used here (null when they can): not root, no `ip`, or `ip netns add` refused. */
export function netnsUnavailable(): string | null {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'not root (ip netns needs CAP_SYS_ADMIN)';
  const probe = `${NS_PREFIX}${process.pid}-probe`;
  try {
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'ignore' });
  } catch (err) {
    return `ip netns add failed: ${(err as Error).message.split('\n')[0]}`;
  }
  ip(['netns', 'del', probe], true);
  return null;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killNamespace(ns: string): void {
  for (const line of ip(['netns', 'pids', ns], true).split('\n')) {
    const pid = Number(line.trim());
    if (pid > 0) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ }
    }
  }
  ip(['netns', 'del', ns], true);
}

/** A fault this machine cannot inject (no iptables, no statistic match, no sch_netem, ...): the message says why. */
export class NetFaultUnavailableError extends Error {
  constructor(readonly fault: NetFault, reason: string) {
    super(`${fault} unavailable: ${reason}`);
    this.name = 'NetFaultUnavailableError';
  }
}

export type NetFault = 'loss' | 'slowLink' | 'delay';

function run(cmd: string, args: string[]): { ok: boolean; missing: boolean; err: string } {
  try {
    execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    return { ok: true, missing: false, err: '' };
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    const missing = e.code === 'ENOENT' || (e.stderr?.toString() ?? '').includes('No such file or directory');
    return { ok: false, missing, err: (e.stderr?.toString() || e.message).trim().split('\n')[0] };
  }
}

/** The iptables binaries tried, in order: the legacy one works on kernels without nf_tables. */
const IPTABLES = ['iptables-legacy', 'iptables'];

let probed: { iptables: string | null; why: Record<NetFault, string | null> } | null = null;

/**
 * Tries each fault once in a throwaway namespace (with a veth pair, as the hosts have): an iptables statistic rule, a
 * tbf qdisc and a netem qdisc. Cached for the process.
 */
function probeFaults(): { iptables: string | null; why: Record<NetFault, string | null> } {
  if (probed) return probed;
  const ns0 = netnsUnavailable();
  if (ns0) {
    probed = { iptables: null, why: { loss: ns0, slowLink: ns0, delay: ns0 } };
    return probed;
  }
  const probe = `${NS_PREFIX}${process.pid}-fprobe`;
  const why: Record<NetFault, string | null> = { loss: null, slowLink: null, delay: null };
  let iptables: string | null = null;
  try {
    ip(['netns', 'add', probe]);
    ip(['-n', probe, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth1']);
    ip(['-n', probe, 'link', 'set', 'eth0', 'up']);
    const errs: string[] = [];
    for (const bin of IPTABLES) {
      const r = run('ip', ['netns', 'exec', probe, bin, '-w', '-A', 'INPUT', '-i', 'eth0', '-m', 'statistic', '--mode', 'random', '--probability', '0.5', '-j', 'DROP']);
      if (r.ok) {
        iptables = bin;
        break;
      }
      if (!r.missing) errs.push(`${bin}: ${r.err}`);
    }
    if (!iptables) {
      why.loss = errs.length === 0
        ? 'no iptables binary (iptables-legacy or iptables: apt-get install iptables, Debian package iptables)'
        : `no iptables statistic match (xt_statistic) here: ${errs.join('; ')}`;
    }
    const tbf = run('ip', ['netns', 'exec', probe, 'tc', 'qdisc', 'add', 'dev', 'eth0', 'root', 'tbf', 'rate', '1mbit', 'burst', '16kb', 'latency', '100ms']);
    if (!tbf.ok) why.slowLink = tbf.missing ? 'no tc binary (Debian package iproute2)' : `tc qdisc add ... tbf failed (the kernel lacks sch_tbf?): ${tbf.err}`;
    const netem = run('ip', ['netns', 'exec', probe, 'tc', 'qdisc', 'add', 'dev', 'eth1', 'root', 'netem', 'delay', '10ms']);
    if (!netem.ok) {
      why.delay = netem.missing ? 'no tc binary (Debian package iproute2)'
        : /unknown/i.test(netem.err) ? `the kernel lacks sch_netem (CONFIG_NET_SCH_NETEM): tc says "${netem.err}"` : `tc qdisc add ... netem failed: ${netem.err}`;
    }
  } catch (err) {
    const reason = `the probe namespace could not be set up: ${(err as Error).message.split('\n')[0]}`;
    for (const f of Object.keys(why) as NetFault[]) why[f] ??= reason;
  } finally {
    ip(['netns', 'del', probe], true);
  }
  probed = { iptables, why };
  return probed;
}

/**
 * Which of the faults beyond partitions this machine cannot inject, each with the reason (null: it can): `loss`
 * (iptables with the statistic match), `slowLink` (the tbf qdisc), `delay` (the netem qdisc, sch_netem). Without
 * network namespaces every one carries netnsUnavailable()'s reason.
 */
export function netFaultsUnavailable(): Record<NetFault, string | null> {
  return { ...probeFaults().why };
}

export interface Host {
  name: string;
  ns: string;
  addr: string;
  /** The command prefix that runs a program inside the host: `ip netns exec <ns>`. */
  wrap: string[];
}

const live = new Set<NetCluster>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => { for (const c of live) c.destroy(); });
}

export class NetCluster {
  readonly hosts = new Map<string, Host>();
  readonly id: string;
  readonly #sw: string;
  /** Rules in place, as `<receiver>|<sender>`. */
  readonly #drops = new Set<string>();
  readonly #down = new Set<string>();
  /** Loss rules in place per host: the iptables arguments after -A / -D. */
  readonly #loss = new Map<string, string[][]>();
  /** Hosts with a root qdisc of ours (slowLink / delay), and whether the bridge port has one too. */
  readonly #qdisc = new Map<string, { kind: 'tbf' | 'netem'; port: boolean }>();
  /** Each host's bridge port in the switch namespace. */
  readonly #port = new Map<string, string>();
  #destroyed = false;

  /**
   * Deletes the namespaces (killing their processes) and the temp dirs (`<tmp>/rmq-chaos-rmqnet<pid>-*`, see
   * `netTempPrefix`) of chaos runs whose owning process no longer exists: what a killed run left.
   */
  static removeLeftovers(): string[] {
    const removed: string[] = [];
    const re = new RegExp(`^${NS_PREFIX}(\\d+)-\\S+`);
    for (const line of ip(['netns', 'list'], true).split('\n')) {
      const m = line.match(re);
      if (!m || pidAlive(Number(m[1]))) continue;
      killNamespace(m[0]);
      removed.push(m[0]);
    }
    const dirRe = new RegExp(`^rmq-chaos-${NS_PREFIX}(\\d+)-`);
    for (const name of fs.readdirSync(os.tmpdir())) {
      const m = name.match(dirRe);
      if (!m || pidAlive(Number(m[1]))) continue;
      unmountUnder(path.join(os.tmpdir(), name));
      fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
      removed.push(path.join(os.tmpdir(), name));
    }
    return removed;
  }

  /** Creates the switch and one namespace per host name, addresses 198.18.0.10, .11, ... in the order given. */
  constructor(names: string[]) {
    NetCluster.removeLeftovers();
    this.id = `${NS_PREFIX}${process.pid}`;
    this.#sw = `${this.id}-sw`;
    live.add(this);
    hookExit();
    try {
      ip(['netns', 'add', this.#sw]);
      ip(['-n', this.#sw, 'link', 'add', 'br0', 'type', 'bridge']);
      ip(['-n', this.#sw, 'link', 'set', 'br0', 'up']);
      names.forEach((name, i) => {
        if (this.hosts.has(name) || !/^[a-z0-9]{1,8}$/.test(name)) throw new Error(`bad or repeated host name ${name}`);
        const ns = `${this.id}-${name}`;
        const addr = `${SUBNET}.${10 + i}`;
        ip(['netns', 'add', ns]);
        ip(['link', 'add', 'eth0', 'netns', ns, 'type', 'veth', 'peer', 'name', `v${i}`, 'netns', this.#sw]);
        ip(['-n', this.#sw, 'link', 'set', `v${i}`, 'master', 'br0', 'up']);
        ip(['-n', ns, 'link', 'set', 'lo', 'up']);
        ip(['-n', ns, 'addr', 'add', `${addr}/24`, 'dev', 'eth0']);
        ip(['-n', ns, 'link', 'set', 'eth0', 'up']);
        // Our drop rules go before the local table, so they see packets addressed to this host.
        ip(['-n', ns, 'rule', 'add', 'pref', '100', 'table', 'local']);
        ip(['-n', ns, 'rule', 'del', 'pref', '0']);
        this.hosts.set(name, { name, ns, addr, wrap: ['ip', 'netns', 'exec', ns] });
        this.#port.set(name, `v${i}`);
      });
    } catch (err) {
      this.destroy();
      throw err;
    }
  }

  host(name: string): Host {
    const h = this.hosts.get(name);
    if (!h) throw new Error(`no host ${name}`);
    return h;
  }

  #drop(receiver: string, sender: string): void {
    const key = `${receiver}|${sender}`;
    if (receiver === sender || this.#drops.has(key)) return;
    ip(['-n', this.host(receiver).ns, 'rule', 'add', 'pref', '10', 'from', this.host(sender).addr, 'blackhole']);
    this.#drops.add(key);
  }

  /** Cuts `a` from `b` (both ways, or only a -> b with `oneWay`). Adds to the cuts in place. */
  partition(a: string[], b: string[], opts: { oneWay?: boolean } = {}): void {
    for (const x of a) {
      for (const y of b) {
        this.#drop(y, x);
        if (!opts.oneWay) this.#drop(x, y);
      }
    }
  }

  /** The host's link down: nothing in or out. */
  isolate(name: string): void {
    ip(['-n', this.host(name).ns, 'link', 'set', 'eth0', 'down']);
    this.#down.add(name);
  }

  #iptables(name: string, args: string[], allowFail = false): void {
    const bin = probeFaults().iptables;
    if (!bin) throw new NetFaultUnavailableError('loss', probeFaults().why.loss ?? 'no iptables');
    const r = run('ip', ['netns', 'exec', this.host(name).ns, bin, '-w', ...args]);
    if (!r.ok && !allowFail) throw new Error(`${bin} ${args.join(' ')} in ${name}: ${r.err}`);
  }

  /**
   * Random loss of `percent` % of the packets arriving on (`in`), leaving from (`out`) or both ways (default) the
   * host's eth0: iptables' statistic match (mode random) in the host's INPUT / OUTPUT chain. Replaces the host's
   * loss in place; undone by heal() (and with the namespace by destroy()).
   */
  loss(name: string, percent: number, opts: { direction?: 'in' | 'out' | 'both' } = {}): void {
    if (!(percent > 0 && percent <= 100)) throw new RangeError(`loss percent must be in (0, 100], got ${percent}`);
    const direction = opts.direction ?? 'both';
    if (!['in', 'out', 'both'].includes(direction)) throw new RangeError(`loss direction must be in, out or both, got ${String(direction)}`);
    const why = probeFaults().why.loss;
    if (why) throw new NetFaultUnavailableError('loss', why);
    this.host(name);
    this.#clearLoss(name);
    const p = (percent / 100).toFixed(4);
    const rules: string[][] = [];
    if (direction !== 'out') rules.push(['INPUT', '-i', 'eth0', '-m', 'statistic', '--mode', 'random', '--probability', p, '-j', 'DROP']);
    if (direction !== 'in') rules.push(['OUTPUT', '-o', 'eth0', '-m', 'statistic', '--mode', 'random', '--probability', p, '-j', 'DROP']);
    this.#loss.set(name, []);
    for (const r of rules) {
      this.#iptables(name, ['-A', ...r]);
      this.#loss.get(name)!.push(r);
    }
  }

  /** Packets the host's loss rules dropped so far (their iptables counters), 0 without loss rules. */
  lossDropped(name: string): number {
    const bin = probeFaults().iptables;
    if (!bin || !this.#loss.has(name)) return 0;
    let n = 0;
    for (const chain of ['INPUT', 'OUTPUT']) {
      const out = execFileSync('ip', ['netns', 'exec', this.host(name).ns, bin, '-w', '-L', chain, '-v', '-x', '-n'], { encoding: 'utf8' });
      for (const line of out.split('\n')) if (/statistic mode random/.test(line) && /DROP/.test(line)) n += Number(line.trim().split(/\s+/)[0]) || 0;
    }
    return n;
  }

  /** The counters of the host's qdisc fault on its eth0 (what it sent), null without one. */
  qdiscStats(name: string): { kind: string; sentPackets: number; dropped: number; overlimits: number } | null {
    const q = this.#qdisc.get(name);
    if (!q) return null;
    const out = ip(['netns', 'exec', this.host(name).ns, 'tc', '-s', 'qdisc', 'show', 'dev', 'eth0'], true);
    const m = out.match(/Sent \d+ bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)/);
    return { kind: q.kind, sentPackets: Number(m?.[1] ?? 0), dropped: Number(m?.[2] ?? 0), overlimits: Number(m?.[3] ?? 0) };
  }

  #clearLoss(name: string): void {
    for (const r of this.#loss.get(name) ?? []) this.#iptables(name, ['-D', ...r], true);
    this.#loss.delete(name);
  }

  #addQdisc(name: string, kind: 'tbf' | 'netem', spec: string[], port: boolean): void {
    if (this.#qdisc.has(name)) throw new Error(`host ${name} already has a ${this.#qdisc.get(name)!.kind} fault; heal() first`);
    const h = this.host(name);
    this.#qdisc.set(name, { kind, port: false });
    ip(['netns', 'exec', h.ns, 'tc', 'qdisc', 'add', 'dev', 'eth0', 'root', kind, ...spec]);
    if (port) {
      ip(['netns', 'exec', this.#sw, 'tc', 'qdisc', 'add', 'dev', this.#port.get(name)!, 'root', kind, ...spec]);
      this.#qdisc.set(name, { kind, port: true });
    }
  }

  #clearQdisc(name: string): void {
    const q = this.#qdisc.get(name);
    if (!q) return;
    ip(['netns', 'exec', this.host(name).ns, 'tc', 'qdisc', 'del', 'dev', 'eth0', 'root'], true);
    if (q.port) ip(['netns', 'exec', this.#sw, 'tc', 'qdisc', 'del', 'dev', this.#port.get(name)!, 'root'], true);
    this.#qdisc.delete(name);
  }

  /**
   * The host's link capped at `rateKbit` kbit/s both ways: a tbf qdisc on its eth0 (what it sends) and on its bridge
   * port in the switch namespace (what it receives). Packets beyond the rate wait in the queue, up to `latencyMs`
   * (default 1000), then drop: throughput bounded, queueing delay grows with the load. Undone by heal().
   */
  slowLink(name: string, rateKbit: number, opts: { latencyMs?: number; burstBytes?: number } = {}): void {
    if (!(rateKbit >= 8)) throw new RangeError(`slowLink rate must be at least 8 kbit/s, got ${rateKbit}`);
    const why = probeFaults().why.slowLink;
    if (why) throw new NetFaultUnavailableError('slowLink', why);
    // At least a few full frames, and at least 10 ms worth of the rate.
    const burst = opts.burstBytes ?? Math.max(4096, Math.ceil((rateKbit * 1000) / 8 / 100));
    this.#addQdisc(name, 'tbf', ['rate', `${rateKbit}kbit`, 'burst', String(burst), 'latency', `${opts.latencyMs ?? 1000}ms`], true);
  }

  /**
   * Every packet the host sends delayed by `ms` (± `jitterMs`, normal distribution) with netem: needs a kernel with
   * sch_netem; throws NetFaultUnavailableError with the reason otherwise (nothing else stands in for it). Undone by heal().
   */
  delay(name: string, ms: number, jitterMs = 0): void {
    if (!(ms >= 0) || !(jitterMs >= 0)) throw new RangeError(`delay ms and jitterMs must be >= 0, got ${ms} / ${jitterMs}`);
    const why = probeFaults().why.delay;
    if (why) throw new NetFaultUnavailableError('delay', why);
    this.#addQdisc(name, 'netem', ['delay', `${ms}ms`, ...(jitterMs > 0 ? [`${jitterMs}ms`, 'distribution', 'normal'] : [])], false);
  }

  /** Removes every cut, loss rule and qdisc, and brings every link up. */
  heal(): void {
    for (const name of [...this.#loss.keys()]) this.#clearLoss(name);
    for (const name of [...this.#qdisc.keys()]) this.#clearQdisc(name);
    for (const key of this.#drops) {
      const [receiver, sender] = key.split('|');
      ip(['-n', this.host(receiver).ns, 'rule', 'del', 'pref', '10', 'from', this.host(sender).addr, 'blackhole'], true);
    }
    this.#drops.clear();
    for (const name of this.#down) {
      ip(['-n', this.host(name).ns, 'link', 'set', 'eth0', 'up']);
      // Routes of the subnet come back with the link; nothing else to restore.
    }
    this.#down.clear();
  }

  /** The cuts in place, as `receiver<-sender` pairs (for logs). */
  get cuts(): string[] {
    return [
      ...[...this.#drops].map((k) => k.replace('|', '<-')), ...[...this.#down].map((h) => `${h} down`),
      ...[...this.#loss].map(([h, rules]) => `${h} loss ${rules.map((r) => `${r[0] === 'INPUT' ? 'in' : 'out'} ${Math.round(Number(r[8]) * 10_000) / 100}%`).join(' ')}`),
      ...[...this.#qdisc].map(([h, q]) => `${h} ${q.kind}`),
    ];
  }

  /** Pids of every process in the host's namespace. */
  pids(name: string): number[] {
    return ip(['netns', 'pids', this.host(name).ns], true).split('\n').map((l) => Number(l.trim())).filter((p) => p > 0);
  }

  /** Sends `signal` to every process of the host; returns how many got it. */
  signal(name: string, signal: NodeJS.Signals): number {
    let n = 0;
    for (const pid of this.pids(name)) {
      try {
        process.kill(pid, signal);
        n++;
      } catch { /* gone */ }
    }
    return n;
  }

  /** Kills every process in every host (SIGKILL, after a SIGCONT for stopped ones) and deletes the namespaces. Idempotent. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    live.delete(this);
    for (const h of this.hosts.values()) killNamespace(h.ns);
    killNamespace(this.#sw);
    // Namespaces a failed constructor created before its host was registered.
    for (const line of ip(['netns', 'list'], true).split('\n')) {
      const ns = line.split(' ')[0];
      if (ns.startsWith(`${this.id}-`)) killNamespace(ns);
    }
  }
}

/** Lazily unmounts what is mounted under `dir` (a killed run's tmpfs disks, see scenarios.ts fillDisk). */
function unmountUnder(dir: string): void {
  let mounts = '';
  try {
    mounts = fs.readFileSync('/proc/mounts', 'utf8');
  } catch {
    return;
  }
  for (const line of mounts.split('\n')) {
    const at = line.split(' ')[1];
    if (at && (at === dir || at.startsWith(`${dir}/`))) {
      try {
        execFileSync('umount', ['-l', at], { stdio: 'ignore' });
      } catch {
        // gone meanwhile
      }
    }
  }
}

/** The prefix (for chaos/procs.ts makeTempDir) of this process's temp dirs, which removeLeftovers finds. */
export function netTempPrefix(name: string): string {
  return `${NS_PREFIX}${process.pid}-${name}`;
}

/**
 * Destroys every cluster of this process and unmounts the disks (tmpfs) of its runs' temp dirs, which the run's own
 * cleanup would have unmounted (for SIGINT / SIGTERM handlers; the dirs stay for removeLeftovers or a reader).
 */
export function destroyAllNetClusters(): void {
  for (const c of [...live]) c.destroy();
  const own = `rmq-chaos-${NS_PREFIX}${process.pid}-`;
  for (const name of fs.readdirSync(os.tmpdir())) if (name.startsWith(own)) unmountUnder(path.join(os.tmpdir(), name));
}
