/**
 * One controller-mode broker of ours in its own process, so a test can SIGKILL it (not a test file).
 *
 * usage: node controller-broker-child.js '<json: { brokerConfig, messageStoreConfig, replicasManager }>'
 * Prints "READY <brokerAddr>" once started; SIGTERM shuts it down cleanly.
 */
import { BrokerController } from '../../../lib/broker/broker-controller';

async function main(): Promise<void> {
  const opts = JSON.parse(process.argv[2] ?? '{}');
  const b = new BrokerController({ ...opts, remotingServerConfig: { bindAddress: '127.0.0.1', listenPort: 0 } });
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
