/**
 * `npm run compat`: the compatibility matrix against real Java RocketMQ.
 *
 *   node dist/test/compat/run.js [--servers ours,4.9.8,5.3.3] [--rows REGEX] [--report FILE]
 *                                [--namesrv HOST:PORT] [--ci] [--update-baseline]
 *
 * Starts, one server at a time, a Java 4.9.8 name server + broker, a Java 5.3.3 one and ours (`rocketmq-ts start`),
 * each on free ports with a temp store, and runs every row's scenario for every client (our SDK, the Java 4.9.8
 * client driver and mqadmin, ali-ons, and the Node 5.x gRPC client against ours) against it. Prints the matrix
 * (markdown) and writes it to compat-report.md. `--update-baseline` writes the cells that passed to
 * test/compat/baseline.json, keeping the cells the run left out (`--servers`, `--rows`). `--namesrv` runs the rows
 * of our SDK against an existing cluster instead. `--ci` compares with test/compat/baseline.json and exits 1 only
 * when a cell that passed there fails now; without Java it skips.
 */
process.env.ROCKETMQ_LOG_LEVEL = process.env.ROCKETMQ_LOG_LEVEL ?? 'silent';

import fs from 'node:fs';
import path from 'node:path';
import { harnessSkipReason, javaSkipReason, stopAllJava } from '../helpers/javaref';
import { CLIENT_LABEL, Matrix, SERVER_LABEL, readBaseline, regressions, updatedBaseline, type ServerId } from './matrix';
import { CompatFailure, CompatNotApplicable, makeCtx, newAdmin, type Scenario } from './scenario';
import { externalServer, startJavaServer, startOurServer, type ServerHandle } from './servers';
import { OURS_ROWS } from './rows-ours';
import { JAVA_ROWS } from './rows-java';
import { MIXED_ROWS } from './rows-mixed';
import { POP_TIMER_ROWS } from './rows-pop-timer';
import { REPLY_TRACE_ROWS } from './rows-reply-trace';
import { COMPRESS_NS_ROWS } from './rows-compress-ns';
import { CONTROLLER_ROWS } from './rows-controller';
import { GRPC_ROWS } from './rows-grpc';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const BASELINE = path.join(ROOT, 'test', 'compat', 'baseline.json');

