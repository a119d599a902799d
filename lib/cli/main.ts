#!/usr/bin/env node
/**
 * The `rocketmq-ts` command: start (name server + broker), namesrv, broker, admin, bench.
 */
// Each command's module is loaded only when that command runs (`start` need not load the admin client).

const USAGE = `usage: rocketmq-ts <command> [options]

commands:
  start      name server + broker in one process
  namesrv    the name server alone
  broker     the broker alone
  admin      mqadmin's commands (rocketmq-ts admin help)
  bench      produce / consume benchmarks
`;

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
    case 'start':
      return (await import('./start')).runStart(rest);
    case 'admin':
      return (await import('./admin')).runAdmin(rest);
    default:
      process.stderr.write(`rocketmq-ts: unknown command ${command}\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`rocketmq-ts: ${err instanceof Error ? err.stack : String(err)}\n`); process.exitCode = 1; },
);
export {};
