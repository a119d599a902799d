/**
 * One broker of ours in its own process (a DLedger peer, a controller-mode replica, a master or a slave), so a test
 * or a benchmark can SIGKILL it. Started through test/helpers/broker-child-process.ts.
 *
 * usage: node broker-child.js '<json: BrokerController options (brokerConfig, messageStoreConfig, dledger, ...)>'
 * Prints "READY <brokerAddr>" once started; SIGTERM shuts it down cleanly.
 */
import { BrokerController } from '../../lib/broker/broker-controller';

async function main(): Promise<void> {
  const opts = JSON.parse(process.argv[2] ?? '{}');
  // 127.0.0.1, a free port unless the options name one
  const b = new BrokerController({ ...opts, remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0, ...opts.remotingServerConfig } });
  await b.start();
  process.stdout.write(`READY ${b.brokerAddr}\n`);
  process.once('SIGTERM', () => {
    void b.shutdown().then(() => process.exit(0));
  });
  setInterval(() => undefined, 1 << 30);
}

main().catch((err) => {
  process.stderr.write(`${String(err?.stack ?? err)}\n`);
  process.exit(1);
});