interface Args {
  servers: ServerId[];
  rows?: RegExp;
  report: string;
  namesrv?: string;
  ci: boolean;
  updateBaseline: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { servers: ['4.9.8', '5.3.3', 'ours'], report: path.join(process.cwd(), 'compat-report.md'), ci: false, updateBaseline: false };
  for (let i = 0; i < argv.length; i++) {
    const v = (): string => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${argv[i - 1]} needs a value`);
      return x;
    };
    switch (argv[i]) {
      case '--servers': {
        const list = v().split(',').map((s) => s.trim());
        for (const s of list) if (!['ours', '4.9.8', '5.3.3'].includes(s)) throw new Error(`unknown server ${s} (ours, 4.9.8, 5.3.3)`);
        // Java first: the mqadmin rows compare our servers' output with Java 4.9.8's.
        a.servers = (['4.9.8', '5.3.3', 'ours'] as const).filter((s) => list.includes(s));
        break;
      }
      case '--rows': a.rows = new RegExp(v(), 'i'); break;
      case '--report': a.report = path.resolve(v()); break;
      case '--namesrv': a.namesrv = v(); break;
      case '--ci': a.ci = true; break;
      case '--update-baseline': a.updateBaseline = true; break;
      case '-h': case '--help':
        process.stdout.write('usage: npm run compat -- [--servers ours,4.9.8,5.3.3] [--rows REGEX] [--report FILE] [--namesrv HOST:PORT] [--ci] [--update-baseline]\n');
        process.exit(0);
        break;
      default: throw new Error(`unknown option ${argv[i]}`);
    }
  }
  return a;
}

function log(line: string): void {
  process.stderr.write(`[compat ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new CompatFailure(`${what}: no result after ${ms / 1000} s`)), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

function reasonOf(err: unknown): string {
  if (err instanceof CompatFailure) return err.message;
  if (err instanceof Error) return `${err.name}: ${err.message}`.split('\n').slice(0, 3).join(' ');
  return String(err);
}

async function runScenario(s: Scenario, server: ServerHandle, shared: Map<string, string>, m: Matrix): Promise<void> {
  const na = s.na?.[server.id];
  const clients = [s.client, ...(s.alsoClients ?? [])];
  const rows = [s.row, ...(s.alsoRows ?? [])];
  if (na !== undefined) {
    for (const row of rows) for (const c of clients) m.set(row, c, server.id, { outcome: 'na', reason: na });
    return;
  }
  const defers: Array<() => unknown> = [];
  const admin = await newAdmin(server.namesrvAddr);
  const t0 = Date.now();
  let cell: { outcome: 'pass' | 'fail' | 'na'; reason?: string; ms?: number };
  try {
    await withTimeout(s.run(makeCtx(server, admin, shared, defers)), s.timeoutMs ?? 60_000, s.row);
    cell = { outcome: 'pass', ms: Date.now() - t0 };
  } catch (err) {
    cell = err instanceof CompatNotApplicable ? { outcome: 'na', reason: err.message } : { outcome: 'fail', reason: reasonOf(err), ms: Date.now() - t0 };
  }
  for (const d of defers.reverse()) {
    try { await withTimeout(Promise.resolve(d()), 20_000, 'cleanup'); } catch (err) { log(`cleanup after "${s.row}": ${reasonOf(err)}`); }
  }
  await admin.shutdown().catch(() => undefined);
  for (const row of rows) for (const c of clients) m.set(row, c, server.id, cell);
  log(`${cell.outcome === 'pass' ? 'pass' : cell.outcome === 'na' ? 'n.a.' : 'FAIL'} ${CLIENT_LABEL[s.client]} → ${SERVER_LABEL[server.id]}: ${s.row} (${((Date.now() - t0) / 1000).toFixed(1)} s)${cell.reason ? ` — ${cell.reason}` : ''}`);
}

/**
 * What `--ci` leaves out to stay within CI's budget: the Java clients' rows against Java servers (Java against Java:
 * they check the rows, not our code), except mqadmin against Java 4.9.8, whose output the mqadmin rows compare ours
 * with. `npm run compat` runs them all.
 */
function ciLeavesOut(s: Scenario, server: ServerId): boolean {
  if ((s.client !== 'java' && s.client !== 'java5') || server === 'ours') return false;
  return !(s.row.startsWith('mqadmin ') && server === '4.9.8');
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  process.on('unhandledRejection', (err) => log(`unhandled rejection: ${reasonOf(err)}`));
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      log(`${sig}: stopping the Java processes`);
      void stopAllJava().finally(() => process.exit(130));
    });
  }
  const all: Scenario[] = args.namesrv
    ? [...OURS_ROWS, ...POP_TIMER_ROWS, ...REPLY_TRACE_ROWS.filter((s) => s.client === 'ours')]
    : [...OURS_ROWS, ...POP_TIMER_ROWS, ...JAVA_ROWS, ...MIXED_ROWS, ...REPLY_TRACE_ROWS, ...COMPRESS_NS_ROWS, ...CONTROLLER_ROWS, ...GRPC_ROWS];
  const java5Skip = args.namesrv ? null : harnessSkipReason('5.3.3');
  if (java5Skip) log(`Java 5.3.3 client column ${java5Skip}`);
  const scenarios = all.filter((s) => (!args.rows || args.rows.test(s.row) || args.rows.test(s.section)) && !(args.ci && s.slow)
    && !(java5Skip && s.client === 'java5'));
  let servers: ServerId[] = args.namesrv ? ['external'] : args.servers;
  if (!args.namesrv) {
    const skip = javaSkipReason('4.9.8');
    if (skip) {
      process.stdout.write(`compat: ${skip}\n`);
      return 0;
    }
    const skip5 = javaSkipReason('5.3.3');
    if (skip5 && servers.includes('5.3.3')) {
      log(`Java 5.3.3 column ${skip5}`);
      servers = servers.filter((s) => s !== '5.3.3');
    }
  }
  const m = new Matrix(servers);
  for (const s of all) for (const row of [s.row, ...(s.alsoRows ?? [])]) m.addRow(s.section, row);
  const shared = new Map<string, string>();
  const started = Date.now();
  try {
    for (const id of servers) {
      // Every row picked is n.a. against this server (`--rows` of the gRPC column against a Java server): its cells
      // without starting it.
      const picked = scenarios.filter((s) => !(args.ci && ciLeavesOut(s, id)));
      if (picked.length > 0 && picked.every((s) => s.na?.[id] !== undefined)) {
        for (const s of picked) {
          for (const row of [s.row, ...(s.alsoRows ?? [])]) {
            for (const c of [s.client, ...(s.alsoClients ?? [])]) m.set(row, c, id, { outcome: 'na', reason: s.na![id] });
          }
        }
        log(`${SERVER_LABEL[id]}: every row picked is n.a. against it, not started`);
        continue;
      }
      const t0 = Date.now();
      let server: ServerHandle;
      try {
        server = id === 'external' ? await externalServer(args.namesrv!) : id === 'ours' ? await startOurServer() : await startJavaServer(id);
      } catch (err) {
        for (const s of scenarios) {
          for (const row of [s.row, ...(s.alsoRows ?? [])]) {
            for (const c of [s.client, ...(s.alsoClients ?? [])]) m.set(row, c, id, { outcome: 'fail', reason: `server did not start: ${reasonOf(err)}` });
          }
        }
        log(`${SERVER_LABEL[id]} did not start: ${reasonOf(err)}`);
        continue;
      }
      log(`${SERVER_LABEL[id]} up in ${((Date.now() - t0) / 1000).toFixed(1)} s: name server ${server.namesrvAddr}, broker ${server.brokerName} ${server.brokerAddr}`);
      try {
        for (const s of scenarios) {
          if (id === 'external' && s.client !== 'ours') continue;
          if (args.ci && ciLeavesOut(s, id)) continue;
          await runScenario(s, server, shared, m);
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await stopAllJava();
  }
  const title = args.namesrv ? `rocketmq-ts compatibility against ${args.namesrv}` : 'rocketmq-ts compatibility matrix';
  const md = m.toMarkdown(title);
  fs.writeFileSync(args.report, md);
  process.stdout.write(md);
  const c = m.counts();
  const elapsed = ((Date.now() - started) / 1000).toFixed(0);
  if (args.updateBaseline) {
    const next = updatedBaseline(m, readBaseline(BASELINE));
    fs.writeFileSync(BASELINE, JSON.stringify(next, null, 2) + '\n');
    log(`baseline written: ${next.pass.length} cells (${m.passed().length} passed in this run)`);
  }
  if (args.ci) {
    const lost = regressions(m, readBaseline(BASELINE));
    for (const k of lost) process.stdout.write(`compat regression: ${k} — ${m.cells.get(k)?.reason ?? 'not run'}\n`);
    process.stdout.write(`compat: ${c.pass} pass, ${c.fail} fail, ${c.na} n.a. in ${elapsed} s; ${lost.length} regression(s) against test/compat/baseline.json\n`);
    return lost.length > 0 ? 1 : 0;
  }
  process.stdout.write(`compat: ${c.pass} pass, ${c.fail} fail, ${c.na} n.a. in ${elapsed} s; report in ${path.relative(process.cwd(), args.report)}\n`);
  return c.fail > 0 ? 1 : 0;
}

main().then(
  (code) => { process.exitCode = code; setTimeout(() => process.exit(code), 2000).unref(); },
  async (err: unknown) => {
    process.stderr.write(`compat: ${err instanceof Error ? err.stack : String(err)}\n`);
    await stopAllJava();
    process.exit(2);
  },
);
