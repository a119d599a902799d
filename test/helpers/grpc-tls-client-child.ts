/**
 * rocketmq-client-nodejs over TLS in its own process (not a test file): its clients take no CA option
 * (`sslEnabled` → grpc-js ChannelCredentials.createSsl() with the default roots), and grpc-js reads
 * GRPC_DEFAULT_SSL_ROOTS_FILE_PATH once, when it is first loaded; the parent sets it to the test CA for this process.
 * A Producer sends `count` messages, a SimpleConsumer receives and acks them, both with sslEnabled (and signed when
 * an access key is given). Prints `sent <id>`, `got <id> <body>`, then `done`; on failure `error <code> <message>`
 * and exit code 2.
 *
 * usage: GRPC_DEFAULT_SSL_ROOTS_FILE_PATH=ca.pem node grpc-tls-client-child.js <endpoints> <topic> <group> <count> [<accessKey> <accessSecret>]
 */
import { Producer, SimpleConsumer } from 'rocketmq-client-nodejs';

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
// eslint-disable-next-line @typescript-eslint/no-require-imports
(require('rocketmq-client-nodejs/dist/client/Logger') as { getDefaultLogger: () => unknown }).getDefaultLogger = () => logger;

async function main(): Promise<void> {
  const [endpoints, topic, group, countText, accessKey, accessSecret] = process.argv.slice(2);
  const count = Number(countText);
  const credentials = accessKey ? { sessionCredentials: { accessKey, accessSecret } } : {};
  const common = { endpoints, namespace: '', sslEnabled: true, logger, ...credentials };
  const producer = new Producer({ ...common, topics: [topic] });
  await producer.startup();
  const sent = new Set<string>();
  try {
    for (let i = 0; i < count; i++) {
      const r = await producer.send({ topic, tag: 'tls', body: Buffer.from(`tls-${i}`) });
      sent.add(r.messageId);
      process.stdout.write(`sent ${r.messageId}\n`);
    }
  } finally {
    await producer.shutdown();
  }
  const consumer = new SimpleConsumer({ ...common, consumerGroup: group, subscriptions: new Map([[topic, '*']]), awaitDuration: 5000 });
  await consumer.startup();
  try {
    const deadline = Date.now() + 60_000;
    let got = 0;
    while (got < count && Date.now() < deadline) {
      for (const m of await consumer.receive(16, 20_000)) {
        process.stdout.write(`got ${m.messageId} ${m.body.toString()}\n`);
        await consumer.ack(m);
        if (sent.has(m.messageId)) got++;
      }
    }
  } finally {
    await consumer.shutdown();
  }
  process.stdout.write('done\n');
}

main().then(() => process.exit(0), (err: unknown) => {
  const e = err as { code?: number; message?: string; cause?: { code?: number; message?: string } };
  const code = e.code ?? e.cause?.code ?? 0;
  process.stdout.write(`error ${code} ${(e.cause?.message ?? e.message ?? String(err)).replace(/\n/g, ' ')}\n`);
  process.exit(2);
});
