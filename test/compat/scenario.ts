/**
 * What a matrix row runs: a scenario for one client against one server, given a context with the server, an admin
 * client of ours for setup and checks, unique names and a cleanup list run after the scenario whatever happened.
 */
import { DefaultMQAdminExt } from '../../lib/admin/default-mq-admin-ext';
import type { ClientId, ServerId } from './matrix';
import type { ServerHandle } from './servers';

export interface Ctx {
  server: ServerHandle;
  admin: DefaultMQAdminExt;
  /** A name unique to this run, valid as a topic and a group. */
  name(prefix: string): string;
  /** Creates `topic` on the server's broker and waits until its route is served. */
  createTopic(topic: string, queues?: number): Promise<void>;
  /** Runs after the scenario (also on failure and timeout), last in first out. */
  defer(fn: () => unknown): void;
  /** Values shared across servers in one run (mqadmin output against Java, compared with ours). */
  shared: Map<string, string>;
}

export interface Scenario {
  section: string;
  row: string;
  client: ClientId;
  /** Servers this scenario does not apply to, with the reason (an n.a. cell). */
  na?: Partial<Record<ServerId, string>>;
  /** Servers the scenario runs against (default: all). */
  only?: ServerId[];
  /** Also fill these client columns with the result (rows where two clients take part). */
  alsoClients?: ClientId[];
  /** Other rows this scenario also proves (their cells get its result). */
  alsoRows?: string[];
  timeoutMs?: number;
  /** Rows `--ci` leaves out: long (a minute or more), or bounded by timings tuned for another setup. */
  slow?: boolean;
  run(ctx: Ctx): Promise<void>;
}

export class CompatFailure extends Error {}

/** Thrown by a scenario that finds at run time it cannot apply here (a missing native library of Java's): an n.a. cell. */
export class CompatNotApplicable extends Error {}

/** Throws a CompatFailure with `why` unless `cond`. */
export function check(cond: unknown, why: string): asserts cond {
  if (!cond) throw new CompatFailure(why);
}

/** Polls until `predicate` holds; throws `what` after `timeoutMs`. Waits on an event, never asserts on a delay. */
export async function until(predicate: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await predicate()) return;
    } catch { /* keep polling */ }
    if (Date.now() > deadline) throw new CompatFailure(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let seq = 0;
export function uniqueName(prefix: string): string {
  seq++;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${seq}`;
}

export async function newAdmin(namesrvAddr: string): Promise<DefaultMQAdminExt> {
  const admin = new DefaultMQAdminExt({ namesrvAddr, instanceName: uniqueName('compat_admin') });
  await admin.start();
  return admin;
}

export function makeCtx(server: ServerHandle, admin: DefaultMQAdminExt, shared: Map<string, string>, defers: Array<() => unknown>): Ctx {
  return {
    server,
    admin,
    shared,
    name: uniqueName,
    defer: (fn) => { defers.push(fn); },
    async createTopic(topic, queues = 4) {
      await admin.createTopic('TBW102', topic, queues);
      await until(async () => (await admin.examineTopicRouteInfo(topic)).queueDatas.some((q) => q.brokerName === server.brokerName), 30_000, `route of ${topic}`);
    },
  };
}
