#!/usr/bin/env node
/**
 * The `rocketmq-ts` command: start (name server + broker), namesrv, broker, controller, admin, bench.
 */
// Each command's module is loaded only when that command runs (`start` need not load the admin client).

import { UsageError, errorReport, exitCodeOf } from './cli-errors';

export const USAGE = `usage: rocketmq-ts [--debug] [--log-format pretty|json] <command> [options]

commands:
  start      name server + broker in one process
  namesrv    the name server alone
  broker     the broker alone
  controller the controller of controller mode (rocketmq-ts controller -c controller.conf)
  admin      mqadmin's commands (rocketmq-ts admin help)
  dashboard  web console for a cluster (rocketmq-ts dashboard -n host:port [--port 8080])
  bench      produce / consume benchmarks

  --debug                    print stacks with errors (also ROCKETMQ_DEBUG=1)
  --log-format pretty|json   server log lines: pretty on a terminal, JSON otherwise (also ROCKETMQ_LOG_FORMAT)
`;

/** Takes the global options (anywhere on the line) out of argv into the environment the commands read. */
export function takeGlobalOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--debug') env.ROCKETMQ_DEBUG = '1';
    else if (arg === '--log-format' || arg.startsWith('--log-format=')) {
      const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (value !== 'pretty' && value !== 'json') throw new UsageError(`--log-format takes pretty or json, not ${value ?? 'nothing'}`);
      env.ROCKETMQ_LOG_FORMAT = value;
    } else rest.push(arg);
  }
  return rest;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'bench': {
      const [sub, ...rest] = argv.slice(1);
      if (sub === 'produce') {
        const { benchProduce } = await import('./bench-produce');
        return benchProduce(rest);
      }
      if (sub === 'consume') {
        const { benchConsume } = await import('./bench-consume');
        return benchConsume(rest);
      }
      process.stderr.write('usage: rocketmq-ts bench produce|consume [options] (see --help)\n');
      return 2;
    }
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(USAGE);
      return command ? 0 : 1;
    case 'namesrv':
      return (await import('./namesrv')).runNamesrv(rest);
    case 'broker':
      return (await import('./broker')).runBroker(rest);
    case 'controller':
      return (await import('./controller')).runController(rest);
    case 'start':
      return (await import('./start')).runStart(rest);
    case 'admin': {
      // The command reports its own failure in one line; the client's warnings would only repeat it.
      const { configureRootLogger } = await import('../logger');
      configureRootLogger({ level: process.env.ROCKETMQ_DEBUG === '1' ? 'warn' : 'error' });
      return (await import('./admin')).runAdmin(rest);
    }
    case 'dashboard':
      return (await import('./dashboard')).runDashboard(rest);
    default:
      process.stderr.write(`rocketmq-ts: unknown command ${command}\n${USAGE}`);
      return 2;
  }
}

if (require.main === module) {
  Promise.resolve().then(() => main(takeGlobalOptions(process.argv.slice(2)))).then(
    (code) => { process.exitCode = code; },
    (err: unknown) => { process.stderr.write(errorReport(err)); process.exitCode = exitCodeOf(err); },
  );
}
