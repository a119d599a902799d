#!/usr/bin/env node
/**
 * The `rocketmq-ts` command: start (name server + broker), namesrv, broker, admin, bench.
 */
import { runNamesrv } from './namesrv';

const USAGE = `usage: rocketmq-ts <command> [options]

commands:
  start      name server + broker in one process
  namesrv    the name server alone
  broker     the broker alone
  bench      produce / consume benchmarks
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(USAGE);
      return command ? 0 : 1;
    case 'namesrv':
      return runNamesrv(rest);
    default:
      process.stderr.write(`rocketmq-ts: unknown command ${command}\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`rocketmq-ts: ${err instanceof Error ? err.stack : String(err)}\n`); process.exitCode = 1; },
);
