/**
 * Runs ali-ons (a third-party pure-JS RocketMQ client) in its own process: ali-ons keeps scheduled tasks
 * alive after close(), so the test runs it here and exits explicitly.
 *
 * usage: node ali-ons-child.js <namesrvAddr> <topic> <count>
 * Produces <count> messages, consumes them back, prints one JSON line {sent, received, errors}, exits 0 on success.
 */
// ali-ons ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ons = require('ali-ons') as {
  Producer: new (opts: Record<string, unknown>) => { ready(): Promise<void>; send(msg: unknown): Promise<{ sendStatus: string; msgId: string }>; close(): Promise<void> };
  Consumer: new (opts: Record<string, unknown>) => {
    ready(): Promise<void>;
    subscribe(topic: string, expr: string, handler: (msg: { body: Buffer; tags: string }) => Promise<void>): void;
    on(event: string, fn: (err: Error) => void): void;
    close(): Promise<void>;
  };
  Message: new (topic: string, tags: string, body: string) => unknown;
};

const httpclient = { request: async () => { throw new Error('no HTTP name-server lookup in tests'); } };

async function main(): Promise<number> {
  const [namesrvAddr, topic, countArg] = process.argv.slice(2);
  const count = Number(countArg ?? 10);
  const common = { httpclient, nameSrv: namesrvAddr, accessKeyId: 'ak', accessKeySecret: 'sk', persistent: false };
  const suffix = `${process.pid}_${Date.now()}`;
  const producer = new ons.Producer({ ...common, producerGroup: `PID_ONS_${suffix}` });
  await producer.ready();
  const sent: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = await producer.send(new ons.Message(topic, 'TagA', `ons-${i}`));
    if (r.sendStatus !== 'SEND_OK') throw new Error(`send status ${r.sendStatus}`);
    sent.push(`ons-${i}`);
  }
  const consumer = new ons.Consumer({ ...common, consumerGroup: `CID_ONS_${suffix}`, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET', rebalanceInterval: 1000 });
  const received = new Set<string>();
  const errors: string[] = [];
  consumer.on('error', (err) => errors.push(String(err)));
  consumer.subscribe(topic, '*', async (msg) => { received.add(msg.body.toString()); });
  await consumer.ready();
  const deadline = Date.now() + 30_000;
  while (received.size < sent.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await consumer.close();
  await producer.close();
  process.stdout.write(`${JSON.stringify({ sent, received: [...received].sort(), errors })}\n`);
  return received.size === sent.length ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => { process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`); process.exit(2); },
);
