/**
 * A chaos producer worker: `node dist/chaos/producer-child.js <namesrv> <topic> <id> <ackFile> [sync|async|orderly] [rate/s]`.
 * Sends messages keyed `p<id>-<seq>` without pause; each message the broker acknowledged (SEND_OK) is written to ackFile
 * as `key<TAB>brokerName<TAB>queueId<TAB>queueOffset<TAB>ackMs<TAB>sentMs` (synchronously, before the next send) so that
 * a kill of anything else never loses the record of an acknowledgement. `orderly` sends one at a time to queue
 * `id % queues` through a MessageQueueSelector (per-queue order is then checkable).
 * Failures (broker down, timeouts) are counted and retried with a new key after a short back-off. Reports progress over
 * IPC; on `{ type: 'stop' }` it shuts down and reports `done`.
 */
import * as fs from 'node:fs';
import { createMessage } from '../protocol/message/message';
import { SendStatus } from '../lib/client/send-result';
import { DefaultMQProducer } from '../lib/producer/default-mq-producer';
import type { MessageQueueSelector } from '../lib/producer/selector/message-queue-selector';

const [namesrv, topic, id, ackFile, mode = 'sync', rateArg = '0'] = process.argv.slice(2);
/** Messages per second (0: as fast as acknowledgements come back). */
const rate = Number(rateArg);

async function main(): Promise<void> {
  const fd = fs.openSync(ackFile, 'a');
  const producer = new DefaultMQProducer({
    producerGroup: `chaos_pg_${id}`, namesrvAddr: namesrv, instanceName: `chaos-p${id}-${process.pid}`,
    sendMsgTimeout: 3000, pollNameServerInterval: 1000, heartbeatBrokerInterval: 1000,
  });
  await producer.start();
  let stopping = false;
  let seq = 0;
  let acked = 0;
  let failed = 0;
  let notOk = 0;
  let lastError = '';
  /** Answers other than SEND_OK by status (SLAVE_NOT_AVAILABLE, FLUSH_SLAVE_TIMEOUT under SYNC_MASTER). */
  const notOkByStatus: Record<string, number> = {};
  const report = (type: 'progress' | 'done'): void => { process.send?.({ type, acked, failed, notOk, notOkByStatus, sent: seq, lastError }); };
  process.on('message', (m: { type?: string }) => { if (m?.type === 'stop') stopping = true; });
  const body = Buffer.alloc(128, 'x');
  const byId: MessageQueueSelector<unknown, number> = { select: (mqs, _msg, n) => mqs[n % mqs.length] };
  const sendOne = async (): Promise<void> => {
    const key = `p${id}-${seq++}`;
    const sentMs = Date.now();
    try {
      const msg = createMessage(topic, body, { keys: [key], tags: 'chaos' });
      const r = mode === 'orderly' ? await producer.send(msg, byId, Number(id)) : await producer.send(msg);
      if (r.sendStatus === SendStatus.SEND_OK) {
        fs.writeSync(fd, `${key}\t${r.messageQueue.brokerName}\t${r.messageQueue.queueId}\t${r.queueOffset}\t${Date.now()}\t${sentMs}\n`);
        acked++;
      } else {
        notOk++;
        notOkByStatus[r.sendStatus] = (notOkByStatus[r.sendStatus] ?? 0) + 1;
      }
    } catch (err) {
      failed++;
      lastError = String((err as Error).message).slice(0, 300);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  let lastReport = 0;
  const ticker = setInterval(() => report('progress'), 250);
  const inflight = mode === 'async' ? 8 : 1;
  const started = Date.now();
  while (!stopping) {
    await Promise.all(Array.from({ length: inflight }, () => sendOne()));
    if (rate > 0) {
      const due = started + (seq / rate) * 1000;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    }
    if (acked - lastReport >= 20) {
      lastReport = acked;
      report('progress');
    }
  }
  clearInterval(ticker);
  await producer.shutdown();
  fs.closeSync(fd);
  report('done');
  process.disconnect?.();
}

main().catch((err: unknown) => {
  process.stderr.write(`producer-child ${id}: ${(err as Error).stack}\n`);
  process.exit(1);
});
