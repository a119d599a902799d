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
 * - heal(): every rule removed, every link up.
 * - signal(host, SIGKILL | SIGSTOP | SIGCONT): to every process in the host's namespace (`ip netns pids`).
 *
 * What this kernel lacks: sch_netem (`tc qdisc ... netem` is "Specified qdisc kind is unknown"), so packet loss,
 * delay, jitter, duplication and reordering are not injected here; see docs/chaos.md.
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

  /** Removes every cut and brings every link up. */
  heal(): void {
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
    return [...[...this.#drops].map((k) => k.replace('|', '<-')), ...[...this.#down].map((h) => `${h} down`)];
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

/** The prefix (for chaos/procs.ts makeTempDir) of this process's temp dirs, which removeLeftovers finds. */
export function netTempPrefix(name: string): string {
  return `${NS_PREFIX}${process.pid}-${name}`;
}

/** Destroys every cluster of this process (for SIGINT / SIGTERM handlers). */
export function destroyAllNetClusters(): void {
  for (const c of [...live]) c.destroy();
}
