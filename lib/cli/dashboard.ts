/**
 * `rocketmq-ts dashboard -n host:port [--port 8080] [--host 127.0.0.1]`: the web console (lib/dashboard) for any
 * cluster, ours or Java's, until SIGINT/SIGTERM.
 */
import { configureRootLogger } from '../logger';
import { debugEnabled, UsageError } from './cli-errors';
import { untilSignal } from './until-signal';
import { DEFAULT_DASHBOARD_SERVER_OPTIONS, DashboardServer, type DashboardServerOptions } from '../dashboard/dashboard-server';

export const DASHBOARD_USAGE = `usage: rocketmq-ts dashboard -n host:port[;host:port] [--port ${DEFAULT_DASHBOARD_SERVER_OPTIONS.port}] [--host ${DEFAULT_DASHBOARD_SERVER_OPTIONS.host}]

  -n, --namesrvAddr ADDR        name server address list (or NAMESRV_ADDR)
  -p, --port PORT               HTTP port (default ${DEFAULT_DASHBOARD_SERVER_OPTIONS.port}; 0: any free port)
      --host ADDR               address to bind (default ${DEFAULT_DASHBOARD_SERVER_OPTIONS.host}; 0.0.0.0 for every interface:
                                the dashboard has no login, anyone who reaches it can create and delete topics)
      --sample-interval MS      how often the live charts take a sample (default ${DEFAULT_DASHBOARD_SERVER_OPTIONS.sampleIntervalMillis})
  -h, --help                    this help
`;

export function parseDashboardArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): (Partial<DashboardServerOptions> & { namesrvAddr: string }) | 'help' {
  const out: Partial<DashboardServerOptions> = {};
  let namesrvAddr = env.NAMESRV_ADDR ?? '';
  const int = (name: string, raw: string | undefined, max: number): number => {
    const n = Number(raw);
    if (raw === undefined || !Number.isInteger(n) || n < 0 || n > max) throw new UsageError(`${name} takes an integer from 0 to ${max}, not ${raw ?? 'nothing'}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '-n' || arg === '--namesrvAddr') namesrvAddr = argv[++i] ?? '';
    else if (arg === '-p' || arg === '--port') out.port = int(arg, argv[++i], 65535);
    else if (arg === '--host') {
      const host = argv[++i];
      if (!host) throw new UsageError('--host needs an address');
      out.host = host;
    } else if (arg === '--sample-interval') out.sampleIntervalMillis = int(arg, argv[++i], 3_600_000);
    else throw new UsageError(`unknown dashboard option ${arg}`);
  }
  if (!namesrvAddr) throw new UsageError('the dashboard needs a name server: -n host:port');
  return { ...out, namesrvAddr };
}

export async function runDashboard(argv: string[]): Promise<number> {
  const args = parseDashboardArgs(argv);
  if (args === 'help') {
    process.stdout.write(DASHBOARD_USAGE);
    return 0;
  }
  const logger = configureRootLogger({ level: 'info', stacks: debugEnabled() });
  const server = new DashboardServer(args, { logger });
  await server.start();
  return untilSignal(logger, () => server.shutdown(), () => {
    process.stdout.write(`The dashboard is at ${server.url} (name server ${args.namesrvAddr})\n`);
  });
}
