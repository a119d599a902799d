/**
 * A rocketmq-client-nodejs PushConsumer in its own process, for tests that kill a gRPC client (kill -9) while it
 * holds messages: it prints one line `got <messageId>` per message it is given and never finishes consuming one.
 *
 * usage: node grpc-push-consumer-child.js <endpoints> <group> <topic>
 */
import { PushConsumer, type MessageView } from 'rocketmq-client-nodejs';

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
// eslint-disable-next-line @typescript-eslint/no-require-imports
(require('rocketmq-client-nodejs/dist/client/Logger') as { getDefaultLogger: () => unknown }).getDefaultLogger = () => logger;

async function main(): Promise<void> {
  const [endpoints, group, topic] = process.argv.slice(2);
  const consumer = new PushConsumer({
    endpoints, namespace: '', consumerGroup: group, subscriptions: new Map([[topic, '*']]), logger,
    messageListener: {
      consume(m: MessageView) {
        process.stdout.write(`got ${m.messageId}\n`);
        return new Promise(() => undefined);
      },
    },
  });
  await consumer.startup();
  process.stdout.write('started\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
